/**
 * The chat-completions wire exactly as a client of OpenAI's or GLM's API reads it: the status, the headers that matter
 * and every field of the body or of each stream frame, for answers (text, reasoning, calls, usage, finish reasons),
 * error steps and faults, and the 400s of a request the servers refuse. Through the emulator's in-process fetch,
 * so nothing of an SDK's reading stands between the test and the bytes.
 */
import { FunctionCall, ModelError } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Conformance, Emulator, Fault, Policy } from "../src/index.js"
import { unknownFields } from "../src/internal/chatCompletions/wire.js"

type Route = "openai" | "glm"

interface Wire {
  readonly status: number
  readonly contentType: string | null
  readonly retryAfter: string | null
  readonly retryAfterMs: string | null
  readonly text: string
}

const baseOf = (emulator: Emulator.Service, route: Route) => (route === "glm" ? emulator.glmBaseUrl() : emulator.openAIBaseUrl())

/** One POST to `/chat/completions` on `route`: the body is sent as JSON unless it is a string already. */
const post = (emulator: Emulator.Service, route: Route, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${emulator.apiKey}` }) =>
  Effect.promise(async (): Promise<Wire> => {
    const response = await emulator.fetch(`${baseOf(emulator, route)}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body)
    })
    return {
      status: response.status,
      contentType: response.headers.get("content-type"),
      retryAfter: response.headers.get("retry-after"),
      retryAfterMs: response.headers.get("retry-after-ms"),
      text: await response.text()
    }
  })

const hi = { model: "m", messages: [{ role: "user", content: "hi" }] }

/** The JSON body of a plain answer. */
const json = (emulator: Emulator.Service, route: Route, body: unknown = hi) => Effect.map(post(emulator, route, body), (wire) => JSON.parse(wire.text) as unknown)

/** The frames of a streamed answer: each `data:` payload, parsed unless it is `[DONE]`. */
const frames = (emulator: Emulator.Service, route: Route, body: object = hi) =>
  Effect.map(post(emulator, route, { ...body, stream: true }), (wire) => {
    expect(wire.text.endsWith("\n\n")).toBe(true)
    return wire.text
      .slice(0, -2)
      .split("\n\n")
      .map((event) => {
        expect(event.startsWith("data: ")).toBe(true)
        const data = event.slice("data: ".length)
        return data === "[DONE]" ? data : (JSON.parse(data) as unknown)
      })
  })

const answering = (...replies: ReadonlyArray<Policy.Reply>) => Emulator.make({ policy: Policy.script(replies) })

/** `created` is the Unix time in seconds, taken while the request was answered. */
const createdNow = (before: number) => ({
  asymmetricMatch: (created: unknown) => typeof created === "number" && Number.isInteger(created) && created >= before && created <= Math.ceil(Date.now() / 1000),
  toString: () => "the Unix time in seconds"
})

describe("chat completions — a whole answer (chat.completion)", () => {
  const step: Policy.Step = {
    reasoning: "Think. ",
    text: "It is sunny.",
    calls: [
      { name: "get_weather", args: { city: "Paris" } },
      { name: "get_time", args: {} }
    ],
    usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15, cachedTokens: 3, reasoningTokens: 2 }
  }

  it.scoped("GLM: request_id, reasoning_content, indexed tool_calls, usage with its details", () =>
    Effect.gen(function* () {
      const emulator = yield* answering(step)
      const before = Math.floor(Date.now() / 1000)
      const wire = yield* post(emulator, "glm", { ...hi, model: "glm-4.7" })
      expect(wire.status).toBe(200)
      expect(wire.contentType).toMatch(/^application\/json/)
      expect(JSON.parse(wire.text)).toEqual({
        id: "chatcmpl-emulator-0",
        object: "chat.completion",
        created: createdNow(before),
        model: "glm-4.7",
        request_id: "chatcmpl-emulator-0",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: "It is sunny.",
              reasoning_content: "Think. ",
              tool_calls: [
                { id: "call_0_0", type: "function", index: 0, function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
                { id: "call_0_1", type: "function", index: 1, function: { name: "get_time", arguments: "{}" } }
              ]
            },
            finish_reason: "tool_calls"
          }
        ],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 3 }, completion_tokens_details: { reasoning_tokens: 2 } }
      })
    }))

  it.scoped("OpenAI: no request_id, no reasoning_content, tool_calls without index", () =>
    Effect.gen(function* () {
      const emulator = yield* answering(step)
      const before = Math.floor(Date.now() / 1000)
      expect(yield* json(emulator, "openai")).toEqual({
        id: "chatcmpl-emulator-0",
        object: "chat.completion",
        created: createdNow(before),
        model: "m",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: "It is sunny.",
              tool_calls: [
                { id: "call_0_0", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
                { id: "call_0_1", type: "function", function: { name: "get_time", arguments: "{}" } }
              ]
            },
            finish_reason: "tool_calls"
          }
        ],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 3 }, completion_tokens_details: { reasoning_tokens: 2 } }
      })
    }))

  it.scoped("content is null beside calls, empty without anything; usage without details when the step has none", () =>
    Effect.gen(function* () {
      const emulator = yield* answering(
        { calls: [{ name: "f", args: {} }], usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } },
        { parts: [], usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } }
      )
      expect(yield* json(emulator, "glm")).toMatchObject({
        choices: [{ message: { role: "assistant", content: null, tool_calls: [{ id: "call_0_0", type: "function", index: 0, function: { name: "f", arguments: "{}" } }] }, finish_reason: "tool_calls" }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }
      })
      const empty = (yield* json(emulator, "glm")) as { choices: ReadonlyArray<unknown>; usage: unknown }
      expect(empty.choices).toEqual([{ index: 0, message: { role: "assistant", content: "" }, finish_reason: "stop" }])
      expect(empty.usage).toEqual({ prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 })
    }))

  it.scoped("the finish reason in each server's words: length; safety is GLM's sensitive and OpenAI's content_filter; other is stop", () =>
    Effect.gen(function* () {
      const reasons = ["stop", "length", "safety", "other", "malformed_call", "tool_calls"] as const
      const finishOf = (route: Route) =>
        Effect.gen(function* () {
          const emulator = yield* answering(...reasons.map((finishReason) => ({ text: "x", finishReason })))
          const out: Array<unknown> = []
          for (const _ of reasons) out.push(((yield* json(emulator, route)) as { choices: ReadonlyArray<{ finish_reason: unknown }> }).choices[0]!.finish_reason)
          return out
        })
      expect(yield* finishOf("glm")).toEqual(["stop", "length", "sensitive", "stop", "stop", "tool_calls"])
      expect(yield* finishOf("openai")).toEqual(["stop", "length", "content_filter", "stop", "stop", "tool_calls"])
    }))

  it.scoped("several text or reasoning parts are one content and one reasoning_content, joined as they are", () =>
    Effect.gen(function* () {
      const emulator = yield* answering({
        parts: [
          { _tag: "Reasoning", text: "First, " },
          { _tag: "Text", text: "Hello" },
          { _tag: "Reasoning", text: "then." },
          { _tag: "Text", text: ", world" }
        ]
      })
      const body = (yield* json(emulator, "glm")) as { choices: ReadonlyArray<{ message: unknown }> }
      expect(body.choices[0]!.message).toEqual({ role: "assistant", content: "Hello, world", reasoning_content: "First, then." })
    }))

  it.scoped("a call's arguments go out as the policy wrote them (metadata.arguments) or as the JSON of its args", () =>
    Effect.gen(function* () {
      const emulator = yield* answering({
        parts: [
          FunctionCall.make({ id: "a", name: "f", args: { x: 1 }, metadata: { arguments: '{ "x": 1 }' } }),
          FunctionCall.make({ id: "b", name: "g", args: { y: 2 } })
        ]
      })
      const body = (yield* json(emulator, "openai")) as { choices: ReadonlyArray<{ message: { tool_calls: ReadonlyArray<{ function: { arguments: string } }> } }> }
      expect(body.choices[0]!.message.tool_calls.map((call) => call.function.arguments)).toEqual(['{ "x": 1 }', '{"y":2}'])
    }))
})

