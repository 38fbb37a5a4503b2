// When a live session leaves a connection for the next one, and what it counts and records as it goes: after
// GoAway (what was sent since the last handle, calls still running, no handle at all), a reconnect count that
// starts again after a connection that worked, calls lost when the session closes, an event stream that ends
// without a close.
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, Layer, Schedule, Schema, Stream, TestClock } from "effect"
import { LiveAgent, LiveModel, Registry, Tool } from "../src/index.js"
import type { ScriptedLive } from "../src/testing.js"
import { echo } from "./fixtures.js"
import { eventually, live, record } from "./LiveFixtures.js"

/** Moves the clock `by`, then lets the session's fibers run. */
const advance = (by: Duration.DurationInput) => Effect.zipRight(TestClock.adjust(by), Effect.repeatN(Effect.yieldNow(), 20))

/** The times of the session's moves: each `Reconnecting` and each `Connected` after the first. */
const movesOf = (seen: Effect.Effect<ReadonlyArray<readonly [number, LiveAgent.LiveAgentEvent]>>) =>
  Effect.map(seen, (events) =>
    events.flatMap(([at, event]) =>
      event._tag === "Reconnecting" || (event._tag === "Connected" && event.connection > 1) ? [[at, event._tag] as const] : []
    )
  )

/**
 * A live model whose first connection's events are `first` (the later ones say nothing); `connects` counts the
 * connections made.
 */
const firstConnectionSays = (first: Stream.Stream<LiveModel.Event>) => {
  let connects = 0
  const layer = Layer.succeed(LiveModel.LiveModel, {
    provider: "first-connection",
    model: "m",
    connect: () =>
      Effect.sync((): LiveModel.Connection => {
        connects += 1
        return { events: connects === 1 ? first : Stream.never, sendText: () => Effect.void, sendToolResponses: () => Effect.void, close: Effect.void }
      })
  })
  return { layer, connects: Effect.sync(() => connects) }
}

/**
 * The attempt numbers of a session's reconnects over one script per connection, retrying every second, once every
 * connection was made (the last one stays; one of the reconnects before it waited for the schedule).
 */
const reconnectAttempts = (scripts: ReadonlyArray<ScriptedLive.ConnectionScript>) =>
  live(scripts, (probe, server) =>
    Effect.gen(function* () {
      const session = yield* LiveAgent.session({ registry: probe.registry, reconnect: Schedule.spaced("1 second") })
      const seen = yield* record(session)
      yield* eventually(server.setups, (setups) => setups.length === scripts.length - 1)
      yield* advance("1 second")
      yield* eventually(server.setups, (setups) => setups.length === scripts.length)
      return (yield* seen).flatMap(([, event]) => (event._tag === "Reconnecting" ? [event.attempt] : []))
    }))

