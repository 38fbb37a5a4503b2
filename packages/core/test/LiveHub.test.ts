import { describe, expect, it } from "@effect/vitest"
import { Cause, Chunk, Effect, Exit, Fiber, Option, Stream } from "effect"
import * as Hub from "../src/internal/live/hub.js"

/** Reads a subscription to its end in a fiber of its own. */
const reading = <A, E>(events: Stream.Stream<A, E>) => Effect.fork(Effect.map(Stream.runCollect(events), Chunk.toArray))

/** How a reader's stream ended, once forked readers had the time to catch up (none if it has not ended). */
const ending = <A, E>(reader: Fiber.Fiber<A, E>) => Effect.zipRight(Effect.repeatN(Effect.yieldNow(), 10), Fiber.poll(reader))

describe("the hub of a live session's events", () => {
  it.scoped("every reader sees the events published after it subscribed, in order, and the end", () =>
    Effect.gen(function* () {
      const hub = yield* Hub.make<number, string>()
      yield* hub.publish(0)
      const first = yield* reading(yield* hub.subscribe)
      yield* hub.publish(1)
      const second = yield* reading(yield* hub.subscribe)
      yield* hub.publish(2)
      yield* hub.publish(3)
      yield* hub.end(Exit.void)
      expect(yield* ending(first)).toEqual(Option.some(Exit.succeed([1, 2, 3])))
      expect(yield* ending(second)).toEqual(Option.some(Exit.succeed([2, 3])))
    }))

  it.scoped("a failed end fails every reader's stream with the session's error", () =>
    Effect.gen(function* () {
      const hub = yield* Hub.make<number, string>()
      const reader = yield* reading(yield* hub.subscribe)
      yield* hub.publish(1)
      yield* hub.end(Exit.fail("dropped"))
      expect(yield* ending(reader)).toEqual(Option.some(Exit.fail("dropped")))
    }))

  it.scoped("a reader subscribing after the end is handed just the end, normal or failed", () =>
    Effect.gen(function* () {
      const ok = yield* Hub.make<number, string>()
      yield* ok.publish(1)
      yield* ok.end(Exit.void)
      const late = yield* reading(yield* ok.subscribe)
      expect(yield* ending(late)).toEqual(Option.some(Exit.succeed([])))

      const failed = yield* Hub.make<number, string>()
      yield* failed.end(Exit.failCause(Cause.fail("refused")))
      const lateToo = yield* reading(yield* failed.subscribe)
      expect(yield* ending(lateToo)).toEqual(Option.some(Exit.fail("refused")))
    }))

  it.scoped("only the first end counts, for readers from before and after it", () =>
    Effect.gen(function* () {
      const failedFirst = yield* Hub.make<number, string>()
      const before = yield* reading(yield* failedFirst.subscribe)
      yield* failedFirst.end(Exit.fail("first"))
      yield* failedFirst.end(Exit.void)
      yield* failedFirst.end(Exit.fail("second"))
      const after = yield* reading(yield* failedFirst.subscribe)
      expect(yield* ending(before)).toEqual(Option.some(Exit.fail("first")))
      expect(yield* ending(after)).toEqual(Option.some(Exit.fail("first")))

      const endedFirst = yield* Hub.make<number, string>()
      yield* endedFirst.end(Exit.void)
      yield* endedFirst.end(Exit.fail("late"))
      expect(yield* ending(yield* reading(yield* endedFirst.subscribe))).toEqual(Option.some(Exit.succeed([])))
    }))

  it.scoped("events published after the end reach no one", () =>
    Effect.gen(function* () {
      const hub = yield* Hub.make<number, string>()
      const before = yield* reading(yield* hub.subscribe)
      yield* hub.publish(1)
      yield* hub.end(Exit.void)
      yield* hub.publish(2)
      const after = yield* reading(yield* hub.subscribe)
      yield* hub.publish(3)
      expect(yield* ending(before)).toEqual(Option.some(Exit.succeed([1])))
      expect(yield* ending(after)).toEqual(Option.some(Exit.succeed([])))
    }))
})
