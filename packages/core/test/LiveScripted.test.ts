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

describe("ScriptedLive, action by action", () => {
  it.scoped("the service names its provider and model", () =>
    Effect.gen(function* () {
      const named = yield* Effect.provide(LiveModel.LiveModel, ScriptedLive.layer({}, { model: "m-2" }))
      const plain = yield* Effect.provide(LiveModel.LiveModel, ScriptedLive.layer({}))
      expect([named.provider, named.model, plain.provider, plain.model]).toEqual(["scripted-live", "m-2", "scripted-live", "scripted-live"])
    }))

  it.scoped("each action becomes its event; usage fills what it does not say, and keeps what it does", () =>
    withModel(
      {
        onSetup: [
          { usage: { inputTokens: 3 } },
          { usage: { outputTokens: 5 } },
          { usage: { inputTokens: 1, outputTokens: 2, totalTokens: 9, cachedTokens: 1 } },
          { interrupted: true },
          { generationComplete: true },
          { turnComplete: true },
          { turnComplete: true, reason: "MALFORMED_FUNCTION_CALL" },
          { event: { _tag: "Transcription", direction: "input", text: "hello" } },
          { event: { _tag: "Closed", code: 1011, reason: "boom" } },
          { text: "never" },
          { event: { _tag: "Closed", code: 1000, reason: "again" } }
        ]
      },
      (live, inspector) =>
        Effect.gen(function* () {
          const connection = yield* live.connect(setup)
          const events = Chunk.toArray(yield* Stream.runCollect(connection.events))
          expect(events).toEqual([
            { _tag: "Usage", usage: { inputTokens: 3, outputTokens: 0, totalTokens: 3 } },
            { _tag: "Usage", usage: { inputTokens: 0, outputTokens: 5, totalTokens: 5 } },
            { _tag: "Usage", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 9, cachedTokens: 1 } },
            { _tag: "Interrupted" },
            { _tag: "GenerationComplete" },
            { _tag: "TurnComplete" },
            { _tag: "TurnComplete", reason: "MALFORMED_FUNCTION_CALL" },
            { _tag: "Transcription", direction: "input", text: "hello" },
            { _tag: "Closed", code: 1011, reason: "boom" }
          ])
          expect(events[5]).not.toHaveProperty("reason")
          const log = yield* inspector.log
          expect(log.every((entry) => entry.connection === 1 && entry.from === "server")).toBe(true)
          expect(log).toHaveLength(9)
          const error = yield* Effect.flip(connection.sendText("still there?"))
          expect([error._tag, error.message]).toEqual(["Unavailable", "the connection is closed"])
          expect(yield* inspector.log).toHaveLength(9)
        })
    ))

  it.scoped("calls get ids counting per connection over every ToolCall, and empty args by default", () =>
    withModel({ onSetup: [{ calls: [{ name: "a" }, { name: "b", args: { x: 1 } }] }, { calls: [{ name: "c", id: "mine" }, { name: "d" }] }] }, (live) =>
      Effect.gen(function* () {
        const connection = yield* live.connect(setup)
        const events = yield* take(connection, 2)
        expect(events).toEqual([
          {
            _tag: "ToolCall",
            calls: [
              { _tag: "FunctionCall", id: "call_1_0", name: "a", args: {} },
              { _tag: "FunctionCall", id: "call_1_1", name: "b", args: { x: 1 } }
            ]
          },
          {
            _tag: "ToolCall",
            calls: [
              { _tag: "FunctionCall", id: "mine", name: "c", args: {} },
              { _tag: "FunctionCall", id: "call_1_2", name: "d", args: {} }
            ]
          }
        ])
        yield* connection.close
        const again = yield* live.connect(setup)
        const ids = (yield* take(again, 2)).flatMap((event) => (event._tag === "ToolCall" ? event.calls.map((c) => c.id) : []))
        expect(ids).toEqual(["call_2_0", "call_2_1", "mine", "call_2_2"])
      })))

  it.scoped("a script function is asked with the attempt and the setup; a list gives each attempt its own script", () =>
    Effect.gen(function* () {
      const asked: Array<[number, string | undefined]> = []
      yield* withModel(
        (connection, s) => {
          asked.push([connection, s.resumptionHandle])
          return { onSetup: [{ text: `connection ${connection}` }] }
        },
        (live) =>
          Effect.gen(function* () {
            const first = yield* live.connect(setup)
            const second = yield* live.connect({ ...setup, resumptionHandle: "h" })
            expect([yield* take(first, 1), yield* take(second, 1)]).toEqual([[{ _tag: "TextDelta", text: "connection 1" }], [{ _tag: "TextDelta", text: "connection 2" }]])
          })
      )
      expect(asked).toEqual([[1, undefined], [2, "h"]])
      yield* withModel([{ onSetup: [{ text: "one" }] }, { onSetup: [{ text: "two" }] }], (live) =>
        Effect.gen(function* () {
          expect(yield* take(yield* live.connect(setup), 1)).toEqual([{ _tag: "TextDelta", text: "one" }])
          expect(yield* take(yield* live.connect(setup), 1)).toEqual([{ _tag: "TextDelta", text: "two" }])
        }))
    }))

  it.scoped("reactions see the connection, setup, message counts and outstanding calls", () =>
    Effect.gen(function* () {
      const seen: Array<[string, ScriptedLive.Situation]> = []
      const script: ScriptedLive.ConnectionScript = {
        onText: (text, situation) => {
          seen.push([text, situation])
          return text === "call" ? [{ calls: [{ name: "t" }, { name: "u" }] }] : [{ text: `re ${text}` }]
        },
        onToolResponses: (responses, situation) => {
          seen.push([responses.map((r) => r.id).join(","), situation])
          return [{ text: "thanks" }]
        },
        onIdle: (situation) => {
          seen.push(["idle", situation])
          return [{ text: "idle" }]
        }
      }
      yield* withModel(script, (live) =>
        Effect.gen(function* () {
          const first = yield* live.connect(setup)
          yield* first.sendText("hi")
          yield* first.sendText("call")
          expect(tags(yield* take(first, 2))).toEqual(["TextDelta", "ToolCall"])
          yield* first.sendToolResponses([{ id: "call_1_0", name: "t", response: {} }])
          expect(yield* take(first, 1)).toEqual([{ _tag: "TextDelta", text: "thanks" }])
          yield* first.sendToolResponses([{ id: "call_1_1", name: "u", response: {} }])
          expect(yield* take(first, 2)).toEqual([{ _tag: "TextDelta", text: "thanks" }, { _tag: "TextDelta", text: "idle" }])
          const second = yield* live.connect({ ...setup, system: "two" })
          yield* second.sendText("again")
          expect(yield* take(second, 1)).toEqual([{ _tag: "TextDelta", text: "re again" }])
        }))
      const t = { _tag: "FunctionCall", id: "call_1_0", name: "t", args: {} }
      const u = { _tag: "FunctionCall", id: "call_1_1", name: "u", args: {} }
      expect(seen).toEqual([
        ["hi", { connection: 1, setup, index: 0, message: 0, outstanding: [] }],
        ["call", { connection: 1, setup, index: 1, message: 1, outstanding: [] }],
        ["call_1_0", { connection: 1, setup, index: 2, message: 2, outstanding: [u] }],
        ["call_1_1", { connection: 1, setup, index: 2, message: 2, outstanding: [] }],
        ["idle", { connection: 1, setup, index: 2, message: 2, outstanding: [] }],
        ["again", { connection: 2, setup: { ...setup, system: "two" }, index: 0, message: 2, outstanding: [] }]
      ])
      expect(seen[2]?.[1].outstanding).not.toContainEqual(t)
    }))

  it.scoped("a cancellation that leaves no call outstanding makes the server idle; one that leaves some, or finds none, does not", () =>
    withModel(
      {
        onSetup: [{ calls: [{ name: "t", id: "a" }, { name: "t", id: "b" }] }, { cancel: ["a", "zz"] }, { text: "one left" }, { cancel: ["b"] }, { text: "none left" }, { cancel: ["b"] }],
        onIdle: (situation) => [{ text: `idle with ${situation.outstanding.length}` }]
      },
      (live, inspector) =>
        Effect.gen(function* () {
          const connection = yield* live.connect(setup)
          yield* TestClock.adjust("1 second")
          const events = yield* take(connection, 7)
          expect(events.slice(1)).toEqual([
            { _tag: "ToolCallCancellation", ids: ["a", "zz"] },
            { _tag: "TextDelta", text: "one left" },
            { _tag: "ToolCallCancellation", ids: ["b"] },
            { _tag: "TextDelta", text: "none left" },
            { _tag: "ToolCallCancellation", ids: ["b"] },
            { _tag: "TextDelta", text: "idle with 0" }
          ])
          yield* inspector.perform([{ text: "more" }])
          expect(yield* take(connection, 1)).toEqual([{ _tag: "TextDelta", text: "more" }])
          yield* connection.sendToolResponses([{ id: "zz", name: "t", response: {} }])
          expect(yield* inspector.violations).toEqual(["connection 1: a response to zz (t), but it was never asked for on this connection"])
        })
    ))

  it.scoped("a response to a cancelled call the client has not read about yet is accepted; idle follows only the last outstanding answer", () =>
    withModel(
      {
        onSetup: [{ calls: [{ name: "t", id: "a" }, { name: "t", id: "b" }] }, { cancel: ["a"] }],
        onToolResponses: (responses) => [{ text: `got ${responses.map((r) => r.id).join(",")}` }],
        onIdle: () => [{ text: "idle" }]
      },
      (live, inspector) =>
        Effect.gen(function* () {
          const connection = yield* live.connect(setup)
          expect(tags(yield* take(connection, 1))).toEqual(["ToolCall"])
          yield* connection.sendToolResponses([{ id: "a", name: "t", response: {} }])
          yield* connection.sendToolResponses([{ id: "b", name: "t", response: {} }])
          expect(yield* take(connection, 3)).toEqual([
            { _tag: "ToolCallCancellation", ids: ["a"] },
            { _tag: "TextDelta", text: "got a" },
            { _tag: "TextDelta", text: "got b" }
          ])
          expect(yield* take(connection, 1)).toEqual([{ _tag: "TextDelta", text: "idle" }])
          expect(yield* inspector.violations).toEqual([])
          expect(yield* inspector.responses).toEqual([
            { connection: 1, response: { id: "a", name: "t", response: {} } },
            { connection: 1, response: { id: "b", name: "t", response: {} } }
          ])
        })
    ))

  it.scoped("after a drop, actions are ignored but waits still wait; perform before any connection does nothing", () =>
    withModel({ onSetup: [{ drop: 1006 }, { text: "gone" }, { cancel: ["x"] }, { goAway: "1 second" }, { wait: "5 seconds" }, { text: "still gone" }] }, (live, inspector) =>
      Effect.gen(function* () {
        yield* inspector.perform([{ text: "nobody" }])
        const connection = yield* live.connect(setup)
        expect(Chunk.toArray(yield* Stream.runCollect(connection.events))).toEqual([{ _tag: "Closed", code: 1006, reason: "" }])
        yield* TestClock.adjust("10 seconds")
        expect((yield* inspector.log).map((entry) => entry.from === "server" && entry.event._tag)).toEqual(["Closed"])
      })))

  it.scoped("a wait holds up the actions after it, on the clock", () =>
    withModel({ onSetup: [{ text: "now" }, { wait: "2 seconds" }, { text: "later" }] }, (live, inspector) =>
      Effect.gen(function* () {
        const connection = yield* live.connect(setup)
        const events = yield* Effect.fork(take(connection, 2))
        yield* TestClock.adjust("1999 millis")
        expect(Option.isNone(yield* Fiber.poll(events))).toBe(true)
        yield* TestClock.adjust("1 milli")
        expect(tags(yield* Fiber.join(events))).toEqual(["TextDelta", "TextDelta"])
        expect((yield* inspector.log).map((entry) => entry.at)).toEqual([0, 2000])
      })))

  it.scoped("closing the client's scope closes the connection, logged as the client's Close", () =>
    withModel({}, (live, inspector) =>
      Effect.gen(function* () {
        yield* Effect.scoped(live.connect(setup))
        expect((yield* inspector.log).map((entry) => [entry.from, entry.from === "client" ? entry.message._tag : entry.event._tag])).toEqual([
          ["client", "Close"],
          ["server", "Closed"]
        ])
      })))

  it.scoped("a conversation with handles hands one out after each turn, and an empty one while calls are outstanding", () =>
    withModel(
      ScriptedLive.conversation(
        [{ calls: [{ name: "t" }], then: [{ text: "working" }], text: "done", usage: { inputTokens: 1, outputTokens: 1 } }, { calls: [], then: [{ text: "now" }], text: "plain" }],
        { handles: true }
      ),
      (live) =>
        Effect.gen(function* () {
          const connection = yield* live.connect(setup)
          yield* connection.sendText("1")
          expect(yield* take(connection, 3)).toEqual([
            { _tag: "ToolCall", calls: [{ _tag: "FunctionCall", id: "call_1_0", name: "t", args: {} }] },
            { _tag: "ResumptionUpdate", handle: undefined, resumable: false },
            { _tag: "TextDelta", text: "working" }
          ])
          yield* connection.sendToolResponses([{ id: "call_1_0", name: "t", response: {} }])
          expect(yield* take(connection, 4)).toEqual([
            { _tag: "TextDelta", text: "done" },
            { _tag: "Usage", usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } },
            { _tag: "TurnComplete" },
            { _tag: "ResumptionUpdate", handle: "handle_1", resumable: true }
          ])
          yield* connection.sendText("2")
          expect(yield* take(connection, 4)).toEqual([
            { _tag: "TextDelta", text: "now" },
            { _tag: "TextDelta", text: "plain" },
            { _tag: "TurnComplete" },
            { _tag: "ResumptionUpdate", handle: "handle_2", resumable: true }
          ])
        })
    ))

  it.scoped("without handles a conversation sends no resumption updates, and idles only once per exchange", () =>
    withModel(ScriptedLive.conversation([{ calls: [{ name: "t" }, { name: "u" }], then: [{ cancel: ["call_1_0"] }] }, { text: "second" }]), (live, inspector) =>
      Effect.gen(function* () {
        const connection = yield* live.connect(setup)
        yield* connection.sendText("1")
        expect(tags(yield* take(connection, 2))).toEqual(["ToolCall", "ToolCallCancellation"])
        yield* connection.sendToolResponses([{ id: "call_1_1", name: "u", response: {} }])
        expect(yield* take(connection, 1)).toEqual([{ _tag: "TurnComplete" }])
        yield* connection.sendText("2")
        expect(yield* take(connection, 2)).toEqual([{ _tag: "TextDelta", text: "second" }, { _tag: "TurnComplete" }])
        expect((yield* inspector.log).filter((entry) => entry.from === "server" && entry.event._tag === "ResumptionUpdate")).toEqual([])
      })))

  it.scoped("a conversation finishes an exchange once: calls that come otherwise find nothing left to say", () =>
    withModel(ScriptedLive.conversation([{ calls: [{ name: "t" }], text: "first" }, { then: [{ calls: [{ name: "x", id: "x" }] }], text: "second" }]), (live, inspector) =>
      Effect.gen(function* () {
        const connection = yield* live.connect(setup)
        yield* inspector.perform([{ calls: [{ name: "p", id: "p" }] }])
        expect(tags(yield* take(connection, 1))).toEqual(["ToolCall"])
        yield* connection.sendToolResponses([{ id: "p", name: "p", response: {} }])
        yield* connection.sendText("1")
        expect(tags(yield* take(connection, 1))).toEqual(["ToolCall"])
        yield* connection.sendToolResponses([{ id: "call_1_0", name: "t", response: {} }])
        expect(yield* take(connection, 2)).toEqual([{ _tag: "TextDelta", text: "first" }, { _tag: "TurnComplete" }])
        yield* connection.sendText("2")
        expect(tags(yield* take(connection, 1))).toEqual(["ToolCall"])
        yield* connection.sendToolResponses([{ id: "x", name: "x", response: {} }])
        yield* connection.close
        const events = Chunk.toArray(yield* Stream.runCollect(connection.events))
        expect(events.map((event) => (event._tag === "TextDelta" ? event.text : event._tag))).toEqual(["second", "TurnComplete", "Closed"])
        expect(yield* inspector.violations).toEqual([])
      })))
})
