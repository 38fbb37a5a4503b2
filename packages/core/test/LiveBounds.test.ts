import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Layer, TestClock } from "effect"
import type { Duration } from "effect"
import type { Scope } from "effect"
import { LiveAgent, LiveModel } from "../src/index.js"
import { ScriptedLive } from "../src/testing.js"
import { makeProbe } from "./LiveFixtures.js"

const live = <A, E>(script: ScriptedLive.Script, body: (probe: Effect.Effect.Success<typeof makeProbe>) => Effect.Effect<A, E, LiveModel.LiveModel | Scope.Scope>) =>
  Effect.flatMap(makeProbe, body).pipe(Effect.provide(ScriptedLive.layer(script)))

/** A connection slow to return from sendText: what the model says at once arrives before the send's watch starts. */
const slowSend = (script: ScriptedLive.Script) =>
  Layer.effect(
    LiveModel.LiveModel,
    Effect.map(LiveModel.LiveModel, (model) => ({
      ...model,
      connect: (setup: LiveModel.Setup) =>
        Effect.map(model.connect(setup), (connection) => ({
          ...connection,
          sendText: (text: string) => Effect.zipLeft(connection.sendText(text), Effect.repeatN(Effect.yieldNow(), 50))
        }))
    }))
  ).pipe(Layer.provide(ScriptedLive.layer(script)))

/** Moves the clock `by`, then lets the session's fibers run. */
const advance = (by: Duration.DurationInput) => Effect.zipRight(TestClock.adjust(by), Effect.yieldNow())