describe("chat completions — a streamed answer (chat.completion.chunk frames)", () => {
  const stamp = (before: number, model = "m") => ({ id: "chatcmpl-emulator-0", object: "chat.completion.chunk", created: createdNow(before), model })

  it.scoped("GLM: the role first, reasoning then text a word at a time, calls whole with the finish reason and usage, then [DONE]", () =>
    Effect.gen(function* () {
      const emulator = yield* answering({
        reasoning: "Hm, ok.",
        text: "Two words",
        calls: [{ name: "f", args: { a: 1 } }],
        usage: { inputTokens: 4, outputTokens: 2, totalTokens: 6 }
      })
      const before = Math.floor(Date.now() / 1000)
      const s = stamp(before, "glm-4.7")
      expect(yield* frames(emulator, "glm", { ...hi, model: "glm-4.7" })).toEqual([
        { ...s, choices: [{ index: 0, delta: { role: "assistant", content: "" } }] },
        { ...s, choices: [{ index: 0, delta: { reasoning_content: "Hm, " } }] },
        { ...s, choices: [{ index: 0, delta: { reasoning_content: "ok." } }] },
        { ...s, choices: [{ index: 0, delta: { content: "Two " } }] },
        { ...s, choices: [{ index: 0, delta: { content: "words" } }] },
        {
          ...s,
          choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_0_0", type: "function", function: { name: "f", arguments: '{"a":1}' } }] }, finish_reason: "tool_calls" }],
          usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6, completion_tokens_details: { reasoning_tokens: 2 } }
        },
        "[DONE]"
      ])
    }))

  it.scoped("OpenAI: no reasoning; argument fragments by index; the finish chunk; usage in a chunk of its own only when asked", () =>
    Effect.gen(function* () {
      const step: Policy.Step = { reasoning: "Hm.", text: "Yes", calls: [{ name: "f", args: { a: 1 } }, { name: "g", args: {} }], usage: { inputTokens: 4, outputTokens: 2, totalTokens: 6 } }
      const emulator = yield* answering(step, step)
      const before = Math.floor(Date.now() / 1000)
      const s = stamp(before)
      const answer = [
        { ...s, choices: [{ index: 0, delta: { role: "assistant", content: "" } }] },
        { ...s, choices: [{ index: 0, delta: { content: "Yes" } }] },
        // '{"a":1}' in thirds of ceil(7 / 3) = 3 characters; "{}" is too short to split.
        { ...s, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_0_0", type: "function", function: { name: "f", arguments: '{"a' } }] } }] },
        { ...s, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '":1' } }] } }] },
        { ...s, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: "}" } }] } }] },
        { ...s, choices: [{ index: 0, delta: { tool_calls: [{ index: 1, id: "call_0_1", type: "function", function: { name: "g", arguments: "{}" } }] } }] },
        { ...s, choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }
      ]
      expect(yield* frames(emulator, "openai")).toEqual([...answer, "[DONE]"])
      const withUsage = yield* frames(emulator, "openai", { ...hi, stream_options: { include_usage: true } })
      const s1 = { ...s, id: "chatcmpl-emulator-1" }
      expect(withUsage.slice(-2)).toEqual([{ ...s1, choices: [], usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6, completion_tokens_details: { reasoning_tokens: 1 } } }, "[DONE]"])
      // The second request's ids are its own (chatcmpl-emulator-1, call_1_<i>); the frames are otherwise the first's.
      expect(JSON.parse(JSON.stringify(withUsage.slice(0, -2)).replaceAll("emulator-1", "emulator-0").replaceAll("call_1_", "call_0_"))).toEqual(answer)
    }))

  it.scoped("GLM without calls: the finish chunk's delta is empty, usage beside it", () =>
    Effect.gen(function* () {
      const emulator = yield* answering({ text: "ok", usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } })
      const all = yield* frames(emulator, "glm")
      expect(all.slice(-2)).toEqual([
        { ...stamp(0), created: expect.any(Number), choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } },
        "[DONE]"
      ])
    }))

  it.scoped("GLM with tool_stream: fragments as on OpenAI; four characters split in two, never an empty fragment", () =>
    Effect.gen(function* () {
      const emulator = yield* answering({ parts: [FunctionCall.make({ id: "c", name: "f", args: {}, metadata: { arguments: "abcd" } })] })
      const all = yield* frames(emulator, "glm", { ...hi, tool_stream: true })
      const deltas = all.flatMap((frame) => (frame === "[DONE]" ? [] : ((frame as { choices: ReadonlyArray<{ delta: { tool_calls?: ReadonlyArray<unknown> } }> }).choices[0]?.delta.tool_calls ?? [])))
      expect(deltas).toEqual([
        { index: 0, id: "c", type: "function", function: { name: "f", arguments: "ab" } },
        { index: 0, function: { arguments: "cd" } }
      ])
      expect((all.at(-2) as { choices: unknown }).choices).toEqual([{ index: 0, delta: {}, finish_reason: "tool_calls" }])
    }))

  it.scoped("the OmitIndex fault leaves the index out of every call delta, whole or fragment", () =>
    Effect.gen(function* () {
      const step: Policy.Step = { calls: [{ name: "f", args: { a: 1 } }] }
      const emulator = yield* answering(Policy.withFaults(step, Fault.omitIndex), Policy.withFaults(step, Fault.omitIndex))
      const callDeltas = (all: ReadonlyArray<unknown>) =>
        all.flatMap((frame) => (frame === "[DONE]" ? [] : ((frame as { choices: ReadonlyArray<{ delta: { tool_calls?: ReadonlyArray<unknown> } }> }).choices[0]?.delta.tool_calls ?? [])))
      expect(callDeltas(yield* frames(emulator, "glm"))).toEqual([{ id: "call_0_0", type: "function", function: { name: "f", arguments: '{"a":1}' } }])
      expect(callDeltas(yield* frames(emulator, "openai"))).toEqual([
        { id: "call_1_0", type: "function", function: { name: "f", arguments: '{"a' } },
        { function: { arguments: '":1' } },
        { function: { arguments: "}" } }
      ])
    }))
})

