// The README's example, kept compiling and true.
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Logger, Schema } from "effect"
import { Agent, Registry, Tool, Turn } from "../src/index.js"
import { Scripted } from "../src/testing.js"

const getWeather = Tool.make("get_weather", {
  description: "Current temperature of a city in °C",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.Struct({ celsius: Schema.Number }),
  handler: ({ city }) => Effect.succeed({ celsius: city === "Oslo" ? 7 : 20 })
})

describe("README example", () => {
  it.effect("runs as written", () =>
    Effect.gen(function* () {
      const registry = yield* Registry.make(getWeather)
      const result = yield* Agent.run({ registry, system: "Be brief.", prompt: "Weather in Oslo?" })
      expect(result.text).toBe("7 °C in Oslo.")
      expect(result.calls[0]?.response.response).toEqual({ celsius: 7 })
    }).pipe(Effect.provide(Scripted.layer([{ calls: [{ name: "get_weather", args: { city: "Oslo" } }] }, { text: "7 °C in Oslo." }]))))

  it.effect("onCallFinished, as written, logs each call as it finishes", () =>
    Effect.gen(function* () {
      const registry = yield* Registry.make(getWeather)
      const prompt = "Weather in Oslo?"
      const lines: Array<unknown> = []
      const logger = Logger.make(({ message }) => void lines.push(message))
      yield* Agent.run({ registry, prompt, onCallFinished: (call) => Effect.logInfo(`${call.name}: ${Duration.format(call.duration)}`) }).pipe(
        Effect.provide(Logger.replace(Logger.defaultLogger, logger))
      )
      expect(lines).toStrictEqual([["get_weather: 0"]])
    }).pipe(Effect.provide(Scripted.layer([{ calls: [{ name: "get_weather", args: { city: "Oslo" } }] }, { text: "7 °C in Oslo." }]))))

  it.effect("typed output runs as written: the answer that is not JSON is corrected, the next decodes", () =>
    Effect.gen(function* () {
      const getWeather = Tool.make("get_weather", {
        description: "Current temperature of a city in °C",
        parameters: Schema.Struct({ city: Schema.String }),
        handler: ({ city }) => Effect.succeed({ celsius: city === "Oslo" ? 7 : 20 })
      })
      const Report = Schema.Struct({ city: Schema.String, celsius: Schema.Number, advice: Schema.optional(Schema.String) })
      const registry = yield* Registry.make(getWeather)
      const result = yield* Agent.run({ registry, prompt: "Weather in Oslo?", output: Report })
      expect([result.output.celsius, result.output.advice]).toEqual([7, "Take a coat."])
      expect(result.turns).toBe(3)
      expect(Turn.text(result.transcript[4]!)).toMatch(/^Your final answer could not be used/)
    }).pipe(
      Effect.provide(
        Scripted.layer([
          { calls: [{ name: "get_weather", args: { city: "Oslo" } }] },
          { text: "It is 7 °C in Oslo." },
          { text: '{"city": "Oslo", "celsius": 7, "advice": "Take a coat."}' }
        ])
      )
    ))
})
