import { Turn } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { Accumulator, decodeCompletion } from "../src/internal/openai/response.js"
import type * as Wire from "../src/internal/openai/wire.js"

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
