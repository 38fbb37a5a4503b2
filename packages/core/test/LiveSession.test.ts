import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Option, TestClock } from "effect"
import type { Duration } from "effect"
import type { LiveModel } from "../src/index.js"
import { LiveAgent, Registry } from "../src/index.js"
import { ScriptedLive } from "../src/testing.js"
import { echo, fakeSource } from "./fixtures.js"
import { eventually, live, record } from "./LiveFixtures.js"
import * as ManualScheduler from "./manualScheduler.js"

/** Moves the clock `by`, then lets the session's fibers run. */
const advance = (by: Duration.DurationInput) => Effect.zipRight(TestClock.adjust(by), Effect.repeatN(Effect.yieldNow(), 20))

/** The events after `Connected`, without the times. */
const after = (seen: ReadonlyArray<readonly [number, LiveAgent.LiveAgentEvent]>) => seen.map(([, event]) => event).filter((event) => event._tag !== "Connected")

describe("a live session's events and options", () => {
  it.scoped("every model event of a turn is published with the turn's number, in order, and the completion keeps its reason", () =>
    live(
      {
        onText: () => [
          { event: { _tag: "Transcription", direction: "input", text: "hi there" } },
          { event: { _tag: "Transcription", direction: "output", text: "hello" } },
          { text: "Hello!" },
          { usage: { inputTokens: 3, outputTokens: 2 } },
          { interrupted: true },
          { generationComplete: true },
          { turnComplete: true, reason: "the user spoke" }
        ]
      },
      (probe) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry })
          const seen = yield* record(session)
          const turn = yield* session.send("hi there")
          expect(turn).toMatchObject({ turn: 1, text: "Hello!", interrupted: true, reason: "the user spoke" })
          const events = after(yield* eventually(seen, (events) => events.some(([, event]) => event._tag === "TurnComplete")))
          expect(events.map((event) => event._tag)).toEqual(["Transcription", "Transcription", "TextDelta", "Usage", "Interrupted", "GenerationComplete", "TurnComplete"])
          expect(events.slice(0, 6)).toEqual([
            { _tag: "Transcription", turn: 1, direction: "input", text: "hi there" },
            { _tag: "Transcription", turn: 1, direction: "output", text: "hello" },
            { _tag: "TextDelta", turn: 1, text: "Hello!" },
            { _tag: "Usage", turn: 1, usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } },
            { _tag: "Interrupted", turn: 1 },
            { _tag: "GenerationComplete", turn: 1 }
          ])
          expect(events[6]).toMatchObject({ _tag: "TurnComplete", turn: { turn: 1, reason: "the user spoke" } })
        })
    ))

  it.scoped("a text sent with sendText while a send waits is part of its turn: the send is answered at the turn's completion", () =>
    live({ onText: (text) => (text === "a" ? [{ wait: "1 second" }, { text: "A" }, { turnComplete: true }] : []) }, (probe) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry })
        const fiber = yield* Effect.fork(session.send("a"))
        yield* advance("500 millis")
        yield* session.sendText("b")
        yield* advance("500 millis")
        expect(yield* Fiber.join(fiber)).toMatchObject({ turn: 1, text: "A" })
      })))

  it.scoped("a completion without a reason has no reason key", () =>
    live(ScriptedLive.conversation([{ text: "ok" }]), (probe) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry })
        const turn = yield* session.send("hi")
        expect(Object.keys(turn)).not.toContain("reason")
      })))

  it.scoped("a session opened where interruption is off (in acquireRelease) returns a bounded turn when it completes, not at its bound, and closes", () =>
    live(
      { onText: () => [{ wait: "1 second" }, { text: "ok" }, { turnComplete: true }] },
      (probe) =>
        Effect.gen(function* () {
          const session = yield* Effect.uninterruptible(LiveAgent.session({ registry: probe.registry, idleTimeout: "30 seconds" }))
          const turn = yield* Effect.fork(session.send("hi"))
          yield* advance("1 second")
          expect(turn.unsafePoll()).toMatchObject(Exit.succeed({ turn: 1, text: "ok" }))
          // The test's scope then ends: the session's fibers must stop for it to close.
        })
    ))

  it.scoped("a turn cut by its bound drops the model's late output of every kind, answers its late calls with an error without running them, and keeps what the user said", () =>
    live(
      {
        onText: (text) =>
          text === "go"
            ? [
                { wait: "5 seconds" },
                { text: "late words" },
                { event: { _tag: "Transcription", direction: "output", text: "late speech" } },
                { calls: [{ name: "lamp", args: { on: true }, id: "late-call" }] },
                { usage: { inputTokens: 7 } },
                { interrupted: true },
                { generationComplete: true },
                { event: { _tag: "Transcription", direction: "input", text: "are you there?" } },
                { turnComplete: true }
              ]
            : [{ text: "fresh" }, { turnComplete: true }]
      },
      (probe, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry, turnTimeout: "1 second" })
          const seen = yield* record(session)
          const cut = yield* Effect.fork(session.send("go"))
          yield* advance("1 second")
          expect(yield* Fiber.await(cut)).toMatchObject(Exit.fail({ _tag: "ModelTimeout", limit: "turn" }))
          yield* advance("5 seconds")
          const next = yield* session.send("again")
          expect(next).toMatchObject({ turn: 2, text: "fresh", calls: [] })
          expect(yield* probe.notes).toEqual([])
          // The late call is answered with an error (a server may wait for it before it completes the turn), not run.
          expect(yield* server.responses).toEqual([
            {
              connection: 1,
              response: {
                id: "late-call",
                name: "lamp",
                response: { error: { type: "ExecutionFailed", message: '"lamp" failed: the turn it belongs to was cut by its bound before it came; it was not run' } }
              }
            }
          ])
          // Only what the user said reaches the events (as the start of the next turn); the cut turn's words,
          // speech, usage and signals do not.
          const events = after(yield* seen)
          expect(events.filter((event) => event._tag !== "TurnComplete")).toEqual([
            { _tag: "Transcription", turn: 2, direction: "input", text: "are you there?" },
            { _tag: "TextDelta", turn: 2, text: "fresh" }
          ])
          expect(yield* session.usage).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 })
        })
    ))

  it.scoped("tools changed while a cut turn's late output still comes are declared at its completion, not before", () => {
    const fake = fakeSource()
    return live(
      {
        onText: (text) =>
          text === "one"
            ? [{ text: "first" }, { turnComplete: true }, { resumption: "h0" }]
            : [{ wait: "5 seconds" }, { resumption: "h1" }, { wait: "1 second" }, { text: "late" }, { turnComplete: true }]
      },
      (_, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: fake.registry, turnTimeout: "1 second" })
          const seen = yield* record(session)
          yield* session.send("one")
          const cut = yield* Effect.fork(session.send("go"))
          yield* advance("1 second")
          expect(yield* Fiber.await(cut)).toMatchObject(Exit.fail({ _tag: "ModelTimeout", limit: "turn" }))
          yield* fake.set(echo("first"), echo("second"))
          const moves = Effect.map(seen, (events) =>
            events.flatMap(([at, event]) => (event._tag === "ToolsChanged" || (event._tag === "Connected" && event.connection > 1) ? [[at, event._tag]] : []))
          )
          // A fresh handle arrives while the cut turn still speaks: no quiet moment yet.
          yield* advance("4 seconds")
          expect(yield* moves).toEqual([])
          // Its completion ends it: the change is declared then, on a connection resumed from that handle.
          yield* advance("1 second")
          expect(yield* eventually(moves, (m) => m.length === 2)).toEqual([
            [6000, "ToolsChanged"],
            [6000, "Connected"]
          ])
          expect((yield* server.setups).map((setup) => [setup.declarations.map((d) => d.name), setup.resumptionHandle])).toEqual([
            [["first"], undefined],
            [["first", "second"], "h1"]
          ])
        })
    )
  })

  it.scoped("after GoAway with a fresh handle, the session moves at the turn's completion: never mid-turn, and without waiting for the time to run out", () =>
    live(
      {
        onText: (text) =>
          text === "go"
            ? [{ text: "a" }, { resumption: "h1" }, { goAway: "30 seconds" }, { wait: "1 second" }, { text: "b" }, { turnComplete: true }]
            : [{ text: "there" }, { turnComplete: true }]
      },
      (probe, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry })
          const seen = yield* record(session)
          const turn = yield* Effect.fork(session.send("go"))
          yield* advance("1 second")
          expect((yield* Fiber.join(turn)).text).toBe("ab")
          const moves = Effect.map(seen, (events) => events.flatMap(([at, event]) => (event._tag === "Reconnecting" || event._tag === "Connected" ? [[at, event._tag]] : [])))
          expect(yield* eventually(moves, (m) => m.length === 2)).toEqual([
            [1000, "Reconnecting"],
            [1000, "Connected"]
          ])
          expect((yield* server.setups).map((setup) => setup.resumptionHandle)).toEqual([undefined, "h1"])
          expect((yield* session.send("still there?")).text).toBe("there")
        })
    ))

  it.scoped("a connection resumed from a handle starts with that handle fresh: a GoAway before anything is sent on it moves at once", () =>
    live([{ onSetup: [{ resumption: "h0" }, { goAway: "30 seconds" }] }, { onSetup: [{ goAway: "30 seconds" }] }, {}], (probe, server) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry })
        const setups = yield* eventually(server.setups, (s) => s.length === 3)
        expect(setups.map((setup) => setup.resumptionHandle)).toEqual([undefined, "h0", "h0"])
        expect(yield* TestClock.currentTimeMillis).toBe(0)
        expect(Option.isSome(yield* session.resumptionHandle)).toBe(true)
      })))

  it.scoped("concurrency: sequential runs one call at a time, a number that many, unbounded all at once", () =>
    Effect.gen(function* () {
      const starts = (concurrency: LiveAgent.Options<never>["concurrency"]) =>
        live(ScriptedLive.conversation([{ calls: [1, 2, 3].map((n) => ({ name: "slow", args: { seconds: 1 }, id: `s${n}` })), text: "done" }]), (probe) =>
          Effect.gen(function* () {
            const session = yield* LiveAgent.session({ registry: probe.registry, concurrency })
            const fiber = yield* Effect.fork(session.send("go"))
            for (let i = 0; i < 3; i++) yield* advance("1 second")
            expect((yield* Fiber.join(fiber)).text).toBe("done")
            const started = (yield* probe.notes).filter((note) => note.what === "started").map((note) => note.at)
            return started.map((at) => at - started[0]!)
          }))
      expect(yield* starts("sequential")).toEqual([0, 1000, 2000])
      expect(yield* starts(2)).toEqual([0, 0, 1000])
      expect(yield* starts("unbounded")).toEqual([0, 0, 0])
      expect(yield* starts(undefined)).toEqual([0, 0, 0])
    }))

  it.scoped("a concurrency that is not sequential, unbounded or a whole number from 1 is refused, saying what it got", () =>
    Effect.gen(function* () {
      for (const concurrency of [0, -1, 1.5]) {
        const exit = yield* Effect.exit(live({}, (probe) => LiveAgent.session({ registry: probe.registry, concurrency })))
        expect(exit._tag).toBe("Failure")
        expect(String(Exit.isFailure(exit) ? exit.cause : "")).toContain(`concurrency must be "sequential", "unbounded" or an integer ≥ 1, got ${concurrency}`)
      }
    }))

  it.scoped("an empty resumption handle starts afresh; a handle given resumes with it", () =>
    Effect.gen(function* () {
      const connect = (resumptionHandle: string) =>
        live({}, (probe, server) =>
          Effect.gen(function* () {
            const session = yield* LiveAgent.session({ registry: probe.registry, resumptionHandle })
            yield* session.sendText("hello")
            const [setup] = yield* server.setups
            return { handle: setup!.resumptionHandle, resumable: yield* session.resumptionHandle }
          }))
      const fresh = yield* connect("")
      expect(fresh.handle).toBeUndefined()
      expect(fresh.resumable._tag).toBe("None")
      const resumed = yield* connect("h-41")
      expect(resumed.handle).toBe("h-41")
      expect(resumed.resumable).toMatchObject({ _tag: "Some", value: "h-41" })
    }))

  it.scoped("a bound that is not longer than zero is refused, naming the option", () =>
    Effect.gen(function* () {
      for (const name of ["turnTimeout", "firstByteTimeout", "idleTimeout"] as const) {
        const exit = yield* Effect.exit(live({}, (probe) => LiveAgent.session({ registry: probe.registry, [name]: "0 millis" })))
        expect(String(Exit.isFailure(exit) ? exit.cause : "")).toContain(`${name} must be longer than 0, got 0`)
      }
    }))

  it.scoped("only a resumable update with a handle replaces the session's resumption handle", () =>
    live(
      {
        onText: (text) => {
          const updates: Record<string, LiveModel.Event> = {
            "not resumable": { _tag: "ResumptionUpdate", resumable: false, handle: "h-not" },
            "no handle": { _tag: "ResumptionUpdate", resumable: true, handle: undefined },
            "empty handle": { _tag: "ResumptionUpdate", resumable: true, handle: "" },
            "a handle": { _tag: "ResumptionUpdate", resumable: true, handle: "h-1" }
          }
          return [{ event: updates[text]! }, { text: "ok" }, { turnComplete: true }]
        }
      },
      (probe) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry })
          const handles: Array<string> = []
          for (const text of ["not resumable", "no handle", "a handle", "no handle", "empty handle", "not resumable"]) {
            yield* session.send(text)
            handles.push(Option.getOrElse(yield* session.resumptionHandle, () => "none"))
          }
          expect(handles).toEqual(["none", "none", "h-1", "h-1", "h-1", "h-1"])
        })
    ))
})

