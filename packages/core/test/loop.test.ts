import { describe, expect, it } from "@effect/vitest"
import type { Clock } from "effect"
import { Duration, Effect, Fiber, TestClock } from "effect"
import * as Loop from "../src/loop.js"
import { Agent, ModelError, Retry } from "../src/index.js"
import { Scripted } from "../src/testing.js"
import { registry } from "./fixtures.js"

const overloaded = new ModelError.Overloaded({ message: "busy" })

describe("Loop.run", () => {
  it.effect("hands each attempt at a model turn to the attempt hook, numbered by turn and by attempt within it", () =>
    Effect.gen(function* () {
      const seen: Array<[number, number, string]> = []
      const fiber = yield* Loop.run(
        { registry, prompt: "2+3?", retry: Retry.policy({ base: "1 second", maxRetries: 3 }) },
        {
          attempt: (turn, attempt, request) =>
            Effect.tapBoth(request, {
              onFailure: (error) => Effect.sync(() => void seen.push([turn, attempt, error._tag])),
              onSuccess: () => Effect.sync(() => void seen.push([turn, attempt, "ok"]))
            })
        }
      ).pipe(Effect.provide(Scripted.layer([{ error: overloaded }, { calls: [{ name: "add", args: { a: 2, b: 3 } }] }, { error: overloaded }, { error: overloaded }, { text: "5" }])), Effect.fork)
      yield* TestClock.adjust("10 minutes")
      const result = yield* Fiber.join(fiber)
      expect(result.text).toBe("5")
      expect(seen).toEqual([
        [1, 1, "Overloaded"],
        [1, 2, "ok"],
        [2, 1, "Overloaded"],
        [2, 2, "Overloaded"],
        [2, 3, "ok"]
      ])
    }))

  it.effect("a recorded attempt stands for the request: the model is not asked when the hook answers", () =>
    Effect.gen(function* () {
      const result = yield* Loop.run(
        { registry, prompt: "hi" },
        { attempt: () => Effect.succeed({ turn: { role: "model", parts: [{ _tag: "Text", text: "recorded" }] }, finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } }) }
      ).pipe(Effect.provide(Scripted.layer([])))
      expect(result.text).toBe("recorded")
      expect(result.transcript.at(-1)).toEqual({ role: "model", parts: [{ _tag: "Text", text: "recorded" }] })
    }))

  it.effect("the waits between attempts sleep on the retry clock, and only they do", () =>
    Effect.gen(function* () {
      const slept: Array<number> = []
      const real = yield* Effect.clock
      const retryClock: Clock.Clock = {
        ...real,
        sleep: (duration) => Effect.sync(() => void slept.push(Duration.toMillis(duration)))
      }
      const result = yield* Loop.run(
        { registry, prompt: "hi", retry: Retry.policy({ base: "1 second", maxRetries: 3 }) },
        { retryClock }
      ).pipe(Effect.provide(Scripted.layer([{ error: new ModelError.RateLimited({ message: "slow down", retryAfter: Duration.seconds(40) }) }, { text: "done" }])))
      // Nothing was waited on the test clock: the one wait went to the retry clock, at least the provider's hint.
      expect(result.text).toBe("done")
      expect(slept).toHaveLength(1)
      expect(slept[0]).toBeGreaterThanOrEqual(40_000)
    }))

  it.effect("an attempt keeps the run's clock: only the waits between attempts go to the retry clock", () =>
    Effect.gen(function* () {
      const slept: Array<number> = []
      const real = yield* Effect.clock
      const retryClock: Clock.Clock = { ...real, sleep: (duration) => Effect.sync(() => void slept.push(Duration.toMillis(duration))) }
      const fiber = yield* Loop.run(
        { registry, prompt: "hi", retry: Retry.policy({ base: "1 second", maxRetries: 3 }) },
        // The hook itself waits (as recording a step may): on the run's clock, here the test clock.
        { retryClock, attempt: (_turn, _attempt, request) => Effect.zipRight(Effect.sleep("5 seconds"), request) }
      ).pipe(Effect.provide(Scripted.layer([{ error: overloaded }, { text: "done" }])), Effect.fork)
      yield* TestClock.adjust("10 seconds")
      expect((yield* Fiber.join(fiber)).text).toBe("done")
      expect(slept).toHaveLength(1)
      expect(slept[0]).toBeLessThan(5_000)
    }))

  it.effect("without hooks it is Agent.run", () =>
    Effect.gen(function* () {
      const script = [{ calls: [{ name: "add", args: { a: 1, b: 2 } }] }, { text: "3" }]
      const plain = yield* Agent.run({ registry, prompt: "1+2?" }).pipe(Effect.provide(Scripted.layer(script)))
      const hooked = yield* Loop.run({ registry, prompt: "1+2?" }, {}).pipe(Effect.provide(Scripted.layer(script)))
      expect(hooked.transcript).toEqual(plain.transcript)
      expect(hooked.usage).toEqual(plain.usage)
    }))
})
