import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Exit, Fiber, Option, Stream, TestClock } from "effect"
import type { AgentEvent } from "../src/AgentEvent.js"
import type { AgentResult } from "../src/AgentResult.js"
import { LanguageModel } from "../src/index.js"
import * as Events from "../src/internal/events.js"
import * as ManualScheduler from "./manualScheduler.js"

const started = (turn: number): AgentEvent => ({ _tag: "TurnStarted", turn })
const result: AgentResult = { text: "", calls: [], turns: 1, stopReason: { _tag: "Finished" }, transcript: [], usage: LanguageModel.emptyUsage }
const turns = (events: Chunk.Chunk<AgentEvent>) => Chunk.toReadonlyArray(events).map((event) => (event._tag === "TurnStarted" ? event.turn : event._tag))

describe("the event channel", () => {
  it.effect("a pull takes everything buffered at once; an empty one waits for the next event", () =>
    Effect.gen(function* () {
      const channel = Events.make<string>()
      channel.emit(started(1))
      channel.emit(started(2))
      expect(turns(yield* channel.pull)).toEqual([1, 2])
      const waiting = yield* Effect.fork(channel.pull)
      yield* TestClock.adjust("1 millis")
      expect(waiting.unsafePoll()).toBeNull()
      channel.emit(started(3))
      expect(turns(yield* Fiber.join(waiting))).toEqual([3])
      channel.emit(started(4))
      expect(turns(yield* channel.pull)).toEqual([4])
    }))

  it.effect("room waits from 256 buffered events until the consumer pulls", () =>
    Effect.gen(function* () {
      const channel = Events.make<string>()
      for (let i = 0; i < 255; i++) channel.emit(started(i))
      yield* channel.room
      channel.emit(started(255))
      const producer = yield* Effect.fork(channel.room)
      yield* TestClock.adjust("1 millis")
      expect(producer.unsafePoll()).toBeNull()
      expect(Chunk.size(yield* channel.pull)).toBe(256)
      expect(Exit.isSuccess(yield* Fiber.await(producer))).toBe(true)
      yield* channel.room
    }))

  it.effect("a success ends the events with Done, after what is buffered; a failure fails the next empty pull", () =>
    Effect.gen(function* () {
      const done = Events.make<string>()
      done.emit(started(1))
      yield* done.end(Exit.succeed(result))
      expect(turns(yield* done.pull)).toEqual([1, "Done"])
      expect(yield* Effect.flip(done.pull)).toEqual(Option.none())

      const failed = Events.make<string>()
      failed.emit(started(1))
      yield* failed.end(Exit.fail("boom"))
      expect(turns(yield* failed.pull)).toEqual([1])
      expect(yield* Effect.flip(failed.pull)).toEqual(Option.some("boom"))
    }))

  it.effect("the end wakes a waiting consumer; the stream ends after Done or fails with the error", () =>
    Effect.gen(function* () {
      const channel = Events.make<string>()
      const consumer = yield* Effect.fork(Stream.runCollect(channel.stream))
      yield* TestClock.adjust("1 millis")
      channel.emit(started(1))
      yield* TestClock.adjust("1 millis")
      yield* channel.end(Exit.succeed(result))
      expect(turns(yield* Fiber.join(consumer))).toEqual([1, "Done"])

      const failing = Events.make<string>()
      const waiting = yield* Effect.fork(Effect.flip(Stream.runCollect(failing.stream)))
      yield* TestClock.adjust("1 millis")
      yield* failing.end(Exit.fail("boom"))
      expect(yield* Fiber.join(waiting)).toBe("boom")
    }))
})

/** A run that emits turn 1 and then waits forever; `finalized` once it is interrupted. */
const endless = () => {
  const run = { finalized: false }
  const stream = Events.streamOf<string, never>((emitter) =>
    Effect.gen(function* () {
      emitter.emit(started(1))
      yield* Effect.never
      return result
    }).pipe(Effect.onInterrupt(() => Effect.sync(() => (run.finalized = true))))
  )
  return { stream, run }
}

