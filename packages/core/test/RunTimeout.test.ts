/**
 * The bound on all the time one run waits on the model (`runTimeout`): a model that never answers ends the run at
 * the bound with a `ModelTimeout` whose limit is `run`, after the attempts that fit in it; each failed attempt's
 * event says which attempt it was, of how many, and the wait before the next; time tools run does not count;
 * `Agent.stream` and each message of a `Chat` are bounded the same way; a retry wait is interrupted at once.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Exit, Fiber, Layer, Schema, Stream, TestClock } from "effect"
import { Agent, Chat, LanguageModel, ModelError, Registry, Retry, Tool } from "../src/index.js"
import { Scripted } from "../src/testing.js"

/** A server that never answers: every request waits forever. Records the clock time of each request. */
const silent = () => {
  const requestedAt: Array<number> = []
  const service = LanguageModel.fromGenerate({
    provider: "p",
    model: "m",
    generate: () => Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.zipRight(Effect.sync(() => void requestedAt.push(now)), Effect.never))
  })
  return { requestedAt, layer: Layer.succeed(LanguageModel.LanguageModel, service) }
}

/** A tool that works for an hour. */
const work = Tool.make("work", { description: "slow work", parameters: Schema.Struct({}), handler: () => Effect.as(Effect.sleep("1 hour"), "done") })
const slowTools = Registry.unsafeMake(work)

const runTimeoutError = (after: Duration.DurationInput) => new ModelError.ModelTimeout({ after: Duration.decode(after), limit: "run" })

const millis = (duration: Duration.DurationInput) => Duration.toMillis(Duration.decode(duration))

