/**
 * The contract every provider layer keeps, checked once for all of them (Gemini, GLM general and coding, OpenAI,
 * any OpenAI-compatible server) through the real SDKs against the emulator: streaming, the error taxonomy, aborts
 * on interruption, and the loop's retries. Each layer's own wire details are in its own test file.
 */
import { Agent, LanguageModel, Retry, Turn } from "@agentfx/core"
import { Fault, Policy } from "@agentfx/emulator"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, Option, Stream, TestClock } from "effect"
import { advanceWhenScheduled, ask, awaitScheduledSleep, registry, setup } from "./fixtures.js"

const providers = ["gemini", "glm", "glm-coding", "openai", "compatible"] as const

const errors: ReadonlyArray<readonly [string, Fault.Fault, Record<string, unknown>]> = [
  ["a rate limit with a retry hint", Fault.rateLimited({ retryAfter: "2500 millis" }), { _tag: "RateLimited", status: 429, retryAfter: Duration.millis(2500) }],
  ["a quota that will not clear", Fault.quotaExhausted(), { _tag: "QuotaExhausted", status: 429 }],
  ["an overloaded model", Fault.overloaded(), { _tag: "Overloaded", status: 503 }],
  ["a wrong key", Fault.unauthorized(), { _tag: "Unauthorized" }],
  ["a 500", Fault.status(500), { _tag: "Unavailable", status: 500 }],
  ["an HTML 502 from a proxy", Fault.status(502, { body: "<html>bad gateway</html>" }), { _tag: "Unavailable", status: 502 }],
  ["a dropped connection", Fault.disconnect, { _tag: "Unavailable" }]
]

const words = "one two three four five six"

