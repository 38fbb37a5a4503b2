/**
 * Typed output through the real SDKs against the emulator: each provider's JSON mode on the wire, a decoded
 * `output`, a wrong first answer corrected on the second attempt, and three wrong answers failing with
 * `OutputInvalid`.
 */
import { Agent, LanguageModel, Output, Registry } from "@agentfx/core"
import { Emulator, Policy } from "@agentfx/emulator"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Redacted, Schema, Stream } from "effect"
import * as Gemini from "../src/Gemini.js"
import { bodyOf, modelFor, registry } from "./fixtures.js"

const Report = Schema.Struct({ city: Schema.String, celsius: Schema.Number, advice: Schema.optionalWith(Schema.String, { exact: true }) })
const declaration = Either.getOrThrow(Output.declare(Report))

type Provider = "gemini-3" | "gemini-2.5" | "glm" | "openai"
const providers: ReadonlyArray<Provider> = ["gemini-3", "gemini-2.5", "glm", "openai"]

const modelOf = (provider: Provider, emulator: Emulator.Service): Effect.Effect<LanguageModel.Service> =>
  provider === "gemini-3" || provider === "gemini-2.5"
    ? Gemini.make({ apiKey: Redacted.make(emulator.apiKey), baseUrl: emulator.geminiBaseUrl, model: provider === "gemini-3" ? "gemini-3-flash-preview" : "gemini-2.5-flash" })
    : modelFor(provider, emulator)

/** Runs `effect` with `provider`'s model on a fresh emulator playing `script`; gives its outcome and what was sent. */
const against = <A, E>(provider: Provider, script: ReadonlyArray<Policy.Reply>, effect: Effect.Effect<A, E, LanguageModel.LanguageModel>) =>
  Effect.gen(function* () {
    const emulator = yield* Emulator.make({ policy: Policy.script(script) })
    const model = yield* modelOf(provider, emulator)
    const outcome = yield* Effect.either(Effect.provideService(effect, LanguageModel.LanguageModel, model))
    return { outcome, records: yield* emulator.requests }
  })

const weather = { calls: [{ name: "get_weather", args: { city: "Oslo" } }] }
const good = { text: '{"city": "Oslo", "celsius": 7}' }

for (const provider of providers) {
  describe(`typed output — ${provider}`, () => {
    for (const streaming of [false, true]) {
      it.scoped(`returns the decoded output after the tool calls (${streaming ? "stream" : "generate"})`, () =>
        Effect.gen(function* () {
          const { outcome, records } = yield* against(provider, [weather, good], Agent.run({ registry, prompt: "Weather in Oslo?", output: Report, streaming }))
          expect(outcome).toEqual(expect.objectContaining({ _tag: "Right" }))
          if (outcome._tag === "Right") expect(outcome.right.output).toEqual({ city: "Oslo", celsius: 7 })
          expect(records.map((record) => record.status)).toEqual([200, 200])
        }))
    }

    it.scoped("a wrong first answer is corrected on the second attempt", () =>
      Effect.gen(function* () {
        const { outcome, records } = yield* against(provider, [weather, { text: "It is 7 °C in Oslo." }, good], Agent.run({ registry, prompt: "Weather in Oslo?", output: Report }))
        expect(outcome._tag === "Right" && outcome.right.output).toEqual({ city: "Oslo", celsius: 7 })
        expect(records).toHaveLength(3)
        // The correction reached the model as a user message after its answer.
        const last = records[2]!.request!.transcript
        expect(last[last.length - 2]!.role).toBe("model")
        expect(last[last.length - 1]!.role).toBe("user")
        expect(JSON.stringify(last[last.length - 1])).toContain("Your final answer could not be used")
      }))

    it.scoped("three wrong answers give OutputInvalid", () =>
      Effect.gen(function* () {
        const wrong = { text: '{"city": "Oslo"}' }
        const { outcome, records } = yield* against(provider, [wrong, wrong, wrong, good], Agent.run({ registry, prompt: "Weather in Oslo?", output: Report }))
        expect(outcome._tag === "Left" && outcome.left._tag).toBe("OutputInvalid")
        if (outcome._tag === "Left" && outcome.left._tag === "OutputInvalid") {
          expect(outcome.left.attempts).toBe(3)
          expect(outcome.left.issues).toEqual([{ path: "celsius", message: "is missing" }])
        }
        expect(records).toHaveLength(3)
      }))

    it.scoped("Agent.stream ends with the decoded value", () =>
      Effect.gen(function* () {
        const { outcome } = yield* against(provider, [good], Stream.runCollect(Agent.stream({ registry, prompt: "Weather in Oslo?", output: Report })))
        const events = outcome._tag === "Right" ? Chunk.toReadonlyArray(outcome.right) : []
        expect(events.find((event) => event._tag === "OutputDecoded")).toEqual({ _tag: "OutputDecoded", turn: 1, value: { city: "Oslo", celsius: 7 } })
        expect(events.filter((event) => event._tag === "OutputDelta").length).toBeGreaterThan(0)
      }))
  })
}

