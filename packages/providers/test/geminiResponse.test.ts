import { ModelError, Turn } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { Either, Option } from "effect"
import { Aggregator, decodeResponse } from "../src/internal/gemini/response.js"
import type * as Wire from "../src/internal/gemini/wire.js"

// The Gemini response decoders on their own: a whole `generateContent` response kept part for part, and stream
// chunks aggregated. The provider tests reach these through the SDK; here each rule is pinned at its edge.

type Candidate = NonNullable<Wire.Response["candidates"]>[number]

const history: ReadonlyArray<Turn.Turn> = [Turn.user("hi")]
const text = (value: string): Turn.Part => ({ _tag: "Text", text: value })
const thought = (value: string): Turn.Part => ({ _tag: "Reasoning", text: value })
const candidate = (parts: ReadonlyArray<Wire.Part>, rest: Omit<Candidate, "content"> = {}): Wire.Response => ({
  candidates: [{ content: { role: "model", parts }, ...rest }]
})
const whole = (response: Wire.Response) => decodeResponse(history, response)
const streamed = (chunks: ReadonlyArray<Wire.Response>) => {
  const aggregator = new Aggregator(history, true)
  const deltas = chunks.flatMap((chunk) => Either.getOrThrow(aggregator.push(chunk)))
  return { deltas, finished: aggregator.finish() }
}
const failure = <A>(result: Either.Either<A, ModelError.ModelError>) => Option.getOrUndefined(Either.getLeft(result))

describe("Gemini whole responses", () => {
  it("keeps every part in place: two texts stay two parts, a call keeps its id, the usage is decoded", () => {
    const response = Either.getOrThrow(whole({
      ...candidate([{ text: "a" }, { text: "b" }, { functionCall: { id: "c1", name: "f", args: { x: 1 } } }], { finishReason: "STOP" }),
      usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 }
    }))
    expect(response.turn).toEqual({
      role: "model",
      parts: [text("a"), text("b"), { _tag: "FunctionCall", id: "c1", name: "f", args: { x: 1 } }]
    })
    expect(response.finishReason).toBe("tool_calls")
    expect(response.usage).toEqual({ inputTokens: 3, outputTokens: 2, totalTokens: 5 })
  })

  it("a call without an id gets one no call of the response holds", () => {
    const response = Either.getOrThrow(whole(candidate([
      { functionCall: { name: "f", args: {} } },
      { functionCall: { id: "gemini_call_1", name: "g", args: {} } }
    ])))
    const ids = Turn.calls(response.turn).map((call) => call.id)
    expect(ids[1]).toBe("gemini_call_1")
    expect(ids[0]).not.toBe("gemini_call_1")
    expect(ids[0]).toMatch(/^gemini_call_1_/)
  })

  it("a blocked prompt says why, with the server's message when there is one", () => {
    expect(failure(whole({ promptFeedback: { blockReason: "SAFETY" } }))).toStrictEqual(new ModelError.Blocked({ message: "the prompt was blocked (SAFETY)" }))
    expect(failure(whole({ promptFeedback: { blockReason: "OTHER", blockReasonMessage: "no" } }))).toStrictEqual(
      new ModelError.Blocked({ message: "the prompt was blocked (OTHER): no" })
    )
  })

  it("no candidate is a malformed response; a candidate without content is an empty turn", () => {
    expect(failure(whole({ usageMetadata: { promptTokenCount: 1 } }))).toStrictEqual(new ModelError.MalformedResponse({ message: "the response has no candidates" }))
    expect(failure(whole({ candidates: [] }))).toStrictEqual(new ModelError.MalformedResponse({ message: "the response has no candidates" }))
    const empty = Either.getOrThrow(whole({ candidates: [{ finishReason: "STOP" }] }))
    expect(empty.turn).toEqual({ role: "model", parts: [] })
    expect(empty.finishReason).toBe("stop")
  })

  it("a withheld answer is Blocked, with the finish message when there is one", () => {
    expect(failure(whole(candidate([{ text: "x" }], { finishReason: "RECITATION" })))).toStrictEqual(
      new ModelError.Blocked({ message: "the answer was blocked (RECITATION)" })
    )
    expect(failure(whole(candidate([], { finishReason: "SAFETY", finishMessage: "unsafe" })))).toStrictEqual(
      new ModelError.Blocked({ message: "the answer was blocked (SAFETY): unsafe" })
    )
  })

  it("a missing thought signature is the request's fault, with the finish message when there is one", () => {
    expect(failure(whole(candidate([], { finishReason: "MISSING_THOUGHT_SIGNATURE" })))).toStrictEqual(
      new ModelError.InvalidRequest({
        message: "the request's function call turn lacks its thought signature (MISSING_THOUGHT_SIGNATURE): the model's turns must be sent back as received"
      })
    )
    expect(failure(whole(candidate([], { finishReason: "MISSING_THOUGHT_SIGNATURE", finishMessage: "turn 2" })))).toStrictEqual(
      new ModelError.InvalidRequest({
        message:
          "the request's function call turn lacks its thought signature (MISSING_THOUGHT_SIGNATURE): the model's turns must be sent back as received: turn 2"
      })
    )
  })

  it("an unusable call without any usable one is MalformedResponse naming it; beside usable calls the turn stands", () => {
    expect(failure(whole(candidate([], { finishReason: "MALFORMED_FUNCTION_CALL" })))).toStrictEqual(
      new ModelError.MalformedResponse({ message: "the model produced an unusable function call (MALFORMED_FUNCTION_CALL)", malformedCall: "MALFORMED_FUNCTION_CALL" })
    )
    expect(failure(whole(candidate([], { finishReason: "UNEXPECTED_TOOL_CALL", finishMessage: "call: f(" })))).toStrictEqual(
      new ModelError.MalformedResponse({
        message: "the model produced an unusable function call (UNEXPECTED_TOOL_CALL): call: f(",
        malformedCall: "UNEXPECTED_TOOL_CALL: call: f("
      })
    )
    const withCall = Either.getOrThrow(whole(candidate([{ functionCall: { id: "c1", name: "f", args: {} } }], { finishReason: "TOO_MANY_TOOL_CALLS" })))
    expect(Turn.calls(withCall.turn).map((call) => call.id)).toEqual(["c1"])
    expect(withCall.finishReason).toBe("malformed_call")
  })
})

