import { Agent, LanguageModel, ModelError, Transcript, Turn } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Either, Layer, Redacted, Stream } from "effect"
import * as ChatCompletions from "../src/ChatCompletions.js"
import * as Glm from "../src/Glm.js"
import * as OpenAI from "../src/OpenAI.js"
import { Emulator, Fault, Policy } from "@agentfx/emulator"
import { ask, messagesOf, registry, request, setup, weatherCalls } from "./fixtures.js"

const parallel: Policy.Step = {
  reasoning: "Two tools at once. ",
  calls: [
    { name: "get_weather", args: { city: "Paris" } },
    { name: "get_time", args: { tz: "Europe/Paris" } }
  ]
}

const threeTurns: ReadonlyArray<Policy.Reply> = [
  parallel,
  { reasoning: "Now Oslo.", calls: [{ name: "get_weather", args: { city: "Oslo" } }, { name: "list_cities", args: {} }] },
  { text: "Paris is 20 °C at 12:00; Oslo is 7 °C." }
]

const run = (model: LanguageModel.Service, options: Partial<Agent.Options<never>> = {}) =>
  Agent.run({ registry, prompt: "Weather in Paris and Oslo?", ...options }).pipe(Effect.provideService(LanguageModel.LanguageModel, model))

describe("GLM / OpenAI-compatible layer — the full loop against the emulator", () => {
  for (const provider of ["glm", "glm-coding", "openai", "compatible"] as const) {
    for (const streaming of [false, true]) {
      it.scoped(`parallel calls over three turns (${provider}, ${streaming ? "streaming" : "plain"})`, () =>
        Effect.gen(function* () {
          const { emulator, model } = yield* setup(provider, { policy: Policy.script(threeTurns) })
          const result = yield* run(model, { streaming })
          expect(result.text).toBe("Paris is 20 °C at 12:00; Oslo is 7 °C.")
          expect(result.calls.map((call) => [call.name, call.args])).toEqual([
            ["get_weather", { city: "Paris" }],
            ["get_time", { tz: "Europe/Paris" }],
            ["get_weather", { city: "Oslo" }],
            ["list_cities", {}]
          ])
          expect(Either.isRight(Transcript.validate(result.transcript))).toBe(true)
          yield* emulator.assertConsumed
          const records = yield* emulator.requests
          expect(records.map((record) => record.status)).toEqual([200, 200, 200])
          expect(records[0]!.flavour).toBe(provider.startsWith("glm") ? "glm" : "openai")
          expect(records[0]!.path).toBe(
            { glm: "/api/paas/v4", "glm-coding": "/api/coding/paas/v4", openai: "/v1", compatible: "/custom/base" }[provider] + "/chat/completions"
          )
          const messages = messagesOf(records, 2)
          expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "tool", "assistant", "tool", "tool"])
          expect(messages[2]).toEqual({ role: "tool", tool_call_id: "call_0_0", content: JSON.stringify({ city: "Paris", celsius: 20 }) })
          expect(messages[3]).toEqual({ role: "tool", tool_call_id: "call_0_1", content: JSON.stringify({ output: "12:00 in Europe/Paris" }) })
          expect(messages[6]).toEqual({ role: "tool", tool_call_id: "call_1_1", content: JSON.stringify({ output: ["Paris", "Oslo", "Lima"] }) })
          const assistant = messages[1]!
          expect(assistant.tool_calls).toEqual([
            { id: "call_0_0", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
            { id: "call_0_1", type: "function", function: { name: "get_time", arguments: '{"tz":"Europe/Paris"}' } }
          ])
          if (provider.startsWith("glm")) {
            // GLM's interleaved thinking: the reasoning goes back with the tool calls, unchanged.
            expect(assistant.reasoning_content).toBe("Two tools at once. ")
            expect(messages[4]!.reasoning_content).toBe("Now Oslo.")
            expect(Turn.calls(result.transcript[1]!)).toHaveLength(2)
            expect(result.transcript[1]!.parts[0]).toEqual(Turn.Reasoning.make({ text: "Two tools at once. " }))
          } else if (provider === "openai") {
            expect(assistant).not.toHaveProperty("reasoning_content")
          }
        }))
    }
  }

  it.scoped("split argument fragments and deltas without an index accumulate into whole calls", () =>
    Effect.gen(function* () {
      const { emulator, model } = yield* setup("glm", { policy: Policy.script([parallel, parallel]) })
      const plain = yield* LanguageModel.collect(model.stream(ask("a")))
      yield* emulator.inject([Fault.omitIndex, Fault.splitChunks])
      const parts = [...(yield* Stream.runCollect(model.stream(ask("b"))))]
      const calls = parts.flatMap((part) => (part._tag === "CallDelta" ? [part.call] : []))
      expect(calls.map((call) => [call.id, call.name, call.args])).toEqual([
        ["call_1_0", "get_weather", { city: "Paris" }],
        ["call_1_1", "get_time", { tz: "Europe/Paris" }]
      ])
      expect(Turn.calls(plain.turn).map((call) => call.args)).toEqual(calls.map((call) => call.args))
      const finish = parts[parts.length - 1]!
      expect(finish._tag === "Finish" && finish.response.finishReason).toBe("tool_calls")
      // Each call is announced once, complete, before the stream's end.
      expect(parts.map((part) => part._tag)).toEqual(["ReasoningDelta", "ReasoningDelta", "ReasoningDelta", "ReasoningDelta", "CallDelta", "CallDelta", "Finish"])
    }))

  it.scoped("parallel calls streamed with neither index nor ids stay separate calls", () =>
    Effect.gen(function* () {
      const { emulator, model } = yield* setup("glm", { policy: Policy.script([parallel]) })
      yield* emulator.inject([Fault.omitIndex, Fault.omitCallIds])
      const response = yield* LanguageModel.collect(model.stream(ask("both")))
      expect(Turn.calls(response.turn).map((call) => [call.name, call.args, call.metadata?.argumentsError])).toEqual([
        ["get_weather", { city: "Paris" }, undefined],
        ["get_time", { tz: "Europe/Paris" }, undefined]
      ])
    }))

  it.scoped("a model turn with neither text nor calls is left out of the next request (GLM refuses it with 1214)", () =>
    Effect.gen(function* () {
      const { emulator, model } = yield* setup("glm", { policy: Policy.script([{ text: "fine" }, { text: "fine" }]) })
      const empty: Turn.Turn = { role: "model", parts: [Turn.Reasoning.make({ text: "hmm" })] }
      for (const turn of [empty, { role: "model" as const, parts: [Turn.Text.make({ text: "" })] }]) {
        const response = yield* model.generate(request([Turn.user("a"), turn, Turn.user("b")]))
        expect(Turn.text(response.turn)).toBe("fine")
      }
      const messages = messagesOf(yield* emulator.requests, 1)
      expect(messages.map((message) => message.role)).toEqual(["user", "user"])
    }))

  for (const kind of ["invalid", "truncated", "concatenated"] as const) {
    it.scoped(`${kind} arguments are fed back as an error response and the loop recovers`, () =>
      Effect.gen(function* () {
        const { emulator, model } = yield* setup("glm", {
          policy: Policy.script([
            Policy.withFaults({ calls: [{ name: "get_weather", args: { city: "Paris" } }] }, Fault.malformedArguments(kind)),
            { calls: [{ name: "get_weather", args: { city: "Paris" } }] },
            { text: "20 °C in Paris." }
          ])
        })
        const before = weatherCalls.count
        const result = yield* run(model)
        expect(result.text).toBe("20 °C in Paris.")
        expect(result.calls).toHaveLength(2)
        const [bad, good] = result.calls
        expect(Either.isLeft(bad!.result)).toBe(true)
        expect(bad!.response.isError).toBe(true)
        expect(bad!.response.response).toMatchObject({ error: { type: "InvalidArguments" } })
        expect(good!.response.response).toEqual({ city: "Paris", celsius: 20 })
        // The handler never saw the broken call.
        expect(weatherCalls.count - before).toBe(1)
        const badCall = Turn.calls(result.transcript[1]!)[0]!
        expect(badCall.args).toEqual({})
        expect(typeof badCall.metadata?.argumentsError).toBe("string")
        const messages = messagesOf(yield* emulator.requests, 1)
        // The broken text goes back byte for byte, and the error answers it.
        const sent = (messages[1]!.tool_calls as Array<{ function: { arguments: string } }>)[0]!.function.arguments
        expect(sent).toBe(badCall.metadata?.arguments)
        expect(sent).not.toBe('{"city":"Paris"}')
        expect(messages[2]!.role).toBe("tool")
        expect(JSON.parse(messages[2]!.content as string)).toMatchObject({ error: { type: "InvalidArguments" } })
      }))
  }

  it.scoped("arguments with a __proto__ key reach the executor as sent, and are refused there", () =>
    Effect.gen(function* () {
      const raw = '{"__proto__":{"admin":true},"city":"Paris"}'
      const { model } = yield* setup("glm", {
        policy: Policy.script([{ calls: [{ name: "get_weather", args: {}, metadata: { arguments: raw } }] }, { text: "ok" }])
      })
      const before = weatherCalls.count
      const result = yield* run(model)
      expect(result.calls[0]!.response.response).toMatchObject({
        error: { type: "InvalidArguments", issues: [{ path: "__proto__", message: 'the key "__proto__" is not allowed' }] }
      })
      expect(weatherCalls.count).toBe(before)
      expect(({} as Record<string, unknown>).admin).toBeUndefined()
    }))

  it.scoped("arguments that are valid JSON but not minimal are echoed exactly as the model wrote them", () =>
    Effect.gen(function* () {
      const { emulator, model } = yield* setup("glm", {
        policy: Policy.script([
          { calls: [{ name: "get_weather", args: { city: "Paris" }, metadata: { arguments: '{ "city" : "Paris" }' } }] },
          { text: "ok" }
        ])
      })
      const result = yield* run(model)
      expect(result.calls[0]!.args).toEqual({ city: "Paris" })
      const messages = messagesOf(yield* emulator.requests, 1)
      expect((messages[1]!.tool_calls as Array<{ function: { arguments: string } }>)[0]!.function.arguments).toBe('{ "city" : "Paris" }')
    }))

  it.scoped("calls without ids get ids that the tool messages then answer", () =>
    Effect.gen(function* () {
      const { emulator, model } = yield* setup("glm", { policy: Policy.script(threeTurns) })
      yield* emulator.inject(Fault.omitCallIds, { times: 2 })
      const result = yield* run(model, { streaming: true })
      expect(result.calls.map((call) => call.id)).toEqual(["call_1", "call_2", "call_3", "call_4"])
      const messages = messagesOf(yield* emulator.requests, 2)
      expect(messages.filter((message) => message.role === "tool").map((message) => message.tool_call_id)).toEqual(["call_1", "call_2", "call_3", "call_4"])
    }))

  it.scoped("GLM's web_search tool, thinking and tool_stream are passed through; tool choice stays auto", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ text: "a" }, { text: "b" }]) })
      const model = yield* Glm.make({
        apiKey: Redacted.make(emulator.apiKey),
        baseUrl: emulator.glmBaseUrl("coding"),
        thinking: "enabled",
        toolStream: true,
        webSearch: { count: 3 }
      })
      yield* model.generate({ ...ask("news?"), toolChoice: { allowed: ["get_time"] } })
      yield* model.generate({ ...ask("no tools"), toolChoice: "none" })
      const [first, second] = yield* emulator.requests
      const body = first!.body as Record<string, unknown>
      expect(body.thinking).toEqual({ type: "enabled" })
      expect(body.tool_stream).toBe(true)
      expect(body.tool_choice).toBe("auto")
      expect(body.tools).toEqual([
        { type: "function", function: { name: "get_time", description: "Local time in an IANA time zone", parameters: expect.objectContaining({ type: "object" }) } },
        { type: "web_search", web_search: { enable: true, search_engine: "search_pro_jina", count: 3 } }
      ])
      const tools = (second!.body as Record<string, unknown>).tools as Array<{ type: string }>
      expect(tools.map((tool) => tool.type)).toEqual(["web_search"])
    }))

  it.scoped("GLM without options: its own model and provider names, max_tokens for the limit, no thinking, no usage request, no extra tools", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ text: "a" }, { text: "b" }]) })
      const model = yield* Glm.make({ apiKey: Redacted.make(emulator.apiKey), baseUrl: emulator.glmBaseUrl("general") })
      expect([model.provider, model.model]).toEqual(["glm", "glm-4.7"])
      yield* model.generate({ ...ask("x"), maxOutputTokens: 50 })
      yield* LanguageModel.collect(model.stream(ask("y")))
      const [plain, streamed] = (yield* emulator.requests).map((record) => record.body as Record<string, unknown>)
      expect(plain).toMatchObject({ model: "glm-4.7", max_tokens: 50 })
      for (const body of [plain!, streamed!]) {
        expect(Object.keys(body).filter((key) => ["thinking", "tool_stream", "stream_options", "max_completion_tokens"].includes(key))).toEqual([])
        expect([...new Set((body.tools as Array<{ type: string }>).map((tool) => tool.type))]).toEqual(["function"])
      }
    }))

  it.scoped("the OpenAI preset maps tool choice and the output limit the OpenAI way", () =>
    Effect.gen(function* () {
      const { emulator, model } = yield* setup("openai", { policy: Policy.script([{ text: "a" }, { text: "b" }, { text: "c" }]) })
      yield* model.generate({ ...ask("x"), toolChoice: "any", maxOutputTokens: 99 })
      yield* model.generate({ ...ask("x"), toolChoice: { allowed: ["get_time"] } })
      yield* LanguageModel.collect(model.stream({ ...ask("x"), toolChoice: "none" }))
      const bodies = (yield* emulator.requests).map((record) => record.body as Record<string, unknown>)
      expect(bodies[0]).toMatchObject({ tool_choice: "required", max_completion_tokens: 99, temperature: 0 })
      expect(bodies[1]!.tool_choice).toEqual({ type: "function", function: { name: "get_time" } })
      expect(bodies[2]).toMatchObject({ tool_choice: "none", stream: true, stream_options: { include_usage: true } })
      expect(model.provider).toBe("openai")
    }))

  it.scoped("streamed usage (OpenAI's separate usage chunk, GLM's last chunk) reaches the response", () =>
    Effect.gen(function* () {
      for (const provider of ["openai", "glm"] as const) {
        const { model } = yield* setup(provider, {
          policy: Policy.script([{ text: "ok", usage: { inputTokens: 30, outputTokens: 4, totalTokens: 34, cachedTokens: 10 } }])
        })
        const response = yield* LanguageModel.collect(model.stream(ask("hi")))
        expect(response.usage).toEqual({ inputTokens: 30, outputTokens: 4, totalTokens: 34, cachedTokens: 10 })
      }
    }))
})

