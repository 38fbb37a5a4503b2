import { Agent, LanguageModel, ModelError, Transcript, Turn } from "@agentfx/core"
import type { FunctionCall } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Either, Layer, Redacted, Stream } from "effect"
import * as Gemini from "../src/Gemini.js"
import { Emulator, Fault, Policy } from "@agentfx/emulator"
import { ask, contentsOf, registry, request, setup } from "./fixtures.js"

const parallel: Policy.Step = {
  calls: [
    { name: "get_weather", args: { city: "Paris" } },
    { name: "get_time", args: { tz: "Europe/Paris" } }
  ]
}

const threeTurns: ReadonlyArray<Policy.Reply> = [
  parallel,
  { calls: [{ name: "get_weather", args: { city: "Oslo" } }, { name: "list_cities", args: {} }] },
  { text: "Paris is 20 °C at 12:00; Oslo is 7 °C." }
]

describe("Gemini layer — the full loop against the emulator", () => {
  for (const streaming of [false, true]) {
    it.scoped(`parallel calls over three turns, signatures echoed verbatim (${streaming ? "streaming" : "plain"})`, () =>
      Effect.gen(function* () {
        const { emulator, model } = yield* setup("gemini", { policy: Policy.script(threeTurns) })
        const result = yield* Agent.run({ registry, prompt: "Weather in Paris and Oslo?", streaming }).pipe(
          Effect.provideService(LanguageModel.LanguageModel, model)
        )
        expect(result.text).toBe("Paris is 20 °C at 12:00; Oslo is 7 °C.")
        expect(result.stopReason).toEqual({ _tag: "Finished" })
        expect(result.calls.map((call) => call.name)).toEqual(["get_weather", "get_time", "get_weather", "list_cities"])
        expect(Either.isRight(Transcript.validate(result.transcript))).toBe(true)
        yield* emulator.assertConsumed

        const records = yield* emulator.requests
        expect(records.map((record) => [record.status, record.stream])).toEqual([
          [200, streaming],
          [200, streaming],
          [200, streaming]
        ])
        // The emulator issued a signature on the first call of each call turn and checked it came back on it.
        const modelTurns = result.transcript.filter((turn) => turn.role === "model")
        const firstCalls = modelTurns.slice(0, 2).map((turn) => Turn.calls(turn)[0]!)
        for (const call of firstCalls) expect(typeof call.metadata?.thoughtSignature).toBe("string")
        for (const turn of modelTurns.slice(0, 2)) expect(Turn.calls(turn)[1]!.metadata?.thoughtSignature).toBeUndefined()
        const wire = contentsOf(records, 2)
        expect(wire.map((content) => content.role)).toEqual(["user", "model", "user", "model", "user"])
        expect(wire[1]!.parts[0]!.thoughtSignature).toBe(firstCalls[0]!.metadata?.thoughtSignature)
        expect(wire[3]!.parts[0]!.thoughtSignature).toBe(firstCalls[1]!.metadata?.thoughtSignature)
        expect(wire[1]!.parts[1]!.thoughtSignature).toBeUndefined()
        // Ids echoed, one response per call, all in one user turn, results wrapped into objects.
        expect(wire[2]!.parts).toEqual([
          { functionResponse: { id: "call_0_0", name: "get_weather", response: { city: "Paris", celsius: 20 } } },
          { functionResponse: { id: "call_0_1", name: "get_time", response: { output: "12:00 in Europe/Paris" } } }
        ])
        expect(wire[4]!.parts[1]).toEqual({ functionResponse: { id: "call_1_1", name: "list_cities", response: { output: ["Paris", "Oslo", "Lima"] } } })
        expect(contentsOf(records, 2)[0]).toEqual({ role: "user", parts: [{ text: "Weather in Paris and Oslo?" }] })
      }))
  }

  it.scoped("declarations go out as parametersJsonSchema, the system instruction and tool choice mapped", () =>
    Effect.gen(function* () {
      const { emulator, model } = yield* setup("gemini", { policy: Policy.script([{ text: "ok" }]) })
      yield* model.generate({ ...ask("hi"), system: "Be terse.", toolChoice: { allowed: ["get_time"] }, maxOutputTokens: 64 })
      const [record] = yield* emulator.requests
      const body = record!.body as Record<string, unknown>
      expect(body.systemInstruction).toEqual({ role: "user", parts: [{ text: "Be terse." }] })
      expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_time"] } })
      expect(body.generationConfig).toEqual({ temperature: 0, maxOutputTokens: 64 })
      const tools = body.tools as Array<{ functionDeclarations: Array<Record<string, unknown>> }>
      expect(tools[0]!.functionDeclarations[0]).toEqual({
        name: "get_weather",
        description: "Current temperature of a city, in °C",
        parametersJsonSchema: { type: "object", required: ["city"], properties: { city: { type: "string" } }, additionalProperties: false }
      })
      expect(tools[0]!.functionDeclarations.every((declaration) => !("parameters" in declaration))).toBe(true)
      expect(record!.request?.toolChoice).toEqual({ allowed: ["get_time"] })
    }))

  it.scoped("calls without ids get unique synthetic ids that never go on the wire", () =>
    Effect.gen(function* () {
      const { emulator, model } = yield* setup("gemini", { policy: Policy.script(threeTurns) })
      yield* emulator.inject(Fault.omitCallIds, { times: 2 })
      const result = yield* Agent.run({ registry, prompt: "Weather?" }).pipe(Effect.provideService(LanguageModel.LanguageModel, model))
      const ids = result.calls.map((call) => call.id)
      expect(ids).toEqual(["gemini_call_1", "gemini_call_2", "gemini_call_3", "gemini_call_4"])
      const wire = contentsOf(yield* emulator.requests, 2)
      for (const index of [1, 3]) for (const part of wire[index]!.parts) expect(part.functionCall).not.toHaveProperty("id")
      for (const index of [2, 4]) for (const part of wire[index]!.parts) expect(part.functionResponse).not.toHaveProperty("id")
      expect(result.text).toBe("Paris is 20 °C at 12:00; Oslo is 7 °C.")
    }))

  it.scoped("a streamed signature on an empty-text part after a call is kept on its own part and echoed", () =>
    Effect.gen(function* () {
      const signed = (signature: string) => ({ thoughtSignature: signature })
      const { emulator, model } = yield* setup("gemini", {
        policy: Policy.script([
          {
            parts: [
              Turn.Text.make({ text: "Let me check. " }),
              { _tag: "FunctionCall", id: "fc-1", name: "get_weather", args: { city: "Lima" } } as FunctionCall.FunctionCall,
              Turn.Text.make({ text: "", metadata: signed("dGFpbA==") })
            ]
          },
          { text: "18 °C in Lima." }
        ])
      })
      const first = yield* LanguageModel.collect(model.stream(ask("Lima?")))
      expect(first.turn.parts.map((part) => part._tag)).toEqual(["Text", "FunctionCall", "Text"])
      expect(first.turn.parts[2]).toEqual(Turn.Text.make({ text: "", metadata: signed("dGFpbA==") }))
      const responses: Turn.Turn = {
        role: "user",
        parts: [{ _tag: "FunctionResponse", id: "fc-1", name: "get_weather", response: { celsius: 18 }, isError: false }]
      }
      const second = yield* LanguageModel.collect(model.stream(request([Turn.user("Lima?"), first.turn, responses])))
      expect(Turn.text(second.turn)).toBe("18 °C in Lima.")
      // The answer's own signature arrived on a final empty-text chunk: merged onto the text it ends.
      expect(second.turn.parts).toHaveLength(1)
      const merged = second.turn.parts[0]!
      expect(merged._tag === "Text" && typeof merged.metadata?.thoughtSignature).toBe("string")
      const wire = contentsOf(yield* emulator.requests, 1)
      expect(wire[1]!.parts).toEqual([
        { text: "Let me check. " },
        { functionCall: { id: "fc-1", name: "get_weather", args: { city: "Lima" } }, thoughtSignature: Turn.calls(first.turn)[0]!.metadata!.thoughtSignature },
        { text: "", thoughtSignature: "dGFpbA==" }
      ])
    }))

  it.scoped("arguments with a __proto__ key reach the executor as sent, and are refused there", () =>
    Effect.gen(function* () {
      const args = JSON.parse('{"__proto__":{"admin":true},"city":"Paris"}') as Record<string, unknown>
      const { model } = yield* setup("gemini", {
        policy: Policy.script([{ parts: [{ _tag: "FunctionCall", id: "fc-p", name: "get_weather", args }] }, { text: "ok" }])
      })
      const result = yield* Agent.run({ registry, prompt: "weather" }).pipe(Effect.provideService(LanguageModel.LanguageModel, model))
      expect(result.calls[0]!.response.response).toMatchObject({
        error: { type: "InvalidArguments", issues: [{ path: "__proto__", message: 'the key "__proto__" is not allowed' }] }
      })
      expect(({} as Record<string, unknown>).admin).toBeUndefined()
    }))

  it.scoped("streamed text arrives as deltas that concatenate to the final text", () =>
    Effect.gen(function* () {
      const { model } = yield* setup("gemini", { policy: Policy.script([{ reasoning: "Thinking about it.", text: "One two three four." }]) })
      const parts = yield* Stream.runCollect(model.stream(ask("count")))
      const list = [...parts]
      const text = list.flatMap((part) => (part._tag === "TextDelta" ? [part.text] : [])).join("")
      expect(list.filter((part) => part._tag === "TextDelta").length).toBeGreaterThan(1)
      expect(text).toBe("One two three four.")
      expect(list.find((part) => part._tag === "ReasoningDelta")).toEqual({ _tag: "ReasoningDelta", text: "Thinking about it." })
      const finish = list[list.length - 1]!
      expect(finish._tag).toBe("Finish")
      if (finish._tag !== "Finish") return
      expect(Turn.text(finish.response.turn)).toBe(text)
      expect(finish.response.finishReason).toBe("stop")
      expect(finish.response.usage.totalTokens).toBeGreaterThan(0)
    }))

  it.scoped("frames split across TCP writes parse the same", () =>
    Effect.gen(function* () {
      const { emulator, model } = yield* setup("gemini", { policy: Policy.script([parallel, parallel]) })
      const plain = yield* LanguageModel.collect(model.stream(ask("a")))
      yield* emulator.inject(Fault.splitChunks)
      const split = yield* LanguageModel.collect(model.stream(ask("b")))
      expect(Turn.calls(split.turn).map((call) => [call.name, call.args])).toEqual(Turn.calls(plain.turn).map((call) => [call.name, call.args]))
      expect((yield* emulator.requests)[1]!.faults).toEqual([Fault.splitChunks])
    }))

  it.scoped("usage maps to the neutral usage, reasoning tokens included", () =>
    Effect.gen(function* () {
      const { model } = yield* setup("gemini", {
        policy: Policy.script([{ text: "ok", usage: { inputTokens: 40, outputTokens: 12, reasoningTokens: 5, cachedTokens: 8, totalTokens: 52 } }])
      })
      const response = yield* model.generate(ask("hi"))
      expect(response.usage).toEqual({ inputTokens: 40, outputTokens: 12, reasoningTokens: 5, cachedTokens: 8, totalTokens: 52 })
    }))
})

