import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { forEachPart, partsOf, replay } from "../src/internal/streaming.js"
import type { LanguageModel } from "../src/index.js"
import { ModelError } from "../src/index.js"

const response: LanguageModel.Response = {
  turn: {
    role: "model",
    parts: [
      { _tag: "Reasoning", text: "" },
      { _tag: "Reasoning", text: "hmm" },
      { _tag: "Text", text: "" },
      { _tag: "Text", text: "a b" },
      { _tag: "FunctionCall", id: "c", name: "f", args: {} },
      { _tag: "Opaque", provider: "p", data: 1 }
    ]
  },
  finishReason: "tool_calls",
  usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }
}
const split = (text: string) => text.split(" ")

describe("streaming", () => {
  it("partsOf gives the non-empty deltas, split, each call once, then Finish", () => {
    expect(partsOf(response, split)).toEqual([
      { _tag: "ReasoningDelta", text: "hmm" },
      { _tag: "TextDelta", text: "a" },
      { _tag: "TextDelta", text: "b" },
      { _tag: "CallDelta", call: response.turn.parts[4] },
      { _tag: "Finish", response }
    ])
    expect(partsOf(response).filter((part) => part._tag === "TextDelta")).toEqual([{ _tag: "TextDelta", text: "a b" }])
  })

  it.effect("a replay is a real stream of those parts, and forEachPart reads it directly: one chunk, room after it", () =>
    Effect.gen(function* () {
      let made = 0
      const stream = replay(Effect.sync(() => (made++, response)), split)
      expect(Chunk.toReadonlyArray(yield* Stream.runCollect(stream))).toEqual(partsOf(response, split))
      const seen: Array<string> = []
      let rooms = 0
      const result = yield* forEachPart(stream, (part) => seen.push(part._tag), Effect.sync(() => rooms++))
      expect(result).toBe(response)
      expect(seen).toEqual(["ReasoningDelta", "TextDelta", "TextDelta", "CallDelta", "Finish"])
      expect([made, rooms]).toEqual([2, 1])
    }))

  it.effect("forEachPart on any other stream: every part in order, room after each chunk, the last Finish's response", () =>
    Effect.gen(function* () {
      const other = { ...response, finishReason: "stop" as const }
      const stream = Stream.fromChunks(
        Chunk.make({ _tag: "TextDelta" as const, text: "x" }, { _tag: "Finish" as const, response }),
        Chunk.make({ _tag: "Finish" as const, response: other })
      )
      const seen: Array<string> = []
      let rooms = 0
      const result = yield* forEachPart(stream, (part) => seen.push(part._tag), Effect.sync(() => rooms++))
      expect(result).toBe(other)
      expect(seen).toEqual(["TextDelta", "Finish", "Finish"])
      expect(rooms).toBe(2)
      const trailing = Stream.make({ _tag: "Finish" as const, response }, { _tag: "TextDelta" as const, text: "late" })
      expect(yield* forEachPart(trailing, () => {})).toBe(response)
    }))

  it.effect("a stream without Finish is a MalformedResponse; a failing one fails with its error", () =>
    Effect.gen(function* () {
      const missing = yield* Effect.flip(forEachPart(Stream.make({ _tag: "TextDelta" as const, text: "x" }), () => {}))
      expect(missing).toBeInstanceOf(ModelError.MalformedResponse)
      expect(missing.message).toBe("the stream ended without a final response")
      const down = new ModelError.Unavailable({ message: "cut" })
      expect(yield* Effect.flip(forEachPart(Stream.fail(down), () => {}))).toBe(down)
      expect(yield* Effect.flip(forEachPart(replay(Effect.fail(down)), () => {}))).toBe(down)
    }))
})