describe("bounds on a live send", () => {
  it.scoped("a model that never replies: the send fails after firstByteTimeout as a first-byte timeout, and the session goes on", () =>
    live(
      { onText: (text) => (text === "hello?" ? [] : [{ text: "here" }, { turnComplete: true }]) },
      (probe) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry, firstByteTimeout: "5 seconds" })
          const fiber = yield* Effect.fork(session.send("hello?"))
          yield* advance("4999 millis")
          expect(fiber.unsafePoll()).toBeNull()
          yield* advance("1 millis")
          expect(yield* Fiber.await(fiber)).toMatchObject(Exit.fail({ _tag: "ModelTimeout", limit: "firstByte" }))
          const next = yield* session.send("again")
          expect(next.text).toBe("here")
        })))

  it.scoped("a tool that runs for 30 s is not the model's silence: a 2 s idle bound does not cut the turn", () =>
    live(ScriptedLive.conversation([{ calls: [{ name: "slow", args: { seconds: 30 } }], text: "done" }]), (probe) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry, idleTimeout: "2 seconds", firstByteTimeout: "2 seconds" })
        const fiber = yield* Effect.fork(session.send("take your time"))
        for (let i = 0; i < 31; i++) yield* advance("1 second")
        const turn = yield* Fiber.join(fiber)
        expect(turn.text).toBe("done")
      })))

  it.scoped("a call still running at turnTimeout: the turn is cut there, as a turn timeout, and its call is stopped", () =>
    live({ onText: () => [{ text: "Let me" }, { calls: [{ name: "slow", args: { seconds: 100 } }] }] }, (probe) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry, idleTimeout: "3 seconds", turnTimeout: "20 seconds" })
        const fiber = yield* Effect.fork(session.send("go"))
        // The call runs (not idle) until the turn bound ends it.
        yield* advance("19 seconds")
        expect(fiber.unsafePoll()).toBeNull()
        yield* advance("1 second")
        expect(yield* Fiber.await(fiber)).toMatchObject(Exit.fail({ _tag: "ModelTimeout", limit: "turn" }))
        expect(yield* probe.of("call_1_0")).toEqual(["started", "interrupted", "finalized"])
      })))

  it.scoped("text, then silence: cut at idleTimeout as an idle timeout", () =>
    live({ onText: () => [{ text: "Let me think" }] }, (probe) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry, idleTimeout: "3 seconds" })
        const fiber = yield* Effect.fork(session.send("go"))
        yield* advance("2999 millis")
        expect(fiber.unsafePoll()).toBeNull()
        yield* advance("1 millis")
        expect(yield* Fiber.await(fiber)).toMatchObject(Exit.fail({ _tag: "ModelTimeout", limit: "idle" }))
      })))

  it.scoped("by default a send waits 10 minutes for its turn (turnTimeout), however quiet the model is meanwhile", () =>
    live({ onText: (text) => (text === "slow" ? [{ wait: "9 minutes" }, { text: "finally" }, { turnComplete: true }] : [{ wait: "1 hour" }, { text: "too late" }, { turnComplete: true }]) }, (probe) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry })
        const slow = yield* Effect.fork(session.send("slow"))
        yield* advance("9 minutes")
        expect((yield* Fiber.join(slow)).text).toBe("finally")
        const slower = yield* Effect.fork(session.send("slower"))
        yield* advance("599999 millis")
        expect(slower.unsafePoll()).toBeNull()
        yield* advance("1 millis")
        expect(yield* Fiber.await(slower)).toMatchObject(Exit.fail({ _tag: "ModelTimeout", limit: "turn", after: LiveAgent.defaultTurnTimeout }))
      })))

  it.scoped("a send's timeout that is not longer than zero is a defect naming it", () =>
    live({ onText: () => [{ text: "hi" }, { turnComplete: true }] }, (probe) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry })
        const exit = yield* Effect.exit(session.send("x", { timeout: 0 }))
        expect(Exit.isFailure(exit) && Cause.isDie(exit.cause) && String(Cause.squash(exit.cause))).toBe("RangeError: timeout must be longer than 0, got 0")
      })))

  it.scoped("a send's own timeout replaces the session's turnTimeout, longer or shorter", () =>
    live({ onText: (text) => [{ wait: text === "long" ? "1 hour" : "10 seconds" }, { text: `answer to ${text}` }, { turnComplete: true }] }, (probe) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry, turnTimeout: "1 minute" })
        const long = yield* Effect.fork(session.send("long", { timeout: "2 hours" }))
        yield* advance("1 hour")
        expect((yield* Fiber.join(long)).text).toBe("answer to long")
        const short = yield* Effect.fork(session.send("short", { timeout: "5 seconds" }))
        yield* advance("5 seconds")
        expect(yield* Fiber.await(short)).toMatchObject(Exit.fail({ _tag: "ModelTimeout", limit: "turn" }))
      })))

  it.scoped("an idle timeout abandons the turn: the next send's answer has its own number and text, and late output of the cut turn is dropped", () =>
    live(
      {
        onText: (text) =>
          text === "go" ? [{ text: "Let me think" }, { wait: "10 seconds" }, { text: " some more" }, { turnComplete: true }] : [{ text: "here" }, { turnComplete: true }]
      },
      (probe) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry, idleTimeout: "3 seconds" })
          const fiber = yield* Effect.fork(session.send("go"))
          yield* advance("3 seconds")
          expect(yield* Fiber.await(fiber)).toMatchObject(Exit.fail({ _tag: "ModelTimeout", limit: "idle" }))
          // The cut turn's late words and completion arrive before the next send: not an answer to anything.
          yield* advance("10 seconds")
          const next = yield* session.send("again")
          expect(next).toMatchObject({ turn: 2, text: "here" })
          expect((yield* session.turns).map((turn) => [turn.turn, turn.text])).toEqual([[2, "here"]])
        })
    ))

  it.scoped("an idle timeout with nothing more from the cut turn: the next send is answered cleanly", () =>
    live({ onText: (text) => (text === "go" ? [{ text: "Let me think" }] : [{ text: "here" }, { turnComplete: true }]) }, (probe) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry, idleTimeout: "3 seconds" })
        const fiber = yield* Effect.fork(session.send("go"))
        yield* advance("3 seconds")
        expect(yield* Fiber.await(fiber)).toMatchObject(Exit.fail({ _tag: "ModelTimeout", limit: "idle" }))
        const next = yield* session.send("again")
        expect(next).toMatchObject({ turn: 2, text: "here" })
      })))

  it.scoped("the model's silence counts from a call's answer: a 7 s call and 4 s of thought after it are within a 5 s idle bound", () =>
    live(
      { onText: () => [{ calls: [{ name: "slow", args: { seconds: 7 } }] }], onToolResponses: () => [{ wait: "4 seconds" }, { text: "done" }, { turnComplete: true }] },
      (probe) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry, idleTimeout: "5 seconds" })
          const fiber = yield* Effect.fork(session.send("go"))
          for (let i = 0; i < 11; i++) yield* advance("1 second")
          expect((yield* Fiber.join(fiber)).text).toBe("done")
        })
    ))

  it.scoped("a bounded send that times out abandons its own turn only: one that began while it stopped its calls is kept", () =>
    live(
      {
        onText: (text) => (text === "first" ? [{ calls: [{ name: "stubborn", args: { seconds: 3 }, id: "st" }] }] : [{ wait: "2 seconds" }, { text: "for the second" }, { turnComplete: true }]),
        onToolResponses: () => [{ text: "stopped" }, { turnComplete: true }]
      },
      (probe) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry, turnTimeout: "1 second" })
          const fiber = yield* Effect.fork(session.send("first"))
          // At 1 s the send stops its call (answered with an error at once, so the model completes turn 1) and waits
          // for the handler, which finishes at 3 s; at 1.5 s the user begins turn 2.
          yield* advance("1500 millis")
          expect((yield* session.turns).map((turn) => [turn.turn, turn.text])).toEqual([[1, "stopped"]])
          yield* session.sendText("second")
          yield* advance("1500 millis")
          expect(yield* Fiber.await(fiber)).toMatchObject(Exit.fail({ _tag: "ModelTimeout", limit: "turn" }))
          yield* advance("500 millis")
          expect((yield* session.turns).map((turn) => [turn.turn, turn.text])).toEqual([
            [1, "stopped"],
            [2, "for the second"]
          ])
        })
    ))

  it.scoped("text that arrives before the deadline watch starts is the model's first part: a pause after it does not trip firstByteTimeout", () =>
    Effect.flatMap(makeProbe, (probe) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry, firstByteTimeout: "2 seconds" })
        const fiber = yield* Effect.fork(session.send("go"))
        for (let i = 0; i < 3; i++) yield* advance("1 second")
        expect((yield* Fiber.join(fiber)).text).toBe("early, then more")
      })).pipe(Effect.provide(slowSend({ onText: () => [{ text: "early," }, { wait: "3 seconds" }, { text: " then more" }, { turnComplete: true }] }))))

  it.scoped("a call asked before the deadline watch starts is the model's first part: a long tool does not trip firstByteTimeout", () => {
    return Effect.flatMap(makeProbe, (probe) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry, firstByteTimeout: "2 seconds", idleTimeout: "5 seconds" })
        const fiber = yield* Effect.fork(session.send("take your time"))
        for (let i = 0; i < 31; i++) yield* advance("1 second")
        expect((yield* Fiber.join(fiber)).text).toBe("done")
        expect(yield* probe.of("call_1_0")).toEqual(["started", "finished", "finalized"])
      })).pipe(Effect.provide(slowSend(ScriptedLive.conversation([{ calls: [{ name: "slow", args: { seconds: 30 } }], text: "done" }]))))
  })
})
