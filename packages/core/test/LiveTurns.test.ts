import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Option } from "effect"
import { Turns } from "../src/internal/live/turns.js"
import type { SendError } from "../src/LiveError.js"
import { SessionEnded, TurnLost } from "../src/LiveError.js"
import type { LiveTurn } from "../src/LiveTurn.js"

const nothing = { calls: [], running: [] }
const usage = (inputTokens: number, outputTokens: number) => ({ inputTokens, outputTokens, totalTokens: inputTokens + outputTokens })
const waiter = Deferred.make<LiveTurn, SendError>()

/** How a waiting `send` was answered, if it was: read without waiting, so a send never answered fails the test at once. */
const answer = (send: Deferred.Deferred<LiveTurn, SendError>): Effect.Effect<Option.Option<Exit.Exit<LiveTurn, SendError>>> =>
  Effect.flatMap(Deferred.poll(send), (polled) => (Option.isNone(polled) ? Effect.succeedNone : Effect.asSome(Effect.exit(polled.value))))

describe("the turns of a live session, driven directly", () => {
  it.effect("a fresh session is at turn 1, closed, not abandoned, with no usage", () =>
    Effect.gen(function* () {
      const turns = new Turns()
      expect([turns.current, turns.open, turns.abandoned, turns.completed]).toEqual([1, false, false, []])
      expect(turns.sessionUsage).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 })
      expect(yield* turns.complete(nothing)).toEqual({ turn: 1, text: "", segments: [], usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, interrupted: false, ...nothing })
    }))

  it.effect("a completed turn carries its text (deltas joined), last usage report, interruption and the call table's fields", () =>
    Effect.gen(function* () {
      const turns = new Turns()
      turns.output("Lamp ")
      expect(turns.open).toBe(true)
      turns.output("on.")
      turns.report(usage(1, 1))
      turns.report(usage(3, 4))
      turns.interrupt()
      const done = yield* turns.complete({ calls: [], running: [], reason: "MALFORMED_FUNCTION_CALL" })
      expect(done).toEqual({
        turn: 1,
        text: "Lamp on.",
        segments: [{ text: "Lamp on.", interrupted: true }],
        usage: usage(3, 4),
        interrupted: true,
        calls: [],
        running: [],
        reason: "MALFORMED_FUNCTION_CALL"
      })
      expect(turns.completed).toEqual([done])
      expect([turns.current, turns.open]).toEqual([2, false])
      const next = yield* turns.complete(nothing)
      expect([next.turn, next.text, next.usage, next.interrupted]).toEqual([2, "", { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, false])
      expect(turns.completed.map((turn) => turn.turn)).toEqual([1, 2])
    }))

  it.effect("segments keep the text cut by each interruption apart from what followed; the next turn starts with none", () =>
    Effect.gen(function* () {
      const turns = new Turns()
      turns.output("Your flight ")
      turns.output("leaves at")
      turns.interrupt()
      turns.interrupt()
      turns.output("I found ")
      turns.output("three hotels.")
      const done = yield* turns.complete(nothing)
      expect(done.segments).toEqual([
        { text: "Your flight leaves at", interrupted: true },
        { text: "", interrupted: true },
        { text: "I found three hotels.", interrupted: false }
      ])
      expect([done.text, done.interrupted]).toEqual(["Your flight leaves atI found three hotels.", true])
      turns.output("Plain.")
      expect((yield* turns.complete(nothing)).segments).toEqual([{ text: "Plain.", interrupted: false }])
      turns.output("Cut")
      turns.interrupt()
      expect((yield* turns.complete(nothing)).segments).toEqual([{ text: "Cut", interrupted: true }])
    }))

  it.effect("an abandoned or lost turn leaves no segment behind for the next one", () =>
    Effect.gen(function* () {
      const turns = new Turns()
      turns.output("gone")
      turns.interrupt()
      turns.abandon()
      turns.speak()
      turns.output("fresh")
      expect((yield* turns.complete(nothing)).segments).toEqual([{ text: "fresh", interrupted: false }])
      turns.output("lost")
      turns.interrupt()
      yield* turns.lose("the connection dropped")
      expect((yield* turns.complete(nothing)).segments).toEqual([])
    }))

  it.effect("session usage sums the completed turns and the one in progress", () =>
    Effect.gen(function* () {
      const turns = new Turns()
      turns.report(usage(1, 2))
      expect(turns.sessionUsage).toEqual(usage(1, 2))
      yield* turns.complete(nothing)
      expect(turns.sessionUsage).toEqual(usage(1, 2))
      yield* turns.complete(nothing)
      expect(turns.sessionUsage).toEqual(usage(1, 2))
      turns.report(usage(10, 20))
      expect(turns.sessionUsage).toEqual(usage(11, 22))
      yield* turns.complete(nothing)
      expect(turns.sessionUsage).toEqual(usage(11, 22))
    }))

  it("begin and speak open a turn; speaking again ends the dropping of an abandoned turn's output", () => {
    const turns = new Turns()
    turns.begin()
    expect([turns.open, turns.abandoned]).toEqual([true, false])
    turns.abandon()
    expect([turns.open, turns.abandoned]).toEqual([false, true])
    turns.speak()
    expect([turns.open, turns.abandoned]).toEqual([true, false])
  })

  it.effect("a turn is busy once the model said something in it or a message went out; the user's speech alone opens it without", () =>
    Effect.gen(function* () {
      const turns = new Turns()
      turns.hear()
      expect([turns.open, turns.busy]).toEqual([true, false])
      turns.output("Yes?")
      expect(turns.busy).toBe(true)
      yield* turns.complete(nothing)
      expect([turns.open, turns.busy]).toEqual([false, false])
      turns.begin()
      expect(turns.busy).toBe(true)
      turns.abandon()
      expect(turns.busy).toBe(false)
      turns.speak()
      expect(turns.busy).toBe(true)
      yield* turns.lose("the connection dropped")
      expect(turns.busy).toBe(false)
    }))

  it.effect("awaited says a send waits for the turn; wasInterrupted says the model was interrupted in it", () =>
    Effect.gen(function* () {
      const turns = new Turns()
      const send = yield* waiter
      expect([turns.awaited, turns.wasInterrupted]).toEqual([false, false])
      turns.waitFor(send)
      turns.interrupt()
      expect([turns.awaited, turns.wasInterrupted]).toEqual([true, true])
      yield* turns.complete(nothing)
      expect([turns.awaited, turns.wasInterrupted]).toEqual([false, false])
    }))

  it.effect("abandoning a turn under way drops its text and usage (still counted for the session) and skips its number", () =>
    Effect.gen(function* () {
      const turns = new Turns()
      const send = yield* waiter
      turns.waitFor(send)
      turns.output("half an ans")
      turns.report(usage(2, 3))
      turns.interrupt()
      turns.abandon()
      expect([turns.current, turns.open, turns.abandoned]).toEqual([2, false, true])
      expect(turns.sessionUsage).toEqual(usage(2, 3))
      expect(turns.completed).toEqual([])
      const done = yield* turns.complete(nothing)
      expect([done.turn, done.text, done.usage, done.interrupted]).toEqual([2, "", { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, false])
      expect(yield* answer(send)).toEqual(Option.none())
    }))

  it.effect("abandoning with no turn under way changes nothing", () =>
    Effect.gen(function* () {
      const turns = new Turns()
      turns.report(usage(1, 1))
      turns.abandon()
      expect([turns.current, turns.open, turns.abandoned, turns.sessionUsage]).toEqual([1, false, false, usage(1, 1)])
      expect((yield* turns.complete(nothing)).usage).toEqual(usage(1, 1))
    }))

  it.effect("completing answers the waiting send once; the next turn answers no one", () =>
    Effect.gen(function* () {
      const turns = new Turns()
      const send = yield* waiter
      turns.waitFor(send)
      turns.output("Done.")
      const done = yield* turns.complete(nothing)
      expect(yield* answer(send)).toEqual(Option.some(Exit.succeed(done)))
      const other = yield* waiter
      turns.forget(other)
      const next = yield* turns.complete(nothing)
      expect(next.turn).toBe(2)
      expect(yield* answer(other)).toEqual(Option.none())
    }))

  it.effect("forget clears only the waiter it is given", () =>
    Effect.gen(function* () {
      const turns = new Turns()
      const send = yield* waiter
      const stale = yield* waiter
      turns.waitFor(send)
      turns.forget(stale)
      const done = yield* turns.complete(nothing)
      expect(yield* answer(send)).toEqual(Option.some(Exit.succeed(done)))
      const gone = yield* waiter
      turns.waitFor(gone)
      turns.forget(gone)
      yield* turns.complete(nothing)
      expect(yield* answer(gone)).toEqual(Option.none())
    }))

  it.effect("a turn lost under way fails the waiting send with TurnLost naming it, and its number is not reused", () =>
    Effect.gen(function* () {
      const turns = new Turns()
      const send = yield* waiter
      turns.waitFor(send)
      turns.begin()
      turns.report(usage(4, 5))
      yield* turns.lose("the connection dropped")
      expect(yield* answer(send)).toEqual(Option.some(Exit.fail(new TurnLost({ turn: 1, reason: "the connection dropped" }))))
      expect([turns.current, turns.open, turns.sessionUsage]).toEqual([2, false, usage(4, 5)])
      turns.begin()
      yield* turns.lose("again")
      expect(turns.current).toBe(3)
    }))

  it.effect("losing with no turn under way changes nothing and leaves the send waiting", () =>
    Effect.gen(function* () {
      const turns = new Turns()
      const send = yield* waiter
      turns.waitFor(send)
      yield* turns.lose("the connection dropped")
      expect([turns.current, yield* answer(send)]).toEqual([1, Option.none()])
      const done = yield* turns.complete(nothing)
      expect(yield* answer(send)).toEqual(Option.some(Exit.succeed(done)))
    }))

  it.effect("the session's end fails the waiting send with its error, once", () =>
    Effect.gen(function* () {
      const turns = new Turns()
      const send = yield* waiter
      turns.waitFor(send)
      const ended = new SessionEnded({ reason: "closed" })
      yield* turns.end(ended)
      expect(yield* answer(send)).toEqual(Option.some(Exit.fail(ended)))
      yield* turns.complete(nothing)
      yield* turns.end(new SessionEnded({ reason: "again" }))
      expect(yield* answer(send)).toEqual(Option.some(Exit.fail(ended)))
      yield* turns.end(ended)
    }))
})
