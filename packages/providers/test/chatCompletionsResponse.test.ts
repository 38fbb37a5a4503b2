import { ModelError, Turn } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { Accumulator, decodeCompletion } from "../src/internal/openai/response.js"
import * as Wire from "../src/internal/openai/wire.js"

type Fragment = { index?: number; id?: string; name?: string; arguments?: string }

/** Feeds tool-call fragments, one chunk each, and returns the calls of the aggregated turn. */
const calls = (fragments: ReadonlyArray<Fragment>) => {
  const accumulator = new Accumulator([Turn.user("hi")])
  for (const { name, arguments: args, ...rest } of fragments) {
    const chunk = { choices: [{ index: 0, delta: { tool_calls: [{ ...rest, function: { name, arguments: args } }] } }] } as unknown as Wire.Chunk
    Either.getOrThrow(accumulator.push(chunk))
  }
  Either.getOrThrow(accumulator.push({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] } as unknown as Wire.Chunk))
  const { response, deltas } = Either.getOrThrow(accumulator.finish())
  const turnCalls = Turn.calls(response.turn)
  expect(deltas.map((d) => d._tag === "CallDelta" && d.call)).toEqual(turnCalls)
  return turnCalls.map((c) => ({ id: c.id, name: c.name, args: c.args, error: c.metadata?.argumentsError }))
}

describe("chat-completions stream accumulation of tool calls", () => {
  it("joins argument fragments by index", () => {
    expect(calls([
      { index: 0, id: "c1", name: "a", arguments: '{"x":' },
      { index: 1, id: "c2", name: "b", arguments: "" },
      { index: 0, arguments: "1}" },
      { index: 1, arguments: '{"y":2}' }
    ])).toEqual([
      { id: "c1", name: "a", args: { x: 1 }, error: undefined },
      { id: "c2", name: "b", args: { y: 2 }, error: undefined }
    ])
  })

  it("a new id on a reused index is a new call (servers that give every parallel call index 0)", () => {
    expect(calls([
      { index: 0, id: "c1", name: "a", arguments: '{"x":1}' },
      { index: 0, id: "c2", name: "b", arguments: '{"y":2}' }
    ])).toEqual([
      { id: "c1", name: "a", args: { x: 1 }, error: undefined },
      { id: "c2", name: "b", args: { y: 2 }, error: undefined }
    ])
  })

  it("without index or id, a fragment naming a function starts the next call", () => {
    const result = calls([{ name: "a", arguments: '{"x":' }, { arguments: "1}" }, { name: "b", arguments: '{"y":2}' }])
    expect(result.map(({ name, args, error }) => ({ name, args, error }))).toEqual([
      { name: "a", args: { x: 1 }, error: undefined },
      { name: "b", args: { y: 2 }, error: undefined }
    ])
    expect(new Set(result.map((c) => c.id)).size).toBe(2)
  })

  it("a repeated id on continuation fragments stays one call", () => {
    expect(calls([
      { index: 0, id: "c1", name: "a", arguments: '{"x"' },
      { index: 0, id: "c1", arguments: ":1}" }
    ])).toEqual([{ id: "c1", name: "a", args: { x: 1 }, error: undefined }])
  })
})

