import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, Layer, Option, Schema, TestClock } from "effect"
import type { Duration as DurationType } from "effect"
import { LiveAgent, LiveModel, ModelError, Registry, Tool } from "../src/index.js"
import { ScriptedLive } from "../src/testing.js"
import { eventually, live } from "./LiveFixtures.js"

// What `send` does around the message itself: it waits for a turn the model owes on its own, re-sends a message
// lost with its connection when asked, and `awaitConnected` waits for the connection in use.

/** Moves the clock `by`, then lets the session's fibers run. */
const advance = (by: DurationType.DurationInput) => Effect.zipRight(TestClock.adjust(by), Effect.repeatN(Effect.yieldNow(), 20))

/** A non-blocking lookup that takes a second, heard as `scheduling` says; and a blocking one that takes three. */
const lookup = (scheduling: LiveModel.Scheduling) =>
  Tool.make("lookup", {
    description: "Looks it up while the model talks",
    parameters: Schema.Struct({}),
    nonBlocking: { scheduling },
    handler: () => Effect.as(Effect.sleep("1 second"), { found: 3 })
  })
const check = Tool.make("check", { description: "Checks, the model waiting", parameters: Schema.Struct({}), handler: () => Effect.as(Effect.sleep("3 seconds"), { ok: true }) })

/** The texts the server received, with their connection. */
const texts = (server: ScriptedLive.Inspector) =>
  Effect.map(server.log, (log) => log.flatMap((entry) => (entry.from === "client" && entry.message._tag === "Text" ? [[entry.connection, entry.message.text, entry.at]] : [])))

/** A final response to `id` among `responses`. */
const final = (responses: ReadonlyArray<LiveModel.ToolResponse>, id: string) => responses.some((response) => response.id === id && response.willContinue !== true)

