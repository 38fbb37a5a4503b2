import type { FunctionDeclaration } from "@agentfx/core"
import { LanguageModel, ModelError, Turn } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Redacted } from "effect"
import type { IncomingHttpHeaders } from "node:http"
import * as ChatCompletions from "../src/ChatCompletions.js"
import * as OpenAI from "../src/OpenAI.js"
import { declarations, request, sentinel } from "./fixtures.js"
import type { Answer } from "./support/misbehaving.js"
import { body, events, misbehaving } from "./support/misbehaving.js"

// What the chat-completions layer puts on the wire, read by a plain HTTP server (not the emulator, which would
// refuse some of these requests before a test could look at them), and the messages of what it refuses itself.

const answered = body(
  `{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}`,
  "application/json"
)

/** A server answering every request with `answer`, the layer made with `options` against it, and what was sent. */
const serve = (options: Partial<ChatCompletions.Options> = {}, answer: Answer = answered) =>
  Effect.gen(function* () {
    const server = yield* misbehaving
    const headers: Array<IncomingHttpHeaders> = []
    server.answer = (incoming, response) => {
      headers.push(incoming.headers)
      answer(incoming, response)
    }
    const model = yield* ChatCompletions.make({ apiKey: Redacted.make(sentinel), baseUrl: server.origin, model: "m", ...options })
    const sent = () => server.bodies.map((text) => JSON.parse(text) as Record<string, unknown>)
    return { model, sent, headers, server }
  })

const hi = [Turn.user("hi")]
const failure = <A, R>(effect: Effect.Effect<A, ModelError.ModelError, R>) => Effect.flip(effect)