describe("a live session's sends against its moves, at any step", () => {
  // Effect yields between any two operations once a fiber has run many (here every 11, so that each of 150 offsets of
  // the send puts the yields elsewhere); the session decides to move after GoAway and leaves the connection in one
  // step, and a send that looked at the connection before then re-checks it in the step that sends.
  it.scoped("a send made while the session moves after GoAway goes out on the new connection and is answered there", () =>
    Effect.gen(function* () {
      const script: ScriptedLive.Script = (connection) => ({
        onSetup: [{ resumption: `h${connection}` }],
        onText: (text) => [{ text: `echo ${text}` }, { turnComplete: true }, { resumption: `h${connection}b` }]
      })
      // The user's send starts one step later each time, from before the move to after it; once it has gone out on
      // the new connection ten times in a row, later starts only wait longer for a move already made.
      const outcomes = new Set<string>()
      const connections = new Set<number>()
      for (let offset = 0, afterMove = 0; afterMove < 10; offset++) {
        const outcome = yield* Effect.scoped(
          Effect.gen(function* () {
            const inspector = yield* ScriptedLive.ScriptedLiveModel
            const session = yield* LiveAgent.session({ registry: Registry.empty })
            const user = yield* Effect.fork(ManualScheduler.after(offset, session.send("hello")))
            yield* inspector.perform([{ goAway: "10 seconds" }])
            const turn = yield* Fiber.await(user)
            const sent = (yield* inspector.log).filter((entry) => entry.from === "client" && entry.message._tag === "Text").map((entry) => entry.connection)
            sent.forEach((connection) => connections.add(connection))
            afterMove = sent.length === 1 && sent[0] === 2 ? afterMove + 1 : 0
            return Exit.isSuccess(turn) ? `answered "${turn.value.text}", sent on ${sent.join(", ")}` : `failed: ${turn.cause.toString().slice(0, 80)}`
          })
        ).pipe(Effect.provide(ScriptedLive.layer(script)), Effect.withMaxOpsBeforeYield(11))
        outcomes.add(outcome.replace(/sent on \d+$/, "sent on one connection"))
        expect(offset).toBeLessThan(500)
      }
      expect([...outcomes]).toEqual(['answered "echo hello", sent on one connection'])
      // The starts tried reach from the old connection to the new one: the sends cross the move.
      expect([...connections].sort()).toEqual([1, 2])
    }))
})