describe("a send waits for the turn the model owes on its own", () => {
  it.scoped("a whenIdle result makes the model speak in a turn of its own: a send made meanwhile goes out once that turn completed, and is answered by its own", () =>
    live(
      {
        onText: (text) => (text === "find" ? [{ calls: [{ name: "lookup", id: "l" }] }, { text: "Looking." }, { turnComplete: true }] : [{ text: `About ${text}.` }, { turnComplete: true }]),
        onToolResponses: (responses) => (final(responses, "l") ? [{ wait: "2 seconds" }, { text: "Found 3." }, { turnComplete: true }] : [])
      },
      (_, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: Registry.unsafeMake(lookup("whenIdle")) })
          expect((yield* session.send("find")).text).toBe("Looking.")
          yield* advance("1 second")
          const next = yield* Effect.fork(session.send("next"))
          yield* advance("1999 millis")
          expect((yield* texts(server)).map(([, text]) => text)).toEqual(["find"])
          yield* advance("1 millis")
          const answer = yield* Fiber.join(next)
          expect([answer.turn, answer.text]).toEqual([3, "About next."])
          expect((yield* session.turns).map((turn) => turn.text)).toEqual(["Looking.", "Found 3.", "About next."])
          expect((yield* texts(server)).map(([, text, at]) => [text, at])).toEqual([
            ["find", 0],
            ["next", 3000]
          ])
        })
    ))

  it.scoped("a send made while the model is in a turn of its own waits for that turn to complete", () =>
    live(
      {
        onText: (text) => (text === "find" ? [{ calls: [{ name: "lookup", id: "l" }] }, { turnComplete: true }] : [{ text: `About ${text}.` }, { turnComplete: true }]),
        onToolResponses: (responses) => (final(responses, "l") ? [{ text: "Found" }, { wait: "5 seconds" }, { text: " 3." }, { turnComplete: true }] : [])
      },
      () =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: Registry.unsafeMake(lookup("interrupt")) })
          yield* session.send("find")
          yield* advance("1 second")
          const answer = yield* Effect.fork(session.send("next"))
          yield* advance("5 seconds")
          expect(yield* Fiber.join(answer)).toMatchObject({ turn: 3, text: "About next." })
          expect((yield* session.turns).map((turn) => turn.text)).toEqual(["", "Found 3.", "About next."])
        })
    ))

  it.scoped("an interrupt result the server speaks of inside the turn under way cuts it there (segments), and the next send does not wait for another", () =>
    live(
      {
        onText: (text) => (text === "find" ? [{ calls: [{ name: "lookup", id: "l" }] }, { text: "Your flight leaves at" }] : [{ text: `About ${text}.` }, { turnComplete: true }]),
        onToolResponses: (responses) => (final(responses, "l") ? [{ interrupted: true }, { text: "I found 3." }, { turnComplete: true }] : [])
      },
      () =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: Registry.unsafeMake(lookup("interrupt")) })
          const find = yield* Effect.fork(session.send("find"))
          yield* advance("1 second")
          const turn = yield* Fiber.join(find)
          expect(turn.segments).toEqual([
            { text: "Your flight leaves at", interrupted: true },
            { text: "I found 3.", interrupted: false }
          ])
          expect([turn.text, turn.interrupted]).toEqual(["Your flight leaves atI found 3.", true])
          // Without moving the clock: no turn is owed.
          expect(yield* session.send("next")).toMatchObject({ turn: 2, text: "About next." })
        })
    ))

  it.scoped("a result sent while the model waits for a blocking call is heard in that turn: no turn of its own is owed", () =>
    live(
      {
        onText: (text) =>
          text === "find"
            ? [{ calls: [{ name: "lookup", id: "l" }] }, { turnComplete: true }]
            : text === "check"
              ? [{ calls: [{ name: "check", id: "c" }] }]
              : [{ text: `About ${text}.` }, { turnComplete: true }],
        onIdle: () => [{ text: "Checked, and found 3." }, { turnComplete: true }]
      },
      () =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: Registry.unsafeMake(lookup("whenIdle"), check) })
          yield* session.send("find")
          const checked = yield* Effect.fork(session.send("check"))
          yield* advance("3 seconds")
          expect((yield* Fiber.join(checked)).text).toBe("Checked, and found 3.")
          expect(yield* session.send("next")).toMatchObject({ text: "About next." })
        })
    ))

  it.scoped("a result sent while another non-blocking call still runs owes a turn all the same: the model does not wait for that one", () => {
    const lookupSlowly = Tool.make("lookup_slowly", {
      description: "Looks it up, slowly",
      parameters: Schema.Struct({}),
      nonBlocking: { scheduling: "whenIdle" },
      handler: () => Effect.as(Effect.sleep("5 seconds"), { found: 0 })
    })
    return live(
      {
        onText: (text) =>
          text === "find"
            ? [{ calls: [{ name: "lookup", id: "l" }, { name: "lookup_slowly", id: "m" }] }, { text: "Looking." }, { turnComplete: true }]
            : [{ text: `About ${text}.` }, { turnComplete: true }],
        onToolResponses: (responses) => (final(responses, "l") ? [{ wait: "1 second" }, { text: "Found 3." }, { turnComplete: true }] : [])
      },
      (_, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: Registry.unsafeMake(lookup("whenIdle"), lookupSlowly) })
          yield* session.send("find")
          yield* advance("1 second")
          const next = yield* Effect.fork(session.send("next"))
          yield* advance("1 second")
          expect(yield* Fiber.join(next)).toMatchObject({ turn: 3, text: "About next." })
          expect((yield* texts(server)).map(([, text, at]) => [text, at])).toEqual([
            ["find", 0],
            ["next", 2000]
          ])
        })
    )
  })

  it.scoped("a call of a function the tools lack is one the model waits for: a result sent while it is outstanding owes no turn", () =>
    live(
      {
        onText: (text) => (text === "find" ? [{ calls: [{ name: "lookup", id: "l" }, { name: "nope", id: "n" }] }] : [{ text: `About ${text}.` }, { turnComplete: true }]),
        onIdle: () => [{ text: "Found 3; nope is unknown." }, { turnComplete: true }]
      },
      (_, server) =>
        Effect.gen(function* () {
          // One call at a time: the unknown one waits while the lookup runs.
          const session = yield* LiveAgent.session({ registry: Registry.unsafeMake(lookup("whenIdle")), concurrency: "sequential" })
          const find = yield* Effect.fork(session.send("find"))
          yield* advance("1 second")
          expect((yield* Fiber.join(find)).text).toBe("Found 3; nope is unknown.")
          expect(yield* session.send("next")).toMatchObject({ turn: 2, text: "About next." })
          expect((yield* server.responses).map((r) => r.response.id)).toEqual(["l", "n"])
          expect((yield* session.calls).map((call) => [call.id, call.outcome._tag])).toEqual([
            ["l", "Answered"],
            ["n", "Answered"]
          ])
        })
    ))

  it.scoped("a model that never speaks of the result: after ownTurnWait of its silence the send goes out anyway", () =>
    live(
      { onText: (text) => (text === "find" ? [{ calls: [{ name: "lookup", id: "l" }] }, { text: "Looking." }, { turnComplete: true }] : [{ text: `About ${text}.` }, { turnComplete: true }]) },
      (_, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: Registry.unsafeMake(lookup("whenIdle")), ownTurnWait: "5 seconds" })
          yield* session.send("find")
          yield* advance("1 second")
          const next = yield* Effect.fork(session.send("next"))
          // Silent since the turn completed at 0.
          yield* advance("3999 millis")
          expect(next.unsafePoll()).toBeNull()
          yield* advance("1 millis")
          expect(yield* Fiber.join(next)).toMatchObject({ turn: 2, text: "About next." })
          expect((yield* texts(server)).map(([, text, at]) => [text, at])).toEqual([
            ["find", 0],
            ["next", 5000]
          ])
        })
    ))

  it.scoped("a send waiting for the model's own turn when the session is closed fails at once with SessionEnded", () =>
    live(
      {
        onText: () => [{ calls: [{ name: "lookup", id: "l" }] }, { text: "Looking." }, { turnComplete: true }],
        // The model starts its own turn and is still in it when the session closes.
        onToolResponses: (responses) => (final(responses, "l") ? [{ text: "Found" }] : [])
      },
      () =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: Registry.unsafeMake(lookup("whenIdle")) })
          yield* session.send("find")
          yield* advance("1 second")
          const next = yield* Effect.fork(session.send("next"))
          yield* advance("0 millis")
          expect(next.unsafePoll()).toBeNull()
          yield* session.close
          yield* advance("0 millis")
          expect(next.unsafePoll()).toMatchObject(Exit.fail({ _tag: "SessionEnded" }))
        })
    ))

  it.scoped("silent results and progress owe no turn", () =>
    live(
      { onText: (text) => (text === "find" ? [{ calls: [{ name: "lookup", id: "l" }] }, { turnComplete: true }] : [{ text: `About ${text}.` }, { turnComplete: true }]) },
      () =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: Registry.unsafeMake(lookup("silent")) })
          yield* session.send("find")
          yield* advance("1 second")
          expect(yield* session.send("next")).toMatchObject({ turn: 2, text: "About next." })
        })
    ))
})

