import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, Fiber, Scope, TestClock } from "effect"
import type { Link } from "../src/internal/live/calls.js"
import { Calls } from "../src/internal/live/calls.js"
import type { LiveAgent, LiveModel } from "../src/index.js"
import { FunctionCall, ModelError } from "../src/index.js"
import { eventually, makeProbe } from "./LiveFixtures.js"

const call = (id: string, name: string, args: Record<string, unknown>) => FunctionCall.make({ id, name, args })

/** A connection that keeps what it was sent, and fails to send while `failing` is set. */
const connectionOf = (epoch: number) => {
  const state = { failing: false, sent: [] as Array<LiveModel.ToolResponse> }
  const connection: LiveModel.Connection = {
    events: undefined as never,
    sendText: () => Effect.void,
    close: Effect.void,
    sendToolResponses: (responses) =>
      Effect.suspend(() => (state.failing ? Effect.fail(new ModelError.Unavailable({ message: "the socket is gone" })) : Effect.sync(() => void state.sent.push(...responses))))
  }
  const link: Link = { epoch, connection }
  return { state, link }
}

/** A call table over the probe's tools, driven by hand; its events and settled links are kept. */
const table = (options: { readonly permits?: Effect.Semaphore; readonly timeout?: Duration.DurationInput } = {}) =>
  Effect.gen(function* () {
    const probe = yield* makeProbe
    const events: Array<LiveAgent.LiveAgentEvent> = []
    const settled: Array<number> = []
    const hooks = { onSettled: (_link: Link): Effect.Effect<void> => Effect.void, onPublish: (_event: LiveAgent.LiveAgentEvent): Effect.Effect<void> => Effect.void }
    const calls = new Calls({
      registry: () => probe.registry,
      execute: options.timeout === undefined ? {} : { timeout: options.timeout },
      permits: options.permits,
      publish: (event) => Effect.zipRight(Effect.sync(() => void events.push(event)), Effect.suspend(() => hooks.onPublish(event))),
      responded: () => undefined,
      settled: (link) => Effect.zipRight(Effect.sync(() => void settled.push(link.epoch)), Effect.suspend(() => hooks.onSettled(link)))
    })
    const scope = yield* Scope.make()
    const outcomes = () => calls.records.map((record) => [record.id, record.outcome._tag])
    const tags = () => events.map((event) => (event._tag === "CallStarted" ? `${event._tag} ${event.call.id}` : `${event._tag} ${"record" in event ? event.record.id : ""}`))
    return { probe, calls, events, settled, hooks, scope, outcomes, tags }
  })

/** Lets forked handlers run as far as they can without the clock moving. */
const settle = Effect.repeatN(Effect.yieldNow(), 20)

/** Starts `call` on connection 1 with its `CallStarted` held back; `release` lets the publication finish. */
const arriveHeld = (fixture: Effect.Effect.Success<ReturnType<typeof table>>, call: FunctionCall.FunctionCall) =>
  Effect.gen(function* () {
    const { link, state } = connectionOf(1)
    const gate = yield* Deferred.make<void>()
    fixture.hooks.onPublish = (event) => (event._tag === "CallStarted" ? Deferred.await(gate) : Effect.void)
    const arriving = yield* Effect.fork(fixture.calls.arrive([call], link, 1, fixture.scope))
    yield* settle
    return { state, release: Effect.zipRight(Deferred.succeed(gate, undefined), Fiber.join(arriving)) }
  })

const lamp = (id: string) => call(id, "lamp", { on: true })
const slow = (id: string, seconds = 1) => call(id, "slow", { seconds })