describe("chat completions — error steps and answer faults, in each server's words", () => {
  it.scoped("an InvalidRequest step: GLM's 1214 with its status (400 unless given); OpenAI's invalid_request_error", () =>
    Effect.gen(function* () {
      const emulator = yield* answering(
        { error: new ModelError.InvalidRequest({ message: "bad tools" }) },
        { error: new ModelError.InvalidRequest({ message: "too long", status: 413 }) },
        { error: new ModelError.InvalidRequest({ message: "bad tools" }) }
      )
      const first = yield* post(emulator, "glm", hi)
      expect([first.status, JSON.parse(first.text)]).toEqual([400, { error: { code: "1214", message: "bad tools" } }])
      const second = yield* post(emulator, "glm", hi)
      expect([second.status, JSON.parse(second.text)]).toEqual([413, { error: { code: "1214", message: "too long" } }])
      const third = yield* post(emulator, "openai", hi)
      expect([third.status, JSON.parse(third.text)]).toEqual([400, { error: { message: "bad tools", type: "invalid_request_error", param: null, code: null } }])
    }))

  it.scoped("a Blocked step: GLM's 1301 and OpenAI's content_filter, both 400", () =>
    Effect.gen(function* () {
      const emulator = yield* answering({ error: new ModelError.Blocked({ message: "unsafe" }) }, { error: new ModelError.Blocked({ message: "unsafe" }) })
      const glm = yield* post(emulator, "glm", hi)
      expect([glm.status, JSON.parse(glm.text)]).toEqual([400, { error: { code: "1301", message: "unsafe" } }])
      const openai = yield* post(emulator, "openai", hi)
      expect([openai.status, JSON.parse(openai.text)]).toEqual([400, { error: { message: "unsafe", type: "invalid_request_error", param: null, code: "content_filter" } }])
    }))

  it.scoped("other error steps are their answer faults: Overloaded is 503, Unavailable its status", () =>
    Effect.gen(function* () {
      const emulator = yield* answering(
        { error: new ModelError.Overloaded({ message: "busy" }) },
        { error: new ModelError.Unavailable({ message: "down", status: 502 }) }
      )
      const overloaded = yield* post(emulator, "glm", hi)
      expect([overloaded.status, JSON.parse(overloaded.text)]).toEqual([503, { error: { code: "1305", message: "The service may be temporarily overloaded, please try again later" } }])
      const unavailable = yield* post(emulator, "openai", hi)
      expect([unavailable.status, JSON.parse(unavailable.text)]).toEqual([502, { error: { message: "down", type: "server_error", param: null, code: null } }])
    }))

  it.scoped("each answer fault's exact body: overloaded, a wrong key, a Live close, a status with no message", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const answer = (route: Route, fault: Fault.AnswerFault) =>
        Effect.gen(function* () {
          yield* emulator.inject(fault)
          const wire = yield* post(emulator, route, hi)
          return [wire.status, JSON.parse(wire.text)] as const
        })
      expect(yield* answer("openai", Fault.overloaded())).toEqual([503, { error: { message: "The server is overloaded or not ready yet.", type: "server_error", param: null, code: null } }])
      expect(yield* answer("glm", Fault.overloaded())).toEqual([503, { error: { code: "1305", message: "The service may be temporarily overloaded, please try again later" } }])
      expect(yield* answer("openai", Fault.unauthorized())).toEqual([401, { error: { message: "Incorrect API key provided.", type: "invalid_request_error", param: null, code: "invalid_api_key" } }])
      expect(yield* answer("glm", Fault.unauthorized())).toEqual([401, { error: { code: "1002", message: "Authorization Token非法，请确认Authorization Token正确传递。" } }])
      expect(yield* answer("openai", Fault.quotaExhausted())).toEqual([
        429,
        { error: { message: "You exceeded your current quota, please check your plan and billing details.", type: "insufficient_quota", param: null, code: "insufficient_quota" } }
      ])
      expect(yield* answer("glm", Fault.quotaExhausted())).toEqual([429, { error: { code: "1113", message: "余额不足或无可用资源包,请充值。" } }])
      expect(yield* answer("glm", Fault.close(1011, "gone"))).toEqual([500, { error: { code: "500", message: "gone" } }])
      expect(yield* answer("openai", Fault.close(1011, "gone"))).toEqual([500, { error: { message: "gone", type: "server_error", param: null, code: null } }])
      expect(yield* answer("glm", Fault.status(502))).toEqual([502, { error: { code: "502", message: "error" } }])
      expect(yield* answer("openai", Fault.status(499))).toEqual([499, { error: { message: "error", type: "invalid_request_error", param: null, code: null } }])
    }))

  it.scoped("a GLM rate limit carries retry-after in seconds (rounded up) and retry-after-ms", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      yield* emulator.inject(Fault.rateLimited({ retryAfter: "2001 millis" }))
      const wire = yield* post(emulator, "glm", hi)
      expect([wire.status, wire.retryAfter, wire.retryAfterMs]).toEqual([429, "3", "2001"])
    }))

  it.scoped("an error frame mid-stream is the fault's body in the route's words", () =>
    Effect.gen(function* () {
      const emulator = yield* answering(
        Policy.withFaults({ text: "one two three" }, Fault.errorMidStream(2, Fault.overloaded())),
        Policy.withFaults({ text: "one two three" }, Fault.errorMidStream(2, Fault.stall)),
        Policy.withFaults({ text: "one two three" }, Fault.errorMidStream(2, Fault.disconnect))
      )
      const glm = yield* frames(emulator, "glm")
      expect(glm.at(-1)).toEqual({ error: { code: "1305", message: "The service may be temporarily overloaded, please try again later" } })
      // A stall has no body of its own: the frame is the route's own 500, in OpenAI's shape on an OpenAI route.
      const openai = yield* frames(emulator, "openai")
      expect(openai.at(-1)).toEqual({ error: { message: "error", type: "server_error", param: null, code: null } })
      expect((yield* frames(emulator, "glm")).at(-1)).toEqual({ error: { code: "500", message: "error" } })
    }))
})