describe("chat-completions requests", () => {
  it.scoped("tools and tool choice: none sent without declarations; auto, none, any, several allowed or one named", () =>
    Effect.gen(function* () {
      const { model, sent } = yield* serve()
      yield* model.generate(request(hi, { declarations: [] }))
      yield* model.generate(request(hi, { declarations: [], toolChoice: "any" }))
      yield* model.generate(request(hi, { toolChoice: "auto" }))
      yield* model.generate(request(hi, { toolChoice: "none" }))
      yield* model.generate(request(hi, { toolChoice: "any" }))
      yield* model.generate(request(hi, { toolChoice: { allowed: ["get_time", "list_cities"] } }))
      yield* model.generate(request(hi, { toolChoice: { allowed: ["get_time"] } }))
      yield* model.generate(request(hi))
      const bodies = sent()
      expect(bodies.slice(0, 2).map((b) => ["tools" in b, "tool_choice" in b])).toEqual([[false, false], [false, false]])
      expect(bodies.slice(2).map((b) => b.tool_choice)).toEqual(["auto", "none", "required", "required", { type: "function", function: { name: "get_time" } }, undefined])
      const names = (b: Record<string, unknown>) => (b.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name)
      expect(names(bodies[5]!)).toEqual(["get_time", "list_cities"])
      expect(names(bodies[6]!)).toEqual(["get_time"])
      expect(names(bodies[7]!)).toEqual(declarations.map((d) => d.name))
    }))

  it.scoped("only-auto servers get auto whatever the choice, and no tools at all for none", () =>
    Effect.gen(function* () {
      const { model, sent } = yield* serve({ toolChoice: "auto-only" })
      yield* model.generate(request(hi, { toolChoice: "any" }))
      yield* model.generate(request(hi, { toolChoice: "none" }))
      const [any, none] = sent()
      expect(any!.tool_choice).toBe("auto")
      expect(["tools" in none!, "tool_choice" in none!]).toEqual([false, false])
    }))

  it.scoped("built-in tools go after the declared ones, and alone when nothing is declared; the extra body never overrides model or messages", () =>
    Effect.gen(function* () {
      const search = { type: "web_search", web_search: { enable: true } }
      const { model, sent } = yield* serve({ builtinTools: [search], extraBody: { model: "other", messages: [], top_p: 0.5 } })
      yield* model.generate(request(hi, { declarations: [] }))
      yield* model.generate(request(hi))
      const [alone, after] = sent()
      expect(alone!.tools).toEqual([search])
      expect(alone!).not.toHaveProperty("tool_choice")
      expect((after!.tools as Array<unknown>).at(-1)).toEqual(search)
      expect(after!.tools).toHaveLength(declarations.length + 1)
      expect([alone!.model, alone!.top_p, (alone!.messages as Array<unknown>).length]).toEqual(["m", 0.5, 1])
    }))

  it.scoped("the output limit goes in max_tokens unless told otherwise; temperature only when given", () =>
    Effect.gen(function* () {
      const plain = yield* serve()
      yield* plain.model.generate({ transcript: hi, declarations: [], maxOutputTokens: 40 })
      const [limited] = plain.sent()
      expect(limited!.max_tokens).toBe(40)
      expect(Object.keys(limited!).filter((key) => ["temperature", "max_completion_tokens"].includes(key))).toEqual([])
      const openai = yield* serve({ maxTokensField: "max_completion_tokens" })
      yield* openai.model.generate({ transcript: hi, declarations: [], maxOutputTokens: 40, temperature: 0.3 })
      expect(openai.sent()[0]).toMatchObject({ max_completion_tokens: 40, temperature: 0.3 })
      expect(openai.sent()[0]).not.toHaveProperty("max_tokens")
    }))

  it.scoped("reasoning goes back on assistant messages unless the server rejects it", () =>
    Effect.gen(function* () {
      const history: ReadonlyArray<Turn.Turn> = [Turn.user("hi"), { role: "model", parts: [{ _tag: "Reasoning", text: "hmm" }, { _tag: "Text", text: "yes" }] }, Turn.user("and?")]
      const echoing = yield* serve()
      yield* echoing.model.generate(request(history))
      const silent = yield* serve({ echoReasoning: false })
      yield* silent.model.generate(request(history))
      const assistant = (b: Record<string, unknown>) => (b.messages as Array<Record<string, unknown>>)[1]
      expect(assistant(echoing.sent()[0]!)).toEqual({ role: "assistant", content: "yes", reasoning_content: "hmm" })
      expect(assistant(silent.sent()[0]!)).toEqual({ role: "assistant", content: "yes" })
    }))

  it.scoped("headers given are sent with every request, plain and streamed", () =>
    Effect.gen(function* () {
      const chunk = events(`{"id": "x", "choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}]}`, "[DONE]")
      const { model, headers, server } = yield* serve({ headers: { "x-team": "agents" } }, (incoming, response) =>
        (server.bodies.at(-1) ?? "").includes('"stream":true') ? chunk(incoming, response) : answered(incoming, response)
      )
      yield* model.generate(request(hi))
      yield* LanguageModel.collect(model.stream(request(hi)))
      expect(headers.map((h) => h["x-team"])).toEqual(["agents", "agents"])
      const bare = yield* serve()
      yield* bare.model.generate(request(hi))
      expect(bare.headers[0]).not.toHaveProperty("x-team")
    }))
})