describe("typed output on the wire", () => {
  const system = (body: Record<string, unknown>) => JSON.stringify(body.systemInstruction ?? body.messages ?? null)

  it.scoped("Gemini 3: JSON mode with responseJsonSchema beside the function declarations", () =>
    Effect.gen(function* () {
      const { records } = yield* against("gemini-3", [good], Agent.run({ registry, prompt: "go", output: Report }))
      const body = bodyOf(records, 0)
      expect(body.generationConfig).toEqual({ responseMimeType: "application/json", responseJsonSchema: declaration.schema })
      expect(body.tools).toBeDefined()
      expect(system(body)).not.toContain("final answer")
    }))

  it.scoped("Gemini 2.5 with tools: no JSON mode (it refuses both), the schema in the system instruction; without tools, JSON mode", () =>
    Effect.gen(function* () {
      const withTools = bodyOf((yield* against("gemini-2.5", [good], Agent.run({ registry, prompt: "go", output: Report }))).records, 0)
      // (The SDK sends an empty generationConfig when no field of it is set.)
      expect(withTools.generationConfig ?? {}).toEqual({})
      expect(system(withTools)).toContain(JSON.stringify(JSON.stringify(declaration.schema)).slice(1, -1))
      const empty = Registry.unsafeMake()
      const alone = bodyOf((yield* against("gemini-2.5", [good], Agent.run({ registry: empty, prompt: "go", output: Report }))).records, 0)
      expect(alone.generationConfig).toEqual({ responseMimeType: "application/json", responseJsonSchema: declaration.schema })
    }))

  it.scoped("OpenAI: strict json_schema, every property required, the optional one nullable", () =>
    Effect.gen(function* () {
      const body = bodyOf((yield* against("openai", [good], Agent.run({ registry, prompt: "go", output: Report }))).records, 0)
      expect(body.response_format).toEqual({
        type: "json_schema",
        json_schema: {
          name: "output",
          strict: true,
          schema: {
            type: "object",
            required: ["city", "celsius", "advice"],
            properties: { city: { type: "string" }, celsius: { type: "number" }, advice: { anyOf: [{ type: "string" }, { type: "null" }] } },
            additionalProperties: false
          }
        }
      })
      expect(system(body)).not.toContain("final answer")
    }))

  it.scoped("OpenAI: a strict answer's null for the optional field decodes as its absence", () =>
    Effect.gen(function* () {
      const { outcome } = yield* against("openai", [{ text: '{"city": "Oslo", "celsius": 7, "advice": null}' }], Agent.run({ registry, prompt: "go", output: Report }))
      expect(outcome._tag === "Right" && outcome.right.output).toEqual({ city: "Oslo", celsius: 7 })
    }))

  it.scoped("GLM: json_object, the schema in the system message", () =>
    Effect.gen(function* () {
      const body = bodyOf((yield* against("glm", [good], Agent.run({ registry, prompt: "go", output: Report }))).records, 0)
      expect(body.response_format).toEqual({ type: "json_object" })
      expect(system(body)).toContain("final answer")
    }))

  it.scoped("a schema strict mode cannot express fails before anything is sent, naming the path", () =>
    Effect.gen(function* () {
      const Pair = Schema.Struct({ pair: Schema.Tuple(Schema.String, Schema.Number) })
      const { outcome, records } = yield* against("openai", [good], Agent.run({ registry, prompt: "go", output: Pair }))
      expect(outcome._tag === "Left" && outcome.left.message).toBe(
        'output "output" cannot be declared for OpenAI strict mode: at properties/pair: tuple items (a list of schemas) are not supported in strict mode: use one schema for every item'
      )
      expect(records).toHaveLength(0)
    }))

  it.scoped("offline, each provider's final answer is JSON that decodes (the emulator's rule model)", () =>
    Effect.gen(function* () {
      for (const provider of providers) {
        const emulator = yield* Emulator.make()
        const model = yield* modelOf(provider, emulator)
        const result = yield* Agent.run({ registry, prompt: "Tell me about the weather", output: Report }).pipe(Effect.provideService(LanguageModel.LanguageModel, model))
        expect(Object.keys(result.output)).toEqual(["city", "celsius", "advice"])
      }
    }))
})

describe("typed output — the emulator's in-process fetch", () => {
  it.scoped("a JSON-mode request (responseJsonSchema) through the emulator's fetch is answered as over the socket: the offline rule model's JSON decodes, plain and streamed", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.offline })
      const make = (inProcess: boolean) =>
        Gemini.make({ apiKey: Redacted.make(emulator.apiKey), baseUrl: emulator.geminiBaseUrl, model: "gemini-3-flash-preview", ...(inProcess ? { fetch: emulator.fetch } : {}) })
      const outputs = []
      for (const inProcess of [false, true]) {
        for (const streaming of [false, true]) {
          const result = yield* Effect.provideServiceEffect(Agent.run({ registry: Registry.empty, prompt: "Weather in Oslo?", output: Report, streaming }), LanguageModel.LanguageModel, make(inProcess))
          outputs.push(result.output)
        }
      }
      const records = yield* emulator.requests
      expect(records.map((record, i) => [record.status, bodyOf(records, i).generationConfig])).toEqual(
        Array.from({ length: 4 }, () => [200, { responseMimeType: "application/json", responseJsonSchema: declaration.schema }])
      )
      expect(outputs[0]).toEqual(expect.objectContaining({ city: expect.any(String), celsius: expect.any(Number) }))
      expect(outputs).toEqual([outputs[0], outputs[0], outputs[0], outputs[0]])
    }))
})