describe("chat completions — the request as a policy reads it (the neutral request)", () => {
  const neutral = (body: unknown, flavour: Route) => {
    const verdict = Conformance.chatCompletions(body, flavour)
    if (verdict._tag === "Rejected") throw new Error(`rejected: ${verdict.message}`)
    return verdict.request
  }

  it("GLM: system and developer text joined; reasoning, text and calls of an assistant; its tool messages one response turn", () => {
    const request = neutral(
      {
        model: "glm-4.7",
        messages: [
          { role: "system", content: "S1" },
          { role: "developer", content: [{ type: "text", text: "D1" }, { type: "text" }, { type: "text", text: "D2" }] },
          { role: "user", content: "weather?" },
          {
            role: "assistant",
            content: "",
            reasoning_content: "R",
            tool_calls: [
              { id: "c1", type: "function", function: { name: "f", arguments: '{"a":1}' } },
              { id: "c2", type: "function", function: { name: "g", arguments: '{ "b": 2 }' } },
              { id: "c3", type: "function", function: { name: "h" } },
              { id: "c4", type: "function", function: { name: "k", arguments: "[1]" } },
              { id: "c5", type: "function", function: { name: "m", arguments: "{oops" } }
            ]
          },
          { role: "tool", tool_call_id: "c1", content: '{"ok":true}' },
          { role: "tool", tool_call_id: "c2", content: "5" },
          { role: "tool", tool_call_id: "c3", content: "not json" },
          { role: "tool", tool_call_id: "c4", content: '{"error":"no"}' },
          { role: "tool", tool_call_id: "c5", content: "" },
          { role: "user", content: "and?" },
          { role: "assistant", content: "done" },
          { role: "user", content: "ok" }
        ]
      },
      "glm"
    )
    expect(request.system).toBe("S1\nD1D2")
    expect(request.transcript).toEqual([
      { role: "user", parts: [{ _tag: "Text", text: "weather?" }] },
      {
        role: "model",
        parts: [
          { _tag: "Reasoning", text: "R" },
          { _tag: "FunctionCall", id: "c1", name: "f", args: { a: 1 } },
          // Arguments not written as the JSON of their object are kept as sent; a call without any has none.
          { _tag: "FunctionCall", id: "c2", name: "g", args: { b: 2 }, metadata: { arguments: '{ "b": 2 }' } },
          { _tag: "FunctionCall", id: "c3", name: "h", args: {} },
          { _tag: "FunctionCall", id: "c4", name: "k", args: {}, metadata: { arguments: "[1]" } },
          { _tag: "FunctionCall", id: "c5", name: "m", args: {}, metadata: { arguments: "{oops" } }
        ]
      },
      {
        role: "user",
        parts: [
          { _tag: "FunctionResponse", id: "c1", name: "f", response: { ok: true }, isError: false },
          { _tag: "FunctionResponse", id: "c2", name: "g", response: { output: 5 }, isError: false },
          { _tag: "FunctionResponse", id: "c3", name: "h", response: { output: "not json" }, isError: false },
          { _tag: "FunctionResponse", id: "c4", name: "k", response: { error: "no" }, isError: true },
          { _tag: "FunctionResponse", id: "c5", name: "m", response: { output: "" }, isError: false }
        ]
      },
      { role: "user", parts: [{ _tag: "Text", text: "and?" }] },
      { role: "model", parts: [{ _tag: "Text", text: "done" }] },
      { role: "user", parts: [{ _tag: "Text", text: "ok" }] }
    ])
    expect([request.declarations, request.toolChoice, request.output]).toEqual([[], undefined, undefined])
  })

  it("OpenAI: a user's content parts (text, anything else kept opaque), tool content as text parts, a conversation ending on tool messages", () => {
    const request = neutral(
      {
        model: "m",
        messages: [
          { role: "user", content: [{ type: "text", text: "look" }, { type: "image_url", image_url: { url: "https://x/y.png" }, text: "a caption" }, { type: "text" }] },
          { role: "user", content: null },
          { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
          { role: "tool", tool_call_id: "c1", content: [{ type: "text", text: '{"a"' }, { type: "text", text: ":2}" }] }
        ]
      },
      "openai"
    )
    expect(request.system).toBeUndefined()
    expect(request.transcript).toEqual([
      {
        role: "user",
        parts: [
          { _tag: "Text", text: "look" },
          { _tag: "Opaque", provider: "openai", data: { type: "image_url", image_url: { url: "https://x/y.png" }, text: "a caption" } },
          { _tag: "Opaque", provider: "openai", data: { type: "text" } }
        ]
      },
      { role: "user", parts: [] },
      { role: "model", parts: [{ _tag: "FunctionCall", id: "c1", name: "f", args: {} }] },
      { role: "user", parts: [{ _tag: "FunctionResponse", id: "c1", name: "f", response: { a: 2 }, isError: false }] }
    ])
  })

  it("a system message whose content is null is empty text", () => {
    expect(neutral({ model: "m", messages: [{ role: "system", content: null }, { role: "developer", content: "D" }, { role: "user", content: "hi" }] }, "openai").system).toBe("\nD")
  })

  it("the declarations of function tools (an empty description and object schema when left out), other tools left out", () => {
    const parameters = { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
    const tools = [
      { type: "function", function: { name: "get_weather", description: "Weather", parameters } },
      { type: "function", function: { name: "now" } }
    ]
    const messages = [{ role: "user", content: "hi" }]
    // Only a function tool declares a function, whatever else a tool holds.
    const search = { type: "web_search", web_search: { enable: true }, function: { name: "search" } }
    expect(neutral({ model: "m", messages, tools: [...tools, search] }, "glm").declarations).toEqual([
      { name: "get_weather", description: "Weather", parameters },
      { name: "now", description: "", parameters: { type: "object", properties: {} } }
    ])
    expect(neutral({ model: "m", messages, tools: [{ type: "custom", custom: { name: "grep" } }, ...tools] }, "openai").declarations.map((d) => d.name)).toEqual(["get_weather", "now"])
  })

  it("tool_choice: auto and none as they are, required is any, a named function the only one allowed, anything else none given", () => {
    const choiceOf = (tool_choice: unknown) =>
      neutral({ model: "m", messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { name: "f" } }], tool_choice }, "openai").toolChoice
    expect(["auto", "none", "required", "sometimes"].map(choiceOf)).toEqual(["auto", "none", "any", undefined])
    expect(choiceOf({ type: "function", function: { name: "f" } })).toEqual({ allowed: ["f"] })
    expect([choiceOf({ type: "function", function: { name: 5 } }), choiceOf({ type: "function", function: "f" }), choiceOf({ type: "allowed_tools" })]).toEqual([
      undefined,
      undefined,
      undefined
    ])
  })
})

