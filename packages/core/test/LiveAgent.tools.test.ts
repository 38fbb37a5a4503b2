import { NodeSdk } from "@effect/opentelemetry"
import { describe, expect, it } from "@effect/vitest"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Effect, Exit, Fiber, Layer, Logger, Option, Schema, Scope, TestClock } from "effect"
import type { LiveModel } from "../src/index.js"
import { LiveAgent, ModelError, Registry, Tool } from "../src/index.js"
import { ScriptedLive } from "../src/testing.js"
import { echo, fakeSource } from "./fixtures.js"
import { eventually, record } from "./LiveFixtures.js"

// A live session whose registry follows a source: changed tools are declared on a connection resumed from the
// last handle, at a turn boundary with no call outstanding.

/** A registry following `fake` whose tool `first`, when called, changes the source's tools to `tools`. */
const changingOnCall = (fake: ReturnType<typeof fakeSource>, ...tools: ReadonlyArray<Tool.Tool>) =>
  Registry.dynamic(
    Registry.unsafeMake(
      Tool.make("first", {
        description: "echoes as first",
        parameters: Schema.Struct({ a: Schema.Number }),
        handler: ({ a }) => Effect.as(fake.set(...tools), { from: "first", a })
      })
    ),
    fake.source
  )

/** A registry whose source, once its version moves, lists for ever; `state.interrupted` says the listing was stopped. */
const neverListed = () => {
  const state = { version: 0, interrupted: false }
  const source: Registry.Source = {
    version: () => state.version,
    current: Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => (state.interrupted = true))))
  }
  return { state, registry: Registry.dynamic(Registry.unsafeMake(echo("first")), source) }
}

type Log = Array<{ readonly level: string; readonly message: string }>

const live = <A, E>(script: ScriptedLive.Script, body: (server: ScriptedLive.Inspector, logs: Log) => Effect.Effect<A, E, LiveModel.LiveModel | Scope.Scope>) =>
  Effect.gen(function* () {
    const server = yield* ScriptedLive.ScriptedLiveModel
    const logs: Log = []
    const logger = Logger.make(({ logLevel, message }) => void logs.push({ level: logLevel.label, message: JSON.stringify(message) }))
    const result = yield* body(server, logs).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
    expect(yield* server.violations).toEqual([])
    return result
  }).pipe(Effect.provide(ScriptedLive.layer(script)))

const names = (setup: LiveModel.Setup) => setup.declarations.map((declaration) => declaration.name)
const warnings = (logs: Log) => logs.filter((log) => log.level === "WARN").map((log) => log.message)

/** Answers each text with its calls, then (once they are answered) `done <n>`, the turn's end and a handle `h<n>`. */
const answering = (
  calls: (message: number, setup: LiveModel.Setup) => ReadonlyArray<ScriptedLive.ScriptCall>,
  handles = true
): ((connection: number, setup: LiveModel.Setup) => ScriptedLive.ConnectionScript) => {
  let finish: ReadonlyArray<ScriptedLive.Action> = []
  const end = (message: number): ReadonlyArray<ScriptedLive.Action> => [
    { text: `done ${message}` },
    { turnComplete: true },
    ...(handles ? [{ resumption: `h${message}` }] : [])
  ]
  return (_, setup) => ({
    onText: (_, situation) => {
      const asked = calls(situation.message, setup)
      if (asked.length === 0) return end(situation.message)
      finish = end(situation.message)
      return [{ calls: asked }]
    },
    onIdle: () => finish
  })
}