describe("call ids reused across turns", () => {
  it("a call whose id the conversation already used gets a fresh one, plain and streamed", () => {
    const history: ReadonlyArray<Turn.Turn> = [
      Turn.user("hi"),
      { role: "model", parts: [{ _tag: "FunctionCall", id: "call_0", name: "a", args: {} }] },
      { role: "user", parts: [{ _tag: "FunctionResponse", id: "call_0", name: "a", response: { output: 1 }, isError: false }] }
    ]
    const completion = {
      id: "x",
      choices: [{ index: 0, finish_reason: "tool_calls", message: { role: "assistant", content: null, tool_calls: [{ id: "call_0", type: "function", function: { name: "b", arguments: "{}" } }] } }]
    } as unknown as Wire.Completion
    const plain = Either.getOrThrow(decodeCompletion(history, completion))
    const [call] = Turn.calls(plain.turn)
    expect(call!.id).not.toBe("call_0")
    expect(call!.name).toBe("b")

    const accumulator = new Accumulator(history)
    Either.getOrThrow(accumulator.push({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_0", function: { name: "b", arguments: "{}" } }] }, finish_reason: "tool_calls" }] } as unknown as Wire.Chunk))
    const streamed = Turn.calls(Either.getOrThrow(accumulator.finish()).response.turn)
    expect(streamed.map((c) => c.id)).toEqual([call!.id])
  })
})

describe("chat-completions finish reasons and usage, whole and streamed", () => {
  const whole = (finish_reason: string | null, message: Wire.ResponseMessage = { role: "assistant", content: "hi" }) =>
    decodeCompletion([Turn.user("hi")], { choices: [{ index: 0, message, finish_reason }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } })
  const streamed = (chunks: ReadonlyArray<Wire.Chunk>) => {
    const accumulator = new Accumulator([Turn.user("hi")])
    for (const chunk of chunks) Either.getOrThrow(accumulator.push(chunk))
    return Either.map(accumulator.finish(), ({ response }) => response)
  }
  const call = { id: "c1", type: "function", function: { name: "f", arguments: "{}" } }

  it("a stop with calls is a tool-calls turn; none, a stop without them; a blocked or dropped answer is an error", () => {
    expect(Either.getOrThrow(whole("stop", { role: "assistant", tool_calls: [call] })).finishReason).toBe("tool_calls")
    expect(Either.getOrThrow(whole(null, { role: "assistant", tool_calls: [call] })).finishReason).toBe("tool_calls")
    expect(Either.getOrThrow(whole(null)).finishReason).toBe("stop")
    expect(Either.getOrThrow(whole("length")).finishReason).toBe("length")
    expect(Either.flip(whole("content_filter"))).toStrictEqual(Either.right(new ModelError.Blocked({ message: "the answer was blocked (finish_reason content_filter)" })))
    expect(Either.flip(whole("network_error"))).toStrictEqual(Either.right(new ModelError.Unavailable({ message: "the server reported a network error (finish_reason network_error)" })))
    expect(Either.flip(decodeCompletion([Turn.user("hi")], { choices: [] }))).toStrictEqual(Either.right(new ModelError.MalformedResponse({ message: "the completion has no choices" })))
    expect(Either.getOrThrow(whole("stop")).usage).toMatchObject({ inputTokens: 3, outputTokens: 2, totalTokens: 5 })
  })

  it("streamed: the last finish reason and the usage of any chunk count; a chunk without choices is only usage", () => {
    const text = (content: string, finish_reason: string | null = null): Wire.Chunk => ({ choices: [{ index: 0, delta: { content }, finish_reason }] })
    const usage: Wire.Chunk = { choices: [], usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 } }
    const ended = Either.getOrThrow(streamed([text("a"), text("b", "length"), usage, { choices: null, usage: null }]))
    expect(ended.finishReason).toBe("length")
    expect(ended.usage).toMatchObject({ inputTokens: 4, outputTokens: 1, totalTokens: 5 })
    expect(Turn.text(ended.turn)).toBe("ab")
    expect(Either.getOrThrow(streamed([text("a")])).finishReason).toBe("stop")
    expect(Either.flip(streamed([text("a", "sensitive")]))).toStrictEqual(Either.right(new ModelError.Blocked({ message: "the answer was blocked (finish_reason sensitive)" })))
    expect(Either.flip(streamed([text("a", "network_error")]))).toMatchObject(Either.right({ _tag: "Unavailable" }))
  })

  it("streamed reasoning is kept, an empty reasoning delta is not a part", () => {
    const turn = Either.getOrThrow(streamed([{ choices: [{ index: 0, delta: { reasoning_content: "" } }] }, { choices: [{ index: 0, delta: { reasoning_content: "think", content: "ok" } }] }])).turn
    expect(turn.parts).toStrictEqual([{ _tag: "Reasoning", text: "think" }, { _tag: "Text", text: "ok" }])
    const none = Either.getOrThrow(streamed([{ choices: [{ index: 0, delta: { reasoning_content: "", content: "ok" } }] }])).turn
    expect(none.parts).toStrictEqual([{ _tag: "Text", text: "ok" }])
  })
})

describe("chat-completions stream accumulation, chunk by chunk", () => {
  type Delta = NonNullable<NonNullable<Wire.Chunk["choices"]>[number]["delta"]>
  const chunk = (delta: Delta, finish_reason: string | null = null): Wire.Chunk => ({ choices: [{ index: 0, delta, finish_reason }] })

  it("each chunk's deltas: reasoning and text as they come, nothing for empty ones, calls only at the end", () => {
    const accumulator = new Accumulator([Turn.user("hi")])
    const pushed = [
      chunk({ reasoning_content: "th" }),
      chunk({ reasoning_content: "ink", content: "" }),
      chunk({ content: "he" }),
      chunk({ content: "llo", tool_calls: [{ index: 0, id: "c1", function: { name: "f", arguments: "{}" } }] })
    ].map((c) => Either.getOrThrow(accumulator.push(c)))
    expect(pushed).toEqual([
      [{ _tag: "ReasoningDelta", text: "th" }],
      [{ _tag: "ReasoningDelta", text: "ink" }],
      [{ _tag: "TextDelta", text: "he" }],
      [{ _tag: "TextDelta", text: "llo" }]
    ])
    const { deltas, response } = Either.getOrThrow(accumulator.finish())
    expect(deltas).toEqual([{ _tag: "CallDelta", call: { _tag: "FunctionCall", id: "c1", name: "f", args: {} } }])
    expect(response.turn).toEqual({
      role: "model",
      parts: [{ _tag: "Reasoning", text: "think" }, { _tag: "Text", text: "hello" }, { _tag: "FunctionCall", id: "c1", name: "f", args: {} }]
    })
    // No finish reason came: calls make it a tool-calls turn.
    expect(response.finishReason).toBe("tool_calls")
  })

  it("text that was only ever empty is kept as an empty text part, without a delta", () => {
    const accumulator = new Accumulator([Turn.user("hi")])
    expect(Either.getOrThrow(accumulator.push(chunk({ content: "" })))).toEqual([])
    expect(Either.getOrThrow(accumulator.finish()).response.turn.parts).toEqual([{ _tag: "Text", text: "" }])
  })

  it("a finish reason or usage of null in a later chunk does not undo an earlier one", () => {
    const accumulator = new Accumulator([Turn.user("hi")])
    Either.getOrThrow(accumulator.push({ ...chunk({ content: "a" }, "length"), usage: { prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 } }))
    Either.getOrThrow(accumulator.push({ ...chunk({}, null), usage: null }))
    const { response } = Either.getOrThrow(accumulator.finish())
    expect(response.finishReason).toBe("length")
    expect(response.usage).toMatchObject({ inputTokens: 2, outputTokens: 1, totalTokens: 3 })
  })

  it("an empty id or name on a fragment counts as none: it continues the call", () => {
    expect(calls([
      { index: 0, id: "c1", name: "a", arguments: '{"x"' },
      { index: 0, id: "", name: "", arguments: ":1}" }
    ])).toEqual([{ id: "c1", name: "a", args: { x: 1 }, error: undefined }])
    const noIndex = calls([{ id: "c1", name: "a", arguments: '{"x"' }, { id: "", name: "", arguments: ":1}" }])
    expect(noIndex).toEqual([{ id: "c1", name: "a", args: { x: 1 }, error: undefined }])
  })

  it("an id or name that comes after the first fragment of a call fills it in; a later one never renames it", () => {
    expect(calls([
      { index: 0, arguments: '{"x"' },
      { index: 0, id: "c1", name: "a", arguments: ":1" },
      { index: 0, name: "b", arguments: "}" }
    ])).toEqual([{ id: "c1", name: "a", args: { x: 1 }, error: undefined }])
  })

  it("without an index, a fragment with a new id starts the next call; one without id or name continues the last", () => {
    expect(calls([
      { id: "c1", name: "a", arguments: '{"x":1}' },
      { id: "c2", arguments: '{"y":' },
      { arguments: "2}" }
    ])).toEqual([
      { id: "c1", name: "a", args: { x: 1 }, error: undefined },
      { id: "c2", name: "", args: { y: 2 }, error: undefined }
    ])
  })

  it("a chunk with only usage has no deltas; later chunks without usage or finish reason keep the earlier ones", () => {
    const accumulator = new Accumulator([Turn.user("hi")])
    expect(Either.getOrThrow(accumulator.push({ choices: [], usage: { prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 } }))).toEqual([])
    Either.getOrThrow(accumulator.push(chunk({ content: "a" }, "length")))
    expect(Either.getOrThrow(accumulator.push({ choices: [{ index: 0, delta: { content: "b" } }] }))).toEqual([{ _tag: "TextDelta", text: "b" }])
    const { response } = Either.getOrThrow(accumulator.finish())
    expect(response.finishReason).toBe("length")
    expect(response.usage).toMatchObject({ inputTokens: 2, outputTokens: 1, totalTokens: 3 })
  })

  it("a choice without a delta only finishes: no deltas, nothing added", () => {
    const accumulator = new Accumulator([Turn.user("hi")])
    Either.getOrThrow(accumulator.push(chunk({ content: "a" })))
    expect(Either.getOrThrow(accumulator.push({ choices: [{ index: 0, finish_reason: "stop" }] }))).toEqual([])
    expect(Either.getOrThrow(accumulator.push({ choices: [{ index: 0, delta: null, finish_reason: null }] }))).toEqual([])
    const { response } = Either.getOrThrow(accumulator.finish())
    expect(response.turn.parts).toEqual([{ _tag: "Text", text: "a" }])
    expect(response.finishReason).toBe("stop")
  })

  it("null ids, names, indexes and arguments count as none; a fragment without a function only carries its id", () => {
    const push = (accumulator: Accumulator, ...toolCalls: NonNullable<Delta["tool_calls"]>) => Either.getOrThrow(accumulator.push(chunk({ tool_calls: toolCalls })))
    const accumulator = new Accumulator([Turn.user("hi")])
    push(accumulator, { index: 0, function: { name: "a", arguments: '{"x"' } })
    push(accumulator, { index: 0, id: "c1" })
    push(accumulator, { index: 0, id: null, function: { name: null, arguments: null } })
    push(accumulator, { index: 0, function: { arguments: ":1}" } })
    expect(Turn.calls(Either.getOrThrow(accumulator.finish()).response.turn)).toEqual([{ _tag: "FunctionCall", id: "c1", name: "a", args: { x: 1 } }])
    // An index of null is no index: a second named fragment is a second call, not the first one's continuation.
    const withoutIndex = new Accumulator([Turn.user("hi")])
    push(withoutIndex, { index: null, function: { name: "a", arguments: "{}" } })
    push(withoutIndex, { index: null, id: null, function: { name: "b" } })
    push(withoutIndex, { index: null, function: { name: null, arguments: "{}" } })
    expect(Turn.calls(Either.getOrThrow(withoutIndex.finish()).response.turn).map((call) => [call.name, call.args])).toEqual([["a", {}], ["b", {}]])
  })

  it("without an index, a named fragment starts a new call unless it repeats the last call's id; a first name fills one in", () => {
    expect(calls([
      { name: "a", arguments: '{"x":1}' },
      { id: "c2", name: "b", arguments: '{"y":2}' }
    ]).map(({ name, args }) => ({ name, args }))).toEqual([{ name: "a", args: { x: 1 } }, { name: "b", args: { y: 2 } }])
    expect(calls([
      { id: "c1", name: "a", arguments: '{"x"' },
      { id: "c1", name: "a", arguments: ":1}" }
    ])).toEqual([{ id: "c1", name: "a", args: { x: 1 }, error: undefined }])
    expect(calls([{ arguments: '{"x"' }, { name: "a", arguments: ":1}" }]).map(({ name, args }) => ({ name, args }))).toEqual([{ name: "a", args: { x: 1 } }])
  })

  it("a streamed call keeps its arguments as sent when they are not compact JSON, and says why when they are not JSON", () => {
    const [broken, spaced, compact] = Turn.calls(
      Either.getOrThrow(
        (() => {
          const accumulator = new Accumulator([Turn.user("hi")])
          Either.getOrThrow(accumulator.push(chunk({
            tool_calls: [
              { index: 0, id: "c1", function: { name: "a", arguments: '{"x":' } },
              { index: 1, id: "c2", function: { name: "b", arguments: '{ "y": 2 }' } },
              { index: 2, id: "c3", function: { name: "c", arguments: '{"z":3}' } }
            ]
          })))
          return accumulator.finish()
        })()
      ).response.turn
    )
    expect(broken?.args).toEqual({})
    expect(broken?.metadata?.arguments).toBe('{"x":')
    expect(String(broken?.metadata?.argumentsError)).toMatch(/^arguments are not valid JSON/)
    expect(spaced?.args).toEqual({ y: 2 })
    expect(spaced?.metadata).toEqual({ arguments: '{ "y": 2 }' })
    expect(compact).toStrictEqual({ _tag: "FunctionCall", id: "c3", name: "c", args: { z: 3 } })
  })

  it("calls without ids are numbered after the conversation's calls, by position", () => {
    const history: ReadonlyArray<Turn.Turn> = [
      Turn.user("hi"),
      { role: "model", parts: [{ _tag: "FunctionCall", id: "x", name: "a", args: {} }] },
      { role: "user", parts: [{ _tag: "FunctionResponse", id: "x", name: "a", response: { output: 1 }, isError: false }] }
    ]
    const accumulator = new Accumulator(history)
    Either.getOrThrow(accumulator.push(chunk({ tool_calls: [{ index: 0, function: { name: "a", arguments: "{}" } }, { index: 1, function: { name: "b", arguments: "{}" } }] })))
    expect(Turn.calls(Either.getOrThrow(accumulator.finish()).response.turn).map((call) => call.id)).toEqual(["call_2", "call_3"])
  })

  it("a whole completion's call without an id gets one no call of the completion holds", () => {
    const completion = {
      choices: [{
        index: 0,
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content: null,
          tool_calls: [
            { type: "function", function: { name: "a", arguments: "{}" } },
            { id: "call_1", type: "function", function: { name: "b", arguments: "{}" } }
          ]
        }
      }]
    } as unknown as Wire.Completion
    const ids = Turn.calls(Either.getOrThrow(decodeCompletion([Turn.user("hi")], completion)).turn).map((call) => call.id)
    expect(ids[1]).toBe("call_1")
    expect(ids[0]).not.toBe("call_1")
    expect(new Set(ids).size).toBe(2)
  })
})

describe("the chat-completions wire: what a response may hold", () => {
  const nulls = {
    id: null,
    choices: [{ index: null, delta: { role: null, content: null, reasoning_content: null, tool_calls: [{ index: null, id: null, type: null, function: { name: null, arguments: null } }] }, finish_reason: null }],
    usage: { prompt_tokens: null, completion_tokens: null, total_tokens: null, prompt_tokens_details: { cached_tokens: null }, completion_tokens_details: { reasoning_tokens: null } }
  }

  it("a chunk's optional fields may be null or absent", () => {
    expect(Either.isRight(Wire.decodeChunk(nulls))).toBe(true)
    expect(Either.isRight(Wire.decodeChunk({}))).toBe(true)
    expect(Either.isRight(Wire.decodeChunk({ choices: [{ delta: { tool_calls: [{}] } }], usage: { prompt_tokens_details: {}, completion_tokens_details: {} } }))).toBe(true)
  })

  it("a field of the wrong type is refused, however deep", () => {
    const wrong: ReadonlyArray<unknown> = [
      { id: 1 },
      { choices: {} },
      { choices: [{ delta: { content: 42 } }] },
      { choices: [{ delta: { reasoning_content: [] } }] },
      { choices: [{ delta: { tool_calls: [{ index: "0" }] } }] },
      { choices: [{ delta: { tool_calls: [{ function: { arguments: { x: 1 } } }] } }] },
      { choices: [{ finish_reason: 1 }] },
      { usage: { prompt_tokens: "3" } },
      { usage: { prompt_tokens_details: { cached_tokens: "3" } } },
      { usage: { completion_tokens_details: { reasoning_tokens: "2" } } }
    ]
    expect(wrong.filter((chunk) => Either.isRight(Wire.decodeChunk(chunk)))).toEqual([])
  })

  it("a whole completion's arguments may be a JSON string or an object, nothing else; its call needs a function name", () => {
    const completion = (call: unknown) => ({ choices: [{ message: { tool_calls: [call] } }] })
    expect(Either.isRight(Wire.decodeCompletion(completion({ function: { name: "f", arguments: "{}" } })))).toBe(true)
    expect(Either.isRight(Wire.decodeCompletion(completion({ function: { name: "f", arguments: { x: 1 } } })))).toBe(true)
    expect(Either.isRight(Wire.decodeCompletion(completion({ function: { name: "f", arguments: 5 } })))).toBe(false)
    expect(Either.isRight(Wire.decodeCompletion(completion({ function: { arguments: "{}" } })))).toBe(false)
    expect(Either.isRight(Wire.decodeCompletion({ choices: [{ message: { content: null }, finish_reason: null }], usage: null }))).toBe(true)
  })
})
