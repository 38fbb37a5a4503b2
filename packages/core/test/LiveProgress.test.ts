import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Logger, LogLevel, Schema, TestClock } from "effect"
import { LiveAgent, LiveModel, ModelError, Registry, Tool } from "../src/index.js"
import { ScriptedLive } from "../src/testing.js"
import { eventually, live, makeProbe, record } from "./LiveFixtures.js"

/** The calls of one message: a `report` call (see LiveFixtures) and a turn that completes while it runs. */
const reporting = (args: { steps: number; seconds: number; stubborn?: boolean; late?: boolean }, then: ReadonlyArray<ScriptedLive.Action> = []): ScriptedLive.Script => ({
  onText: () => [{ calls: [{ name: "report", args: { stubborn: false, late: false, ...args }, id: "r" }] }, ...then, { text: "Working on it." }, { turnComplete: true }]
})

describe("progress from a live tool", () => {
  it.scoped("a non-blocking handler's progress goes out at once as responses that will continue (silent unless it says), and its result closes the call with the scheduling it chose", () =>
    live(reporting({ steps: 3, seconds: 1 }), (probe, server) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry })
        const events = yield* record(session)
        const turn = yield* session.send("go")
        expect([turn.text, turn.running.map((call) => call.id)]).toEqual(["Working on it.", ["r"]])
        yield* TestClock.adjust("1 second")
        expect((yield* eventually(server.responses, (sent) => sent.length === 1)).map((r) => r.response)).toEqual([
          { id: "r", name: "report", response: { step: 1 }, scheduling: "silent", willContinue: true }
        ])
        yield* TestClock.adjust("2 seconds")
        const sent = yield* eventually(server.responses, (sent) => sent.length === 4)
        expect(sent.map((r) => r.response)).toEqual([
          { id: "r", name: "report", response: { step: 1 }, scheduling: "silent", willContinue: true },
          { id: "r", name: "report", response: { step: 2 }, scheduling: "whenIdle", willContinue: true },
          { id: "r", name: "report", response: { step: 3 }, scheduling: "silent", willContinue: true },
          { id: "r", name: "report", response: { steps: 3 }, scheduling: "interrupt" }
        ])
        const [call] = yield* session.calls
        expect(call?.outcome).toMatchObject({ _tag: "Answered", response: { id: "r", scheduling: "interrupt" } })
        const progress = (yield* events).flatMap(([at, event]) => (event._tag === "CallProgress" ? [[at, event.response, event.scheduling, event.sent, event.call.id]] : []))
        expect(progress).toEqual([
          [1000, { step: 1 }, "silent", true, "r"],
          [2000, { step: 2 }, "whenIdle", true, "r"],
          [3000, { step: 3 }, "silent", true, "r"]
        ])
      })))

  it.scoped("a non-blocking handler that chooses no scheduling answers with its tool's", () =>
    live(reporting({ steps: 2, seconds: 1 }), (probe, server) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry })
        yield* session.send("go")
        yield* TestClock.adjust("2 seconds")
        const sent = yield* eventually(server.responses, (sent) => sent.length === 3)
        expect(sent.at(-1)?.response).toEqual({ id: "r", name: "report", response: { steps: 2 }, scheduling: "whenIdle" })
      })))

  it.scoped("a blocking handler's progress is only an event: its result is the one response the server gets, with no scheduling", () => {
    const count = Tool.make("count", {
      description: "Counts",
      parameters: Schema.Struct({}),
      handler: (_, { finalScheduling, progress }) => Effect.zipRight(Effect.zipRight(progress({ counted: 1 }), finalScheduling("interrupt")), Effect.succeed({ counted: 2 }))
    })
    return live({ onText: () => [{ calls: [{ name: "count", id: "c" }] }], onIdle: () => [{ text: "Two." }, { turnComplete: true }] }, (_, server) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: Registry.unsafeMake(count) })
        const events = yield* record(session)
        expect((yield* session.send("count")).text).toBe("Two.")
        expect((yield* server.responses).map((r) => r.response)).toEqual([{ id: "c", name: "count", response: { counted: 2 } }])
        const progress = (yield* events).flatMap(([, event]) => (event._tag === "CallProgress" ? [event] : []))
        expect(progress).toMatchObject([{ call: { id: "c" }, response: { counted: 1 }, sent: false }])
        expect(progress[0]!.scheduling).toBeUndefined()
      }))
  })

  it.scoped("a report after the call's final response (from a fiber the handler left behind) goes nowhere, and a debug line says so", () =>
    live(reporting({ steps: 1, seconds: 1, late: true }), (probe, server) =>
      Effect.gen(function* () {
        const logs: Array<unknown> = []
        const logger = Logger.make(({ message }) => void logs.push(message))
        const session = yield* LiveAgent.session({ registry: probe.registry }).pipe(
          Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
          Logger.withMinimumLogLevel(LogLevel.Debug)
        )
        yield* session.send("go")
        yield* TestClock.adjust("1 second")
        yield* eventually(server.responses, (sent) => sent.length === 2)
        yield* TestClock.adjust("5 seconds")
        expect((yield* eventually(probe.of("r"), (moments) => moments.filter((m) => m === "reported").length === 2)).filter((m) => m === "reported")).toHaveLength(2)
        expect((yield* server.responses).map((r) => [r.response.response, r.response.willContinue])).toEqual([
          [{ step: 1 }, true],
          [{ steps: 1 }, undefined]
        ])
        expect(logs).toContainEqual(["a progress report of call r (report) came after it ended, and goes nowhere"])
      })))

  it.scoped("a report the connection cannot take is dropped: no event, and the result still closes the call", () => {
    // A connection that refuses responses that will continue, as a closing socket would.
    const refusing = Layer.effect(
      LiveModel.LiveModel,
      Effect.map(LiveModel.LiveModel, (model) => ({
        ...model,
        connect: (setup: LiveModel.Setup) =>
          Effect.map(model.connect(setup), (connection) => ({
            ...connection,
            sendToolResponses: (responses: ReadonlyArray<LiveModel.ToolResponse>) =>
              responses.some((response) => response.willContinue === true)
                ? Effect.fail(new ModelError.Unavailable({ message: "the socket is closing" }))
                : connection.sendToolResponses(responses)
          }))
      }))
    ).pipe(Layer.provideMerge(ScriptedLive.layer(reporting({ steps: 1, seconds: 1 }))))
    return Effect.gen(function* () {
      const server = yield* ScriptedLive.ScriptedLiveModel
      const probe = yield* makeProbe
      const session = yield* LiveAgent.session({ registry: probe.registry })
      const events = yield* record(session)
      yield* session.send("go")
      yield* TestClock.adjust("1 second")
      const sent = yield* eventually(server.responses, (sent) => sent.length === 1)
      expect(sent.map((r) => r.response)).toEqual([{ id: "r", name: "report", response: { steps: 1 }, scheduling: "interrupt" }])
      expect((yield* events).filter(([, event]) => event._tag === "CallProgress")).toEqual([])
      expect((yield* session.calls).map((call) => call.outcome._tag)).toEqual(["Answered"])
    }).pipe(Effect.provide(refusing))
  })

  it.scoped("a report after the server cancelled the call goes nowhere, even from a handler that cannot be interrupted", () =>
    live(reporting({ steps: 3, seconds: 1, stubborn: true }, [{ cancel: ["r"], after: "1500 millis" }]), (probe, server) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry })
        const fiber = yield* Effect.fork(session.send("go"))
        yield* TestClock.adjust("5 seconds")
        yield* Fiber.join(fiber)
        const moments = yield* eventually(probe.of("r"), (moments) => moments.includes("finalized"))
        expect(moments.filter((m) => m === "reported")).toHaveLength(3)
        expect((yield* server.responses).map((r) => r.response.response)).toEqual([{ step: 1 }])
        expect((yield* session.calls).map((call) => call.outcome._tag)).toEqual(["Cancelled"])
      })))
})