describe("LiveAgent.session with a registry that follows its source", () => {
  it.scoped("a tool added during a turn is declared on a connection resumed from the turn's handle, and its calls are answered there by id", () => {
    const fake = fakeSource()
    // The tool list changes while this call runs: nothing may move before it is answered and the turn is over.
    const registry = changingOnCall(fake, echo("first"), echo("second"))
    return live(
      answering((message) => (message === 0 ? [{ name: "first", args: { a: 1 } }] : [{ name: "second", args: { a: 2 }, id: "s" }])),
      (server) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry })
          const events = yield* record(session)
          expect((yield* session.send("one")).text).toBe("done 0")
          const second = yield* session.send("two")
          expect(second.calls.map((call) => [call.id, call.name, call.connection, call.outcome._tag])).toEqual([["s", "second", 2, "Answered"]])
          const setups = yield* server.setups
          expect(setups.map((setup) => [names(setup), setup.resumptionHandle])).toEqual([
            [["first"], undefined],
            [["first", "second"], "h0"]
          ])
          // Everything else of the setup is the session's, as on the first connection.
          expect({ ...setups[1], declarations: [], resumptionHandle: undefined }).toEqual({ ...setups[0], declarations: [] })
          expect((yield* server.responses).map((r) => [r.connection, r.response.id, r.response.response])).toEqual([
            [1, "call_1_0", { from: "first", a: 1 }],
            [2, "s", { from: "second", a: 2 }]
          ])
          expect((yield* events).map(([, event]) => event).filter((event) => ["ToolsChanged", "Reconnecting", "Connected"].includes(event._tag))).toEqual([
            { _tag: "ToolsChanged", added: ["second"], removed: [], changed: [], connection: 2 },
            { _tag: "Connected", connection: 2, resumed: true }
          ])
          expect((yield* session.declarations).map((declaration) => declaration.name)).toEqual(["first", "second"])
          expect(fake.state.listed).toBe(1)
        })
    )
  })

  it.scoped("a change made while the session is idle is declared before the next message goes out; removed and changed tools are named", () => {
    const fake = fakeSource()
    return live(answering(() => []), (server) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: fake.registry })
        const events = yield* record(session)
        yield* session.send("one")
        yield* fake.set(echo("first", "echoes, differently"), echo("third"))
        expect((yield* session.send("two")).text).toBe("done 1")
        const texts = (yield* server.log).flatMap((e) => (e.from === "client" && e.message._tag === "Text" ? [[e.connection, e.message.text]] : []))
        expect(texts).toEqual([[1, "one"], [2, "two"]])
        expect((yield* server.setups).map(names)).toEqual([["first"], ["first", "third"]])
        expect((yield* events).flatMap(([, event]) => (event._tag === "ToolsChanged" ? [event] : []))).toEqual([
          { _tag: "ToolsChanged", added: ["third"], removed: [], changed: ["first"], connection: 2 }
        ])
        yield* fake.set(echo("third"))
        yield* session.send("three")
        expect((yield* server.setups).map((setup) => [names(setup), setup.resumptionHandle])).toEqual([
          [["first"], undefined],
          [["first", "third"], "h0"],
          [["third"], "h1"]
        ])
      }))
  })

  it.scoped("a new version with the same declarations keeps the connection; its calls run with the tools as listed now", () => {
    const fake = fakeSource()
    const renewed = Tool.make("first", {
      description: "echoes as first",
      parameters: Schema.Struct({ a: Schema.Number }),
      handler: ({ a }) => Effect.succeed({ from: "the new listing", a })
    })
    return live(answering((message) => (message === 1 ? [{ name: "first", args: { a: 3 } }] : [])), (server) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: fake.registry })
        yield* session.send("one")
        yield* fake.set(renewed)
        const turn = yield* session.send("two")
        expect(turn.calls.map((call) => call.outcome._tag === "Answered" && call.outcome.response.response)).toEqual([{ from: "the new listing", a: 3 }])
        expect((yield* server.setups).length).toBe(1)
        expect(fake.state.listed).toBe(1)
        yield* session.send("three")
        // The version it listed is the one it has: not listed again.
        expect(fake.state.listed).toBe(1)
      }))
  })

  it.scoped("without a resumption handle the session keeps its tools and warns once, naming why; the first handle lets it declare them", () => {
    const fake = fakeSource()
    return live(answering(() => [], false), (server, logs) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: fake.registry })
        yield* fake.set(echo("first"), echo("second"))
        yield* session.send("one")
        yield* session.send("two")
        expect((yield* server.setups).map(names)).toEqual([["first"]])
        expect(warnings(logs)).toEqual([expect.stringContaining("added second), but the server has not given a resumption handle yet: the live session keeps its tools")])
        expect(fake.state.listed).toBe(1)
        yield* server.perform([{ resumption: "late" }])
        const setups = yield* eventually(server.setups, (setups) => setups.length === 2)
        expect([names(setups[1]!), setups[1]!.resumptionHandle]).toEqual([["first", "second"], "late"])
        expect(yield* session.resumptionHandle).toEqual(Option.some("late"))
        expect(warnings(logs)).toHaveLength(1)
      }))
  })

  for (const outcome of ["fails", "dies"] as const) it.scoped(`a listing that ${outcome} is logged, the tools are kept, and it is tried again after the next turn`, () => {
    const fake = fakeSource()
    const registry = changingOnCall(fake, echo("first"), echo("second"))
    // How many listings had run when the server heard each message.
    const listedAt: Array<number> = []
    const calls = (message: number): ReadonlyArray<ScriptedLive.ScriptCall> => {
      listedAt.push(fake.state.listed)
      return message === 0 ? [{ name: "first", args: { a: 1 } }] : []
    }
    return live(answering(calls), (server, logs) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry })
        // The listing after turn 1 fails (or dies: a bug of the source must not end the following of the tools).
        if (outcome === "fails") fake.state.failing = 1
        else fake.state.dying = 1
        yield* session.send("one")
        yield* eventually(session.resumptionHandle, Option.isSome)
        // Failed at the end of turn 1; neither the handle after it nor the next message is a reason to list again.
        yield* session.send("two")
        expect(listedAt).toEqual([0, 1])
        expect(warnings(logs)).toEqual([expect.stringContaining("could not be refreshed; the live session keeps its tools and tries again after the next turn")])
        yield* session.send("three")
        expect(fake.state.listed).toBe(2)
        const texts = (yield* server.log).flatMap((e) => (e.from === "client" && e.message._tag === "Text" ? [[e.connection, e.message.text]] : []))
        expect(texts).toEqual([[1, "one"], [1, "two"], [2, "three"]])
        expect((yield* server.setups).map((setup) => [names(setup), setup.resumptionHandle])).toEqual([
          [["first"], undefined],
          [["first", "second"], "h1"]
        ])
        expect(warnings(logs)).toHaveLength(1)
      }))
  })

  it.scoped("a stale handle is not resumed from: the change waits for the handle that covers the last answers", () => {
    const fake = fakeSource()
    const registry = changingOnCall(fake, echo("first"), echo("second"))
    return live(
      {
        onSetup: [{ resumption: "h0" }],
        onText: () => [{ calls: [{ name: "first", args: { a: 1 }, id: "a" }] }],
        onIdle: () => [{ text: "done" }, { turnComplete: true }, { wait: "1 second" }, { resumption: "h1" }]
      },
      (server, logs) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry })
          yield* eventually(session.resumptionHandle, Option.isSome)
          expect((yield* session.send("one")).text).toBe("done")
          yield* eventually(Effect.sync(() => fake.state.listed), (listed) => listed === 1)
          // The turn is over and the tools are listed, but h0 does not hold the answer to "a": wait for h1.
          expect((yield* server.setups).length).toBe(1)
          yield* TestClock.adjust("1 second")
          const setups = yield* eventually(server.setups, (setups) => setups.length === 2)
          expect(setups.map((setup) => [names(setup), setup.resumptionHandle])).toEqual([
            [["first"], undefined],
            [["first", "second"], "h1"]
          ])
          // Waiting for a handle is the plan, not a problem: nothing is logged.
          expect(warnings(logs)).toEqual([])
        })
    )
  })

  it.scoped("a setup the server refuses for the new tools leaves the session on its earlier tools, resumed, with a warning", () => {
    const fake = fakeSource()
    const answer = answering(() => [])
    return live(
      (connection, setup) =>
        connection === 2 ? { refuse: new ModelError.InvalidRequest({ message: "Invalid JSON payload received. Unknown name \"oneOf\"" }) } : answer(connection, setup),
      (server, logs) =>
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: fake.registry })
          const events = yield* record(session)
          yield* session.send("one")
          yield* fake.set(echo("first"), echo("bad"))
          expect((yield* session.send("two")).text).toBe("done 1")
          expect((yield* server.setups).map((setup) => [names(setup), setup.resumptionHandle])).toEqual([
            [["first"], undefined],
            [["first", "bad"], "h0"],
            [["first"], "h0"]
          ])
          expect((yield* events).flatMap(([, event]) => (event._tag === "ToolsChanged" || event._tag === "Connected" ? [event] : []))).toEqual([
            { _tag: "ToolsChanged", added: ["bad"], removed: [], changed: [], connection: 2 },
            { _tag: "ToolsChanged", added: [], removed: ["bad"], changed: [], connection: 2 },
            { _tag: "Connected", connection: 2, resumed: true }
          ])
          expect(warnings(logs)).toEqual([expect.stringContaining("the server refused the setup that declared the changed tools")])
          yield* session.send("three")
          // The refused version is not declared again; a later change is.
          expect((yield* server.setups).length).toBe(3)
          yield* fake.set(echo("first"), echo("good"))
          yield* session.send("four")
          expect((yield* server.setups).map(names).at(-1)).toEqual(["first", "good"])
        })
    )
  })

  it.live("the session's span shows each change of the tools as an event naming them", () => {
    const fake = fakeSource()
    const exporter = new InMemorySpanExporter()
    const tracing = NodeSdk.layer(() => ({ resource: { serviceName: "agentfx-test" }, spanProcessor: new SimpleSpanProcessor(exporter) }))
    return Effect.gen(function* () {
      yield* Effect.scoped(
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: fake.registry })
          yield* session.send("one")
          yield* fake.set(echo("first", "echoes, differently"), echo("second"))
          yield* session.send("two")
        })
      )
      // Read before the SDK shuts down with the layer: shutting down empties the in-memory exporter.
      const [span] = exporter.getFinishedSpans().filter((span) => span.name === "live_session agentfx")
      expect(span!.attributes).toMatchObject({
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "agentfx",
        "gen_ai.provider.name": "scripted-live",
        "gen_ai.request.model": "scripted-live"
      })
      expect(span!.events.map((event) => [event.name, event.attributes])).toEqual([
        ["agentfx.live.tools_changed", { "agentfx.tools.added": "second", "agentfx.tools.changed": "first" }]
      ])
    }).pipe(Effect.provide(Layer.merge(ScriptedLive.layer(answering(() => [])), tracing)))
  })

  it.scoped("a listing a send starts where interruption is off is stopped when the session's scope ends, and the send ends", () => {
    const { state, registry } = neverListed()
    return live(ScriptedLive.conversation([{ text: "ok" }]), () =>
      Effect.gen(function* () {
        const scope = yield* Scope.make()
        const session = yield* Scope.extend(LiveAgent.session({ registry }), scope)
        state.version = 1
        const user = yield* Effect.fork(Effect.uninterruptible(session.send("hi")))
        yield* Effect.repeatN(Effect.yieldNow(), 20)
        expect(user.unsafePoll()).toBeNull()
        yield* Scope.close(scope, Exit.void)
        expect(state.interrupted).toBe(true)
        expect(Exit.isFailure(yield* Fiber.await(user))).toBe(true)
      }))
  })

  it.scoped("closing the session stops a listing in flight at once, though the scope it was opened in stays open", () => {
    const { state, registry } = neverListed()
    return live(ScriptedLive.conversation([{ text: "ok" }]), () =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry })
        state.version = 1
        const user = yield* Effect.fork(session.send("hi"))
        yield* Effect.repeatN(Effect.yieldNow(), 20)
        expect(user.unsafePoll()).toBeNull()
        yield* session.close
        expect(state.interrupted).toBe(true)
        expect(yield* Fiber.await(user)).toMatchObject({ _tag: "Failure" })
        // A send after the end, with the source moved again, fails at once instead of waiting for a listing.
        state.version = 2
        expect(yield* Effect.flip(session.send("again"))).toMatchObject({ _tag: "SessionEnded" })
      }))
  })

  it.scoped("a static registry is never asked anything and never reconnects", () =>
    live(answering(() => []), (server) =>
      Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: Registry.unsafeMake(echo("first")) })
        yield* session.send("one")
        yield* session.send("two")
        expect((yield* server.setups).length).toBe(1)
      })))
})
