import { describe, expect, it } from "@effect/vitest"
import { Cause, Duration, Effect, Exit, Fiber, Layer, Ref, Stream, TestClock } from "effect"
import type { Runtime } from "effect"
import * as Deadline from "../src/internal/deadline.js"
import { Agent, LanguageModel, ModelError, Registry, Retry, Turn } from "../src/index.js"

const usage = LanguageModel.emptyUsage
const answer = (text: string): LanguageModel.Response => ({ turn: Turn.model(text), finishReason: "stop", usage })

/**
 * A model whose `stream` sends `pieces` text deltas, waiting `gaps[i]` before the i-th (the last gap is before
 * `Finish`), and whose `generate` answers after `generateAfter`. Counts its requests.
 */
const timedModel = (options: { readonly gaps: ReadonlyArray<Duration.DurationInput>; readonly generateAfter?: Duration.DurationInput }) =>
  Effect.gen(function* () {
    const requests = yield* Ref.make(0)
    const text = options.gaps.slice(0, -1).map((_, i) => `w${i} `).join("")
    const service: LanguageModel.Service = {
      provider: "timed",
      model: "timed",
      generate: () => Effect.zipRight(Ref.update(requests, (n) => n + 1), Effect.as(Effect.sleep(options.generateAfter ?? 0), answer(text))),
      stream: () =>
        Stream.unwrap(
          Effect.as(
            Ref.update(requests, (n) => n + 1),
            Stream.fromIterable(options.gaps).pipe(
              Stream.zipWithIndex,
              Stream.mapEffect(([gap, i]): Effect.Effect<LanguageModel.StreamPart> =>
                Effect.as(
                  Effect.sleep(gap),
                  i < options.gaps.length - 1 ? { _tag: "TextDelta", text: `w${i} ` } : { _tag: "Finish", response: answer(text) }
                )
              )
            )
          )
        )
    }
    return { layer: Layer.succeed(LanguageModel.LanguageModel, service), requests }
  })

const never = Retry.never