describe("Gemini stream aggregation", () => {
  it("a delta for each call, each non-empty text and each non-empty thought, none for empty ones", () => {
    const { deltas, finished } = streamed([
      candidate([{ text: "" }, { text: "", thought: true }]),
      candidate([{ text: "think", thought: true }, { text: "hello" }]),
      candidate([{ functionCall: { id: "c1", name: "f", args: { a: 1 } } }], { finishReason: "STOP" })
    ])
    expect(deltas).toEqual([
      { _tag: "ReasoningDelta", text: "think" },
      { _tag: "TextDelta", text: "hello" },
      { _tag: "CallDelta", call: { _tag: "FunctionCall", id: "c1", name: "f", args: { a: 1 } } }
    ])
    expect(Either.getOrThrow(finished).finishReason).toBe("tool_calls")
  })

  it("a part that is neither text, thought nor call (code to run, say) is kept in place with no delta", () => {
    const code = { executableCode: { language: "PYTHON", code: "print(1)" } }
    const { deltas, finished } = streamed([candidate([{ text: "a" }, code as Wire.Part], { finishReason: "STOP" })])
    expect(deltas).toEqual([{ _tag: "TextDelta", text: "a" }])
    expect(Either.getOrThrow(finished).turn.parts.map((part) => part._tag)).toEqual(["Text", "Opaque"])
  })

  it("merges consecutive chunks of the same kind: texts into one text, thoughts into one thought", () => {
    const { finished } = streamed([
      candidate([{ text: "th", thought: true }]),
      candidate([{ text: "ink", thought: true }]),
      candidate([{ text: "hel" }]),
      candidate([{ text: "lo" }])
    ])
    expect(Either.getOrThrow(finished).turn.parts).toEqual([thought("think"), text("hello")])
  })

  it("never merges into a part that carries a signature, nor a part with fields of its own", () => {
    const signed = streamed([candidate([{ text: "a", thoughtSignature: "c2ln" }]), candidate([{ text: "b" }])])
    expect(Either.getOrThrow(signed.finished).turn.parts).toEqual([
      { _tag: "Text", text: "a", metadata: { thoughtSignature: "c2ln" } },
      text("b")
    ])
    const extra = streamed([candidate([{ text: "a", executable: true }]), candidate([{ text: "b" }])])
    expect(Either.getOrThrow(extra.finished).turn.parts).toEqual([
      { _tag: "Text", text: "a", metadata: { geminiPart: { executable: true } } },
      text("b")
    ])
    const extraAfter = streamed([candidate([{ text: "a" }]), candidate([{ text: "b", executable: true }])])
    expect(Either.getOrThrow(extraAfter.finished).turn.parts).toHaveLength(2)
    const mixed = streamed([candidate([{ text: "a", thought: true }]), candidate([{ text: "b" }])])
    expect(Either.getOrThrow(mixed.finished).turn.parts).toEqual([thought("a"), text("b")])
  })

  it("the signature a later chunk brings stays on the merged part", () => {
    const { finished } = streamed([candidate([{ text: "a" }]), candidate([{ text: "b", thoughtSignature: "c2ln" }])])
    expect(Either.getOrThrow(finished).turn.parts).toEqual([{ _tag: "Text", text: "ab", metadata: { thoughtSignature: "c2ln" } }])
  })

  it("the finish reason, finish message and usage of an earlier chunk hold when later chunks have none", () => {
    const usage = streamed([
      { ...candidate([{ text: "a" }], { finishReason: "MAX_TOKENS" }), usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 1, totalTokenCount: 5 } },
      candidate([{ text: "b" }])
    ])
    const response = Either.getOrThrow(usage.finished)
    expect(response.finishReason).toBe("length")
    expect(response.usage).toEqual({ inputTokens: 4, outputTokens: 1, totalTokens: 5 })
    const message = streamed([candidate([], { finishMessage: "unsafe" }), candidate([], { finishReason: "SAFETY" })])
    expect(failure(message.finished)).toStrictEqual(new ModelError.Blocked({ message: "the answer was blocked (SAFETY): unsafe" }))
  })

  it("a chunk with usage only adds no delta; a stream of such chunks has no candidates", () => {
    const aggregator = new Aggregator(history, true)
    expect(aggregator.push({ usageMetadata: { promptTokenCount: 1 } })).toStrictEqual(Either.right([]))
    expect(failure(aggregator.finish())).toStrictEqual(new ModelError.MalformedResponse({ message: "the response has no candidates" }))
  })

  it("a blocked prompt in any chunk is the chunk's error", () => {
    const aggregator = new Aggregator(history, true)
    Either.getOrThrow(aggregator.push(candidate([{ text: "a" }])))
    expect(failure(aggregator.push({ promptFeedback: { blockReason: "SAFETY" } }))).toStrictEqual(new ModelError.Blocked({ message: "the prompt was blocked (SAFETY)" }))
  })

  it("calls across chunks are counted: synthetic ids follow one another and a malformed reason after a call keeps the turn", () => {
    const { deltas, finished } = streamed([
      candidate([{ functionCall: { name: "f" } }]),
      candidate([{ functionCall: { name: "g" } }], { finishReason: "MALFORMED_FUNCTION_CALL" })
    ])
    const ids = deltas.flatMap((delta) => (delta._tag === "CallDelta" ? [delta.call.id] : []))
    expect(ids).toEqual(["gemini_call_1", "gemini_call_2"])
    const response = Either.getOrThrow(finished)
    expect(Turn.calls(response.turn).map((call) => call.args)).toEqual([{}, {}])
    expect(response.finishReason).toBe("malformed_call")
  })
})