describe("Gemini layer — strictness of the emulator, seen through the layer", () => {
  it.scoped("a history whose call lost its thought signature is rejected: InvalidRequest with Gemini's message", () =>
    Effect.gen(function* () {
      const { emulator, model } = yield* setup("gemini", { policy: Policy.script([parallel, { text: "done" }]) })
      const first = yield* model.generate(ask("Weather?"))
      const stripped: Turn.Turn = {
        role: "model",
        parts: first.turn.parts.map((part) => (part._tag === "FunctionCall" ? { ...part, metadata: undefined } : part))
      }
      const responses: Turn.Turn = {
        role: "user",
        parts: Turn.calls(first.turn).map((call) => ({ _tag: "FunctionResponse", id: call.id, name: call.name, response: { ok: true }, isError: false }))
      }
      const error = yield* Effect.flip(model.generate(request([Turn.user("Weather?"), stripped, responses])))
      expect(error._tag).toBe("InvalidRequest")
      expect(error).toMatchObject({ status: 400 })
      expect("message" in error && error.message).toContain("INVALID_ARGUMENT: Function call is missing a thought_signature in functionCall parts.")
      expect("message" in error && error.message).toContain("function call `default_api:get_weather` , position 2")
      // The same history with the signature kept is accepted.
      const accepted = yield* model.generate(request([Turn.user("Weather?"), first.turn, responses]))
      expect(Turn.text(accepted.turn)).toBe("done")
      expect((yield* emulator.requests).map((record) => record.status)).toEqual([200, 400, 200])
    }))

  it.scoped("a response turn that does not follow its call turn is rejected with Gemini's message", () =>
    Effect.gen(function* () {
      const { model } = yield* setup("gemini", { signatures: false })
      const orphan: Turn.Turn = {
        role: "user",
        parts: [{ _tag: "FunctionResponse", id: "x", name: "get_weather", response: { celsius: 1 }, isError: false }]
      }
      const error = yield* Effect.flip(model.generate(request([Turn.user("hi"), orphan])))
      expect(error).toMatchObject({
        _tag: "InvalidRequest",
        message: "INVALID_ARGUMENT: Please ensure that function response turn comes immediately after a function call turn."
      })
    }))
})