describe("streamOf", () => {
  it.effect("starts the run on the first pull, once, and gives its events then Done", () =>
    Effect.gen(function* () {
      let runs = 0
      const stream = Events.streamOf<string, never>((emitter) =>
        Effect.gen(function* () {
          runs++
          emitter.emit(started(1))
          yield* Effect.sleep("1 second")
          emitter.emit(started(2))
          return result
        })
      )
      expect(runs).toBe(0)
      const consumer = yield* Effect.fork(Stream.runCollect(stream))
      yield* TestClock.adjust("1 second")
      expect(turns(yield* Fiber.join(consumer))).toEqual([1, 2, "Done"])
      expect(runs).toBe(1)
    }))

  it.effect("a consumer that stops early interrupts the run and waits for its finalizers", () =>
    Effect.gen(function* () {
      const { stream, run } = endless()
      expect(turns(yield* Stream.runCollect(Stream.take(stream, 1)))).toEqual([1])
      expect(run.finalized).toBe(true)
      expect(Chunk.toReadonlyArray(yield* Stream.runCollect(Stream.take(stream, 0)))).toEqual([])
    }))

  it.effect("a consumer that reads where interruption is off still stops the run when it stops early", () =>
    Effect.gen(function* () {
      const { stream, run } = endless()
      const fiber = yield* Effect.fork(Effect.uninterruptible(Stream.runCollect(Stream.take(stream, 1))))
      yield* TestClock.adjust("1 minute")
      expect(Option.map(Option.fromNullable(fiber.unsafePoll()), (exit) => Exit.map(exit, turns))).toEqual(Option.some(Exit.succeed([1])))
      expect(run.finalized).toBe(true)
    }))

  it.effect("a run that fails fails the stream with its error", () =>
    Effect.gen(function* () {
      const stream = Events.streamOf<string, never>(() => Effect.fail("broken"))
      expect(yield* Effect.flip(Stream.runCollect(stream))).toBe("broken")
    }))

  it.effect("a stream closed before its first pull never starts the run, and closes cleanly", () =>
    Effect.gen(function* () {
      let runs = 0
      const stream = Events.streamOf<string, never>(() => Effect.sync(() => (runs++, result)))
      const exit = yield* Effect.exit(Effect.scoped(Effect.asVoid(Stream.toPull(stream))))
      expect(exit).toEqual(Exit.void)
      expect(runs).toBe(0)
    }))
})

describe("the event channel between any two steps of a waiting side", () => {
  // The consumer looks at the buffer, then registers to be woken; the producer's event may come in between.
  it("an event given at any step of a pull is taken by that pull", () => {
    for (let at = 0, shift = 0; shift < 12; at = (at + 1) % 40, shift += at === 0 ? 1 : 0) {
      const channel = Events.make<never>()
      const manual = ManualScheduler.make()
      const fiber = Effect.runFork(ManualScheduler.after(shift, channel.pull), { scheduler: manual.scheduler })
      for (let i = 0; i < at; i++) manual.step()
      channel.emit(started(1))
      manual.drain()
      expect(Option.map(Option.fromNullable(fiber.unsafePoll()), (exit) => Exit.map(exit, turns)), `event at step ${at}, shifted by ${shift}`).toEqual(Option.some(Exit.succeed([1])))
    }
  })

  it("the end given at any step of a pull ends that pull", () => {
    for (let at = 0, shift = 0; shift < 12; at = (at + 1) % 40, shift += at === 0 ? 1 : 0) {
      const channel = Events.make<never>()
      const manual = ManualScheduler.make()
      const fiber = Effect.runFork(ManualScheduler.after(shift, Effect.flatMap(channel.pull, () => channel.pull)), { scheduler: manual.scheduler })
      for (let i = 0; i < at; i++) manual.step()
      Effect.runSync(channel.end(Exit.succeed(result)))
      manual.drain()
      expect(fiber.unsafePoll(), `end at step ${at}, shifted by ${shift}`).toEqual(Exit.fail(Option.none()))
    }
  })

  // The producer looks at the buffer (full), then registers to be woken; the consumer's pull may come in between.
  it("a pull at any step of a wait for room lets the producer on", () => {
    for (let at = 0, shift = 0; shift < 12; at = (at + 1) % 40, shift += at === 0 ? 1 : 0) {
      const channel = Events.make<never>()
      for (let i = 0; i < 256; i++) channel.emit(started(i))
      const manual = ManualScheduler.make()
      const fiber = Effect.runFork(ManualScheduler.after(shift, channel.room), { scheduler: manual.scheduler })
      for (let i = 0; i < at; i++) manual.step()
      expect(Chunk.size(Effect.runSync(channel.pull))).toBe(256)
      manual.drain()
      expect(fiber.unsafePoll(), `pull at step ${at}, shifted by ${shift}`).toEqual(Exit.void)
    }
  })
})
