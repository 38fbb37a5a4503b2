import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Schema, Stream } from "effect"
import { LanguageModel, ModelError, Turn } from "../src/index.js"

const response: LanguageModel.Response = {
  turn: Turn.model("a b"),
  finishReason: "stop",
  usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 }
}

describe("LanguageModel", () => {
  it("addUsage sums the counts, and the optional ones only when either side has them", () => {
    const base = { inputTokens: 1, outputTokens: 2, totalTokens: 3 }
    expect(LanguageModel.addUsage(base, { inputTokens: 10, outputTokens: 20, totalTokens: 30 })).toEqual({ inputTokens: 11, outputTokens: 22, totalTokens: 33 })
    expect(LanguageModel.addUsage({ ...base, reasoningTokens: 4 }, base)).toEqual({ ...base, inputTokens: 2, outputTokens: 4, totalTokens: 6, reasoningTokens: 4 })
    expect(LanguageModel.addUsage(base, { ...base, reasoningTokens: 4, cachedTokens: 5 })).toEqual({
      inputTokens: 2,
      outputTokens: 4,
      totalTokens: 6,
      reasoningTokens: 4,
      cachedTokens: 5
    })
    expect(LanguageModel.addUsage({ ...base, cachedTokens: 1 }, { ...base, cachedTokens: 2, reasoningTokens: 3 })).toMatchObject({ cachedTokens: 3, reasoningTokens: 3 })
    expect(LanguageModel.addUsage({ ...base, cachedTokens: 7 }, base)).toEqual({ inputTokens: 2, outputTokens: 4, totalTokens: 6, cachedTokens: 7 })
    expect("reasoningTokens" in LanguageModel.addUsage(base, LanguageModel.emptyUsage)).toBe(false)
    expect(LanguageModel.LanguageModel.key).toBe("@agentfx/core/LanguageModel")
    expect(LanguageModel.emptyUsage).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 })
  })

  it("the Usage and FinishReason Schemas", () => {
    expect(Either.isRight(Schema.decodeUnknownEither(LanguageModel.Usage)({ inputTokens: 1, outputTokens: 1, totalTokens: 2, cachedTokens: 1 }))).toBe(true)
    expect(Either.isLeft(Schema.decodeUnknownEither(LanguageModel.Usage)({ inputTokens: 1, outputTokens: 1 }))).toBe(true)
    for (const reason of ["stop", "tool_calls", "length", "safety", "malformed_call", "other"]) {
      expect(Schema.is(LanguageModel.FinishReason)(reason)).toBe(true)
    }
    expect(Schema.is(LanguageModel.FinishReason)("done")).toBe(false)
  })

  it.effect("streamOfResponse cuts the text as told, and collect gives the response back", () =>
    Effect.gen(function* () {
      const parts = yield* Stream.runCollect(LanguageModel.streamOfResponse(response, (text) => text.split(" ")))
      expect(Chunk.toReadonlyArray(parts)).toEqual([{ _tag: "TextDelta", text: "a" }, { _tag: "TextDelta", text: "b" }, { _tag: "Finish", response }])
      const whole = yield* Stream.runCollect(LanguageModel.streamOfResponse(response))
      expect(Chunk.toReadonlyArray(whole)[0]).toEqual({ _tag: "TextDelta", text: "a b" })
      expect(yield* LanguageModel.collect(LanguageModel.streamOfResponse(response))).toBe(response)
      expect(yield* Effect.flip(LanguageModel.collect(Stream.empty))).toBeInstanceOf(ModelError.MalformedResponse)
    }))

  it.effect("fromGenerate streams what generate answers, and keeps the provider and model", () =>
    Effect.gen(function* () {
      let asked = 0
      const service = LanguageModel.fromGenerate({ provider: "p", model: "m", generate: () => Effect.sync(() => (asked++, response)) })
      expect([service.provider, service.model]).toEqual(["p", "m"])
      const parts = Chunk.toReadonlyArray(yield* Stream.runCollect(service.stream({ transcript: [], declarations: [] })))
      expect(parts).toEqual([{ _tag: "TextDelta", text: "a b" }, { _tag: "Finish", response }])
      expect(yield* service.generate({ transcript: [], declarations: [] })).toBe(response)
      expect(asked).toBe(2)
    }))
})
