import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, Layer, Ref, Schedule, Stream, TestClock } from "effect"
import { Agent, LanguageModel, ModelError, Registry, Retry } from "../src/index.js"
import { Scripted } from "../src/testing.js"

/** An attempt that fails with `errors` in turn, then succeeds; counts its runs. */
const failing = (errors: ReadonlyArray<ModelError.ModelError>) =>
  Effect.map(Ref.make(0), (runs) => ({
    runs,
    attempt: Effect.flatMap(Ref.getAndUpdate(runs, (n) => n + 1), (n): Effect.Effect<string, ModelError.ModelError> =>
      n < errors.length ? Effect.fail(errors[n]!) : Effect.succeed("ok")
    )
  }))

const rateLimited = (retryAfter: Duration.DurationInput) => new ModelError.RateLimited({ message: "429", status: 429, retryAfter: Duration.decode(retryAfter) })

describe("Retry.retrying", () => {
  it.effect("a hint of a day is not slept: the failure is at once a RateLimited carrying the hint", () =>
    Effect.gen(function* () {
      const { attempt, runs } = yield* failing([rateLimited("1 day")])
      const fiber = yield* Effect.fork(Retry.retrying(attempt, Retry.defaultPolicy))
      yield* TestClock.adjust(0)
      expect(fiber.unsafePoll(), "over before the clock moved").not.toBeNull()
      expect(yield* Fiber.await(fiber)).toEqual(Exit.fail(rateLimited("1 day")))
      expect(yield* Ref.get(runs)).toBe(1)
    }))

  it.effect("a hint up to maxHint is waited for, to the millisecond", () =>
    Effect.gen(function* () {
      const { attempt, runs } = yield* failing([rateLimited("90 seconds")])
      const fiber = yield* Effect.fork(Retry.retrying(attempt, Retry.policy({ maxHint: "2 minutes" })))
      yield* TestClock.adjust("89999 millis")
      expect(yield* Ref.get(runs)).toBe(1)
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(fiber)).toBe("ok")
      expect(yield* Ref.get(runs)).toBe(2)
    }))

  it.effect("the cap applies to every hint, not only the first, and to Overloaded's too", () =>
    Effect.gen(function* () {
      const overloaded = new ModelError.Overloaded({ message: "busy", retryAfter: Duration.minutes(5) })
      const { attempt, runs } = yield* failing([rateLimited("1 second"), overloaded])
      const fiber = yield* Effect.fork(Retry.retrying(attempt, Retry.policy({ maxHint: "1 minute" })))
      // The first retry waits for the hint or the jittered 1 s backoff, whichever is longer (at most 1.2 s).
      yield* TestClock.adjust("2 seconds")
      expect(fiber.unsafePoll(), "the second hint was not slept").not.toBeNull()
      expect(yield* Fiber.await(fiber)).toEqual(Exit.fail(overloaded))
      expect(yield* Ref.get(runs)).toBe(2)
    }))

  it.effect("a hint exactly at maxHint is still obeyed", () =>
    Effect.gen(function* () {
      const { attempt } = yield* failing([rateLimited(Retry.defaultMaxHint)])
      const fiber = yield* Effect.fork(Retry.retrying(attempt, Retry.defaultPolicy))
      yield* TestClock.adjust(Retry.defaultMaxHint)
      expect(yield* Fiber.join(fiber)).toBe("ok")
    }))

  it.effect("an error that is not retryable fails at once; a retryable one without a hint follows the backoff", () =>
    Effect.gen(function* () {
      const fatal = yield* failing([new ModelError.Unauthorized({ message: "bad key" })])
      expect(yield* Effect.exit(Retry.retrying(fatal.attempt, Retry.defaultPolicy))).toEqual(Exit.fail(new ModelError.Unauthorized({ message: "bad key" })))
      expect(yield* Ref.get(fatal.runs)).toBe(1)

      const flaky = yield* failing([new ModelError.Unavailable({ message: "reset" }), new ModelError.Unavailable({ message: "reset" })])
      const fiber = yield* Effect.fork(Retry.retrying(flaky.attempt, Retry.policy({ base: "1 second", maxRetries: 2 })))
      yield* TestClock.adjust("10 seconds")
      expect(yield* Fiber.join(fiber)).toBe("ok")
      expect(yield* Ref.get(flaky.runs)).toBe(3)
    }))

  it.effect("policy's defaults: a 1 s first delay, jittered between 0.8 and 1.2 s", () =>
    Effect.gen(function* () {
      const flaky = yield* failing([new ModelError.Unavailable({ message: "reset" })])
      const fiber = yield* Effect.fork(Retry.retrying(flaky.attempt, Retry.policy()))
      yield* TestClock.adjust("799 millis")
      expect(yield* Ref.get(flaky.runs)).toBe(1)
      yield* TestClock.adjust("401 millis")
      expect(yield* Fiber.join(fiber)).toBe("ok")
      expect(yield* Ref.get(flaky.runs)).toBe(2)
    }))

  it.effect("policy's defaults: the backoff is capped at 30 s", () =>
    Effect.gen(function* () {
      const down = new ModelError.Unavailable({ message: "reset" })
      const flaky = yield* failing([down, down])
      const fiber = yield* Effect.fork(Retry.retrying(flaky.attempt, Retry.policy({ base: "40 seconds", maxRetries: 2 })))
      // At most 48 s (40 s jittered), then 30 s (80 s jittered, capped); uncapped, the second wait is at least 64 s.
      yield* TestClock.adjust("78 seconds")
      expect(fiber.unsafePoll(), "both retries were made").not.toBeNull()
      expect(yield* Fiber.join(fiber)).toBe("ok")
      expect(yield* Ref.get(flaky.runs)).toBe(3)
    }))

  it.effect("policy's defaults: a hint of 60 s is obeyed, a hint over 60 s ends the retries", () =>
    Effect.gen(function* () {
      const obeyed = yield* failing([rateLimited("60 seconds")])
      const fiber = yield* Effect.fork(Retry.retrying(obeyed.attempt, Retry.policy()))
      yield* TestClock.adjust("60 seconds")
      expect(yield* Fiber.join(fiber)).toBe("ok")
      const refused = yield* failing([rateLimited("60001 millis")])
      expect(yield* Effect.exit(Retry.retrying(refused.attempt, Retry.policy()))).toEqual(Exit.fail(rateLimited("60001 millis")))
      expect(yield* Ref.get(refused.runs)).toBe(1)
    }))

  it("a cap or maxHint longer than a timer can hold is refused when the policy is built", () => {
    expect(() => Retry.policy({ maxHint: "30 days" })).toThrow("Retry.policy: maxHint must be at most")
    expect(() => Retry.policy({ cap: "30 days" })).toThrow("Retry.policy: cap must be at most")
    // The longest timer is 2^31 - 1 ms: that is accepted, one millisecond more is not.
    expect(() => Retry.policy({ maxHint: Duration.millis(2 ** 31 - 1), cap: Duration.millis(2 ** 31 - 1) })).not.toThrow()
    expect(() => Retry.policy({ maxHint: Duration.millis(2 ** 31) })).toThrow("Retry.policy: maxHint must be at most")
    expect(() => Retry.policy({ cap: Duration.millis(2 ** 31) })).toThrow("Retry.policy: cap must be at most")
  })

  it.effect("each failed attempt is told whether another follows, before the delay: the last one, and one not retried, are not", () =>
    Effect.gen(function* () {
      const told: Array<[string, boolean]> = []
      const onFailure = (error: ModelError.ModelError, willRetry: boolean) => Effect.sync(() => void told.push([error._tag, willRetry]))
      const down = new ModelError.Unavailable({ message: "reset" })
      const flaky = yield* failing([down, down, down, down])
      const fiber = yield* Effect.fork(Retry.retrying(flaky.attempt, Retry.policy({ base: "1 second", maxRetries: 2 }), undefined, onFailure))
      yield* TestClock.adjust(0)
      expect(told, "told at once, before the backoff").toEqual([["Unavailable", true]])
      yield* TestClock.adjust("10 seconds")
      expect(yield* Fiber.await(fiber)).toEqual(Exit.fail(down))
      expect(told).toEqual([["Unavailable", true], ["Unavailable", true], ["Unavailable", false]])
      expect(yield* Ref.get(flaky.runs)).toBe(3)

      told.length = 0
      const fatal = yield* failing([new ModelError.Unauthorized({ message: "bad key" })])
      yield* Effect.exit(Retry.retrying(fatal.attempt, Retry.defaultPolicy, undefined, onFailure))
      expect(told).toEqual([["Unauthorized", false]])
    }))

  it.effect("Agent.stream: AttemptFailed says willRetry, false on the attempt the policy gives up after", () =>
    Effect.gen(function* () {
      const model = Layer.succeed(
        LanguageModel.LanguageModel,
        LanguageModel.fromGenerate({ provider: "p", model: "m", generate: () => Effect.fail(new ModelError.Unavailable({ message: "reset" })) })
      )
      const failed = (retry: Retry.Policy) =>
        Effect.gen(function* () {
          const events: Array<{ readonly _tag: string }> = []
          const fiber = yield* Effect.fork(
            Agent.stream({ registry: Registry.empty, prompt: "go", retry }).pipe(
              Stream.runForEach((event) => Effect.sync(() => void events.push(event))),
              Effect.provide(model)
            )
          )
          yield* TestClock.adjust("10 seconds")
          expect(Exit.isFailure(yield* Fiber.await(fiber))).toBe(true)
          return events.filter((event) => event._tag === "AttemptFailed")
        })
      expect(yield* failed(Retry.policy({ base: "1 second", maxRetries: 2 }))).toMatchObject([
        { turn: 1, willRetry: true },
        { turn: 1, willRetry: true },
        { turn: 1, willRetry: false }
      ])
      expect(yield* failed(Retry.never)).toMatchObject([{ turn: 1, willRetry: false }])
    }))

  it.effect("Agent.run's onAttemptFailed and Agent.stream's AttemptFailed say which attempt failed, of how many, and the wait before the next", () =>
    Effect.gen(function* () {
      const down = new ModelError.Unavailable({ message: "reset" })
      const script = () => Scripted.layer([{ error: down }, { error: down }, { text: "third time" }])
      const retry = Retry.policy({ base: "1 second", maxRetries: 5 })
      const hooked: Array<Agent.AttemptFailed> = []
      const run = yield* Effect.fork(
        Agent.run({ registry: Registry.empty, prompt: "go", retry, onAttemptFailed: (failed) => Effect.sync(() => void hooked.push(failed)) }).pipe(Effect.provide(script()))
      )
      yield* TestClock.adjust("10 seconds")
      expect((yield* Fiber.join(run)).text).toBe("third time")
      expect(hooked.map(({ turn, attempt, maxAttempts, willRetry }) => ({ turn, attempt, maxAttempts, willRetry }))).toEqual([
        { turn: 1, attempt: 1, maxAttempts: 6, willRetry: true },
        { turn: 1, attempt: 2, maxAttempts: 6, willRetry: true }
      ])
      expect(Duration.toMillis(hooked[0]!.retryIn!)).toBeGreaterThanOrEqual(800)
      expect(Duration.toMillis(hooked[1]!.retryIn!)).toBeGreaterThanOrEqual(1600)

      const streamed: Array<Agent.AgentEvent> = []
      const stream = yield* Effect.fork(
        Agent.stream({ registry: Registry.empty, prompt: "go", retry: Schedule.recurs(1) }).pipe(
          Stream.runForEach((event) => Effect.sync(() => void streamed.push(event))),
          Effect.provide(script())
        )
      )
      yield* TestClock.adjust("10 seconds")
      expect(yield* Fiber.await(stream)).toEqual(Exit.fail(down))
      // A hand-made Schedule does not say how many attempts it makes.
      expect(streamed.filter((event) => event._tag === "AttemptFailed")).toEqual([
        { _tag: "AttemptFailed", turn: 1, error: down, willRetry: true, attempt: 1, maxAttempts: undefined, retryIn: Duration.zero },
        { _tag: "AttemptFailed", turn: 1, error: down, willRetry: false, attempt: 2, maxAttempts: undefined, retryIn: undefined }
      ])
    }))

  it.effect("each failed attempt is told its number and the wait before the next, and that wait is exactly the one slept", () =>
    Effect.gen(function* () {
      const told: Array<Retry.FailedAttempt> = []
      const down = new ModelError.Unavailable({ message: "reset" })
      const flaky = yield* failing([down, down, down])
      const fiber = yield* Effect.fork(
        Retry.retrying(flaky.attempt, Retry.policy({ base: "1 second", maxRetries: 2 }), undefined, (_, __, failed) => Effect.sync(() => void told.push(failed)))
      )
      yield* TestClock.adjust(0)
      expect(told).toHaveLength(1)
      expect(told[0]!.attempt).toBe(1)
      const first = Duration.toMillis(told[0]!.retryIn!)
      yield* TestClock.adjust(first - 1)
      expect(yield* Ref.get(flaky.runs), "not a millisecond early").toBe(1)
      yield* TestClock.adjust(1)
      expect(yield* Ref.get(flaky.runs)).toBe(2)
      expect(told[1]!.attempt).toBe(2)
      // The second wait doubles the base (jittered 1.6 to 2.4 s).
      const second = Duration.toMillis(told[1]!.retryIn!)
      expect(second).toBeGreaterThanOrEqual(1600)
      expect(second).toBeLessThanOrEqual(2400)
      yield* TestClock.adjust(second)
      expect(yield* Fiber.await(fiber)).toEqual(Exit.fail(down))
      expect(told[2]).toEqual({ attempt: 3, retryIn: undefined })
    }))

  it.effect("until: a retry whose wait would end at or after it is not made; the error is the result at once, told as the last", () =>
    Effect.gen(function* () {
      const told: Array<[boolean, Retry.FailedAttempt]> = []
      const onFailure = (_: ModelError.ModelError, willRetry: boolean, failed: Retry.FailedAttempt) => Effect.sync(() => void told.push([willRetry, failed]))
      const limited = yield* failing([rateLimited("10 seconds")])
      // The clock is at 0: a 10 s wait ends at 10 000 ms, which is not before `until`.
      expect(yield* Effect.exit(Retry.retrying(limited.attempt, Retry.defaultPolicy, undefined, onFailure, 10_000))).toEqual(Exit.fail(rateLimited("10 seconds")))
      expect(yield* Ref.get(limited.runs)).toBe(1)
      expect(told).toEqual([[false, { attempt: 1, retryIn: undefined }]])

      const made = yield* failing([rateLimited("10 seconds")])
      const fiber = yield* Effect.fork(Retry.retrying(made.attempt, Retry.defaultPolicy, undefined, undefined, 10_001))
      yield* TestClock.adjust("10 seconds")
      expect(yield* Fiber.join(fiber)).toBe("ok")
    }))

  it("maxAttempts: a policy's maxRetries + 1, 1 for never, and unknown for a hand-made Schedule", () => {
    expect(Retry.maxAttempts(Retry.defaultPolicy)).toBe(4)
    expect(Retry.maxAttempts(Retry.policy({ maxRetries: 6 }))).toBe(7)
    expect(Retry.maxAttempts(Retry.never)).toBe(1)
    expect(Retry.maxAttempts(Schedule.recurs(2))).toBeUndefined()
  })
})
