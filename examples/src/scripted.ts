/**
 * A tool and a scripted model: the smallest whole agent. One tool declared with an Effect Schema, a model that
 * follows a script (call the tool, then answer), and the run's result: the answer, every call, the token usage.
 * Nothing leaves the process; swap the scripted layer for `Gemini.layerConfig()` to talk to a real model.
 *
 *   npx -y pnpm@10 example scripted
 */
import { Agent, Registry, Tool } from "@agentfx/core"
import { Scripted } from "@agentfx/core/testing"
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Either, Schema } from "effect"

const getWeather = Tool.make("get_weather", {
  description: "Current temperature of a city in °C",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.Struct({ city: Schema.String, celsius: Schema.Number }),
  handler: ({ city }) => Effect.succeed({ city, celsius: city === "Oslo" ? 7 : 20 })
})

const program = Effect.gen(function* () {
  const registry = yield* Registry.make(getWeather)
  const result = yield* Agent.run({ registry, system: "Be brief.", prompt: "What is the weather in Oslo?" })
  for (const call of result.calls) {
    const outcome = Either.match(call.result, { onLeft: (error) => `error ${error.message}`, onRight: (value) => JSON.stringify(value) })
    yield* Console.log(`call ${call.name}(${JSON.stringify(call.args)}) → ${outcome}`)
  }
  yield* Console.log(`answer: ${result.text}`)
  yield* Console.log(`stopped: ${result.stopReason._tag} after ${result.turns} model turns`)
})

// The script: the first model turn calls the tool, the second answers with text.
const model = Scripted.layer([{ calls: [{ name: "get_weather", args: { city: "Oslo" } }] }, { text: "It is 7 °C in Oslo." }])

NodeRuntime.runMain(program.pipe(Effect.provide(model)))
