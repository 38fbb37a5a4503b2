import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Stream, TestClock } from "effect"
import { LanguageModel, ModelError, Turn } from "../src/index.js"
import type { Transcript } from "../src/index.js"
import { Scripted } from "../src/testing.js"

const request = (transcript: Transcript.Transcript = [Turn.user("hi")]): LanguageModel.Request => ({ transcript, declarations: [] })
const generate = (req: LanguageModel.Request = request()) => Effect.flatMap(LanguageModel.LanguageModel, (model) => model.generate(req))

describe("Scripted.turnOf", () => {
  it("reasoning, then text, then the calls, with ids call_<request>_<index> unless given, and metadata when given", () => {
    const turn = Scripted.turnOf({ text: "t", reasoning: "r", calls: [{ name: "f" }, { name: "g", args: { a: 1 }, id: "mine", metadata: { m: 1 } }] }, 3)
    expect(turn).toEqual({
      role: "model",
      parts: [
        { _tag: "Reasoning", text: "r" },
        { _tag: "Text", text: "t" },
        { _tag: "FunctionCall", id: "call_3_0", name: "f", args: {} },
        { _tag: "FunctionCall", id: "mine", name: "g", args: { a: 1 }, metadata: { m: 1 } }
      ]
    })
    expect("metadata" in turn.parts[2]!).toBe(false)
    expect(Scripted.turnOf({}, 0)).toEqual({ role: "model", parts: [] })
  })

  it("exact parts override the rest; a taken id gets a suffix, the first free one", () => {
    expect(Scripted.turnOf({ text: "ignored", parts: [{ _tag: "Text", text: "exact" }] }, 0)).toEqual(Turn.model("exact"))
    const turn = Scripted.turnOf({ calls: [{ name: "f" }] }, 0, new Set(["call_0_0", "call_0_0_2"]))
    expect(Turn.calls(turn).map((call) => call.id)).toEqual(["call_0_0_3"])
  })
})

