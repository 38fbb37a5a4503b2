import { describe, expect, it } from "@effect/vitest"
import type { Scope } from "effect"
import { Chunk, Duration, Effect, Either, Fiber, Option, Stream, TestClock } from "effect"
import { LiveModel, ModelError } from "../src/index.js"
import { ScriptedLive } from "../src/testing.js"

const setup: LiveModel.Setup = { system: "Be brief.", declarations: [] }

/** Connects to a scripted model and hands the test the connection and its inspector. */
const withModel = <A, E>(
  script: ScriptedLive.Script,
  body: (live: LiveModel.Service, inspector: ScriptedLive.Inspector) => Effect.Effect<A, E, Scope.Scope>
) =>
  Effect.gen(function* () {
    const live = yield* LiveModel.LiveModel
    const inspector = yield* ScriptedLive.ScriptedLiveModel
    return yield* body(live, inspector)
  }).pipe(Effect.provide(ScriptedLive.layer(script)))

const take = (connection: LiveModel.Connection, n: number) => Effect.map(Stream.runCollect(Stream.take(connection.events, n)), Chunk.toArray)
const tags = (events: ReadonlyArray<LiveModel.Event>) => events.map((event) => event._tag)

describe("ScriptedLive", () => {
  it.scoped("a conversation asks for its calls, and answers once none is outstanding", () =>
    withModel(ScriptedLive.conversation([{ calls: [{ name: "lamp", args: { on: true } }, { name: "fan" }], text: "Done.", usage: { inputTokens: 4, outputTokens: 2 } }]), (live, inspector) =>
      Effect.gen(function* () {
        const connection = yield* live.connect(setup)
        yield* connection.sendText("lamp and fan")
        const [call] = yield* take(connection, 1)
        expect(call).toEqual({
          _tag: "ToolCall",
          calls: [
            { _tag: "FunctionCall", id: "call_1_0", name: "lamp", args: { on: true } },
            { _tag: "FunctionCall", id: "call_1_1", name: "fan", args: {} }
          ]
        })
        yield* connection.sendToolResponses([{ id: "call_1_0", name: "lamp", response: { ok: true } }])
        yield* connection.sendToolResponses([{ id: "call_1_1", name: "fan", response: { ok: true } }])
        const rest = yield* take(connection, 3)
        expect(rest).toEqual([
          { _tag: "TextDelta", text: "Done." },
          { _tag: "Usage", usage: { inputTokens: 4, outputTokens: 2, totalTokens: 6 } },
          { _tag: "TurnComplete" }
        ])
        expect(yield* inspector.violations).toEqual([])
        expect((yield* inspector.responses).map((r) => [r.connection, r.response.id])).toEqual([[1, "call_1_0"], [1, "call_1_1"]])
        expect(yield* inspector.setups).toEqual([setup])
      })))

  it.scoped("answering an id twice, after reading its cancellation, never asked, or with a non-object is a violation closed with 1007", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<[string, (c: LiveModel.Connection) => Effect.Effect<void, ModelError.ModelError>, string]> = [
        ["twice", (c) => Effect.zipRight(c.sendToolResponses([{ id: "a", name: "t", response: {} }]), c.sendToolResponses([{ id: "a", name: "t", response: {} }])), "it was answered already"],
        ["cancelled", (c) => c.sendToolResponses([{ id: "b", name: "t", response: {} }]), "the client had read its cancellation"],
        ["unknown", (c) => c.sendToolResponses([{ id: "zz", name: "t", response: {} }]), "it was never asked for on this connection"],
        ["not an object", (c) => c.sendToolResponses([{ id: "a", name: "t", response: ["x"] as never }]), "its response is not an object"]
      ]
      for (const [, misbehave, wrong] of cases) {
        yield* withModel({ onSetup: [{ calls: [{ name: "t", id: "a" }, { name: "t", id: "b" }] }, { cancel: ["b"] }] }, (live, inspector) =>
          Effect.gen(function* () {
            const connection = yield* live.connect(setup)
            expect(tags(yield* take(connection, 2))).toEqual(["ToolCall", "ToolCallCancellation"])
            yield* misbehave(connection)
            expect(yield* take(connection, 1)).toEqual([{ _tag: "Closed", code: 1007, reason: "Request contains an invalid argument." }])
            expect(yield* inspector.violations).toEqual([expect.stringContaining(wrong)])
            const after = yield* Effect.either(connection.sendText("anyone?"))
            expect(Either.isLeft(after) && after.left._tag).toBe("Unavailable")
          }))
      }
    }))

  it.scoped("a response that crossed its cancellation on the wire (sent before the client read it) is accepted and ignored", () =>
    withModel({ onSetup: [{ calls: [{ name: "t", id: "a" }] }, { cancel: ["a"] }, { text: "after" }], onIdle: () => [{ text: "idle" }] }, (live, inspector) =>
      Effect.gen(function* () {
        const connection = yield* live.connect(setup)
        expect(tags(yield* take(connection, 1))).toEqual(["ToolCall"])
        yield* connection.sendToolResponses([{ id: "a", name: "t", response: {} }])
        expect(yield* take(connection, 3)).toEqual([
          { _tag: "ToolCallCancellation", ids: ["a"] },
          { _tag: "TextDelta", text: "after" },
          { _tag: "TextDelta", text: "idle" }
        ])
        expect(yield* inspector.violations).toEqual([])
        yield* connection.sendToolResponses([{ id: "a", name: "t", response: {} }])
        expect(yield* inspector.violations).toEqual([expect.stringContaining("it was answered already")])
      })))

  it.scoped("a drop after a delay does not hold up the actions after it", () =>
    withModel({ onSetup: [{ drop: 1011, after: "3 seconds" }, { text: "before the drop" }] }, (live, inspector) =>
      Effect.gen(function* () {
        const connection = yield* live.connect(setup)
        const events = yield* Effect.fork(take(connection, 2))
        yield* TestClock.adjust("3 seconds")
        expect(yield* Fiber.join(events)).toEqual([{ _tag: "TextDelta", text: "before the drop" }, { _tag: "Closed", code: 1011, reason: "" }])
        expect((yield* inspector.log).map((entry) => entry.at)).toEqual([0, 3000])
      })))

  it.scoped("fail ends the event stream with that error after what came before, and closes the connection", () =>
    withModel({ onSetup: [{ text: "hi" }, { fail: new ModelError.MalformedResponse({ message: "not JSON" }) }, { text: "never" }] }, (live) =>
      Effect.gen(function* () {
        const connection = yield* live.connect(setup)
        const seen: Array<LiveModel.Event> = []
        const error = yield* Effect.flip(Stream.runForEach(connection.events, (event) => Effect.sync(() => void seen.push(event))))
        expect([seen, error._tag]).toEqual([[{ _tag: "TextDelta", text: "hi" }], "MalformedResponse"])
        expect((yield* Effect.flip(connection.sendText("hello?")))._tag).toBe("Unavailable")
      })))

  it.scoped("a resumption update while calls are outstanding is empty and not resumable", () =>
    withModel({ onSetup: [{ resumption: "h0" }, { calls: [{ name: "t", id: "a" }] }, { resumption: "h1" }], onIdle: () => [{ resumption: "h2" }] }, (live) =>
      Effect.gen(function* () {
        const connection = yield* live.connect(setup)
        const events = yield* take(connection, 3)
        expect(events.filter((e) => e._tag === "ResumptionUpdate")).toEqual([
          { _tag: "ResumptionUpdate", handle: "h0", resumable: true },
          { _tag: "ResumptionUpdate", handle: undefined, resumable: false }
        ])
        yield* connection.sendToolResponses([{ id: "a", name: "t", response: {} }])
        expect(yield* take(connection, 1)).toEqual([{ _tag: "ResumptionUpdate", handle: "h2", resumable: true }])
      })))

  it.scoped("goAway closes the connection with 1001 once its time left has passed on the clock", () =>
    withModel({ onSetup: [{ goAway: "10 seconds" }] }, (live, inspector) =>
      Effect.gen(function* () {
        const connection = yield* live.connect(setup)
        const events = yield* Effect.fork(take(connection, 2))
        yield* TestClock.adjust("9999 millis")
        expect(Option.isNone(yield* Fiber.poll(events))).toBe(true)
        yield* TestClock.adjust("1 milli")
        expect(yield* Fiber.join(events)).toEqual([
          { _tag: "GoAway", timeLeft: Duration.seconds(10) },
          { _tag: "Closed", code: 1001, reason: "the session went away" }
        ])
        expect((yield* inspector.log).map((entry) => entry.at)).toEqual([0, 10_000])
      })))

  it.scoped("a delayed cancellation does not hold up the actions after it", () =>
    withModel({ onSetup: [{ calls: [{ name: "t", id: "a" }] }, { cancel: ["a"], after: "2 seconds" }, { text: "still talking" }] }, (live, inspector) =>
      Effect.gen(function* () {
        const connection = yield* live.connect(setup)
        expect(tags(yield* take(connection, 2))).toEqual(["ToolCall", "TextDelta"])
        yield* TestClock.adjust("2 seconds")
        expect(yield* take(connection, 1)).toEqual([{ _tag: "ToolCallCancellation", ids: ["a"] }])
        expect((yield* inspector.log).map((entry) => entry.at)).toEqual([0, 0, 2000])
      })))

  it.scoped("refused setups fail connect; every attempt's setup is recorded; a connection past the script is InvalidRequest", () =>
    withModel([{ refuse: new ModelError.Unavailable({ message: "down" }) }, {}], (live, inspector) =>
      Effect.gen(function* () {
        const refused = yield* Effect.flip(live.connect(setup))
        expect(refused._tag).toBe("Unavailable")
        yield* live.connect({ ...setup, resumptionHandle: "h" })
        const beyond = yield* Effect.flip(live.connect(setup))
        expect([beyond._tag, beyond.message]).toEqual(["InvalidRequest", "the script has no connection 3"])
        expect((yield* inspector.setups).map((s) => s.resumptionHandle)).toEqual([undefined, "h", undefined])
      })))

  it.scoped("perform acts on the latest connection now; close is idempotent and ends the events with 1000", () =>
    withModel({}, (live, inspector) =>
      Effect.gen(function* () {
        const first = yield* live.connect(setup)
        yield* first.close
        yield* first.close
        expect(yield* take(first, 5)).toEqual([{ _tag: "Closed", code: 1000, reason: "closed by the client" }])
        const second = yield* live.connect(setup)
        yield* inspector.perform([{ text: "hi" }, { drop: 1011, reason: "Internal error occurred." }])
        expect(yield* take(second, 5)).toEqual([{ _tag: "TextDelta", text: "hi" }, { _tag: "Closed", code: 1011, reason: "Internal error occurred." }])
        const log = yield* inspector.log
        expect(log.filter((entry) => entry.from === "client").map((entry) => [entry.connection, entry.from === "client" && entry.message._tag])).toEqual([[1, "Close"]])
      })))

  it.scoped("a conversation closes with 1008 when it runs out of answers, and counts messages over connections", () =>
    withModel(ScriptedLive.conversation([{ text: "one" }, { text: "two" }]), (live) =>
      Effect.gen(function* () {
        const first = yield* live.connect(setup)
        yield* first.sendText("1")
        expect(yield* take(first, 2)).toEqual([{ _tag: "TextDelta", text: "one" }, { _tag: "TurnComplete" }])
        yield* first.close
        const second = yield* live.connect(setup)
        yield* second.sendText("2")
        yield* second.sendText("3")
        expect(yield* take(second, 5)).toEqual([
          { _tag: "TextDelta", text: "two" },
          { _tag: "TurnComplete" },
          { _tag: "Closed", code: 1008, reason: "the script has no answer for message 3" }
        ])
      })))
})
