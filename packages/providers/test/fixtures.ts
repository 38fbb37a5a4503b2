import { LanguageModel, Registry, Tool, Turn } from "@agentfx/core"
import type { FunctionDeclaration } from "@agentfx/core"
import { Chunk, Clock, Duration as DurationModule, Effect, Layer, Redacted, Schema, TestClock } from "effect"
import type { Duration, Scope } from "effect"
import * as ChatCompletions from "../src/ChatCompletions.js"
import * as Gemini from "../src/Gemini.js"
import * as Glm from "../src/Glm.js"
import * as OpenAI from "../src/OpenAI.js"
import { Emulator } from "@agentfx/emulator"

/** Every test that needs an API key uses this one, so a leak anywhere is easy to find. */
export const sentinel = "sk-SENTINEL-9f8e7d6c5b4a39281706"

export const weatherCalls = { count: 0 }

export const temperatures: Record<string, number> = { Paris: 20, Oslo: 7, Lima: 18 }

export const getWeather = Tool.make("get_weather", {
  description: "Current temperature of a city, in °C",
  parameters: Schema.Struct({ city: Schema.String }),
  handler: ({ city }) =>
    Effect.sync(() => {
      weatherCalls.count++
      return { city, celsius: temperatures[city] ?? 15 }
    })
})

/** Returns a string: it reaches the model wrapped as `{output}`. */
export const getTime = Tool.make("get_time", {
  description: "Local time in an IANA time zone",
  parameters: Schema.Struct({ tz: Schema.String }),
  handler: ({ tz }) => Effect.succeed(`12:00 in ${tz}`)
})

/** Returns an array: it reaches the model wrapped as `{output}`. */
export const listCities = Tool.make("list_cities", {
  description: "The cities with weather data",
  parameters: Schema.Struct({}),
  handler: () => Effect.succeed(Object.keys(temperatures))
})

export const registry = Registry.unsafeMake(getWeather, getTime, listCities)

export const declarations: ReadonlyArray<FunctionDeclaration.FunctionDeclaration> = registry.declarations

export const request = (transcript: LanguageModel.Request["transcript"], extra: Partial<LanguageModel.Request> = {}): LanguageModel.Request => ({
  transcript,
  declarations,
  temperature: 0,
  ...extra
})

export const ask = (text: string) => request([Turn.user(text)])

type Provider = "gemini" | "glm" | "glm-coding" | "openai" | "compatible"

/** The LanguageModel service of `provider`, pointed at `emulator`, with `key` (default: the emulator's). */
export const modelFor = (provider: Provider, emulator: Emulator.Service, key: string = emulator.apiKey): Effect.Effect<LanguageModel.Service> => {
  const apiKey = Redacted.make(key)
  switch (provider) {
    case "gemini":
      return Gemini.make({ apiKey, baseUrl: emulator.geminiBaseUrl })
    case "glm":
      return Glm.make({ apiKey, baseUrl: emulator.glmBaseUrl("general") })
    case "glm-coding":
      return Glm.make({ apiKey, baseUrl: emulator.glmBaseUrl("coding") })
    case "openai":
      return OpenAI.make({ apiKey, baseUrl: emulator.openAIBaseUrl() })
    case "compatible":
      return ChatCompletions.make({ apiKey, baseUrl: emulator.openAIBaseUrl("/custom/base"), model: "local-model" })
  }
}

/** Starts an emulator with `options`, and the provider's model against it. */
export const setup = (
  provider: Provider,
  options: Emulator.Options = {},
  key?: string
): Effect.Effect<{ readonly emulator: Emulator.Service; readonly model: LanguageModel.Service }, never, Scope.Scope> =>
  Effect.gen(function* () {
    const emulator = yield* Emulator.make(options)
    const model = yield* modelFor(provider, emulator, key)
    return { emulator, model }
  })

/** The JSON body the emulator recorded for request `index`, as a plain object. */
export const bodyOf = (records: ReadonlyArray<Emulator.Recorded>, index: number): Record<string, unknown> =>
  records[index]!.body as Record<string, unknown>

export const contentsOf = (records: ReadonlyArray<Emulator.Recorded>, index: number): Array<{ role: string; parts: Array<Record<string, unknown>> }> =>
  bodyOf(records, index).contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>

export const messagesOf = (records: ReadonlyArray<Emulator.Recorded>, index: number): Array<Record<string, unknown>> =>
  bodyOf(records, index).messages as Array<Record<string, unknown>>

/**
 * Waits (in real time: the HTTP exchange is real) until the loop has scheduled a sleep on the TestClock — one that
 * ends within `within` from now when given (a backoff, not the turn timeout of a running attempt).
 */
export const awaitScheduledSleep = (within?: Duration.DurationInput) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const until = within === undefined ? Infinity : now + DurationModule.toMillis(DurationModule.decode(within))
    yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1))).pipe(
      Effect.zipRight(TestClock.sleeps()),
      Effect.repeat({ until: (sleeps) => Chunk.some(sleeps, (at) => at <= until) })
    )
  })

/** Lets the loop's retry happen: waits until it has scheduled a sleep that `by` reaches, then moves the clock by `by`. */
export const advanceWhenScheduled = (by: Duration.DurationInput) => Effect.zipRight(awaitScheduledSleep(by), TestClock.adjust(by))


/** The provider's `LanguageModel` as a layer on a fresh emulator started with `options`, which stays in context too. */
export const onEmulator = (provider: Provider, options: Emulator.Options = {}): Layer.Layer<LanguageModel.LanguageModel | Emulator.Emulator> =>
  Layer.unwrapScoped(
    Effect.map(Emulator.make(options), (emulator) =>
      Layer.merge(Layer.effect(LanguageModel.LanguageModel, modelFor(provider, emulator)), Layer.succeed(Emulator.Emulator, emulator))
    )
  )