describe("Gemini layer — errors", () => {
  const cases: ReadonlyArray<readonly [string, Fault.Fault, Record<string, unknown>]> = [
    ["429 per-day quota (even with a RetryInfo)", Fault.dailyQuota(), { _tag: "QuotaExhausted", status: 429 }],
    ["400 API key not valid", Fault.unauthorized(), { _tag: "Unauthorized", status: 400 }],
    ["403", Fault.status(403), { _tag: "Unauthorized", status: 403 }],
    ["400", Fault.status(400, { message: "bad" }), { _tag: "InvalidRequest", status: 400, message: "INVALID_ARGUMENT: bad" }],
    ["404", Fault.status(404), { _tag: "InvalidRequest", status: 404 }],
    ["504", Fault.status(504), { _tag: "Unavailable", status: 504 }]
  ]
  for (const streaming of [false, true]) {
    for (const [name, fault, expected] of cases) {
      it.scoped(`${name} → ${expected._tag} (${streaming ? "stream" : "generate"})`, () =>
        Effect.gen(function* () {
          const { emulator, model } = yield* setup("gemini", { policy: Policy.script([{ text: "never" }]) })
          yield* emulator.inject(fault)
          const error = yield* Effect.flip(streaming ? LanguageModel.collect(model.stream(ask("hi"))) : model.generate(ask("hi")))
          expect(error).toMatchObject(expected)
          expect((yield* emulator.requests)).toHaveLength(1)
        }))
    }
  }

  it.scoped("blocked prompts, SAFETY answers and malformed calls", () =>
    Effect.gen(function* () {
      const { model } = yield* setup("gemini", {
        policy: Policy.script([
          { error: new ModelError.Blocked({ message: "no" }) },
          { text: "partial", finishReason: "safety" },
          { error: new ModelError.MalformedResponse({ message: "bad call" }) },
          Policy.withFaults(parallel, Fault.malformedArguments("invalid"))
        ])
      })
      expect(yield* Effect.flip(model.generate(ask("a")))).toMatchObject({ _tag: "Blocked", message: "the prompt was blocked (SAFETY)" })
      expect(yield* Effect.flip(model.generate(ask("b")))).toMatchObject({ _tag: "Blocked", message: "the answer was blocked (SAFETY)" })
      const malformed = yield* Effect.flip(model.generate(ask("c")))
      expect(malformed._tag).toBe("MalformedResponse")
      expect(malformed.retryable).toBe(true)
      expect(yield* Effect.flip(LanguageModel.collect(model.stream(ask("d"))))).toMatchObject({ _tag: "MalformedResponse" })
    }))

  it.scoped("an error event inside the stream is classified like the same error before it", () =>
    Effect.gen(function* () {
      const { emulator, model } = yield* setup("gemini", { policy: Policy.script([{ text: "one two three" }]) })
      yield* emulator.inject(Fault.errorMidStream(1, Fault.overloaded()))
      const error = yield* Effect.flip(LanguageModel.collect(model.stream(ask("count"))))
      expect(error).toMatchObject({ _tag: "Overloaded", status: 503, message: "UNAVAILABLE: The model is overloaded. Please try again later." })
    }))

  it.scoped("a declaration Gemini cannot express is InvalidRequest before anything is sent", () =>
    Effect.gen(function* () {
      const { emulator, model } = yield* setup("gemini")
      const recursive = {
        name: "tree",
        description: "recursive",
        parameters: { $ref: "#/$defs/Node", $defs: { Node: { type: "object", properties: { child: { $ref: "#/$defs/Node" } } } } }
      }
      const error = yield* Effect.flip(model.generate({ transcript: [Turn.user("x")], declarations: [recursive] }))
      expect(error._tag).toBe("InvalidRequest")
      expect(yield* emulator.requests).toHaveLength(0)
    }))
})