describe("a live session's moves after GoAway", () => {
  it.scoped("text sent after the last handle holds the move until a new handle comes: a move before it would lose that text", () =>
    live(
      {
        onSetup: [{ resumption: "h0" }],
        onText: () => [{ text: "ok" }, { turnComplete: true }, { goAway: "30 seconds" }, { wait: "10 seconds" }, { resumption: "h1" }]
      },
      (probe, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry })
          const seen = yield* record(session)
          yield* eventually(session.resumptionHandle, (handle) => handle._tag === "Some")
          expect((yield* session.send("hello")).text).toBe("ok")
          yield* advance("9 seconds")
          expect(yield* movesOf(seen)).toEqual([])
          yield* advance("1 second")
          expect(yield* eventually(movesOf(seen), (moves) => moves.length === 2)).toEqual([
            [10_000, "Reconnecting"],
            [10_000, "Connected"]
          ])
          expect((yield* server.setups).map((setup) => setup.resumptionHandle)).toEqual([undefined, "h1"])
        })
    ))

  it.scoped("without a handle ever given, the session moves at the first quiet moment: a new connection loses nothing a resumed one would keep", () =>
    live({ onText: () => [{ text: "ok" }, { turnComplete: true }, { goAway: "30 seconds" }] }, (probe, server) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry })
        const seen = yield* record(session)
        expect((yield* session.send("hello")).text).toBe("ok")
        const moves = yield* eventually(seen, (events) => events.some(([, event]) => event._tag === "Connected" && event.connection === 2))
        expect(moves.filter(([, event]) => event._tag === "Reconnecting" || event._tag === "Connected")).toEqual([
          [0, { _tag: "Reconnecting", attempt: 1, reason: "the server is going away", code: 1001, fresh: true }],
          [0, { _tag: "Connected", connection: 2, resumed: false }]
        ])
        expect((yield* server.setups).map((setup) => setup.resumptionHandle)).toEqual([undefined, undefined])
      })))

  it.scoped("a non-blocking call still running when its turn completes holds the move until it is answered, on the connection that asked it", () =>
    live(
      // No handle: a quiet moment after GoAway is the moment to move, and only the running call holds it.
      { onText: () => [{ calls: [{ name: "search", args: { seconds: 5 }, id: "s" }] }, { text: "Searching." }, { turnComplete: true }, { goAway: "30 seconds" }] },
      (probe, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry })
          const seen = yield* record(session)
          expect((yield* session.send("find it")).running.map((call) => call.id)).toEqual(["s"])
          yield* advance("4 seconds")
          expect(yield* movesOf(seen)).toEqual([])
          yield* advance("1 second")
          expect(yield* eventually(movesOf(seen), (moves) => moves.length === 2)).toEqual([
            [5000, "Reconnecting"],
            [5000, "Connected"]
          ])
          expect((yield* server.responses).map(({ connection, response }) => [connection, response.id])).toEqual([[1, "s"]])
          expect((yield* session.calls).map((call) => call.outcome._tag)).toEqual(["Answered"])
        })
    ))

  it.scoped("a turn cut by its bound holds the move until its late output ends with its completion", () =>
    live(
      {
        onText: (text) =>
          text === "go"
            ? [{ text: "a" }, { goAway: "30 seconds" }, { wait: "3 seconds" }, { text: "late" }, { wait: "2 seconds" }, { turnComplete: true }]
            : [{ text: "ok" }, { turnComplete: true }]
      },
      (probe) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry, turnTimeout: "1 second" })
          const seen = yield* record(session)
          const cut = yield* Effect.fork(session.send("go"))
          yield* advance("1 second")
          expect(yield* Fiber.await(cut)).toMatchObject(Exit.fail({ _tag: "ModelTimeout", limit: "turn" }))
          yield* advance("2 seconds")
          // Its late words are not a quiet moment.
          expect(yield* movesOf(seen)).toEqual([])
          yield* advance("2 seconds")
          expect(yield* eventually(movesOf(seen), (moves) => moves.length === 2)).toEqual([
            [5000, "Reconnecting"],
            [5000, "Connected"]
          ])
          expect((yield* session.send("hi")).text).toBe("ok")
        })
    ))

  it.scoped("what a connection says after the session left it is not read: a move at once after GoAway drops the words that follow it", () => {
    // The first connection's events come in one chunk, read one after the other with no pause in between.
    const model = firstConnectionSays(
      Stream.concat(
        Stream.fromIterable<LiveModel.Event>([
          { _tag: "ResumptionUpdate", resumable: true, handle: "h0" },
          { _tag: "GoAway", timeLeft: Duration.seconds(30) },
          { _tag: "TextDelta", text: "left behind" },
          { _tag: "TurnComplete" }
        ]),
        Stream.never
      )
    )
    return Effect.gen(function* () {
      const session = yield* LiveAgent.session({ registry: Registry.empty })
      yield* eventually(model.connects, (n) => n === 2)
      expect(yield* session.turns).toEqual([])
    }).pipe(Effect.provide(model.layer))
  })
})