describe("the call table of a live session", () => {
  it.effect("a call runs in its own fiber, is answered on its connection and recorded with its turn, connection and duration", () =>
    Effect.gen(function* () {
      const { calls, events, scope, settled } = yield* table()
      const { link, state } = connectionOf(2)
      yield* TestClock.adjust(Duration.seconds(10))
      expect(yield* calls.arrive([slow("s", 3)], link, 7, scope)).toBeUndefined()
      expect(events).toEqual([{ _tag: "CallStarted", turn: 7, call: slow("s", 3) }])
      expect(calls.outstanding(2)).toBe(1)
      expect(calls.ofTurn(7)).toEqual({ calls: [], running: [slow("s", 3)] })
      yield* TestClock.adjust(Duration.seconds(3))
      yield* settle
      expect(state.sent).toEqual([{ id: "s", name: "slow", response: { slept: 3 } }])
      const record = calls.records[0]!
      expect(record).toEqual({
        id: "s",
        name: "slow",
        args: { seconds: 3 },
        outcome: { _tag: "Answered", result: expect.anything(), response: state.sent[0] },
        duration: Duration.millis(3000),
        turn: 7,
        connection: 2
      })
      expect(events.slice(1)).toEqual([{ _tag: "CallFinished", record }])
      expect(settled).toEqual([2])
      expect(calls.outstanding(2)).toBe(0)
      expect(calls.ofTurn(7)).toEqual({ calls: [record], running: [] })
    }))

  it.effect("a non-blocking tool's answer carries its scheduling; other answers carry none", () =>
    Effect.gen(function* () {
      const { calls, scope } = yield* table()
      const { link, state } = connectionOf(1)
      yield* calls.arrive([call("q", "search", { seconds: 0 }), lamp("l"), call("u", "nothing", {})], link, 1, scope)
      yield* settle
      expect(state.sent).toContainEqual({ id: "q", name: "search", response: { output: ["a result"] }, scheduling: "interrupt" })
      expect(state.sent).toContainEqual({ id: "l", name: "lamp", response: { lamp: "on" } })
      expect(state.sent.find((response) => response.id === "l")).not.toHaveProperty("scheduling")
      expect(state.sent.find((response) => response.id === "u")).not.toHaveProperty("scheduling")
      expect(state.sent.find((response) => response.id === "u")?.response).toMatchObject({ error: { type: "UnknownFunction" } })
    }))

  it.effect("the executor's options apply to every call", () =>
    Effect.gen(function* () {
      const { calls, scope, outcomes } = yield* table({ timeout: "2 seconds" })
      const { link, state } = connectionOf(1)
      yield* calls.arrive([slow("s", 5)], link, 1, scope)
      yield* TestClock.adjust(Duration.seconds(2))
      yield* settle
      expect(outcomes()).toEqual([["s", "Answered"]])
      expect(state.sent[0]?.response).toMatchObject({ error: { type: "ToolTimeout" } })
    }))

  it.effect("with permits, handlers beyond them wait their turn", () =>
    Effect.gen(function* () {
      const { calls, scope, probe } = yield* table({ permits: yield* Effect.makeSemaphore(1) })
      const { link, state } = connectionOf(1)
      yield* calls.arrive([slow("a"), slow("b")], link, 1, scope)
      yield* settle
      expect(yield* probe.of("b")).toEqual([])
      yield* TestClock.adjust(Duration.seconds(1))
      yield* settle
      expect(state.sent.map((response) => response.id)).toEqual(["a"])
      expect(yield* probe.of("b")).toEqual(["started"])
      yield* TestClock.adjust(Duration.seconds(1))
      yield* settle
      expect(state.sent.map((response) => response.id)).toEqual(["a", "b"])
    }))

  it.effect("an id asked twice on one connection runs and is answered once", () =>
    Effect.gen(function* () {
      const { calls, scope, outcomes, tags } = yield* table()
      const { link, state } = connectionOf(1)
      yield* calls.arrive([lamp("l")], link, 1, scope)
      yield* settle
      yield* calls.arrive([lamp("l")], link, 2, scope)
      yield* settle
      expect(state.sent).toHaveLength(1)
      expect(outcomes()).toEqual([["l", "Answered"]])
      expect(tags()).toEqual(["CallStarted l", "CallFinished l"])
    }))

  it.effect("an id asked again on a later connection is answered there with an error, not run again", () =>
    Effect.gen(function* () {
      const { calls, scope, tags, probe, events } = yield* table()
      const first = connectionOf(1)
      const second = connectionOf(2)
      yield* calls.arrive([lamp("l")], first.link, 1, scope)
      yield* settle
      yield* TestClock.adjust(Duration.seconds(4))
      yield* calls.arrive([lamp("l")], second.link, 3, scope)
      expect(yield* probe.of("l")).toEqual(["started", "finished", "finalized"])
      expect(second.state.sent).toEqual([
        {
          id: "l",
          name: "lamp",
          response: { error: { type: "ExecutionFailed", message: '"lamp" failed: call l was already asked for on connection 1; it is not run twice' } }
        }
      ])
      expect(calls.records[1]).toEqual({
        id: "l",
        name: "lamp",
        args: { on: true },
        outcome: { _tag: "Repeated", response: second.state.sent[0] },
        duration: Duration.zero,
        turn: 3,
        connection: 2
      })
      expect(tags()).toEqual(["CallStarted l", "CallFinished l", "CallFinished l"])
      expect(events[2]).toEqual({ _tag: "CallFinished", record: calls.records[1] })
      expect(calls.outstanding(2)).toBe(0)
      // Asked once more on that connection (twice in one message too): the refusal already sent serves, as the first
      // answer serves a repeat on the first connection; a strict server closes on a second answer to one id.
      yield* calls.arrive([lamp("l"), lamp("l")], second.link, 3, scope)
      yield* calls.arrive([lamp("l")], second.link, 4, scope)
      expect(second.state.sent).toHaveLength(1)
      expect(calls.records).toHaveLength(2)
    }))

  it.effect("calls of a turn given up on are answered with an error once each, never run nor recorded; asked again later, refused", () =>
    Effect.gen(function* () {
      const { calls, scope, tags, probe } = yield* table()
      const first = connectionOf(1)
      const second = connectionOf(2)
      yield* calls.decline([lamp("l"), lamp("l")], first.link, 1)
      yield* calls.decline([lamp("l")], first.link, 1)
      expect(first.state.sent).toEqual([
        {
          id: "l",
          name: "lamp",
          response: { error: { type: "ExecutionFailed", message: '"lamp" failed: the turn it belongs to was cut by its bound before it came; it was not run' } }
        }
      ])
      expect(yield* probe.of("l")).toEqual([])
      expect(calls.records).toEqual([])
      expect(tags()).toEqual([])
      yield* calls.arrive([lamp("l")], second.link, 2, scope)
      expect(second.state.sent).toMatchObject([{ id: "l", response: { error: { message: '"lamp" failed: call l was already asked for on connection 1; it is not run twice' } } }])
      expect(yield* probe.of("l")).toEqual([])
    }))

  it.effect("a repeated id that cannot be answered is lost", () =>
    Effect.gen(function* () {
      const { calls, scope, tags } = yield* table()
      const first = connectionOf(1)
      const second = connectionOf(2)
      yield* calls.arrive([lamp("l")], first.link, 1, scope)
      yield* settle
      second.state.failing = true
      yield* calls.arrive([lamp("l")], second.link, 1, scope)
      expect(calls.records[1]?.outcome).toEqual({ _tag: "Lost", reason: "the answer could not be sent: the socket is gone" })
      expect(tags()).toEqual(["CallStarted l", "CallFinished l", "CallLost l"])
    }))

  it.effect("an answer that cannot be sent makes its call lost", () =>
    Effect.gen(function* () {
      const { calls, scope, tags, settled } = yield* table()
      const { link, state } = connectionOf(1)
      state.failing = true
      yield* calls.arrive([lamp("l")], link, 1, scope)
      yield* settle
      expect(calls.records[0]?.outcome).toEqual({ _tag: "Lost", reason: "the answer could not be sent: the socket is gone" })
      expect(tags()).toEqual(["CallStarted l", "CallLost l"])
      expect(settled).toEqual([1])
    }))

  it.effect("the server's cancellation interrupts the named calls of its connection only, and never answers them", () =>
    Effect.gen(function* () {
      const { calls, scope, probe, outcomes, settled, tags } = yield* table()
      const first = connectionOf(1)
      const second = connectionOf(2)
      yield* calls.arrive([slow("a"), slow("b"), slow("c")], first.link, 1, scope)
      yield* calls.arrive([slow("d")], second.link, 1, scope)
      yield* settle
      yield* TestClock.adjust(Duration.millis(250))
      yield* calls.cancel(["a", "d", "zz"], first.link)
      yield* settle
      expect(yield* probe.of("a")).toEqual(["started", "interrupted", "finalized"])
      expect(outcomes()).toEqual([["a", "Cancelled"]])
      expect(calls.records[0]?.duration).toEqual(Duration.millis(250))
      expect(tags().slice(4)).toEqual(["CallCancelled a"])
      expect(settled).toEqual([1])
      expect(calls.outstanding(1)).toBe(2)
      expect(calls.outstanding(2)).toBe(1)
      yield* calls.cancel(["d"], first.link)
      yield* calls.cancel(["a"], first.link)
      expect(outcomes()).toEqual([["a", "Cancelled"]])
      yield* TestClock.adjust(Duration.seconds(1))
      yield* settle
      expect(first.state.sent.map((response) => response.id).sort()).toEqual(["b", "c"])
      expect(second.state.sent.map((response) => response.id)).toEqual(["d"])
    }))

  it.effect("stopping a turn answers each of its calls with an error and waits for their handlers to stop", () =>
    Effect.gen(function* () {
      const { calls, scope, probe, outcomes, tags } = yield* table()
      const { link, state } = connectionOf(1)
      yield* calls.arrive([slow("a"), call("b", "stubborn", { seconds: 2 })], link, 1, scope)
      yield* calls.arrive([slow("c", 5)], link, 2, scope)
      yield* settle
      const stopping = yield* Effect.fork(calls.stop(1))
      yield* settle
      expect(outcomes()).toEqual([["a", "Stopped"], ["b", "Stopped"]])
      expect(state.sent.map((response) => response.response)).toEqual([
        { error: { type: "ExecutionFailed", message: '"slow" failed: the user stopped this call before it finished' } },
        { error: { type: "ExecutionFailed", message: '"stubborn" failed: the user stopped this call before it finished' } }
      ])
      expect(calls.records[0]?.outcome).toEqual({ _tag: "Stopped", response: state.sent[0] })
      expect(tags().slice(3)).toEqual(["CallCancelled a", "CallCancelled b"])
      expect(yield* probe.of("a")).toEqual(["started", "interrupted", "finalized"])
      expect(stopping.unsafePoll()).toBeNull()
      yield* TestClock.adjust(Duration.seconds(2))
      expect(yield* Fiber.await(stopping)).toEqual(Exit.void)
      expect(yield* probe.of("b")).toContain("finalized")
      expect(calls.ofTurn(2).running).toEqual([slow("c", 5)])
      expect(state.sent).toHaveLength(2)
    }))

  it.effect("a stopped call whose error cannot be sent is lost", () =>
    Effect.gen(function* () {
      const { calls, scope, tags } = yield* table()
      const { link, state } = connectionOf(1)
      yield* calls.arrive([slow("a")], link, 1, scope)
      yield* settle
      state.failing = true
      expect(yield* calls.stop(1)).toBeUndefined()
      expect(calls.records[0]?.outcome).toEqual({ _tag: "Lost", reason: "the answer could not be sent: the socket is gone" })
      expect(tags()).toEqual(["CallStarted a", "CallLost a"])
    }))

  it.effect("losing a connection interrupts its calls and records them lost, with the reason; other connections' calls go on", () =>
    Effect.gen(function* () {
      const { calls, scope, probe, outcomes, tags, settled } = yield* table()
      const first = connectionOf(1)
      const second = connectionOf(2)
      yield* calls.arrive([slow("a")], first.link, 1, scope)
      yield* calls.arrive([slow("b")], second.link, 2, scope)
      yield* settle
      yield* calls.lose(1, "the socket dropped")
      yield* settle
      expect(calls.records[0]?.outcome).toEqual({ _tag: "Lost", reason: "the socket dropped" })
      expect(tags().slice(2)).toEqual(["CallLost a"])
      expect(yield* probe.of("a")).toEqual(["started", "interrupted", "finalized"])
      expect(settled).toEqual([])
      yield* TestClock.adjust(Duration.seconds(1))
      yield* settle
      expect(outcomes()).toEqual([["a", "Lost"], ["b", "Answered"]])
      expect(first.state.sent).toEqual([])
    }))

  it.effect("a call cancelled while its finished handler waits to answer is not answered", () =>
    Effect.gen(function* () {
      const { calls, scope, hooks, outcomes, tags } = yield* table()
      const { link, state } = connectionOf(1)
      const gate = yield* Deferred.make<void>()
      hooks.onPublish = (event) => (event._tag === "CallFinished" && event.record.id === "first" ? Deferred.await(gate) : Effect.void)
      let armed = true
      hooks.onSettled = () =>
        Effect.suspend(() => {
          if (!armed) return Effect.void
          armed = false
          return calls.cancel(["late"], link)
        })
      yield* calls.arrive([lamp("first"), slow("late")], link, 1, scope)
      yield* settle
      yield* TestClock.adjust(Duration.seconds(1))
      yield* settle
      yield* Deferred.succeed(gate, undefined)
      yield* eventually(Effect.sync(() => calls.records.length), (n) => n >= 2)
      yield* settle
      expect(outcomes()).toEqual([["first", "Answered"], ["late", "Cancelled"]])
      expect(state.sent.map((response) => response.id)).toEqual(["first"])
      expect(tags()).toEqual(["CallStarted first", "CallStarted late", "CallFinished first", "CallCancelled late"])
    }))

  it.effect("a call stopped before its handler was even forked is settled, the stop completes, and its handler never runs", () =>
    Effect.gen(function* () {
      const fixture = yield* table()
      const { calls, outcomes, probe } = fixture
      const { state, release } = yield* arriveHeld(fixture, slow("a"))
      expect(calls.outstanding(1)).toBe(1)
      expect(yield* Effect.exit(calls.stop(1))).toEqual(Exit.void)
      expect(outcomes()).toEqual([["a", "Stopped"]])
      yield* release
      yield* TestClock.adjust(Duration.seconds(1))
      yield* settle
      expect(outcomes()).toEqual([["a", "Stopped"]])
      expect(state.sent).toHaveLength(1)
      expect(yield* probe.notes).toEqual([])
    }))

  it.effect("a call whose connection is lost before its handler was forked never runs", () =>
    Effect.gen(function* () {
      const fixture = yield* table()
      const { calls, outcomes, probe } = fixture
      const { state, release } = yield* arriveHeld(fixture, lamp("a"))
      yield* calls.lose(1, "the socket closed")
      yield* release
      yield* settle
      expect(outcomes()).toEqual([["a", "Lost"]])
      expect(state.sent).toEqual([])
      expect(yield* probe.notes).toEqual([])
    }))

  it.effect("a turn's records and running calls are its own, not other turns'", () =>
    Effect.gen(function* () {
      const { calls, scope } = yield* table()
      const { link } = connectionOf(1)
      yield* calls.arrive([lamp("a"), slow("c")], link, 1, scope)
      yield* calls.arrive([lamp("d"), slow("b")], link, 2, scope)
      yield* settle
      expect(calls.ofTurn(1)).toEqual({ calls: [expect.objectContaining({ id: "a", turn: 1 })], running: [slow("c")] })
      expect(calls.ofTurn(2)).toEqual({ calls: [expect.objectContaining({ id: "d", turn: 2 })], running: [slow("b")] })
      expect(calls.ofTurn(3)).toEqual({ calls: [], running: [] })
    }))
})