describe("GLM / OpenAI-compatible layer — strictness of the emulator, seen through the layer", () => {
  it.scoped("a history whose tool messages do not answer the assistant's tool_calls is InvalidRequest", () =>
    Effect.gen(function* () {
      for (const provider of ["glm", "openai"] as const) {
        const { emulator, model } = yield* setup(provider, { policy: Policy.script([parallel]) })
        const first = yield* model.generate(ask("Weather?"))
        const [call] = Turn.calls(first.turn)
        // One response for two calls: the second call is unanswered.
        const partial: Turn.Turn = {
          role: "user",
          parts: [{ _tag: "FunctionResponse", id: call!.id, name: call!.name, response: { ok: true }, isError: false }]
        }
        const error = yield* Effect.flip(model.generate(request([Turn.user("Weather?"), first.turn, partial, Turn.user("and?")])))
        expect(error).toMatchObject({ _tag: "InvalidRequest", status: 400 })
        expect((yield* emulator.requests)[1]!.error).toContain(
          provider === "glm"
            ? "1214"
            : "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_0_1"
        )
      }
    }))
})

describe("GLM / OpenAI-compatible layer — errors", () => {
  const cases: ReadonlyArray<readonly [string, Fault.Fault, Record<string, unknown>]> = [
    ["GLM 1308 (plan quota)", Fault.glm("1308"), { _tag: "QuotaExhausted", status: 429 }],
    ["GLM 1309 (plan expired)", Fault.glm("1309"), { _tag: "QuotaExhausted" }],
    ["GLM 1313 (fair use)", Fault.glm("1313"), { _tag: "QuotaExhausted" }],
    ["GLM 1301 (sensitive content)", Fault.glm("1301"), { _tag: "Blocked", status: 400 }],
    ["GLM 1214", Fault.glm("1214", { message: "messages 参数非法" }), { _tag: "InvalidRequest", status: 400, message: "1214: messages 参数非法" }]
  ]
  for (const streaming of [false, true]) {
    for (const [name, fault, expected] of cases) {
      it.scoped(`${name} → ${expected._tag} (${streaming ? "stream" : "generate"})`, () =>
        Effect.gen(function* () {
          const { emulator, model } = yield* setup("glm", { policy: Policy.script([{ text: "never" }]) })
          yield* emulator.inject(fault)
          const error = yield* Effect.flip(streaming ? LanguageModel.collect(model.stream(ask("hi"))) : model.generate(ask("hi")))
          expect(error).toMatchObject(expected)
          expect(yield* emulator.requests).toHaveLength(1)
        }))
    }
  }

  it.scoped("an OpenAI-flavoured 422 is InvalidRequest", () =>
    Effect.gen(function* () {
      const { emulator, model } = yield* setup("openai", { policy: Policy.script([]) })
      yield* emulator.inject(Fault.status(422))
      expect(yield* Effect.flip(model.generate(ask("x")))).toMatchObject({ _tag: "InvalidRequest", status: 422 })
    }))

  it.scoped("finish_reason sensitive is Blocked; network_error is Unavailable; a body that is not JSON is MalformedResponse", () =>
    Effect.gen(function* () {
      const { model } = yield* setup("glm", {
        policy: Policy.script([
          { text: "…", finishReason: "safety" },
          { text: "…", finishReason: "safety" },
          { error: new ModelError.MalformedResponse({ message: "x" }) },
          { error: new ModelError.MalformedResponse({ message: "x" }) }
        ])
      })
      expect(yield* Effect.flip(model.generate(ask("a")))).toMatchObject({ _tag: "Blocked" })
      expect(yield* Effect.flip(LanguageModel.collect(model.stream(ask("b"))))).toMatchObject({ _tag: "Blocked" })
      expect(yield* Effect.flip(model.generate(ask("c")))).toMatchObject({ _tag: "MalformedResponse" })
      expect(yield* Effect.flip(LanguageModel.collect(model.stream(ask("d"))))).toMatchObject({ _tag: "MalformedResponse" })
    }))

  it.scoped("an error chunk inside the stream is classified by its GLM code", () =>
    Effect.gen(function* () {
      const { emulator, model } = yield* setup("glm", { policy: Policy.script([{ text: "one two three" }]) })
      yield* emulator.inject(Fault.errorMidStream(2, Fault.glm("1301")))
      const error = yield* Effect.flip(LanguageModel.collect(model.stream(ask("count"))))
      expect(error._tag).toBe("Blocked")
    }))
})