describe("a live session's moves to declare changed tools", () => {
  it.scoped("tools changed while a call runs are not declared then, nor once the answer makes the handle stale: at the next handle", () => {
    const search = Tool.make("search", {
      description: "Searches, the model talking meanwhile",
      parameters: Schema.Struct({ seconds: Schema.Number }),
      nonBlocking: { scheduling: "interrupt" },
      handler: ({ seconds }) => Effect.as(Effect.sleep(Duration.seconds(seconds)), ["a result"])
    })
    const state = { tools: [search, echo("first")], version: 0 }
    const source: Registry.Source = { version: () => state.version, current: Effect.sync(() => Registry.unsafeMake(...state.tools)) }
    return live(
      [
        {
          // A call the model makes on its own: nothing was sent since the handle, which is fresh while the call runs.
          onSetup: [{ resumption: "h0" }, { calls: [{ name: "search", args: { seconds: 5 }, id: "s" }] }, { turnComplete: true }],
          onText: () => [{ text: "hi" }, { turnComplete: true }],
          onToolResponses: () => [{ wait: "1 second" }, { resumption: "h1" }]
        },
        {}
      ],
      (_, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: Registry.dynamic(Registry.unsafeMake(...state.tools), source) })
          const seen = yield* record(session)
          yield* advance("1 second")
          state.tools = [search, echo("first"), echo("second")]
          state.version++
          // A user message is a moment to declare changed tools, but not while a call of the connection runs.
          expect((yield* session.send("hello")).text).toBe("hi")
          yield* advance("4 seconds")
          expect(yield* movesOf(seen)).toEqual([])
          expect((yield* session.calls).map((call) => [call.id, call.connection, call.outcome._tag])).toEqual([["s", 1, "Answered"]])
          yield* advance("1 second")
          expect(yield* eventually(movesOf(seen), (moves) => moves.length === 1)).toEqual([[6000, "Connected"]])
          expect((yield* seen).filter(([, event]) => event._tag === "ToolsChanged")).toEqual([
            [6000, { _tag: "ToolsChanged", added: ["second"], removed: [], changed: [], connection: 2 }]
          ])
          expect((yield* server.setups).map((setup) => [setup.declarations.map((d) => d.name), setup.resumptionHandle])).toEqual([
            [["search", "first"], undefined],
            [["search", "first", "second"], "h1"]
          ])
        })
    )
  })
})

describe("a live session's reconnects and losses", () => {
  it.scoped("the count of failed attempts starts again after a connection on which the model said something", () =>
    Effect.gen(function* () {
      // The first connection said nothing (a failed attempt: the second); the next one worked, so its drop is the
      // first attempt of a new count.
      expect(yield* reconnectAttempts([{ onSetup: [{ drop: 1011 }] }, { onSetup: [{ text: "hi" }, { drop: 1011 }] }, {}])).toEqual([2, 1])
    }))

  it.scoped("a transcription or a completed turn is the model saying something: a drop after either is not a failed attempt", () =>
    Effect.gen(function* () {
      const attempts = yield* reconnectAttempts([
        { onSetup: [{ event: { _tag: "Transcription", direction: "output", text: "hm" } }, { drop: 1011 }] },
        { onSetup: [{ turnComplete: true }, { drop: 1011 }] },
        { onSetup: [{ drop: 1011 }] },
        {}
      ])
      // The third connection said nothing: its drop is the first failed attempt (the second try).
      expect(attempts).toEqual([1, 1, 2])
    }))

  it.scoped("a call running when the session is closed is recorded as lost, saying the session was closed", () =>
    live({ onText: () => [{ calls: [{ name: "slow", args: { seconds: 60 }, id: "long" }] }] }, (probe) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry })
        yield* session.sendText("go")
        yield* eventually(probe.of("long"), (moments) => moments.includes("started"))
        yield* session.close
        expect((yield* session.calls).map((call) => [call.id, call.outcome])).toEqual([["long", { _tag: "Lost", reason: "the session was closed" }]])
        expect(yield* probe.of("long")).toEqual(["started", "interrupted", "finalized"])
      })))

  it.scoped("an event stream that ends without a close is a dropped socket (1006): the session reconnects", () => {
    const model = firstConnectionSays(Stream.make<Array<LiveModel.Event>>({ _tag: "TextDelta", text: "hi" }))
    return Effect.gen(function* () {
      const session = yield* LiveAgent.session({ registry: Registry.empty })
      const seen = yield* record(session)
      const events = yield* eventually(seen, (events) => events.some(([, event]) => event._tag === "Connected" && event.connection === 2))
      expect(events.map(([, event]) => event).filter((event) => event._tag === "Reconnecting")).toEqual([
        { _tag: "Reconnecting", attempt: 1, reason: "the connection closed with code 1006 (the event stream ended without a close)", code: 1006, fresh: true }
      ])
    }).pipe(Effect.provide(model.layer))
  })
})
