import { Agent, LanguageModel, ModelError } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { Cause, ConfigProvider, Context, Effect, Exit, Fiber, Layer, Logger, Stream } from "effect"
import * as Gemini from "../src/Gemini.js"
import * as Glm from "../src/Glm.js"
import * as OpenAI from "../src/OpenAI.js"
import { Emulator, Fault, Policy } from "@agentfx/emulator"
import { ask, modelFor, registry, sentinel, setup } from "./fixtures.js"

const providers = ["gemini", "glm", "openai"] as const

/** A server that echoes the key it was sent in its error body (some do). */
const echoing = Fault.status(500, { body: { error: { code: 500, message: `upstream rejected the key ${sentinel}`, status: "INTERNAL" } } })

/** Faults that replace the answer (the policy's script is not used). */
const answerFaults: ReadonlyArray<Fault.Fault> = [
  Fault.rateLimited({ retryAfter: "1 second" }),
  Fault.quotaExhausted(),
  Fault.overloaded(),
  Fault.unauthorized(),
  Fault.glm("1113"),
  Fault.status(400, { message: `bad request for ${sentinel}` }),
  echoing,
  Fault.disconnect
]

const steps: ReadonlyArray<Policy.Step> = [
  { error: new ModelError.Blocked({ message: "blocked" }) },
  { error: new ModelError.MalformedResponse({ message: "malformed" }) },
  { text: "x", finishReason: "safety" }
]

const leaks = (value: unknown): boolean => {
  const texts = [JSON.stringify(value), String(value), value instanceof Error ? value.message + (value.stack ?? "") : ""]
  return texts.some((text) => text.includes(sentinel))
}

describe("API keys never appear in errors, logs, transcripts or events", () => {
  for (const provider of providers) {
    it.scoped(`every error path of ${provider} (generate and stream) is free of the key`, () =>
      Effect.gen(function* () {
        const logs: Array<string> = []
        const text: Policy.Step = { text: "one two three" }
        // Per mode: a text cut mid-stream, (streams only) a text ended by an echoing error event, then the error steps.
        const { emulator, model } = yield* setup(provider, { apiKey: sentinel, policy: Policy.script([text, ...steps, text, text, ...steps]) })
        const attempt = (streaming: boolean) =>
          (streaming ? LanguageModel.collect(model.stream(ask("hi"))) : model.generate(ask("hi"))).pipe(
            Effect.exit,
            Effect.provide(Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => logs.push(String(message))))),
            Effect.map((exit) => {
              expect(Exit.isFailure(exit)).toBe(true)
              if (Exit.isSuccess(exit)) return
              expect(leaks(Cause.squash(exit.cause)), Cause.pretty(exit.cause)).toBe(false)
              expect(Cause.pretty(exit.cause)).not.toContain(sentinel)
              failures.push(Cause.squash(exit.cause))
            })
          )
        const failures: Array<unknown> = []
        for (const streaming of [false, true]) {
          for (const fault of answerFaults) {
            yield* emulator.inject(fault)
            yield* attempt(streaming)
          }
          yield* emulator.inject(Fault.dropMidStream(1))
          yield* attempt(streaming)
          if (streaming) {
            yield* emulator.inject(Fault.errorMidStream(1, echoing))
            yield* attempt(streaming)
          }
          for (let i = 0; i < steps.length; i++) yield* attempt(streaming)
        }
        yield* emulator.assertConsumed
        // The echoing bodies really reached the layer (as Unavailable), and were scrubbed there.
        const scrubbed = failures.filter((error) => error instanceof Error && error.message.includes("upstream rejected the key [redacted]"))
        expect(scrubbed.length).toBe(3)
        // A client with the sentinel against a server expecting another key: the wrong-key path.
        const other = yield* Emulator.make()
        const wrong = yield* modelFor(provider, other, sentinel)
        const exit = yield* Effect.exit(wrong.generate(ask("hi")))
        expect(exit).toMatchObject({ cause: { error: { _tag: "Unauthorized" } } })
        expect(Exit.isFailure(exit) && Cause.pretty(exit.cause).includes(sentinel)).toBe(false)
        // Nothing the emulator recorded holds the key either (apart from the faults this test wrote it into).
        const records = (yield* emulator.requests).map((record) => ({ ...record, faults: [], error: undefined }))
        expect(records.length).toBe(2 * (answerFaults.length + 1 + steps.length) + 1)
        expect(JSON.stringify(records)).not.toContain(sentinel)
        expect(logs.join("\n")).not.toContain(sentinel)
      }))
  }

  it.scoped("issue 35 item 14: a server that echoes the key upper-cased, lower-cased or as its first 12 characters: none of them in any provider's error", () =>
    Effect.gen(function* () {
      const echoes = [sentinel.toUpperCase(), sentinel.toLowerCase(), sentinel.slice(0, 12), `${sentinel.slice(0, 12).toLowerCase()}…`]
      for (const provider of providers) {
        const { emulator, model } = yield* setup(provider, { apiKey: sentinel, policy: Policy.script([]) })
        for (const echo of echoes) {
          for (const streaming of [false, true]) {
            yield* emulator.inject(Fault.status(400, { body: { error: { code: 400, message: `API key not valid: ${echo}`, status: "INVALID_ARGUMENT" } } }))
            const error = yield* Effect.flip(streaming ? LanguageModel.collect(model.stream(ask("hi"))) : model.generate(ask("hi")))
            expect(error.message, `${provider}, ${streaming ? "stream" : "generate"}`).toContain("API key not valid: [redacted]")
            const rendered = `${error.message}\n${JSON.stringify(error)}\n${String(error)}`.toLowerCase()
            expect(rendered).not.toContain(sentinel.slice(0, 8).toLowerCase())
          }
        }
      }
    }))

  it.scoped("a run's result, transcript and events hold no key", () =>
    Effect.gen(function* () {
      for (const provider of providers) {
        const { model } = yield* setup(provider, {
          apiKey: sentinel,
          policy: Policy.script([{ calls: [{ name: "get_weather", args: { city: "Paris" } }] }, { text: "done" }])
        })
        const events = yield* Agent.stream({ registry, prompt: "weather" }).pipe(Stream.provideService(LanguageModel.LanguageModel, model), Stream.runCollect)
        expect(JSON.stringify([...events])).not.toContain(sentinel)
        expect(JSON.stringify(model)).not.toContain(sentinel)
      }
    }))

  it.scoped("keys read from the environment stay redacted", () =>
    Effect.gen(function* () {
      const env = ConfigProvider.fromMap(new Map([["GEMINI_API_KEY", sentinel], ["ZAI_API_KEY", sentinel], ["OPENAI_API_KEY", sentinel]]))
      for (const config of [Gemini.config, Glm.config, OpenAI.config]) {
        const options = yield* Effect.withConfigProvider(config, env)
        expect(String(options.apiKey)).toBe("<redacted>")
        expect(JSON.stringify(options)).not.toContain(sentinel)
        expect(`${options.apiKey}`).not.toContain(sentinel)
      }
      const model = yield* Layer.build(Gemini.layerConfig({ baseUrl: "http://127.0.0.1:1" })).pipe(
        Effect.map((context) => Context.get(context, LanguageModel.LanguageModel)),
        Effect.withConfigProvider(env)
      )
      const fiber = yield* Effect.fork(model.generate(ask("x")))
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isFailure(exit) && Cause.pretty(exit.cause).includes(sentinel)).toBe(false)
    }))
})
