// `LiveAgent` is imported inside the test, not at the top: a default that fails to build (an invalid duration)
// then fails this test, rather than the loading of the file, which a mutation run does not count as a failure.
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Fiber, TestClock } from "effect"
import { Unavailable } from "../src/ModelError.js"
import { retrying } from "../src/Retry.js"

describe("LiveAgent.defaultReconnect", () => {
  it.effect("after a failed attempt: 5 more, 0.5 s apart at first, doubling (jittered by up to a fifth), capped at 8 s", () =>
    Effect.gen(function* () {
      const { defaultReconnect } = yield* Effect.promise(() => import("../src/LiveAgent.js"))
      const attempts: Array<number> = []
      const refused = new Unavailable({ message: "connection refused" })
      const attempt = Effect.zipRight(
        Effect.flatMap(Clock.currentTimeMillis, (at) => Effect.sync(() => void attempts.push(at))),
        Effect.fail(refused)
      )
      const fiber = yield* Effect.fork(Effect.flip(retrying(attempt, defaultReconnect)))
      yield* TestClock.adjust("1 minute")
      expect(yield* Fiber.join(fiber)).toBe(refused)
      const waits = attempts.slice(1).map((at, i) => at - attempts[i]!)
      const bounds: ReadonlyArray<readonly [number, number]> = [[400, 600], [800, 1200], [1600, 2400], [3200, 4800], [6400, 8000]]
      expect(waits.map((wait, i) => Math.min(Math.max(wait, bounds[i]![0]), bounds[i]![1]))).toEqual(waits)
      expect(attempts.length).toBe(6)
    }))
})