describe("resendOnTurnLost", () => {
  /** Connection 1 gives a handle, then drops after the first message; connection 2 answers. */
  const dropping = (drops: number, before: ReadonlyArray<ScriptedLive.Action> = []): ScriptedLive.Script => (connection) => ({
    onSetup: [{ resumption: `h${connection}` }],
    onText: (text) => (connection <= drops ? [...before, { drop: 1006 }] : [{ text: `Answered ${text} on ${connection}.` }, { turnComplete: true }])
  })

  /** A session that has its first handle (a message sent before it arrives might be in the state it stands for). */
  const opened = (registry: Registry.Registry) => Effect.tap(LiveAgent.session({ registry }), (session) => eventually(session.resumptionHandle, Option.isSome))

  /** A send, with the clock moved past the reconnect's wait (a connection dropped before the model spoke is a failed attempt). */
  const sent = <A, E>(send: Effect.Effect<A, E>) => Effect.flatMap(Effect.fork(send), (fiber) => Effect.zipRight(advance("1 second"), Fiber.await(fiber)))

  it.scoped("a message lost with its connection is sent again on the resumed one, and its answer returned", () =>
    live(dropping(1), (probe, server) =>
      Effect.gen(function* () {
        const session = yield* opened(probe.registry)
        expect(yield* sent(session.send("hi", { resendOnTurnLost: true }))).toMatchObject(Exit.succeed({ text: "Answered hi on 2." }))
        expect((yield* texts(server)).map(([connection, text]) => [connection, text])).toEqual([
          [1, "hi"],
          [2, "hi"]
        ])
        expect((yield* server.setups).map((setup) => setup.resumptionHandle)).toEqual([undefined, "h1"])
      })))

  it.scoped("without it the send fails with TurnLost and nothing is sent again", () =>
    live(dropping(1), (probe, server) =>
      Effect.gen(function* () {
        const session = yield* opened(probe.registry)
        expect(yield* sent(session.send("hi"))).toMatchObject(Exit.fail({ _tag: "TurnLost" }))
        yield* eventually(server.setups, (setups) => setups.length === 2)
        expect((yield* texts(server)).map(([, text]) => text)).toEqual(["hi"])
      })))

  it.scoped("it is sent again once: a second loss fails with TurnLost", () =>
    live(dropping(2), (probe, server) =>
      Effect.gen(function* () {
        const session = yield* opened(probe.registry)
        const fiber = yield* Effect.fork(session.send("hi", { resendOnTurnLost: true }))
        yield* advance("1 second")
        yield* advance("2 seconds")
        expect(yield* Fiber.await(fiber)).toMatchObject(Exit.fail({ _tag: "TurnLost" }))
        expect((yield* texts(server)).map(([connection, text]) => [connection, text])).toEqual([
          [1, "hi"],
          [2, "hi"]
        ])
      })))

  it.scoped("a handle given after the message went out holds it: the resumed session has heard it, so it is not sent again", () =>
    live(dropping(1, [{ resumption: "after" }]), (probe, server) =>
      Effect.gen(function* () {
        const session = yield* opened(probe.registry)
        expect(yield* sent(session.send("hi", { resendOnTurnLost: true }))).toMatchObject(Exit.fail({ _tag: "TurnLost" }))
        yield* eventually(server.setups, (setups) => setups.length === 2)
        expect((yield* server.setups).map((setup) => setup.resumptionHandle)).toEqual([undefined, "after"])
        expect((yield* texts(server)).map(([, text]) => text)).toEqual(["hi"])
      })))

  it.scoped("a text that could not go out (Unavailable, the socket already gone) goes out on the next connection", () => {
    // Connection 1's first text fails as a dead socket's would, and the socket closes.
    const flaky = Layer.effect(
      LiveModel.LiveModel,
      Effect.gen(function* () {
        const model = yield* LiveModel.LiveModel
        const server = yield* ScriptedLive.ScriptedLiveModel
        let attempts = 0
        return {
          ...model,
          connect: (setup: LiveModel.Setup) =>
            Effect.map(model.connect(setup), (connection) => ({
              ...connection,
              sendText: (text: string) =>
                ++attempts === 1 ? Effect.zipRight(server.perform([{ drop: 1006 }]), Effect.fail(new ModelError.Unavailable({ message: "the socket is closed" }))) : connection.sendText(text)
            }))
        }
      })
    ).pipe(Layer.provideMerge(ScriptedLive.layer(dropping(0))))
    return Effect.gen(function* () {
      const server = yield* ScriptedLive.ScriptedLiveModel
      const session = yield* opened(Registry.unsafeMake(check))
      expect(yield* sent(session.send("hi", { resendOnTurnLost: true }))).toMatchObject(Exit.succeed({ text: "Answered hi on 2." }))
      expect((yield* texts(server)).map(([connection, text]) => [connection, text])).toEqual([[2, "hi"]])
    }).pipe(Effect.provide(flaky))
  })
})