describe("runTimeout: the bound on a run's waiting for the model", () => {
  it.effect("a model that never answers (not streamed): the run fails at the default 15 min with ModelTimeout limit run, after 2 attempts, not after 4 of 10 min", () =>
    Effect.gen(function* () {
      expect(Agent.defaultRunTimeout).toEqual(Duration.minutes(15))
      const model = silent()
      const fiber = yield* Effect.fork(Agent.run({ registry: Registry.empty, prompt: "go" }).pipe(Effect.provide(model.layer)))
      yield* TestClock.adjust(millis(Agent.defaultRunTimeout) - 1)
      expect(fiber.unsafePoll(), "still waiting a millisecond before the bound").toBeNull()
      // The first attempt ended at the turn bound (10 min), the second started after the policy's wait.
      expect(model.requestedAt).toHaveLength(2)
      expect(model.requestedAt[1]! - millis(Agent.defaultTurnTimeout)).toBeGreaterThanOrEqual(800)
      yield* TestClock.adjust(1)
      const error = runTimeoutError(Agent.defaultRunTimeout)
      expect(yield* Fiber.await(fiber)).toEqual(Exit.fail(error))
      expect(error.retryable).toBe(false)
      expect(error.message).toBe("the run has waited 15m on the model in all, its limit (runTimeout)")
      expect(model.requestedAt).toHaveLength(2)
    }))

  it.effect("a stream that never starts: each AttemptFailed says its attempt of 4 and the wait before the next (the wait slept), and the stream fails at runTimeout", () =>
    Effect.gen(function* () {
      const model = silent()
      const events: Array<Agent.AgentEvent> = []
      const fiber = yield* Effect.fork(
        Agent.stream({ registry: Registry.empty, prompt: "go", runTimeout: "5 minutes" }).pipe(
          Stream.runForEach((event) => Effect.sync(() => void events.push(event))),
          Effect.provide(model.layer)
        )
      )
      yield* TestClock.adjust(millis("5 minutes") - 1)
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust(1)
      expect(yield* Fiber.await(fiber)).toEqual(Exit.fail(runTimeoutError("5 minutes")))

      const failed = events.flatMap((event) => (event._tag === "AttemptFailed" ? [event] : []))
      const firstByte = new ModelError.ModelTimeout({ after: Agent.defaultFirstByteTimeout, limit: "firstByte" })
      expect(failed.map(({ attempt, maxAttempts, willRetry, error }) => ({ attempt, maxAttempts, willRetry, error }))).toEqual([
        { attempt: 1, maxAttempts: 4, willRetry: true, error: firstByte },
        { attempt: 2, maxAttempts: 4, willRetry: true, error: firstByte },
        { attempt: 3, maxAttempts: 4, willRetry: false, error: runTimeoutError("5 minutes") }
      ])
      expect(failed[2]!.retryIn).toBeUndefined()
      // Each announced wait is the one the loop slept: the next request starts exactly then.
      const [first, second, third] = model.requestedAt
      const firstByteMs = millis(Agent.defaultFirstByteTimeout)
      expect(second! - (first! + firstByteMs)).toBe(millis(failed[0]!.retryIn!))
      expect(third! - (second! + firstByteMs)).toBe(millis(failed[1]!.retryIn!))
      expect(millis(failed[1]!.retryIn!)).toBeGreaterThanOrEqual(1600)
    }))

  it.effect("time tools run does not count, and the model's time adds up over the turns: 55 s of 1 min and two hours of tools finish; a third turn is cut when 1 min of model time is spent", () =>
    Effect.gen(function* () {
      const turns = (last: Scripted.Step) => Scripted.layer([{ calls: [{ name: "work" }], delay: "25 seconds" }, { calls: [{ name: "work" }], delay: "25 seconds" }, last])
      const twoHours = 2 * millis("1 hour")

      const finishing = yield* Effect.fork(
        Agent.run({ registry: slowTools, prompt: "go", runTimeout: "1 minute", retry: Retry.never }).pipe(Effect.provide(turns({ text: "done", delay: "5 seconds" })))
      )
      yield* TestClock.adjust(twoHours + millis("55 seconds"))
      const result = yield* Fiber.join(finishing)
      expect(result.text).toBe("done")
      expect(result.calls).toHaveLength(2)

      const cut = yield* Effect.fork(
        Effect.gen(function* () {
          const exit = yield* Effect.exit(Agent.run({ registry: slowTools, prompt: "go", runTimeout: "1 minute", retry: Retry.never }))
          return { exit, requests: (yield* (yield* Scripted.ScriptedModel).requests).length }
        }).pipe(Effect.provide(turns({ text: "late", delay: "1 day" })))
      )
      // 25 s + 1 h of work + 25 s + 1 h of work, then 10 s of the third turn: 60 s with the model in all.
      yield* TestClock.adjust(twoHours + millis("1 minute") - 1)
      expect(cut.unsafePoll(), "two hours of tools did not end the run").toBeNull()
      yield* TestClock.adjust(1)
      const { exit, requests } = yield* Fiber.join(cut)
      expect(exit).toEqual(Exit.fail(runTimeoutError("1 minute")))
      expect(requests).toBe(3)
    }))

  it.effect("when the run's end falls due with the turn's bound, the run's is named: nothing is retried into no time", () =>
    Effect.gen(function* () {
      const model = silent()
      const fiber = yield* Effect.fork(Agent.run({ registry: Registry.empty, prompt: "go", runTimeout: "10 seconds", turnTimeout: "10 seconds" }).pipe(Effect.provide(model.layer)))
      yield* TestClock.adjust("10 seconds")
      expect(yield* Fiber.await(fiber)).toEqual(Exit.fail(runTimeoutError("10 seconds")))
      yield* TestClock.adjust("1 minute")
      expect(model.requestedAt).toHaveLength(1)
    }))

  it.effect("a retry that could not start before the bound is not waited for: the run fails at once with the error that asked for it", () =>
    Effect.gen(function* () {
      const limited = new ModelError.RateLimited({ message: "slow down", status: 429, retryAfter: Duration.seconds(30) })
      const events: Array<Agent.AgentEvent> = []
      const fiber = yield* Effect.fork(
        Agent.stream({ registry: Registry.empty, prompt: "go", runTimeout: "1 minute" }).pipe(
          Stream.runForEach((event) => Effect.sync(() => void events.push(event))),
          Effect.provide(Scripted.layer([{ error: limited, delay: "50 seconds" }, { text: "too late" }]))
        )
      )
      // At 50 s, 10 s are left: a 30 s wait would end past the bound.
      yield* TestClock.adjust("50 seconds")
      expect(yield* Fiber.await(fiber)).toEqual(Exit.fail(limited))
      expect(events.filter((event) => event._tag === "AttemptFailed")).toMatchObject([{ attempt: 1, willRetry: false, retryIn: undefined, error: limited }])
    }))

  it.effect("each message of a Chat has its own runTimeout: one that runs out fails with the typed error, and the session goes on", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(
        Effect.gen(function* () {
          const chat = yield* Chat.make({ registry: Registry.empty, runTimeout: "1 minute", retry: Retry.never })
          const first = yield* chat.send("one")
          const second = yield* chat.send("two")
          const third = yield* Effect.exit(chat.send("three"))
          const fourth = yield* chat.send("four")
          return { texts: [first.text, second.text, fourth.text], third, transcript: yield* chat.transcript }
        }).pipe(
          Effect.provide(
            Scripted.layer([
              { text: "1", delay: "40 seconds" },
              { text: "2", delay: "40 seconds" },
              { text: "never", delay: "1 day" },
              { text: "4", delay: "40 seconds" }
            ])
          )
        )
      )
      yield* TestClock.adjust(millis("40 seconds") * 3 + millis("1 minute"))
      const { texts, third, transcript } = yield* Fiber.join(fiber)
      expect(texts).toEqual(["1", "2", "4"])
      expect(third).toEqual(Exit.fail(runTimeoutError("1 minute")))
      // The message that ran out left no trace; the others are kept.
      expect(transcript).toHaveLength(6)
    }))

  it.effect("runTimeout's edges: zero or less is a defect naming the option, nothing sent; an infinite one is no bound", () =>
    Effect.gen(function* () {
      const refused = yield* Effect.gen(function* () {
        const exit = yield* Effect.exit(Agent.run({ registry: Registry.empty, prompt: "go", runTimeout: 0 }))
        return { exit, requests: (yield* (yield* Scripted.ScriptedModel).requests).length }
      }).pipe(Effect.provide(Scripted.layer([{ text: "x" }])))
      expect(Exit.isFailure(refused.exit) && refused.exit.cause._tag === "Die" && String(refused.exit.cause.defect)).toBe("RangeError: runTimeout must be longer than 0, got 0")
      expect(refused.requests).toBe(0)

      const fiber = yield* Effect.fork(
        Agent.run({ registry: Registry.empty, prompt: "go", runTimeout: Duration.infinity, turnTimeout: "2 hours" }).pipe(
          Effect.provide(Scripted.layer([{ text: "slow but sure", delay: "1 hour" }]))
        )
      )
      yield* TestClock.adjust("1 hour")
      expect((yield* Fiber.join(fiber)).text).toBe("slow but sure")
    }))
})

describe("every wait of a run is interruptible", () => {
  it.effect("interrupting a run during a retry wait ends it at once: the clock need not move, and no request follows", () =>
    Effect.gen(function* () {
      const limited = new ModelError.RateLimited({ message: "slow down", status: 429, retryAfter: Duration.seconds(50) })
      const fiber = yield* Effect.fork(
        Effect.gen(function* () {
          const inspector = yield* Scripted.ScriptedModel
          const running = yield* Effect.fork(Agent.run({ registry: Registry.empty, prompt: "go" }))
          yield* TestClock.adjust(0)
          expect((yield* inspector.requests).length).toBe(1)
          // The run now sleeps for 50 s; the interruption must not wait for that.
          const exit = yield* Fiber.interrupt(running)
          yield* TestClock.adjust("1 minute")
          return { exit, requests: (yield* inspector.requests).length }
        }).pipe(Effect.provide(Scripted.layer([{ error: limited }, { text: "after the wait" }])))
      )
      const { exit, requests } = yield* Fiber.join(fiber)
      expect(Exit.isInterrupted(exit)).toBe(true)
      expect(requests).toBe(1)
    }))
})
