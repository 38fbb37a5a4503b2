/**
 * A tour of the executor: a few tools, one batch of calls (good, unknown, invalid, failing, slow), run
 * sequentially and then in bounded parallel, each call printed with its result or typed error and timing.
 */
import { Executor, FunctionCall, Registry, Tool } from "@agentfx/core"
import { Duration, Effect, Either, Schema } from "effect"

class UnknownCity extends Schema.TaggedError<UnknownCity>()("UnknownCity", { city: Schema.String }) {}

const temperatures: Record<string, number> = { Oslo: 7, Lisbon: 19, Nairobi: 24 }

const getWeather = Tool.make("get_weather", {
  description: "Current temperature of a city in °C",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.Struct({ city: Schema.String, celsius: Schema.Number }),
  failure: UnknownCity,
  handler: ({ city }) =>
    Effect.sleep("40 millis").pipe(
      Effect.zipRight(city in temperatures ? Effect.succeed({ city, celsius: temperatures[city]! }) : Effect.fail(new UnknownCity({ city })))
    )
})

const convert = Tool.make("convert_currency", {
  description: "Converts an amount between EUR and USD",
  parameters: Schema.Struct({ amount: Schema.Number, from: Schema.Literal("EUR", "USD"), to: Schema.Literal("EUR", "USD") }),
  handler: ({ amount, from, to }) => Effect.as(Effect.sleep("40 millis"), from === to ? amount : from === "EUR" ? amount * 1.08 : amount / 1.08)
})

const report = Tool.make("generate_report", {
  description: "A slow report that times out",
  parameters: Schema.Struct({}),
  timeout: "100 millis",
  handler: () => Effect.as(Effect.sleep("5 seconds"), "never")
})

const calls: ReadonlyArray<FunctionCall.FunctionCall> = [
  FunctionCall.make({ id: "c1", name: "get_weather", args: { city: "Oslo" } }),
  FunctionCall.make({ id: "c2", name: "get_weather", args: { city: "Atlantis" } }),
  FunctionCall.make({ id: "c3", name: "convert_currency", args: { amount: 100, from: "EUR", to: "USD" } }),
  FunctionCall.make({ id: "c4", name: "convert_currency", args: { amount: "lots", from: "EUR", to: "GBP" } }),
  FunctionCall.make({ id: "c5", name: "book_flight", args: { to: "Lisbon" } }),
  FunctionCall.make({ id: "c6", name: "generate_report", args: {} }),
  FunctionCall.make({ id: "c7", name: "get_weather", args: { city: "Nairobi" } })
]

const show = (value: unknown) => JSON.stringify(value)
const ms = (duration: Duration.Duration) => `${Duration.toMillis(duration).toFixed(1)} ms`

export const executorTour = Effect.gen(function* () {
  const registry = yield* Registry.make(getWeather, convert, report)
  for (const concurrency of ["sequential", 4] as const) {
    console.log(`\nExecutor batch of ${calls.length} calls, concurrency ${concurrency}`)
    const [total] = yield* Effect.timed(
      Executor.executeAll(registry, calls, {
        concurrency,
        onFinish: (call, result, duration) =>
          Effect.sync(() => {
            const outcome = Either.match(result, {
              onRight: (value) => `ok     ${show(value)}`,
              onLeft: (error) => `${error._tag.padEnd(16)} ${error.message}`
            })
            console.log(`  ${call.id} ${call.name}(${show(call.args)}) → ${outcome}  [${ms(duration)}]`)
          })
      })
    )
    console.log(`  total ${ms(total)}`)
  }
})