for (const provider of providers) {
  describe(`provider contract — ${provider}`, () => {
    for (const streaming of [false, true]) {
      for (const [name, fault, expected] of errors) {
        it.scoped(`${name} → ${expected._tag} (${streaming ? "stream" : "generate"}), one request`, () =>
          Effect.gen(function* () {
            const { emulator, model } = yield* setup(provider, { policy: Policy.script([{ text: "never" }]) })
            yield* emulator.inject(fault)
            const error = yield* Effect.flip(streaming ? LanguageModel.collect(model.stream(ask("hi"))) : model.generate(ask("hi")))
            expect(error).toMatchObject(expected)
            expect(yield* emulator.requests).toHaveLength(1)
          }))
      }
    }

    it.scoped("streamed text arrives as deltas that concatenate to the final text, with usage", () =>
      Effect.gen(function* () {
        const { model } = yield* setup(provider, { policy: Policy.script([{ text: words, usage: { inputTokens: 40, outputTokens: 12, totalTokens: 52 } }]) })
        const parts = [...(yield* Stream.runCollect(model.stream(ask("count"))))]
        const deltas = parts.flatMap((part) => (part._tag === "TextDelta" ? [part.text] : []))
        expect(deltas.length).toBeGreaterThan(1)
        expect(deltas.join("")).toBe(words)
        const finish = parts[parts.length - 1]!
        if (finish._tag !== "Finish") throw new Error("the stream did not end with Finish")
        expect(Turn.text(finish.response.turn)).toBe(words)
        expect(finish.response.finishReason).toBe("stop")
        expect(finish.response.usage).toMatchObject({ inputTokens: 40, outputTokens: 12, totalTokens: 52 })
      }))

    it.scoped("a connection dropped mid-stream is Unavailable after the deltas before it, not a hang", () =>
      Effect.gen(function* () {
        const { emulator, model } = yield* setup(provider, { policy: Policy.script([{ text: words }]) })
        yield* emulator.inject(Fault.dropMidStream(3))
        const seen: Array<string> = []
        const error = yield* Effect.flip(Stream.runForEach(model.stream(ask("count")), (part) => Effect.sync(() => part._tag === "TextDelta" && seen.push(part.text))))
        expect(error).toMatchObject({ _tag: "Unavailable" })
        expect(error.retryable).toBe(true)
        expect(seen.length).toBeGreaterThan(0)
        expect(words.startsWith(seen.join(""))).toBe(true)
        expect(seen.join("")).not.toBe(words)
        expect(yield* emulator.awaitOutcome(0)).toBe("dropped")
      }))

    it.scoped("interrupting a request aborts it: the server sees the connection close", () =>
      Effect.gen(function* () {
        const { emulator, model } = yield* setup(provider)
        yield* emulator.inject(Fault.stall)
        const fiber = yield* Effect.fork(model.generate(ask("hello?")))
        yield* emulator.awaitRequests(1)
        yield* Fiber.interrupt(fiber)
        expect(yield* emulator.awaitOutcome(0)).toBe("aborted")
      }))

    it.scoped("stopping a run's event stream mid-answer aborts the stream's request", () =>
      Effect.gen(function* () {
        const { emulator, model } = yield* setup(provider, { policy: Policy.script([{ text: words }]) })
        yield* emulator.inject(Fault.stallMidStream(3))
        const events = Agent.stream({ registry, prompt: "count" }).pipe(Stream.provideService(LanguageModel.LanguageModel, model))
        const first = yield* Stream.runHead(Stream.filter(events, (event) => event._tag === "TextDelta"))
        expect(Option.map(first, (event) => event._tag === "TextDelta" && event.text)).toEqual(Option.some("one "))
        expect(yield* emulator.awaitOutcome(0)).toBe("aborted")
      }))

    it.scoped("a stream cut mid-way is retried by the loop from scratch: nothing of the failed attempt is kept", () =>
      Effect.gen(function* () {
        const { emulator, model } = yield* setup(provider, { policy: Policy.script([{ text: words }, { text: words }]) })
        yield* emulator.inject(Fault.dropMidStream(3))
        const fiber = yield* Effect.fork(
          Agent.run({ registry, prompt: "count", streaming: true, retry: Retry.policy({ base: "10 millis" }) }).pipe(
            Effect.provideService(LanguageModel.LanguageModel, model)
          )
        )
        yield* advanceWhenScheduled("1 second")
        const result = yield* Fiber.join(fiber)
        expect(result.text).toBe(words)
        expect(result.transcript[1]!.parts.filter((part) => part._tag === "Text")).toHaveLength(1)
        expect((yield* emulator.requests).map((record) => record.outcome)).toEqual(["dropped", "completed"])
      }))

    it.scoped("a quota that will not clear is requested exactly once: neither the SDK nor the loop retries it", () =>
      Effect.gen(function* () {
        const { emulator, model } = yield* setup(provider, { policy: Policy.script([{ text: "unused" }]) })
        yield* emulator.inject(Fault.quotaExhausted())
        const exit = yield* Effect.exit(Agent.run({ registry, prompt: "hi" }).pipe(Effect.provideService(LanguageModel.LanguageModel, model)))
        expect(Exit.isFailure(exit)).toBe(true)
        expect(exit).toMatchObject({ cause: { error: { _tag: "QuotaExhausted" } } })
        expect(yield* emulator.requests).toHaveLength(1)
      }))

    it.scoped("a rate limit with a retry hint is retried by the loop, not before the hint", () =>
      Effect.gen(function* () {
        const { emulator, model } = yield* setup(provider, { policy: Policy.script([{ text: "after the wait" }]) })
        yield* emulator.inject(Fault.rateLimited({ retryAfter: "3 seconds" }))
        const fiber = yield* Effect.fork(
          Agent.run({ registry, prompt: "hi", retry: Retry.policy({ base: "10 millis" }) }).pipe(Effect.provideService(LanguageModel.LanguageModel, model))
        )
        yield* emulator.awaitOutcome(0)
        yield* awaitScheduledSleep()
        yield* TestClock.adjust("2900 millis")
        expect(yield* emulator.requests).toHaveLength(1)
        yield* TestClock.adjust("100 millis")
        expect((yield* Fiber.join(fiber)).text).toBe("after the wait")
        expect((yield* emulator.requests).map((record) => record.status)).toEqual([429, 200])
      }))
  })
}
