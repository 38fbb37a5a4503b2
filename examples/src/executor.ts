/**
 * The executor on its own, as in the GeminiEx tour: a registry, one batch of calls a model might send (good, an
 * unknown tool, bad arguments, a failing handler, a slow one past its timeout), run in bounded parallel
 * (`executeAll`, at most 3 at once, results in call order, one failure never cancelling the others), then
 * `buildResponses`: one response per call, ids echoed, every error rendered as a JSON object the model can read.
 * No model is involved.
 *
 *   npx -y pnpm@10 example executor
 */
import { Executor, FunctionCall, Registry, Tool } from "@agentfx/core"
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Either, Schema } from "effect"

class UnknownCity extends Schema.TaggedError<UnknownCity>()("UnknownCity", { city: Schema.String }) {}

const celsius: Record<string, number> = { Oslo: 7, Lisbon: 19 }

const getWeather = Tool.make("get_weather", {
  description: "Current temperature of a city in °C",
  parameters: Schema.Struct({ city: Schema.String }),
  failure: UnknownCity,
  handler: ({ city }) => (city in celsius ? Effect.succeed({ city, celsius: celsius[city]! }) : Effect.fail(new UnknownCity({ city })))
})

const convert = Tool.make("convert_currency", {
  description: "Converts an amount between EUR and USD",
  parameters: Schema.Struct({ amount: Schema.Number, from: Schema.Literal("EUR", "USD"), to: Schema.Literal("EUR", "USD") }),
  handler: ({ amount, from, to }) => Effect.succeed(from === to ? amount : from === "EUR" ? amount * 1.08 : amount / 1.08)
})

const report = Tool.make("generate_report", {
  description: "A report that takes too long",
  parameters: Schema.Struct({}),
  timeout: "200 millis",
  handler: () => Effect.as(Effect.sleep("1 minute"), "never")
})

const calls = [
  FunctionCall.make({ id: "c1", name: "get_weather", args: { city: "Oslo" } }),
  FunctionCall.make({ id: "c2", name: "get_weather", args: { city: "Atlantis" } }),
  FunctionCall.make({ id: "c3", name: "convert_currency", args: { amount: 100, from: "EUR", to: "USD" } }),
  FunctionCall.make({ id: "c4", name: "convert_currency", args: { amount: "lots", from: "EUR", to: "GBP" } }),
  FunctionCall.make({ id: "c5", name: "book_flight", args: { to: "Lisbon" } }),
  FunctionCall.make({ id: "c6", name: "generate_report", args: {} })
]

const program = Effect.gen(function* () {
  const registry = yield* Registry.make(getWeather, convert, report)
  const results = yield* Executor.executeAll(registry, calls, { concurrency: 3 })
  for (const [index, result] of results.entries()) {
    const call = calls[index]!
    yield* Console.log(`${call.id} ${call.name}: ${Either.match(result, { onLeft: (error) => error._tag, onRight: () => "ok" })}`)
  }
  // What goes back to the model: one response per call, in call order, each a JSON object.
  const responses = yield* Executor.buildResponses(calls, results)
  for (const response of responses) yield* Console.log(`response ${response.id} ${JSON.stringify(response.response)}`)
})

NodeRuntime.runMain(program)