describe("Gemini layer — configuration", () => {
  const withEnv = (env: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

  it.scoped("the key comes from GEMINI_API_KEY, else GOOGLE_API_KEY; model and base URL are overridable", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.fromFunction((request) => ({ text: request.model })) })
      const environments: ReadonlyArray<Record<string, string>> = [{ GEMINI_API_KEY: emulator.apiKey }, { GEMINI_API_KEY: "", GOOGLE_API_KEY: emulator.apiKey }]
      for (const env of environments) {
        const model = yield* Layer.build(Gemini.layerConfig({ model: "gemini-3-pro-preview" })).pipe(
          Effect.map((context) => Context.get(context, LanguageModel.LanguageModel)),
          withEnv({ ...env, GEMINI_BASE_URL: emulator.geminiBaseUrl })
        )
        expect(model.model).toBe("gemini-3-pro-preview")
        expect(Turn.text((yield* model.generate(ask("which model?"))).turn)).toBe("gemini-3-pro-preview")
      }
    }))

  it.effect("a missing key is a ConfigError naming the variables, not a crash", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Effect.scoped(Layer.build(Gemini.layerConfig())).pipe(withEnv({})))
      expect(String(error)).toContain("GEMINI_API_KEY")
      expect(String(error)).toContain("GOOGLE_API_KEY")
    }))

  it.scoped("extra request settings and the API version pass through to the wire", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ text: "ok" }]) })
      const model = yield* Gemini.make({
        apiKey: Redacted.make(emulator.apiKey),
        baseUrl: emulator.geminiBaseUrl,
        apiVersion: "v1alpha",
        model: "gemini-3-flash",
        config: { thinkingConfig: { includeThoughts: true }, topK: 3 }
      })
      yield* model.generate(ask("hi"))
      const [record] = yield* emulator.requests
      expect(record!.path).toBe("/v1alpha/models/gemini-3-flash:generateContent")
      expect((record!.body as { generationConfig: object }).generationConfig).toEqual({ temperature: 0, topK: 3, thinkingConfig: { includeThoughts: true } })
    }))

  it.effect("the service reports its provider and model", () =>
    Effect.gen(function* () {
      const model = yield* Gemini.make({ apiKey: Redacted.make("k") })
      expect([model.provider, model.model]).toEqual(["gemini", Gemini.defaultModel])
    }))
})