describe("GLM / OpenAI presets — configuration", () => {
  const withEnv = (env: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
  const build = (layer: Layer.Layer<LanguageModel.LanguageModel, unknown>) =>
    Effect.map(Layer.build(layer), (context) => Context.get(context, LanguageModel.LanguageModel))

  it.scoped("GLM reads ZAI_API_KEY, ZAI_ENDPOINT and ZAI_BASE_URL; OpenAI reads OPENAI_*", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.fromFunction((request) => ({ text: `${request.flavour}:${request.model}` })) })
      const glm = yield* build(Glm.layerConfig()).pipe(withEnv({ ZAI_API_KEY: emulator.apiKey, ZAI_BASE_URL: emulator.glmBaseUrl("coding") }))
      expect(Turn.text((yield* glm.generate(ask("x"))).turn)).toBe(`glm:${Glm.defaultModel}`)
      const openai = yield* build(OpenAI.layerConfig({ model: "gpt-x" })).pipe(
        withEnv({ OPENAI_API_KEY: emulator.apiKey, OPENAI_BASE_URL: emulator.openAIBaseUrl() })
      )
      expect(Turn.text((yield* openai.generate(ask("x"))).turn)).toBe("openai:gpt-x")
      expect((yield* emulator.requests).map((record) => record.path)).toEqual(["/api/coding/paas/v4/chat/completions", "/v1/chat/completions"])
    }))

  it("GLM's options become body fields only when set, on a copy of extraBody; web_search true is the default search", () => {
    const apiKey = Redacted.make("k")
    const bare = Glm.toChatCompletions({ apiKey })
    expect(Object.keys(bare.extraBody ?? {})).toEqual([])
    expect(bare.builtinTools).toBeUndefined()
    const extraBody = { top_p: 0.5 }
    const set = Glm.toChatCompletions({ apiKey, extraBody, thinking: "disabled", toolStream: false, webSearch: true })
    expect(set.extraBody).toStrictEqual({ top_p: 0.5, thinking: { type: "disabled" }, tool_stream: false })
    expect(extraBody).toStrictEqual({ top_p: 0.5 })
    expect(set.builtinTools).toStrictEqual([{ type: "web_search", web_search: { enable: true, search_engine: "search_pro_jina" } }])
    // Settings given for the search are added to the defaults, and win over them.
    expect(Glm.toChatCompletions({ apiKey, webSearch: { search_engine: "search_std", count: 5 } }).builtinTools).toStrictEqual([
      { type: "web_search", web_search: { enable: true, search_engine: "search_std", count: 5 } }
    ])
  })

  it.effect("presets name their endpoints and the Z.AI endpoint is chosen by name", () =>
    Effect.gen(function* () {
      expect(Glm.toChatCompletions({ apiKey: Redacted.make("k"), endpoint: "coding" }).baseUrl).toBe("https://api.z.ai/api/coding/paas/v4")
      expect(Glm.toChatCompletions({ apiKey: Redacted.make("k") }).baseUrl).toBe("https://api.z.ai/api/paas/v4")
      // Unset, ZAI_ENDPOINT is the general endpoint and ZAI_MODEL the default model.
      const glmDefaults = yield* Glm.config.pipe(withEnv({ ZAI_API_KEY: "k" }))
      expect([glmDefaults.endpoint, glmDefaults.model]).toEqual(["general", Glm.defaultModel])
      // Either endpoint may be named; anything else is refused, naming the variable.
      for (const endpoint of ["general", "coding"] as const) expect((yield* Glm.config.pipe(withEnv({ ZAI_API_KEY: "k", ZAI_ENDPOINT: endpoint }))).endpoint).toBe(endpoint)
      expect(String(yield* Effect.flip(Glm.config.pipe(withEnv({ ZAI_API_KEY: "k", ZAI_ENDPOINT: "mainland" }))))).toContain("ZAI_ENDPOINT")
      expect(OpenAI.toChatCompletions({ apiKey: Redacted.make("k") }).baseUrl).toBe("https://api.openai.com/v1")
      // OpenAI's variables, each read; unset, the documented default model and OpenAI's own endpoint.
      const openaiSet = yield* OpenAI.config.pipe(withEnv({ OPENAI_API_KEY: "k2", OPENAI_MODEL: "gpt-y", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }))
      expect([Redacted.value(openaiSet.apiKey), openaiSet.model, openaiSet.baseUrl]).toEqual(["k2", "gpt-y", "http://127.0.0.1:9/v1"])
      const openaiDefaults = OpenAI.toChatCompletions(yield* OpenAI.config.pipe(withEnv({ OPENAI_API_KEY: "k" })))
      expect([openaiDefaults.model, openaiDefaults.baseUrl]).toEqual(["gpt-4.1-mini", "https://api.openai.com/v1"])
      const error = yield* Effect.flip(Effect.scoped(build(Glm.layerConfig()))).pipe(withEnv({}))
      expect(String(error)).toContain("ZAI_API_KEY")
      const service = yield* ChatCompletions.make({ apiKey: Redacted.make("k"), baseUrl: "http://127.0.0.1:1", model: "m" })
      expect([service.provider, service.model]).toEqual(["openai-compatible", "m"])
    }))

  it.scoped("a refused connection is Unavailable", () =>
    Effect.gen(function* () {
      const service = yield* ChatCompletions.make({ apiKey: Redacted.make("k"), baseUrl: "http://127.0.0.1:1/v1", model: "m" })
      expect(yield* Effect.flip(service.generate(ask("x")))).toMatchObject({ _tag: "Unavailable" })
    }))
})
