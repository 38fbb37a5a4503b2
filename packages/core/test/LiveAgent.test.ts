import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Exit, Fiber, Option, Schedule, Stream, TestClock } from "effect"
import type { Clock } from "effect"
import { LiveAgent, ModelError } from "../src/index.js"
import { ScriptedLive } from "../src/testing.js"
import { eventually, live, makeProbe, record } from "./LiveFixtures.js"

const clientTexts = (server: ScriptedLive.Inspector) =>
  Effect.map(server.log, (log) => log.flatMap((e) => (e.from === "client" && e.message._tag === "Text" ? [[e.connection, e.message.text] as const] : [])))

describe("LiveAgent.session", () => {
  it.scoped("declares the registry's tools (non-blocking ones with their behavior) and the setup options", () =>
    live({}, (probe, server) =>
      Effect.gen(function* () {
        yield* LiveAgent.session({ registry: probe.registry, system: "You run the house.", temperature: 0.2 })
        const [setup] = yield* server.setups
        expect(setup).toEqual({
          system: "You run the house.",
          declarations: probe.registry.declarations,
          resumptionHandle: undefined,
          temperature: 0.2,
          maxOutputTokens: undefined
        })
        expect(setup!.declarations.map((d) => [d.name, d.behavior])).toEqual([
          ["lamp", undefined],
          ["slow", undefined],
          ["stubborn", undefined],
          ["door", undefined],
          ["search", "nonBlocking"],
          ["report", "nonBlocking"]
        ])
      })))

  it.scoped("send runs the calls and answers each id once with the executor's object response, errors included", () =>
    live(
      ScriptedLive.conversation([
        {
          calls: [
            { name: "lamp", args: { on: true } },
            { name: "nope" },
            { name: "lamp", args: { on: "yes" } },
            { name: "door", args: { door: "front" } }
          ],
          text: "Lamp on; the front door is jammed."
        }
      ]),
      (probe, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry })
          const turn = yield* session.send("Lamp on and open the door")
          expect(turn.text).toBe("Lamp on; the front door is jammed.")
          expect(turn.running).toEqual([])
          const byId = new Map(turn.calls.map((c) => [c.id, c]))
          const response = (id: string) => {
            const outcome = byId.get(id)!.outcome
            return outcome._tag === "Answered" ? outcome.response.response : undefined
          }
          expect(response("call_1_0")).toEqual({ lamp: "on" })
          expect(response("call_1_1")).toMatchObject({ error: { type: "UnknownFunction", available: ["lamp", "slow", "stubborn", "door", "search", "report"] } })
          expect(response("call_1_2")).toMatchObject({ error: { type: "InvalidArguments" } })
          expect(response("call_1_3")).toMatchObject({ error: { type: "ExecutionFailed", details: { _tag: "Jammed", door: "front" } } })
          const sent = yield* server.responses
          expect(sent.map((r) => r.response.id).sort()).toEqual(["call_1_0", "call_1_1", "call_1_2", "call_1_3"])
          expect(sent.every((r) => r.connection === 1 && !("scheduling" in r.response))).toBe(true)
          expect(yield* session.calls).toEqual(turn.calls)
          expect(turn.calls.every((c) => c.turn === 1 && c.connection === 1)).toBe(true)
        })
    ))

  it.scoped("a non-blocking tool's answer carries its scheduling; the turn may complete while it still runs", () =>
    live(
      {
        onText: () => [{ calls: [{ name: "search", args: { seconds: 5 }, id: "s" }] }, { text: "Searching." }, { turnComplete: true }],
        onIdle: () => [{ text: "Found it." }, { turnComplete: true }]
      },
      (probe, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry })
          const events = yield* record(session)
          const first = yield* session.send("find it")
          expect([first.text, first.calls, first.running.map((c) => c.id)]).toEqual(["Searching.", [], ["s"]])
          yield* TestClock.adjust("5 seconds")
          const [found] = yield* eventually(session.turns, (turns) => turns.length === 2).pipe(Effect.map((turns) => turns.slice(1)))
          expect(found?.text).toBe("Found it.")
          expect((yield* server.responses).map((r) => r.response)).toEqual([{ id: "s", name: "search", response: { output: ["a result"] }, scheduling: "interrupt" }])
          const [record_] = yield* session.calls
          expect([record_?.turn, record_?.outcome._tag, Duration.toMillis(record_!.duration)]).toEqual([1, "Answered", 5000])
          expect((yield* events).map(([at, e]) => [at, e._tag])).toEqual([
            [0, "CallStarted"],
            [0, "TextDelta"],
            [0, "TurnComplete"],
            [5000, "CallFinished"],
            [5000, "TextDelta"],
            [5000, "TurnComplete"]
          ])
        })
    ))

  it.scoped("a cancellation interrupts exactly those handlers (finalizers run) while text keeps flowing, and they are never answered", () =>
    live(
      {
        onText: () => [
          { calls: [{ name: "slow", args: { seconds: 60 }, id: "a" }, { name: "slow", args: { seconds: 5 }, id: "b" }, { name: "lamp", args: { on: true }, id: "c" }] },
          { cancel: ["a"], after: "1 second" },
          { text: "Working on it." }
        ],
        onIdle: () => [{ text: " Done." }, { turnComplete: true }]
      },
      (probe, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry })
          const events = yield* record(session)
          const send = yield* Effect.fork(session.send("go"))
          yield* TestClock.adjust("1 second")
          expect(yield* eventually(probe.of("a"), (m) => m.length === 3)).toEqual(["started", "interrupted", "finalized"])
          expect(yield* probe.of("b")).toEqual(["started"])
          yield* TestClock.adjust("4 seconds")
          const turn = yield* Fiber.join(send)
          expect(turn.text).toBe("Working on it. Done.")
          expect(turn.calls.map((c) => [c.id, c.outcome._tag])).toEqual([["c", "Answered"], ["a", "Cancelled"], ["b", "Answered"]])
          expect((yield* server.responses).map((r) => r.response.id)).toEqual(["c", "b"])
          const seen = (yield* events).map(([at, e]) => [at, e._tag === "TextDelta" ? e.text : e._tag])
          expect(seen).toContainEqual([0, "Working on it."])
          expect(seen).toContainEqual([1000, "CallCancelled"])
          expect(seen.at(-1)).toEqual([5000, "TurnComplete"])
        })
    ))

  it.scoped("toolTimeout and limits reach the executor: a call past the timeout and one nested too deep are answered with their errors", () =>
    live(
      ScriptedLive.conversation([
        { calls: [{ name: "slow", args: { seconds: 5 }, id: "late" }, { name: "lamp", args: { on: true, deep: { a: { b: {} } } }, id: "deep" }], text: "Tried." }
      ]),
      (probe) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry, toolTimeout: "2 seconds", limits: { maxDepth: 2 } })
          const send = yield* Effect.fork(session.send("go"))
          yield* TestClock.adjust("2 seconds")
          const turn = yield* Fiber.join(send)
          const errors = turn.calls.map((c) => [c.id, c.outcome._tag === "Answered" ? (c.outcome.response.response as { error?: { type: string } }).error?.type : c.outcome._tag])
          expect(errors).toEqual([["deep", "InvalidArguments"], ["late", "ToolTimeout"]])
          expect(JSON.stringify(turn.calls[0]!.outcome)).toContain("nested deeper than 2 levels")
        })
    ))

  it.scoped("a handler that finishes after its cancellation (it cannot be interrupted) is still never answered", () =>
    live(
      {
        onText: () => [{ calls: [{ name: "stubborn", args: { seconds: 3 }, id: "s" }] }, { cancel: ["s"], after: "1 second" }],
        onIdle: () => [{ text: "Never mind." }, { turnComplete: true }]
      },
      (probe, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry })
          const send = yield* Effect.fork(session.send("go"))
          yield* TestClock.adjust("1 second")
          const turn = yield* Fiber.join(send)
          expect(turn.calls.map((c) => c.outcome)).toEqual([{ _tag: "Cancelled" }])
          yield* TestClock.adjust("5 seconds")
          expect(yield* eventually(probe.of("s"), (m) => m.length === 4)).toEqual(["started", "finished", "interrupted", "finalized"])
          expect(yield* server.responses).toEqual([])
          expect((yield* session.calls).length).toBe(1)
        })
    ))

  it.scoped("only a resumable, non-empty handle is kept; a reconnect resumes with it", () =>
    live([{ onSetup: [{ resumption: "h1" }] }, {}], (probe, server) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry })
        expect(yield* eventually(session.resumptionHandle, Option.isSome)).toEqual(Option.some("h1"))
        yield* server.perform([
          { event: { _tag: "ResumptionUpdate", handle: undefined, resumable: false } },
          { event: { _tag: "ResumptionUpdate", handle: "", resumable: true } },
          { event: { _tag: "ResumptionUpdate", handle: "h2", resumable: false } },
          { calls: [{ name: "slow", args: { seconds: 9 }, id: "a" }] },
          { resumption: "h3" }
        ])
        yield* eventually(probe.of("a"), (m) => m.length > 0)
        expect(yield* session.resumptionHandle).toEqual(Option.some("h1"))
        yield* server.perform([{ drop: 1011, reason: "Internal error occurred." }])
        yield* eventually(server.setups, (s) => s.length === 2)
        expect((yield* server.setups).map((s) => s.resumptionHandle)).toEqual([undefined, "h1"])
      })))

  it.scoped("after GoAway the outstanding calls are still answered on the old connection, then the session resumes with the handle that follows", () =>
    live(
      [
        {
          onSetup: [{ resumption: "h0" }],
          onText: () => [{ calls: [{ name: "slow", args: { seconds: 2 }, id: "a" }] }, { goAway: "30 seconds" }],
          onIdle: () => [{ text: "Done." }, { turnComplete: true }, { wait: "1 second" }, { resumption: "h1" }]
        },
        { onText: () => [{ text: "Still here." }, { turnComplete: true }] }
      ],
      (probe, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry })
          const events = yield* record(session)
          const send = yield* Effect.fork(session.send("go"))
          yield* TestClock.adjust("2 seconds")
          expect((yield* Fiber.join(send)).text).toBe("Done.")
          expect((yield* server.responses).map((r) => [r.connection, r.response.id])).toEqual([[1, "a"]])
          expect((yield* server.setups).length).toBe(1)
          yield* TestClock.adjust("1 second")
          yield* eventually(server.setups, (s) => s.length === 2)
          expect((yield* server.setups)[1]!.resumptionHandle).toBe("h1")
          expect((yield* session.send("still there?")).text).toBe("Still here.")
          const seen = (yield* events).filter(([, e]) => ["GoAway", "Reconnecting", "Connected"].includes(e._tag))
          expect(seen).toEqual([
            [0, { _tag: "GoAway", timeLeft: Duration.seconds(30) }],
            [3000, { _tag: "Reconnecting", attempt: 1, reason: "the server is going away", code: 1001, fresh: false }],
            [3000, { _tag: "Connected", connection: 2, resumed: true }]
          ])
        })
    ))

  it.scoped("once the session has decided to leave a connection after GoAway, the next message goes to the new one", () =>
    live(
      {
        onSetup: [{ resumption: "h" }],
        onText: (_, s) => (s.message === 0 ? [{ goAway: "30 seconds" }, { text: "One." }, { turnComplete: true }] : [{ text: "Two." }, { turnComplete: true }])
      },
      (probe, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry })
          expect((yield* session.send("one")).text).toBe("One.")
          expect((yield* session.send("two")).text).toBe("Two.")
          expect(yield* clientTexts(server)).toEqual([[1, "one"], [2, "two"]])
          expect((yield* server.setups).map((s) => s.resumptionHandle)).toEqual([undefined, "h"])
        })
    ))

  it.scoped("a call still running when GoAway's time is up is lost: interrupted, never answered, not re-sent; without a handle the new connection starts fresh", () =>
    live(
      [{ onText: () => [{ calls: [{ name: "slow", args: { seconds: 60 }, id: "a" }] }, { goAway: "5 seconds" }] }, { onText: () => [{ text: "Hello again." }, { turnComplete: true }] }],
      (probe, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry })
          const events = yield* record(session)
          const send = yield* Effect.fork(Effect.either(session.send("go")))
          yield* TestClock.adjust("5 seconds")
          const lost = yield* Fiber.join(send)
          expect(Either.isLeft(lost) && lost.left).toMatchObject({ _tag: "TurnLost", turn: 1 })
          expect(yield* probe.of("a")).toEqual(["started", "interrupted", "finalized"])
          expect((yield* session.calls).map((c) => [c.id, c.outcome._tag, c.connection])).toEqual([["a", "Lost", 1]])
          yield* TestClock.adjust("2 minutes")
          expect(yield* server.responses).toEqual([])
          expect((yield* server.setups).map((s) => s.resumptionHandle)).toEqual([undefined, undefined])
          expect((yield* events).filter(([, e]) => e._tag === "Reconnecting" || e._tag === "Connected").map(([, e]) => e)).toEqual([
            expect.objectContaining({ _tag: "Reconnecting", attempt: 1, fresh: true }),
            { _tag: "Connected", connection: 2, resumed: false }
          ])
          expect((yield* session.send("hello?")).turn).toBe(2)
        })
    ))

  for (const code of [1011, 1006, 1001]) {
    it.scoped(`a close with ${code} reconnects with the last handle: the lost call is not re-sent, the turn fails with TurnLost, the next works`, () =>
      live(
        [
          { onSetup: [{ resumption: "h1" }], onText: () => [{ calls: [{ name: "slow", args: { seconds: 10 }, id: "a" }] }, { wait: "1 second" }, { drop: code }] },
          { onText: () => [{ text: "Back." }, { turnComplete: true }] }
        ],
        (probe, server) =>
          Effect.gen(function* () {
            const session = yield* LiveAgent.session({ registry: probe.registry })
            yield* eventually(session.resumptionHandle, Option.isSome)
            const send = yield* Effect.fork(Effect.flip(session.send("go")))
            yield* TestClock.adjust("1 second")
            expect(yield* Fiber.join(send)).toMatchObject({ _tag: "TurnLost", turn: 1 })
            expect(yield* probe.of("a")).toEqual(["started", "interrupted", "finalized"])
            expect((yield* session.send("again")).text).toBe("Back.")
            yield* TestClock.adjust("1 minute")
            expect(yield* server.responses).toEqual([])
            expect((yield* server.setups).map((s) => s.resumptionHandle)).toEqual([undefined, "h1"])
            expect(yield* clientTexts(server)).toEqual([[1, "go"], [2, "again"]])
          })
      ))
  }

  for (const [code, reason] of [[1007, "Request contains an invalid argument."], [1008, "Requested entity was not found."]] as const) {
    it.scoped(`a close with ${code} ends the session with LiveClosed: no reconnect, sends and events fail with it`, () =>
      live([{ onText: () => [{ drop: code, reason }] }, {}], (probe, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry })
          const events = yield* session.subscribe
          const failure = { _tag: "LiveClosed", code, reason }
          expect(yield* Effect.flip(session.send("go"))).toMatchObject(failure)
          expect(yield* Effect.flip(session.await)).toMatchObject(failure)
          expect(yield* Effect.flip(Stream.runDrain(events))).toMatchObject(failure)
          expect(yield* Effect.flip(session.sendText("more"))).toMatchObject(failure)
          expect(yield* Effect.flip(Stream.runDrain(session.events))).toMatchObject(failure)
          expect((yield* server.setups).length).toBe(1)
        })))
  }

  it.scoped("an event stream that fails is a drop when retrying can help (a frame it cannot read), else the session's end", () =>
    Effect.gen(function* () {
      yield* live([{ onSetup: [{ resumption: "h" }, { text: "hi" }, { fail: new ModelError.MalformedResponse({ message: "not JSON" }) }] }, {}], (probe, server) =>
        Effect.gen(function* () {
          yield* LiveAgent.session({ registry: probe.registry })
          const setups = yield* eventually(server.setups, (s) => s.length === 2)
          expect(setups.map((s) => s.resumptionHandle)).toEqual([undefined, "h"])
        }))
      const unauthorized = new ModelError.Unauthorized({ message: "API key revoked" })
      yield* live([{ onSetup: [{ fail: unauthorized }] }, {}], (probe, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry })
          expect(yield* Effect.flip(session.await)).toEqual(unauthorized)
          expect((yield* server.setups).length).toBe(1)
        }))
    }))

  it.scoped("a setup the server refuses is the session's typed error, at the start and on a reconnect", () =>
    Effect.gen(function* () {
      const refused = new ModelError.InvalidRequest({ message: "Request contains an invalid argument.", status: 1007 })
      yield* live([{ refuse: refused }], (probe, server) =>
        Effect.gen(function* () {
          expect(yield* Effect.flip(LiveAgent.session({ registry: probe.registry }))).toEqual(refused)
          expect((yield* server.setups).length).toBe(1)
        }))
      const unauthorized = new ModelError.Unauthorized({ message: "API key expired" })
      yield* live([{ onSetup: [{ text: "hi" }, { drop: 1011 }] }, { refuse: unauthorized }], (probe, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry })
          expect(yield* Effect.flip(session.await)).toEqual(unauthorized)
          expect((yield* server.setups).length).toBe(2)
        }))
    }))

  it.scoped("an unreachable server fails the session's start with ReconnectFailed once the schedule gives up", () =>
    live(() => ({ refuse: new ModelError.Unavailable({ message: "connection refused" }) }), (probe, server) =>
      Effect.gen(function* () {
        const start = yield* Effect.fork(Effect.flip(LiveAgent.session({ registry: probe.registry, reconnect: Schedule.intersect(Schedule.spaced("1 second"), Schedule.recurs(1)) })))
        yield* TestClock.adjust("1 second")
        expect(yield* Fiber.join(start)).toMatchObject({ _tag: "ReconnectFailed", attempts: 2, error: { _tag: "Unavailable" } })
        expect((yield* server.setups).length).toBe(2)
      })))

  it.scoped("by default a failed connect is tried 5 more times, 0.5 s apart at first, doubling (jittered by up to a fifth), capped at 8 s", () => {
    const attempts: Array<number> = []
    let clock: Clock.Clock | undefined
    return live(
      () => {
        attempts.push(clock!.unsafeCurrentTimeMillis())
        return { refuse: new ModelError.Unavailable({ message: "connection refused" }) }
      },
      (probe) =>
        Effect.gen(function* () {
          clock = yield* Effect.clock
          const start = yield* Effect.fork(Effect.flip(LiveAgent.session({ registry: probe.registry })))
          yield* TestClock.adjust("1 minute")
          expect(yield* Fiber.join(start)).toMatchObject({ _tag: "ReconnectFailed", attempts: 6 })
          expect(attempts.length).toBe(6)
          const waits = attempts.slice(1).map((at, i) => at - attempts[i]!)
          const bounds: ReadonlyArray<readonly [number, number]> = [[400, 600], [800, 1200], [1600, 2400], [3200, 4800], [6400, 8000]]
          expect(waits.map((wait, i) => Math.min(Math.max(wait, bounds[i]![0]), bounds[i]![1]))).toEqual(waits)
        })
    )
  })

  it.scoped("a saved resumption handle resumes an earlier session from the first connection", () =>
    live({}, (probe, server) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry, resumptionHandle: "saved" })
        expect((yield* server.setups).map((s) => s.resumptionHandle)).toEqual(["saved"])
        expect(yield* session.resumptionHandle).toEqual(Option.some("saved"))
      })))

  it.scoped("failed reconnects wait as the schedule says, then end the session with ReconnectFailed", () =>
    live(
      (n) => (n === 1 ? { onSetup: [{ text: "hi" }, { drop: 1011 }] } : { refuse: new ModelError.Unavailable({ message: "connection refused" }) }),
      (probe, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({
            registry: probe.registry,
            reconnect: Schedule.intersect(Schedule.spaced("1 second"), Schedule.recurs(2))
          })
          const events = yield* record(session)
          const ended = yield* Effect.fork(Effect.flip(session.await))
          yield* eventually(server.setups, (s) => s.length === 2)
          yield* TestClock.adjust("1 second")
          yield* eventually(server.setups, (s) => s.length === 3)
          yield* TestClock.adjust("1 second")
          const error = yield* Fiber.join(ended)
          expect(error).toMatchObject({ _tag: "ReconnectFailed", attempts: 3, error: { _tag: "Unavailable", message: "connection refused" } })
          expect((yield* server.setups).length).toBe(4)
          expect((yield* events).filter(([, e]) => e._tag === "Reconnecting").map(([at, e]) => [at, e._tag === "Reconnecting" && e.attempt])).toEqual([
            [0, 1],
            [1000, 2],
            [2000, 3]
          ])
        })
    ))

  it.scoped("connections dropped before the model says anything count as failed attempts, even with a handle each time", () =>
    live(() => ({ onSetup: [{ resumption: "h" }, { drop: 1011, reason: "Internal error occurred." }] }), (probe, server) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry, reconnect: Schedule.intersect(Schedule.spaced("1 second"), Schedule.recurs(2)) })
        const ended = yield* Effect.fork(Effect.flip(session.await))
        yield* TestClock.adjust("1 second")
        yield* TestClock.adjust("1 second")
        expect(yield* Fiber.join(ended)).toMatchObject({ _tag: "ReconnectFailed", attempts: 3, error: { status: 1011 } })
        expect((yield* server.setups).map((s) => s.resumptionHandle)).toEqual([undefined, "h", "h"])
      })))

  it.scoped("an id asked again on a later connection is not run twice: it is answered there with an error", () =>
    live(
      [
        { onSetup: [{ calls: [{ name: "lamp", args: { on: true }, id: "x" }] }], onIdle: () => [{ resumption: "h" }, { drop: 1011 }] },
        { onSetup: [{ calls: [{ name: "lamp", args: { on: true }, id: "x" }] }] }
      ],
      (probe, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry })
          const calls = yield* eventually(session.calls, (c) => c.length === 2)
          expect(yield* probe.of("x")).toEqual(["started", "finished", "finalized"])
          expect(calls.map((c) => [c.connection, c.outcome._tag])).toEqual([[1, "Answered"], [2, "Repeated"]])
          const sent = yield* server.responses
          expect(sent.map((r) => [r.connection, r.response.id])).toEqual([[1, "x"], [2, "x"]])
          expect(sent[1]!.response.response).toMatchObject({ error: { type: "ExecutionFailed", message: expect.stringContaining("not run twice") } })
        })
    ))

  it.scoped("cancelTurn (and interrupting send, Ctrl-C) stops the turn's calls: interrupted, answered with an error; the session goes on", () =>
    live(
      {
        onText: (_, s) => (s.message < 2 ? [{ calls: [{ name: "slow", args: { seconds: 60 } }, { name: "slow", args: { seconds: 60 } }] }] : [{ text: "Yes." }, { turnComplete: true }]),
        onIdle: () => [{ text: "Stopped." }, { turnComplete: true }]
      },
      (probe, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry })
          const first = yield* Effect.fork(session.send("one"))
          yield* eventually(probe.notes, (n) => n.length === 2)
          yield* session.cancelTurn
          const turn = yield* Fiber.join(first)
          expect([turn.text, turn.calls.map((c) => c.outcome._tag)]).toEqual(["Stopped.", ["Stopped", "Stopped"]])
          expect(yield* probe.of("call_1_0")).toEqual(["started", "interrupted", "finalized"])

          const second = yield* Effect.fork(session.send("two"))
          yield* eventually(probe.notes, (n) => n.length === 8)
          expect(Exit.isInterrupted(yield* Fiber.interrupt(second))).toBe(true)
          const stopped = yield* eventually(session.calls, (c) => c.length === 4)
          expect(stopped.slice(2).map((c) => [c.id, c.turn, c.outcome._tag])).toEqual([["call_1_2", 2, "Stopped"], ["call_1_3", 2, "Stopped"]])
          expect(yield* probe.of("call_1_2")).toEqual(["started", "interrupted", "finalized"])
          const answers = yield* server.responses
          expect(answers.map((r) => r.response.id)).toEqual(["call_1_0", "call_1_1", "call_1_2", "call_1_3"])
          expect(answers.every((r) => (r.response.response.error as { message: string }).message.includes("the user stopped this call"))).toBe(true)
          yield* eventually(session.turns, (t) => t.length === 2)
          expect((yield* session.send("still there?")).text).toBe("Yes.")
        })
    ))

  it.scoped("closing the session interrupts running handlers and closes the connection; then sends fail with SessionEnded", () =>
    live({ onText: () => [{ calls: [{ name: "slow", args: { seconds: 60 } }] }] }, (probe, server) =>
      Effect.gen(function* () {
        yield* Effect.scoped(
          Effect.gen(function* () {
            const session = yield* LiveAgent.session({ registry: probe.registry })
            yield* session.sendText("go")
            yield* eventually(probe.of("call_1_0"), (m) => m.length === 1)
          })
        )
        expect(yield* probe.of("call_1_0")).toEqual(["started", "interrupted", "finalized"])
        expect((yield* server.log).filter((e) => e.from === "client").map((e) => e.from === "client" && e.message._tag)).toEqual(["Text", "Close"])

        const session = yield* LiveAgent.session({ registry: probe.registry })
        const pending = yield* Effect.fork(Effect.flip(session.send("go")))
        yield* eventually(probe.notes, (n) => n.length === 4)
        yield* session.close
        yield* session.close
        expect(yield* Fiber.join(pending)).toMatchObject({ _tag: "SessionEnded", reason: "the session was closed" })
        expect(yield* probe.of("call_2_0")).toEqual(["started", "interrupted", "finalized"])
        yield* session.await
        const after = yield* Effect.flip(session.sendText("anyone?"))
        expect(after).toMatchObject({ _tag: "SessionEnded", reason: "the session was closed" })
        expect(after.message).toBe("the live session has ended: the session was closed")
        expect(Either.isRight(yield* Effect.either(Stream.runDrain(session.events)))).toBe(true)
      })))

  it.scoped("a normal close by the server ends the session: await succeeds, sends fail with SessionEnded", () =>
    live({ onText: () => [{ drop: 1000, reason: "bye" }] }, (probe) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry })
        expect(yield* Effect.flip(session.send("go"))).toMatchObject({ _tag: "SessionEnded", reason: "the server closed the session: bye" })
        yield* session.await
      })))

  it.scoped("usage is summed over turns, each turn counting its last report", () =>
    live(
      { onText: () => [{ usage: { inputTokens: 1, outputTokens: 1 } }, { text: "ok" }, { usage: { inputTokens: 5, outputTokens: 3 } }, { turnComplete: true }] },
      (probe) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry })
          expect((yield* session.send("a")).usage).toEqual({ inputTokens: 5, outputTokens: 3, totalTokens: 8 })
          yield* session.send("b")
          expect(yield* session.usage).toEqual({ inputTokens: 10, outputTokens: 6, totalTokens: 16 })
        })
    ))

  it.scoped("concurrency bounds the handlers running at once; the others start as soon as a slot frees", () =>
    live(ScriptedLive.conversation([{ calls: [1, 2, 3].map(() => ({ name: "slow", args: { seconds: 1 } })), text: "done" }]), (probe) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry, concurrency: 1 })
        const send = yield* Effect.fork(session.send("go"))
        for (let i = 0; i < 3; i++) {
          yield* eventually(probe.notes, (n) => n.filter((note) => note.what === "started").length === i + 1)
          yield* TestClock.adjust("1 second")
        }
        yield* Fiber.join(send)
        expect((yield* probe.notes).filter((n) => n.what === "started").map((n) => n.at)).toEqual([0, 1000, 2000])
      })))
})

describe("LiveAgent.run", () => {
  it.effect("a smart-home conversation: three messages, each answered after its tool calls", () =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      const turns = yield* LiveAgent.run({
        registry: probe.registry,
        system: "You run the house.",
        messages: ["Is the lamp on?", "Open the front door and switch the lamp off.", "Thanks!"]
      })
      expect(turns.map((t) => [t.turn, t.text, t.calls.map((c) => `${c.name}:${c.outcome._tag}`)])).toEqual([
        [1, "The lamp is on now.", ["lamp:Answered"]],
        [2, "The lamp is off; the door is jammed.", ["lamp:Answered", "door:Answered"]],
        [3, "You're welcome.", []]
      ])
    }).pipe(
      Effect.provide(
        ScriptedLive.layer(
          ScriptedLive.conversation([
            { calls: [{ name: "lamp", args: { on: true } }], text: "The lamp is on now." },
            { calls: [{ name: "lamp", args: { on: false } }, { name: "door", args: { door: "front" } }], text: "The lamp is off; the door is jammed." },
            { text: "You're welcome." }
          ])
        )
      )
    ))
})