describe("awaitConnected", () => {
  it.scoped("is the connection in use at once; after a drop, the one the session resumed on; once the session ended, its end", () =>
    live({ onSetup: [{ resumption: "h" }] }, (probe, server) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: probe.registry })
        expect(yield* session.awaitConnected).toEqual({ connection: 1, resumed: false })
        yield* server.perform([{ drop: 1011 }])
        yield* advance("1 second")
        yield* eventually(server.setups, (setups) => setups.length === 2)
        expect(yield* session.awaitConnected).toEqual({ connection: 2, resumed: true })
        yield* session.close
        expect(yield* Effect.exit(session.awaitConnected)).toMatchObject(Exit.fail({ _tag: "SessionEnded" }))
      })))

  it.scoped("waits while the session reconnects", () =>
    live(
      (connection) => (connection === 2 ? { refuse: new ModelError.Unavailable({ message: "not yet" }) } : { onSetup: [{ resumption: "h" }] }),
      (probe, server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: probe.registry })
          yield* server.perform([{ drop: 1006 }])
          yield* advance("0 millis")
          const waiting = yield* Effect.fork(session.awaitConnected)
          yield* advance("100 millis")
          expect(waiting.unsafePoll()).toBeNull()
          yield* advance(Duration.seconds(2))
          expect(yield* Fiber.join(waiting)).toEqual({ connection: 2, resumed: true })
          expect((yield* server.setups).length).toBe(3)
        })
    ))
})