describe("bounded waits for the model", () => {
  it.effect("a non-streamed answer that takes 20 s succeeds with the defaults", () =>
    Effect.gen(function* () {
      const model = yield* timedModel({ gaps: [0], generateAfter: "20 seconds" })
      const fiber = yield* Effect.fork(Agent.run({ registry: Registry.empty, prompt: "go", retry: never }).pipe(Effect.provide(model.layer)))
      yield* TestClock.adjust("20 seconds")
      const result = yield* Fiber.join(fiber)
      expect(result.stopReason).toEqual({ _tag: "Finished" })
    }))

  it.effect("a stream that sends a part every second for 30 s is not cut, even with a 2 s idle bound", () =>
    Effect.gen(function* () {
      const gaps = Array.from({ length: 31 }, (): Duration.DurationInput => "1 second")
      const model = yield* timedModel({ gaps })
      const fiber = yield* Effect.fork(
        Agent.run({ registry: Registry.empty, prompt: "go", streaming: true, idleTimeout: "2 seconds", retry: never }).pipe(Effect.provide(model.layer))
      )
      yield* TestClock.adjust("31 seconds")
      const result = yield* Fiber.join(fiber)
      expect(result.text.split(" ").filter((word) => word !== "")).toHaveLength(30)
      expect(yield* Ref.get(model.requests)).toBe(1)
    }))

  it.effect("a stream that stalls after its first part is cut after exactly idleTimeout, as an idle timeout", () =>
    Effect.gen(function* () {
      const model = yield* timedModel({ gaps: ["1 second", "1 second", "1 hour"] })
      const fiber = yield* Effect.fork(
        Agent.run({ registry: Registry.empty, prompt: "go", streaming: true, idleTimeout: "5 seconds", retry: never }).pipe(Effect.provide(model.layer))
      )
      // Parts at 1 s and 2 s; nothing after: the idle bound runs out at 2 s + 5 s.
      yield* TestClock.adjust("6999 millis")
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      const exit = yield* Fiber.await(fiber)
      const error = new ModelError.ModelTimeout({ after: Duration.seconds(5), limit: "idle" })
      expect(exit).toEqual(Exit.fail(error))
      expect(error.message).toBe("the model's stream stalled: nothing for 5s (idleTimeout)")
    }))

  it.effect("a stream that never starts is cut after firstByteTimeout, as a first-byte timeout", () =>
    Effect.gen(function* () {
      const model = yield* timedModel({ gaps: ["1 hour"] })
      const fiber = yield* Effect.fork(
        Agent.run({ registry: Registry.empty, prompt: "go", streaming: true, firstByteTimeout: "10 seconds", retry: never }).pipe(Effect.provide(model.layer))
      )
      yield* TestClock.adjust("9999 millis")
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      const error = new ModelError.ModelTimeout({ after: Duration.seconds(10), limit: "firstByte" })
      expect(yield* Fiber.await(fiber)).toEqual(Exit.fail(error))
      expect(error.message).toBe("the model sent nothing within 10s (firstByteTimeout)")
    }))

  it.effect("a part at the clock's zero counts as a part: the stall after it is an idle timeout", () =>
    Effect.gen(function* () {
      const model = yield* timedModel({ gaps: [0, "1 hour"] })
      const fiber = yield* Effect.fork(
        Agent.run({ registry: Registry.empty, prompt: "go", streaming: true, idleTimeout: "2 seconds", firstByteTimeout: "10 seconds", retry: never }).pipe(
          Effect.provide(model.layer)
        )
      )
      yield* TestClock.adjust("2 seconds")
      const exit = yield* Fiber.await(fiber)
      expect(exit).toEqual(Exit.fail(new ModelError.ModelTimeout({ after: Duration.seconds(2), limit: "idle" })))
      expect(Exit.isFailure(exit) && Cause.squash(exit.cause)).toMatchObject({ limit: "idle" })
    }))

  it.effect("when two bounds fall due together, the turn's is the one named", () =>
    Effect.gen(function* () {
      const model = yield* timedModel({ gaps: ["1 hour"] })
      const fiber = yield* Effect.fork(
        Agent.run({ registry: Registry.empty, prompt: "go", streaming: true, firstByteTimeout: "5 seconds", turnTimeout: "5 seconds", retry: never }).pipe(
          Effect.provide(model.layer)
        )
      )
      yield* TestClock.adjust("5 seconds")
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isFailure(exit) && Cause.squash(exit.cause)).toMatchObject({ _tag: "ModelTimeout", limit: "turn" })
    }))

  it.effect("a healthy stream that goes on too long is cut at turnTimeout, as a turn timeout", () =>
    Effect.gen(function* () {
      const model = yield* timedModel({ gaps: Array.from({ length: 100 }, (): Duration.DurationInput => "1 second") })
      const fiber = yield* Effect.fork(
        Agent.run({ registry: Registry.empty, prompt: "go", streaming: true, turnTimeout: "30 seconds", retry: never }).pipe(Effect.provide(model.layer))
      )
      yield* TestClock.adjust("29999 millis")
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      const error = new ModelError.ModelTimeout({ after: Duration.seconds(30), limit: "turn" })
      expect(yield* Fiber.await(fiber)).toEqual(Exit.fail(error))
      expect(error.message).toBe("the model did not finish its answer within 30s (turnTimeout)")
    }))

  it.effect("first-byte and idle bounds do not apply to a request that is not streamed", () =>
    Effect.gen(function* () {
      const model = yield* timedModel({ gaps: [0], generateAfter: "1 minute" })
      const fiber = yield* Effect.fork(
        Agent.run({ registry: Registry.empty, prompt: "go", firstByteTimeout: "1 second", idleTimeout: "1 second", retry: never }).pipe(
          Effect.provide(model.layer)
        )
      )
      yield* TestClock.adjust("1 minute")
      expect((yield* Fiber.join(fiber)).stopReason).toEqual({ _tag: "Finished" })
    }))

  it.effect("a timed-out attempt is retried as any retryable error, and the request it abandoned is interrupted", () =>
    Effect.gen(function* () {
      const interrupted = yield* Ref.make(0)
      let calls = 0
      const service = LanguageModel.fromGenerate({
        provider: "slow-then-fast",
        model: "x",
        generate: () =>
          calls++ === 0
            ? Effect.never.pipe(Effect.onInterrupt(() => Ref.update(interrupted, (n) => n + 1)))
            : Effect.succeed(answer("fast"))
      })
      const fiber = yield* Effect.fork(
        Agent.run({ registry: Registry.empty, prompt: "go", turnTimeout: "3 seconds", retry: Retry.policy({ maxRetries: 1, base: "1 second" }) }).pipe(
          Effect.provideService(LanguageModel.LanguageModel, service)
        )
      )
      yield* TestClock.adjust("1 minute")
      expect((yield* Fiber.join(fiber)).text).toBe("fast")
      expect(yield* Ref.get(interrupted)).toBe(1)
    }))

  it.effect("bounds must be longer than zero", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(Agent.run({ registry: Registry.empty, prompt: "go", idleTimeout: 0 }).pipe(Effect.provide(Layer.succeed(LanguageModel.LanguageModel, LanguageModel.fromGenerate({ provider: "p", model: "m", generate: () => Effect.succeed(answer("x")) })))))
      expect(Exit.isFailure(exit) && exit.cause._tag === "Die" && String(exit.cause.defect)).toBe("RangeError: idleTimeout must be longer than 0, got 0")
    }))
})