describe("Scripted model", () => {
  it.effect("answers step by step with usage estimated from the text, and the finish reason its parts imply", () =>
    Effect.gen(function* () {
      const first = yield* generate()
      expect(first).toEqual({ turn: Turn.model("hello"), finishReason: "stop", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } })
      const second = yield* generate()
      expect(second.finishReason).toBe("tool_calls")
      expect(second.usage).toEqual({ inputTokens: 1, outputTokens: 0, totalTokens: 1 })
      const third = yield* generate()
      expect(third.finishReason).toBe("length")
      expect(third.usage).toEqual({ inputTokens: 7, outputTokens: 3, totalTokens: 10 })
      const fourth = yield* generate()
      expect(fourth.usage).toEqual({ inputTokens: 5, outputTokens: 2, totalTokens: 7 })
      const fifth = yield* generate()
      expect(fifth.usage).toEqual({ inputTokens: 1, outputTokens: 4, totalTokens: 99 })
      const sixth = yield* generate()
      expect(sixth.usage).toEqual({ inputTokens: 1, outputTokens: 1, totalTokens: 2 })
      const beyond = yield* Effect.flip(generate())
      expect(beyond).toBeInstanceOf(ModelError.InvalidRequest)
      expect(beyond.message).toBe("the script has no step 7 (it has 6)")
      const model = yield* LanguageModel.LanguageModel
      expect([model.provider, model.model]).toEqual(["scripted", "scripted"])
    }).pipe(
      Effect.provide(
        Scripted.layer([
          Scripted.text("hello"),
          Scripted.call("f"),
          { text: "x", finishReason: "length", usage: { inputTokens: 7, outputTokens: 3 } },
          { text: "abcde", usage: { inputTokens: 5 } },
          { text: "x", usage: { outputTokens: 4, totalTokens: 99 } },
          { text: "abcd", usage: undefined } as Scripted.Step
        ])
      )
    ))

  it.effect("an error step fails the request, a ModelError given as a step too; a delay waits on the clock", () =>
    Effect.gen(function* () {
      expect(yield* Effect.flip(generate())).toEqual(new ModelError.Overloaded({ message: "busy" }))
      expect(yield* Effect.flip(generate())).toEqual(new ModelError.Blocked({ message: "no" }))
      const fiber = yield* Effect.fork(generate())
      yield* TestClock.adjust("999 millis")
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      expect(Turn.text((yield* Fiber.join(fiber)).turn)).toBe("late")
      const failing = yield* Effect.fork(Effect.flip(generate()))
      yield* TestClock.adjust("2 seconds")
      expect(yield* Fiber.join(failing)).toEqual(new ModelError.Unavailable({ message: "down" }))
    }).pipe(
      Effect.provide(
        Scripted.layer([
          { error: new ModelError.Overloaded({ message: "busy" }) },
          new ModelError.Blocked({ message: "no" }) as unknown as Scripted.Step,
          { text: "late", delay: "1 second" },
          { error: new ModelError.Unavailable({ message: "down" }), delay: "2 seconds" }
        ])
      )
    ))

  it.effect("records every request; assertConsumed says how much of the script was used", () =>
    Effect.gen(function* () {
      const inspector = yield* Scripted.ScriptedModel
      yield* generate(request([Turn.user("one")]))
      const error = yield* Effect.flip(inspector.assertConsumed)
      expect(error).toEqual(new Scripted.ScriptIncomplete({ used: 1, total: 2 }))
      expect(error.message).toBe("the script has 2 steps but only 1 were used")
      expect(error._tag).toBe("ScriptIncomplete")
      expect(Scripted.ScriptedModel.key).toBe("@agentfx/core/testing/ScriptedModel")
      yield* generate(request([Turn.user("two")]))
      yield* inspector.assertConsumed
      expect((yield* inspector.requests).map((r) => Turn.text(r.transcript[0]!))).toEqual(["one", "two"])
    }).pipe(Effect.provide(Scripted.layer([Scripted.text("a"), Scripted.text("b")], { model: "mine" }))))

  it.effect("a responder answers from the request and its index, and is always consumed", () =>
    Effect.gen(function* () {
      const first = yield* generate(request([Turn.user("ping")]))
      // A responder is never used up, even after fewer requests than it has parameters.
      yield* (yield* Scripted.ScriptedModel).assertConsumed
      const second = yield* generate(request([Turn.user("pong")]))
      expect([Turn.text(first.turn), Turn.text(second.turn)]).toEqual(["0:ping", "1:pong"])
      yield* (yield* Scripted.ScriptedModel).assertConsumed
      expect((yield* LanguageModel.LanguageModel).model).toBe("mine")
    }).pipe(
      Effect.provide(Scripted.layer((req, index) => Effect.succeed(Scripted.text(`${index}:${Turn.text(req.transcript.at(-1)!)}`)), { model: "mine" }))
    ))

  it.effect("call ids already in the transcript are not reused; a transcript that does not grow from the last is read afresh", () =>
    Effect.gen(function* () {
      const first = yield* generate(request([Turn.user("a")]))
      const history = [Turn.user("a"), first.turn]
      const second = yield* generate(request(history))
      expect(Turn.calls(second.turn).map((call) => call.id)).toEqual(["call_1_0"])
      const other = [Turn.user("b"), { role: "model" as const, parts: [{ _tag: "FunctionCall" as const, id: "call_2_0", name: "f", args: {} }] }]
      const third = yield* generate(request(other))
      expect(Turn.calls(third.turn).map((call) => call.id)).toEqual(["call_2_0_2"])
      const fresh = yield* generate(request([Turn.user("c")]))
      expect(Turn.calls(fresh.turn).map((call) => call.id)).toEqual(["call_3_0"])
    }).pipe(Effect.provide(Scripted.layer([Scripted.call("f"), Scripted.call("f"), Scripted.call("f"), { calls: [{ name: "f" }], text: "" }]))))

  it.effect("a transcript that does not extend the last one is read afresh, from its first turn", () =>
    Effect.gen(function* () {
      const withCall = (id: string): Turn.Turn => ({ role: "model", parts: [{ _tag: "FunctionCall", id, name: "f", args: {} }] })
      yield* generate(request([Turn.user("a"), withCall("call_1_0")]))
      const longer = yield* generate(request([Turn.user("b"), Turn.model("x"), Turn.user("c")]))
      expect(Turn.calls(longer.turn).map((call) => call.id)).toEqual(["call_1_0"])
      const opening = yield* generate(request([withCall("call_2_0")]))
      expect(Turn.calls(opening.turn).map((call) => call.id)).toEqual(["call_2_0_2"])
    }).pipe(Effect.provide(Scripted.layer([Scripted.call("f"), Scripted.call("f"), Scripted.call("f")]))))

  it.effect("streams the text word by word, spaces kept, then the calls and the whole response", () =>
    Effect.gen(function* () {
      const model = yield* LanguageModel.LanguageModel
      const parts = Chunk.toReadonlyArray(yield* Stream.runCollect(model.stream(request())))
      expect(parts.filter((part) => part._tag === "TextDelta").map((part) => part.text)).toEqual(["  ", "hello  ", "big\n", "world"])
      expect(parts.at(-1)).toMatchObject({ _tag: "Finish", response: { finishReason: "stop" } })
    }).pipe(Effect.provide(Scripted.layer([Scripted.text("  hello  big\nworld")]))))
})