describe("chat-completions refusals before and after the wire", () => {
  it.scoped("a declaration the dialect cannot express is InvalidRequest naming it, and nothing is sent", () =>
    Effect.gen(function* () {
      const { model, server } = yield* serve()
      const bad: FunctionDeclaration.FunctionDeclaration = { name: "bad", description: "", parameters: { type: "string" } }
      const error = yield* failure(model.generate(request(hi, { declarations: [bad] })))
      expect(error).toMatchObject({ _tag: "InvalidRequest" })
      expect(error.message).toContain("bad")
      expect(error.message).toContain("parameters must be an object schema")
      const streamed = yield* failure(LanguageModel.collect(model.stream(request(hi, { declarations: [bad] }))))
      expect(streamed).toMatchObject({ _tag: "InvalidRequest" })
      expect(server.requests).toEqual([])
    }))

  it.scoped("a base URL that cannot work fails every request at once as InvalidRequest, and nothing is sent", () =>
    Effect.gen(function* () {
      const model = yield* ChatCompletions.make({ apiKey: Redacted.make(sentinel), baseUrl: "ftp://127.0.0.1:9/v1", model: "m" })
      const error = yield* failure(model.generate(request(hi)))
      expect(error).toMatchObject({ _tag: "InvalidRequest" })
      expect(error.message).toMatch(/^the base URL is not http:\/\/ or https:\/\//)
      expect(yield* failure(LanguageModel.collect(model.stream(request(hi))))).toStrictEqual(error)
    }))

  it.scoped("a completion or chunk of the wrong shape, and a stream of no chunks, each say what they were", () =>
    Effect.gen(function* () {
      const completion = yield* serve({}, body(`{"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": 5}, "finish_reason": "stop"}]}`, "application/json"))
      const shape = yield* failure(completion.model.generate(request(hi)))
      expect(shape).toMatchObject({ _tag: "MalformedResponse" })
      expect(shape.message).toBe("unexpected completion shape: choices[0].message.content should be a string or null, got 5")
      const chunk = yield* serve({}, events(`{"id": "x", "choices": [{"index": 0, "delta": {"content": 5}}]}`, "[DONE]"))
      const chunkShape = yield* failure(LanguageModel.collect(chunk.model.stream(request(hi))))
      expect(chunkShape.message).toBe("unexpected chunk shape: choices[0].delta.content should be a string or null, got 5")
      const empty = yield* serve({}, events("[DONE]"))
      expect(yield* failure(LanguageModel.collect(empty.model.stream(request(hi))))).toStrictEqual(
        new ModelError.MalformedResponse({ message: "the response is not an event stream: it held no chunk" })
      )
    }))
})

describe("the OpenAI preset on the wire", () => {
  it.scoped("its default model, no reasoning sent back, the output limit as max_completion_tokens, the full tool choice", () =>
    Effect.gen(function* () {
      const server = yield* misbehaving
      server.answer = answered
      const model = yield* OpenAI.make({ apiKey: Redacted.make(sentinel), baseUrl: server.origin })
      const history: ReadonlyArray<Turn.Turn> = [Turn.user("hi"), { role: "model", parts: [{ _tag: "Reasoning", text: "hmm" }, { _tag: "Text", text: "yes" }] }, Turn.user("and?")]
      yield* model.generate(request(history, { toolChoice: "any", maxOutputTokens: 9 }))
      const [sent] = server.bodies.map((text) => JSON.parse(text) as Record<string, unknown>)
      expect(sent).toMatchObject({ model: "gpt-4.1-mini", tool_choice: "required", max_completion_tokens: 9 })
      expect((sent!.messages as Array<unknown>)[1]).toEqual({ role: "assistant", content: "yes" })
      expect([model.provider, model.model]).toEqual(["openai", "gpt-4.1-mini"])
    }))

  it.effect("configured from the environment: OPENAI_MODEL defaults to the preset's model", () =>
    Effect.gen(function* () {
      const withEnv = (env: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
      const defaults = yield* OpenAI.config.pipe(withEnv({ OPENAI_API_KEY: "k" }))
      expect([Redacted.value(defaults.apiKey), defaults.model, defaults.baseUrl]).toEqual(["k", "gpt-4.1-mini", undefined])
      const set = yield* OpenAI.config.pipe(withEnv({ OPENAI_API_KEY: "k", OPENAI_MODEL: "gpt-x", OPENAI_BASE_URL: "http://127.0.0.1:8/v1" }))
      expect([set.model, set.baseUrl]).toEqual(["gpt-x", "http://127.0.0.1:8/v1"])
    }))
})