describe("chat completions — the 400s of a body the servers refuse: each server's message and (OpenAI) parameter", () => {
  const refusal = (body: unknown, flavour: Route) => {
    const verdict = Conformance.chatCompletions(body, flavour)
    return verdict._tag === "Rejected" ? { message: verdict.message, param: verdict.param } : "accepted"
  }
  const user = { role: "user", content: "hi" }
  const withTools = (tools: ReadonlyArray<unknown>, extra: object = {}) => ({ model: "m", messages: [user], tools, ...extra })
  const calling = (calls: ReadonlyArray<unknown>, content: unknown = null) => ({ role: "assistant", content, tool_calls: calls })
  const fn = (id: string | undefined, name = "f") => ({ ...(id === undefined ? {} : { id }), type: "function", function: { name, arguments: "{}" } })
  const answer = (id: string, content: unknown = "{}") => ({ role: "tool", tool_call_id: id, content })
  const conversation = (...messages: ReadonlyArray<unknown>) => ({ model: "m", messages: [user, ...messages] })

  it("no messages", () => {
    expect(refusal({ model: "m", messages: [] }, "openai")).toEqual({ message: "[] is too short - 'messages'", param: "messages" })
    expect(refusal({ model: "m", messages: [] }, "glm")).toEqual({ message: "messages 参数非法。请检查文档。", param: "messages" })
  })

  it("at most 128 tools, each function named with at most 64 letters, digits, '_' or '-'", () => {
    const named = (name: string) => ({ type: "function", function: { name } })
    expect(refusal(withTools(Array.from({ length: 128 }, (_, i) => named(`f${i}`))), "openai")).toBe("accepted")
    expect(refusal(withTools(Array.from({ length: 129 }, (_, i) => named(`f${i}`))), "glm")).toEqual({
      message: "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 129 instead.",
      param: "tools"
    })
    expect(refusal(withTools([named("ok"), named(`a-${"b".repeat(61)}_`)]), "openai")).toBe("accepted")
    const badName = {
      message: "Invalid 'tools[1].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
      param: "tools[1].function.name"
    }
    for (const name of ["a".repeat(65), "get weather", "", "f.g"]) expect(refusal(withTools([named("ok"), named(name)]), "openai")).toEqual(badName)
    expect(refusal(withTools([named("ok"), { type: "function" }]), "glm")).toEqual(badName)
  })

  it("tool types: OpenAI's function and custom (named), GLM's function, web_search and retrieval", () => {
    expect(refusal(withTools([{ type: "web_search", web_search: {} }, { type: "retrieval", retrieval: {} }]), "glm")).toBe("accepted")
    expect(refusal(withTools([{ type: "function", function: { name: "f" } }, { type: "browser" }]), "glm")).toEqual({
      message: "tools[1].type 参数非法: supported values are 'function', 'retrieval' and 'web_search'",
      param: "tools[1].type"
    })
    for (const type of ["web_search", "retrieval"]) {
      expect(refusal(withTools([{ type }]), "openai")).toEqual({ message: `Invalid value: '${type}'. Supported values are: 'function' and 'custom'.`, param: "tools[0].type" })
    }
    for (const custom of [undefined, "grep", { name: "" }, { name: 5 }]) {
      expect(refusal(withTools([{ type: "function", function: { name: "f" } }, { type: "custom", ...(custom === undefined ? {} : { custom }) }]), "openai")).toEqual({
        message: "Missing required parameter: 'tools[1].custom.name'.",
        param: "tools[1].custom.name"
      })
    }
  })

  it("GLM takes no tool_choice but auto; OpenAI takes the others", () => {
    const tools = [{ type: "function", function: { name: "f" } }]
    expect(refusal(withTools(tools, { tool_choice: "auto" }), "glm")).toBe("accepted")
    expect(refusal(withTools(tools), "glm")).toBe("accepted")
    for (const tool_choice of ["none", "required", { type: "function", function: { name: "f" } }]) {
      expect(refusal(withTools(tools, { tool_choice }), "glm")).toEqual({ message: 'tool_choice 参数非法: only "auto" is supported', param: "tool_choice" })
      expect(refusal(withTools(tools, { tool_choice }), "openai")).toBe("accepted")
    }
  })

  it("a role neither server has", () => {
    const message = "Invalid value: 'function'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'."
    expect(refusal(conversation({ role: "function", content: "x", name: "f" }), "openai")).toEqual({ message, param: "messages.[1].role" })
    expect(refusal(conversation({ role: "function", content: "x" }), "glm")).toEqual({ message, param: "messages.[1].role" })
  })

  it("a tool message's content: a string, or (OpenAI) text parts only", () => {
    expect(refusal(conversation(calling([fn("c1")]), answer("c1", [{ type: "text", text: "{}" }])), "openai")).toBe("accepted")
    expect(refusal(conversation(calling([fn("c1")]), answer("c1", [{ type: "text", text: "{}" }, { type: "image_url" }])), "openai")).toEqual({
      message: "Invalid type for 'messages[2].content'.",
      param: "messages.[2].content"
    })
    expect(refusal(conversation(calling([fn("c1")]), answer("c1", null)), "openai")).toEqual({ message: "Invalid type for 'messages[2].content'.", param: "messages.[2].content" })
    expect(refusal(conversation(calling([fn("c1")]), answer("c1", [{ type: "text", text: "{}" }])), "glm")).toEqual({
      message: "messages[2].content 参数非法: must be a string",
      param: "messages.[2].content"
    })
  })

  it("an assistant message needs content or tool_calls: OpenAI takes empty text, GLM does not", () => {
    const refused = { message: "Invalid value for 'content': expected a string, got null.", param: "messages.[1].content" }
    expect(refusal(conversation({ role: "assistant", content: null }), "openai")).toEqual(refused)
    expect(refusal(conversation({ role: "assistant" }), "openai")).toEqual(refused)
    expect(refusal(conversation({ role: "assistant", content: null, tool_calls: [] }), "openai")).toEqual(refused)
    expect(refusal(conversation({ role: "assistant", content: "" }), "openai")).toBe("accepted")
    expect(refusal(conversation({ role: "assistant", content: "" }), "glm")).toEqual({ message: "messages[1]: content and tool_calls cannot both be empty", param: "messages.[1].content" })
    expect(refusal(conversation({ role: "assistant", content: "ok" }), "glm")).toBe("accepted")
    expect(refusal(conversation(calling([fn("c1")], ""), answer("c1")), "glm")).toBe("accepted")
  })

  it("each tool call of an assistant has an id and the type function; no id twice", () => {
    for (const id of [undefined, ""]) {
      expect(refusal(conversation(calling([fn("c1"), fn(id)]), answer("c1")), "openai")).toEqual({
        message: "Missing required parameter: 'messages[1].tool_calls[1].id'.",
        param: "messages.[1].tool_calls"
      })
    }
    const typed = (type: unknown) => ({ id: "c2", ...(type === undefined ? {} : { type }), function: { name: "f", arguments: "{}" } })
    expect(refusal(conversation(calling([fn("c1"), typed("tool")]), answer("c1"), answer("c2")), "glm")).toEqual({
      message: "Invalid value: 'tool'. Supported values are: 'function'.",
      param: "messages.[1].tool_calls[1].type"
    })
    expect(refusal(conversation(calling([fn("c1"), typed(undefined)]), answer("c1"), answer("c2")), "glm")).toEqual({
      message: "Missing required parameter: 'messages[1].tool_calls[1].type'.",
      param: "messages.[1].tool_calls[1].type"
    })
    expect(refusal(conversation(calling([fn("c1"), fn("c1")]), answer("c1")), "openai")).toEqual({ message: "Duplicate tool_call ids.", param: "messages.[1].tool_calls" })
    expect(refusal(conversation(calling([fn("c1"), fn("c1")]), answer("c1")), "glm")).toEqual({ message: "messages[1]: duplicate tool_call id", param: "messages.[1].tool_calls" })
  })

  it("a tool message that answers no pending call, named by its role", () => {
    const refused = { message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", param: "messages.[2].role" }
    expect(refusal(conversation(calling([fn("c1")]), answer("c2")), "openai")).toEqual(refused)
    expect(refusal(conversation(calling([fn("c1")]), { role: "tool", content: "{}" }), "glm")).toEqual(refused)
  })

  it("tool_calls left unanswered at the end of the conversation", () => {
    expect(refusal(conversation(calling([fn("c1"), fn("c2")]), answer("c2")), "openai")).toEqual({
      message:
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: c1",
      param: "messages"
    })
  })

  it("a body that is not an object", () => {
    for (const body of [[], "x", null]) {
      expect(refusal(body, "glm")).toEqual({ message: "请求参数非法: the body must be a JSON object", param: null })
    }
    expect(refusal([], "openai")).toEqual({ message: "Invalid type for body: expected an object, but got an array instead.", param: null })
    expect(refusal(5, "openai")).toEqual({ message: "Invalid type for body: expected an object, but got an integer instead.", param: null })
  })

  it("OpenAI refuses a field a message of its role does not have; not a message that is no object, or has no role it knows", () => {
    expect(refusal({ model: "m", messages: [user, { role: "user", content: "x", foo: 1 }] }, "openai")).toEqual({
      message: "Additional properties are not allowed ('foo' was unexpected) - 'messages.1'",
      param: "messages.[1]"
    })
    expect(refusal({ model: "m", messages: [user, { role: "tool", tool_call_id: "c1", content: "x", name: "f" }] }, "openai")).toEqual({
      message: "Additional properties are not allowed ('name' was unexpected) - 'messages.1'",
      param: "messages.[1]"
    })
    // Those the body's schema refuses (a message that is null, a role that is no string) are type errors; a role it
    // does not know is refused as a role.
    expect(refusal({ model: "m", messages: [null] }, "openai")).toEqual({
      message: "Invalid type for 'messages[0]': expected an object, but got null instead.",
      param: "messages[0]"
    })
    expect(refusal({ model: "m", messages: [{ role: ["user"], content: "x", foo: 1 }] }, "openai")).toEqual({
      message: "Invalid type for 'messages[0].role': expected a string, but got an array instead.",
      param: "messages[0].role"
    })
    expect(refusal({ model: "m", messages: [user, { role: "function", content: "x", foo: 1 }] }, "openai")).toMatchObject({ param: "messages.[1].role" })
    expect(refusal({ model: "m", messages: [user, { role: "user", content: "x", foo: 1 }] }, "glm")).toBe("accepted")
  })

  it("a value of the wrong type, in each server's words: what was expected, and (OpenAI) what came", () => {
    const cases: ReadonlyArray<readonly [unknown, string, string, string]> = [
      [{ messages: [user] }, "model", "Missing required parameter: 'model'.", "model 参数非法: required"],
      [{ model: "m", messages: "hi" }, "messages", "Invalid type for 'messages': expected an array, but got a string instead.", "messages 参数非法: expected an array"],
      [{ model: "m", messages: [user], stream: "yes" }, "stream", "Invalid type for 'stream': expected a boolean, but got a string instead.", "stream 参数非法: expected a boolean"],
      [{ model: "m", messages: [user], tools: {} }, "tools", "Invalid type for 'tools': expected an array, but got an object instead.", "tools 参数非法: expected an array"],
      [
        { model: "m", messages: [user], temperature: "hot" },
        "temperature",
        "Invalid type for 'temperature': expected a number, but got a string instead.",
        "temperature 参数非法: expected a number"
      ],
      [
        { model: "m", messages: [{ role: "user", content: [5] }] },
        "messages[0].content[0]",
        "Invalid type for 'messages[0].content[0]': expected an object, but got an integer instead.",
        "messages[0].content[0] 参数非法: expected an object"
      ],
      [
        { model: "m", messages: [user, { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: 5 } }] }] },
        "messages[1].tool_calls[0].function.name",
        "Invalid type for 'messages[1].tool_calls[0].function.name': expected a string, but got an integer instead.",
        "messages[1].tool_calls[0].function.name 参数非法: expected a string"
      ],
      [
        { model: "m", messages: [user, { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function" }] }] },
        "messages[1].tool_calls[0].function",
        "Missing required parameter: 'messages[1].tool_calls[0].function'.",
        "messages[1].tool_calls[0].function 参数非法: required"
      ],
      [
        { model: "m", messages: [user], stream_options: { include_usage: 1 } },
        "stream_options.include_usage",
        "Invalid type for 'stream_options.include_usage': expected a boolean, but got an integer instead.",
        "stream_options.include_usage 参数非法: expected a boolean"
      ]
    ]
    for (const [body, param, openai, glm] of cases) {
      expect(refusal(body, "openai")).toEqual({ message: openai, param })
      expect(refusal(body, "glm")).toEqual({ message: glm, param })
    }
  })

  it("each field by what it expects, when a value of another kind stands in its place", () => {
    const assistant = (extra: object) => ({ model: "m", messages: [user, { role: "assistant", content: null, ...extra }] })
    const call = { id: "c1", type: "function", function: { name: "f", arguments: "{}" } }
    // [body, param, what is expected, what came]
    const cases: ReadonlyArray<readonly [unknown, string, string, string]> = [
      [{ model: 5, messages: [user] }, "model", "a string", "an integer"],
      [{ model: "m", messages: [{ role: "user", content: 5 }] }, "messages[0].content", "one of a string or array of objects", "an integer"],
      [{ model: "m", messages: [{ role: "user", content: [{ type: "text", text: 5 }] }] }, "messages[0].content[0].text", "a string", "an integer"],
      [{ model: "m", messages: [{ role: "user", content: "hi", name: 5 }] }, "messages[0].name", "a string", "an integer"],
      [assistant({ tool_calls: {} }), "messages[1].tool_calls", "an array", "an object"],
      [assistant({ tool_calls: [5] }), "messages[1].tool_calls[0]", "an object", "an integer"],
      [assistant({ tool_calls: [{ ...call, function: 5 }] }), "messages[1].tool_calls[0].function", "an object", "an integer"],
      [assistant({ tool_calls: [{ ...call, index: "0" }] }), "messages[1].tool_calls[0].index", "a number", "a string"],
      [assistant({ content: "x", refusal: 5 }), "messages[1].refusal", "a string", "an integer"],
      [{ model: "m", messages: [user], tools: [5] }, "tools[0]", "an object", "an integer"],
      [{ model: "m", messages: [user], tools: [{ type: "function", function: 5 }] }, "tools[0].function", "an object", "an integer"],
      [{ model: "m", messages: [user], tools: [{ type: "function", function: { name: "f", parameters: [] } }] }, "tools[0].function.parameters", "an object", "an array"],
      [{ model: "m", messages: [user], tools: [{ type: "function", function: { name: "f", strict: "yes" } }] }, "tools[0].function.strict", "a boolean", "a string"],
      [{ model: "m", messages: [user], stream_options: 5 }, "stream_options", "an object", "an integer"],
      [{ model: "m", messages: [user], max_tokens: "9" }, "max_tokens", "a number", "a string"],
      [{ model: "m", messages: [user], max_completion_tokens: "9" }, "max_completion_tokens", "a number", "a string"],
      [{ model: "m", messages: [user], response_format: 5 }, "response_format", "an object", "an integer"],
      [{ model: "m", messages: [user], response_format: { type: "json_schema", json_schema: 5 } }, "response_format.json_schema", "an object", "an integer"],
      [{ model: "m", messages: [user], response_format: { type: "json_schema", json_schema: { name: "n", schema: 5 } } }, "response_format.json_schema.schema", "an object", "an integer"]
    ]
    for (const [body, param, expected, came] of cases) {
      expect(refusal(body, "openai")).toEqual({ message: `Invalid type for '${param}': expected ${expected}, but got ${came} instead.`, param })
      expect(refusal(body, "glm")).toEqual({ message: `${param} 参数非法: expected ${expected}`, param })
    }
    // null is taken where a field may be null, and nowhere else.
    expect(refusal({ model: "m", messages: [user], tools: null, stream: null, temperature: null, response_format: null }, "openai")).toBe("accepted")
    expect(refusal({ model: "m", messages: [{ role: "user", content: "hi", name: null }] }, "openai")).toEqual({
      message: "Invalid type for 'messages[0].name': expected a string, but got null instead.",
      param: "messages[0].name"
    })
  })

  it("OpenAI knows each of its top-level arguments and nothing beside them; GLM lets any through", () => {
    const known = [
      ...["model", "messages", "tools", "tool_choice", "stream", "stream_options", "temperature", "top_p", "max_tokens"],
      ...["max_completion_tokens", "n", "stop", "presence_penalty", "frequency_penalty", "logit_bias", "logprobs", "top_logprobs"],
      ...["user", "seed", "response_format", "parallel_tool_calls", "reasoning_effort", "metadata", "store", "service_tier"],
      ...["modalities", "audio", "prediction", "web_search_options", "verbosity", "prompt_cache_key", "safety_identifier", "functions", "function_call"]
    ]
    for (const key of known) expect(unknownFields({ model: "m", messages: [user], [key]: null })).toBeUndefined()
    for (const key of ["max_token", "Model", "thinking", "constructor", "toString", "__proto__"]) {
      expect(unknownFields(JSON.parse(`{"model":"m","messages":[],${JSON.stringify(key)}:1}`) as { [key: string]: unknown })).toEqual({
        message: `Unrecognized request argument supplied: ${key}`,
        param: null
      })
      expect(refusal(JSON.parse(`{"model":"m","messages":[{"role":"user","content":"hi"}],${JSON.stringify(key)}:1}`), "glm")).toBe("accepted")
    }
  })

  it("OpenAI knows the fields of each role's messages and nothing beside them, at the message's own position", () => {
    const fields: ReadonlyArray<readonly [role: string, known: ReadonlyArray<string>, others: ReadonlyArray<string>]> = [
      ["system", ["role", "content", "name"], ["tool_calls", "tool_call_id", "refusal"]],
      ["developer", ["role", "content", "name"], ["tool_calls", "tool_call_id", "audio"]],
      ["user", ["role", "content", "name"], ["tool_calls", "tool_call_id", "function_call"]],
      ["assistant", ["role", "content", "name", "tool_calls", "refusal", "audio", "function_call"], ["tool_call_id", "reasoning_content"]],
      ["tool", ["role", "content", "tool_call_id"], ["name", "tool_calls", "refusal"]]
    ]
    for (const [role, known, others] of fields) {
      const message = Object.fromEntries(known.map((key) => [key, null]))
      expect(unknownFields({ model: "m", messages: [user, { ...message, role }] })).toBeUndefined()
      for (const key of others) {
        expect(unknownFields({ model: "m", messages: [user, user, { ...message, role, [key]: null }] })).toEqual({
          message: `Additional properties are not allowed ('${key}' was unexpected) - 'messages.2'`,
          param: "messages.[2]"
        })
      }
    }
    // Only the messages' own fields are looked at, not those of a body whose messages are no list.
    expect(unknownFields({ model: "m", messages: { role: "user", foo: 1 } })).toBeUndefined()
  })
})

describe("chat completions — the route: the key, the body, how the answer is sent", () => {
  const keyed = (authorization: string | undefined): Record<string, string> => (authorization === undefined ? {} : { authorization })
  const missing = {
    openai: {
      error: {
        message:
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        type: "invalid_request_error",
        param: null,
        code: null
      }
    },
    glm: { error: { code: "1001", message: "Header中未收到Authorization参数，无法进行身份验证。" } }
  }

  it.scoped("no bearer key is 401 in each server's words, recorded as missing; the scheme's name in any case, any spaces after it", () =>
    Effect.gen(function* () {
      const emulator = yield* answering({ text: "a" }, { text: "b" })
      for (const authorization of [undefined, "Bearer", "Basic abc", `xBearer ${emulator.apiKey}`, emulator.apiKey]) {
        for (const route of ["openai", "glm"] as const) {
          const wire = yield* post(emulator, route, hi, keyed(authorization))
          expect([wire.status, JSON.parse(wire.text)]).toEqual([401, missing[route]])
        }
      }
      const recorded = yield* emulator.requests
      expect(recorded.map((record) => [record.protocol, record.flavour, record.apiKey, record.status])).toEqual(
        Array.from({ length: 10 }, (_, i) => ["openai", i % 2 === 0 ? "openai" : "glm", "missing", 401])
      )
      expect(recorded[0]!.error).toBe(JSON.stringify(missing.openai))
      for (const authorization of [`bearer ${emulator.apiKey}`, `Bearer  ${emulator.apiKey}`]) {
        expect((yield* post(emulator, "openai", hi, keyed(authorization))).status).toBe(200)
      }
      expect((yield* emulator.requests).slice(10).map((record) => record.apiKey)).toEqual(["valid", "valid"])
    }))

  it.scoped("the route is a path that ends in /chat/completions, under any base; nothing after it", () =>
    Effect.gen(function* () {
      const emulator = yield* answering({ text: "a" })
      const status = (path: string) =>
        Effect.promise(() =>
          emulator.fetch(`${emulator.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${emulator.apiKey}` }, body: JSON.stringify(hi) }).then((response) => response.status)
        )
      expect(yield* status("/v1/chat/completions/x")).toBe(404)
      expect(yield* status("/v1/chat/completions2")).toBe(404)
      expect(yield* status("/any/base/chat/completions")).toBe(200)
    }))

  it.scoped("a wrong key is 401, recorded as invalid; OpenAI shows it masked, all of it hidden up to eight characters", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const refusal = (route: Route, key: string) => Effect.map(post(emulator, route, hi, { authorization: `Bearer ${key}` }), (wire) => [wire.status, JSON.parse(wire.text)])
      const incorrect = (shown: string) => [
        401,
        {
          error: {
            message: `Incorrect API key provided: ${shown}. You can find your API key at https://platform.openai.com/account/api-keys.`,
            type: "invalid_request_error",
            param: null,
            code: "invalid_api_key"
          }
        }
      ]
      expect(yield* refusal("openai", "abcdefgh")).toEqual(incorrect("***"))
      expect(yield* refusal("openai", "abcdefghi")).toEqual(incorrect("abc***fghi"))
      expect(yield* refusal("glm", "abcdefghi")).toEqual([401, { error: { code: "1002", message: "Authorization Token非法，请确认Authorization Token正确传递。" } }])
      expect((yield* emulator.requests).map((record) => record.apiKey)).toEqual(["invalid", "invalid", "invalid"])
    }))

  it.scoped("a body that is not JSON: OpenAI's 400 saying where, GLM's 1214; nothing but the key recorded", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const openai = yield* post(emulator, "openai", '{"model": ')
      expect(openai.status).toBe(400)
      const body = JSON.parse(openai.text) as { error: { message: string } }
      expect(body).toEqual({ error: { message: expect.stringMatching(/^We could not parse the JSON body of your request\. \(.+\)$/), type: "invalid_request_error", param: null, code: null } })
      const glm = yield* post(emulator, "glm", '{"model": ')
      expect([glm.status, JSON.parse(glm.text)]).toEqual([400, { error: { code: "1214", message: body.error.message } }])
      const [first] = yield* emulator.requests
      expect([first!.apiKey, first!.body, first!.model, first!.request]).toEqual(["valid", undefined, undefined, undefined])
    }))

  it.scoped("records the body, the model, whether it streams, the neutral request and the faults applied", () =>
    Effect.gen(function* () {
      const emulator = yield* answering(Policy.withFaults({ text: "a" }, Fault.splitChunks), { text: "b" })
      yield* post(emulator, "glm", { ...hi, model: "glm-4.7" })
      yield* frames(emulator, "openai", hi)
      const [plain, streamed] = yield* emulator.requests
      expect(plain).toMatchObject({ protocol: "openai", flavour: "glm", model: "glm-4.7", stream: false, body: { ...hi, model: "glm-4.7" }, faults: [Fault.splitChunks], status: 200 })
      expect(plain!.request).toMatchObject({ protocol: "openai", flavour: "glm", index: 0, model: "glm-4.7", stream: false, transcript: [{ role: "user", parts: [{ _tag: "Text", text: "hi" }] }] })
      expect(streamed).toMatchObject({ flavour: "openai", model: "m", stream: true, faults: [] })
      expect(streamed!.request).toMatchObject({ index: 1, stream: true })
    }))

  it.scoped("a MalformedResponse step is a body that is not JSON, declared as JSON: 200, or a stream's one broken frame", () =>
    Effect.gen(function* () {
      const emulator = yield* answering({ error: new ModelError.MalformedResponse({ message: "x" }) }, { error: new ModelError.MalformedResponse({ message: "x" }) })
      const plain = yield* post(emulator, "openai", hi)
      expect([plain.status, plain.contentType, plain.text]).toEqual([200, "application/json; charset=UTF-8", '{"choices": ['])
      const streamed = yield* post(emulator, "glm", { ...hi, stream: true })
      expect([streamed.status, streamed.contentType, streamed.text]).toEqual([200, "text/event-stream", 'data: {"choices": [\n\n'])
    }))

  /** What `fetch` rejects with, or reading the body throws; undefined when the answer came whole. */
  const failure = (run: () => Promise<unknown>) =>
    Effect.promise(() =>
      run().then(
        () => undefined,
        (error: Error) => error.name
      )
    )

  /** A plain request on `route` that `controller` may abort. */
  const plainRequest = (emulator: Emulator.Service, route: Route, controller = new AbortController()) => () =>
    emulator.fetch(`${baseOf(emulator, route)}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${emulator.apiKey}` },
      body: JSON.stringify(hi),
      signal: controller.signal
    })

  /** Sends a request that gets no answer, aborts it once the emulator has it: what the client saw, and the outcome. */
  const abandoned = (emulator: Emulator.Service, route: Route) =>
    Effect.gen(function* () {
      const controller = new AbortController()
      const settled = yield* Effect.fork(failure(plainRequest(emulator, route, controller)))
      const index = (yield* emulator.received)
      yield* emulator.awaitRequests(index + 1)
      controller.abort()
      return [yield* Effect.flatten(settled.await), yield* emulator.awaitOutcome(index)]
    })

  it.scoped("a stall leaves the request open until the client gives up; a disconnect closes it at once", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      yield* emulator.inject(Fault.stall)
      expect(yield* abandoned(emulator, "openai")).toEqual(["AbortError", "aborted"])
      yield* emulator.inject(Fault.disconnect)
      expect(yield* failure(plainRequest(emulator, "glm"))).toBe("TypeError")
      expect(yield* emulator.awaitOutcome(1)).toBe("dropped")
    }))

  it.scoped("on a plain answer, StallMidStream stalls it and DropMidStream cuts it halfway", () =>
    Effect.gen(function* () {
      const emulator = yield* answering(Policy.withFaults({ text: "a" }, Fault.stallMidStream(1)), Policy.withFaults({ text: "a" }, Fault.dropMidStream(1)))
      expect(yield* abandoned(emulator, "openai")).toEqual(["AbortError", "aborted"])
      const cut = yield* Effect.promise(plainRequest(emulator, "openai"))
      expect(cut.status).toBe(200)
      expect(yield* failure(() => cut.text())).toBe("TypeError")
      expect(yield* emulator.awaitOutcome(1)).toBe("dropped")
    }))

  it.scoped("SplitChunks splits a MalformedResponse step's broken frame too", () =>
    Effect.gen(function* () {
      const emulator = yield* answering(Policy.withFaults({ error: new ModelError.MalformedResponse({ message: "x" }) }, Fault.splitChunks))
      const response = yield* Effect.promise(() =>
        emulator.fetch(`${emulator.glmBaseUrl()}/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${emulator.apiKey}` }, body: JSON.stringify({ ...hi, stream: true }) })
      )
      const chunks: Array<string> = []
      const decoder = new TextDecoder()
      yield* Effect.promise(async () => {
        for await (const chunk of response.body!) chunks.push(decoder.decode(chunk))
      })
      expect(chunks).toEqual(['data: {"ch', 'oices": [\n\n'])
    }))

  it.scoped("SplitChunks sends each frame of a stream in two writes; without it each frame is one", () =>
    Effect.gen(function* () {
      const emulator = yield* answering(Policy.withFaults({ text: "a b" }, Fault.splitChunks), { text: "a b" })
      const chunksOf = Effect.promise(async () => {
        const response = await emulator.fetch(`${emulator.openAIBaseUrl()}/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${emulator.apiKey}` },
          body: JSON.stringify({ ...hi, stream: true })
        })
        const chunks: Array<string> = []
        const decoder = new TextDecoder()
        for await (const chunk of response.body!) chunks.push(decoder.decode(chunk))
        return chunks
      })
      const split = yield* chunksOf
      const whole = yield* chunksOf
      expect(whole.every((chunk) => chunk.startsWith("data: ") && chunk.endsWith("\n\n"))).toBe(true)
      expect(split).toHaveLength(2 * whole.length)
      expect(split.some((chunk) => chunk.endsWith("\n\n") && chunk.startsWith("data: "))).toBe(false)
    }))
})