describe("Deadline.within, the watch on one request", () => {
  const bounds = (idle: Duration.DurationInput): Deadline.Limits => ({ turn: Duration.infinity, firstByte: Duration.decode(idle), idle: Duration.decode(idle) })
  const watched = <A, E>(request: Effect.Effect<A, E>, busy?: () => boolean, capture: Effect.Effect<Runtime.Runtime<never>> = Effect.runtime<never>()) =>
    Effect.gen(function* () {
      const runtime = yield* capture
      const clock = yield* Effect.clock
      return yield* Effect.fork(Deadline.within(runtime, clock, bounds("2 seconds"), true, () => request, busy))
    })

  it.effect("while the caller is busy the stream is not idle: a request silent for 10 s under a 2 s bound ends well", () =>
    Effect.gen(function* () {
      const busy = yield* watched(Effect.as(Effect.sleep("10 seconds"), "answered"), () => true)
      const idle = yield* watched(Effect.as(Effect.sleep("10 seconds"), "answered"))
      yield* TestClock.adjust("10 seconds")
      expect(yield* Fiber.join(busy)).toBe("answered")
      expect(yield* Fiber.await(idle)).toEqual(Exit.fail(new ModelError.ModelTimeout({ after: Duration.seconds(2), limit: "firstByte" })))
    }))

  it.effect("a defect of the watcher reaches the caller instead of leaving it waiting", () =>
    Effect.gen(function* () {
      const fiber = yield* watched(Effect.never, () => {
        throw new Error("busy broke")
      })
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isFailure(exit) && Cause.isDie(exit.cause) && String(Cause.squash(exit.cause))).toBe("Error: busy broke")
    }))

  it.effect("once the wait ends, whichever way, the watcher looks no more and the request has stopped", () =>
    Effect.gen(function* () {
      // The watcher asks `busy` each time it looks at the clock: a watcher left sleeping would ask again later.
      let looks = 0
      const look = () => (looks++, false)
      const afterwards = Effect.gen(function* () {
        const before = looks
        yield* TestClock.adjust("1 minute")
        return looks - before
      })
      const answered = yield* watched(Effect.as(Effect.sleep("1 second"), "answered"), look)
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(answered)).toBe("answered")
      expect(yield* afterwards).toBe(0)
      const stopped = yield* Ref.make(false)
      const cut = yield* watched(Effect.never.pipe(Effect.onInterrupt(() => Ref.set(stopped, true))), look)
      yield* TestClock.adjust("2 seconds")
      expect(yield* Fiber.await(cut)).toMatchObject(Exit.fail({ _tag: "ModelTimeout", limit: "firstByte" }))
      expect(yield* Ref.get(stopped)).toBe(true)
      expect(yield* afterwards).toBe(0)
      const left = yield* Ref.make(false)
      const abandoned = yield* watched(Effect.never.pipe(Effect.onInterrupt(() => Ref.set(left, true))), look)
      yield* Effect.yieldNow()
      expect(looks).toBeGreaterThan(0)
      yield* Fiber.interrupt(abandoned)
      expect(yield* Ref.get(left)).toBe(true)
      expect(yield* afterwards).toBe(0)
    }))

  it.effect("a runtime captured where interruption is off (a session opened in acquireRelease) still lets the answer end the wait and a timeout cut the request", () =>
    Effect.gen(function* () {
      const capture = Effect.uninterruptible(Effect.runtime<never>())
      // The watcher must stop when the answer comes: the answer at 1 s is returned then, not at the 2 s bound.
      const answered = yield* watched(Effect.as(Effect.sleep("1 second"), "answered"), undefined, capture)
      yield* TestClock.adjust("1 second")
      expect(answered.unsafePoll()).toEqual(Exit.succeed("answered"))
      // The request must stop when the bound passes: a silent one is cut at 2 s and its finalizer has run.
      const stopped = yield* Ref.make(false)
      const cut = yield* watched(Effect.never.pipe(Effect.onInterrupt(() => Ref.set(stopped, true))), undefined, capture)
      yield* TestClock.adjust("2 seconds")
      expect(cut.unsafePoll()).toMatchObject(Exit.fail({ _tag: "ModelTimeout", limit: "firstByte" }))
      expect(yield* Ref.get(stopped)).toBe(true)
    }))
})
