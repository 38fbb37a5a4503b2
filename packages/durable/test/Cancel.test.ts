/**
 * Cancelling a run while a step is under way: the model call or the tool call in flight finishes after the run was
 * cancelled, and nothing of it is recorded — the run's events end with `Done(cancelled)`, and the run asks the model
 * nothing more and starts no other call. Each step is held in flight on a Deferred (no sleeps): the test cancels,
 * releases it, and waits for the run to stop. On SQLite in one process, and on PostgreSQL cancelled from a client
 * only beside the runner (two processes' layers in this one).
 */
import { Registry, Tool } from "@agentfx/core"
import { Scripted } from "@agentfx/core/testing"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Logger, LogLevel, Schema } from "effect"
import { createServer } from "node:net"
import { DurableAgent } from "../src/index.js"
import { add, freshStore, runtime } from "./support/inProcess.js"
import { freshDatabase } from "./support/postgres.js"

const freePort = Effect.async<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    server.close(() => resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0)))
  })
})

/** A tool whose handler says it began, then waits for `release`. */
const held = (began: Deferred.Deferred<void>, release: Deferred.Deferred<void>) =>
  Tool.make("slow", {
    description: "Takes its time",
    parameters: Schema.Struct({}),
    handler: () => Effect.as(Effect.zipRight(Deferred.succeed(began, undefined), Deferred.await(release)), { done: true })
  })

describe("cancel while a step is in flight", () => {
  it.live("a model call in flight: its answer is dropped, the events end with Done(cancelled), and the model is asked nothing more", () =>
    Effect.gen(function* () {
      const asked = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const steps: ReadonlyArray<Scripted.Step> = [{ calls: [{ id: "a1", name: "add", args: { a: 1, b: 2 } }] }, { text: "3." }]
      // The first request says it arrived and waits for the test; a second one would be answered at once.
      const model: Scripted.Responder = (_, index) =>
        index === 0 ? Effect.as(Effect.zipRight(Deferred.succeed(asked, undefined), Deferred.await(release)), steps[0]!) : Effect.succeed(steps[index] ?? { text: "more" })
      const agent = DurableAgent.make("adder", { registry: Registry.unsafeMake(add) })
      const { events, exit, requests, status } = yield* Effect.gen(function* () {
        const run = yield* Effect.fork(agent.run({ runId: "r", prompt: "1+2?" }))
        yield* Deferred.await(asked)
        yield* DurableAgent.cancel("r")
        yield* Deferred.succeed(release, undefined)
        const exit = yield* Fiber.await(run)
        const requests = yield* (yield* Scripted.ScriptedModel).requests
        return { events: yield* DurableAgent.events("r"), exit, requests, status: yield* DurableAgent.status("r") }
      }).pipe(Effect.provide(runtime(agent, freshStore(), model)))
      expect(status._tag).toBe("Cancelled")
      expect(events.map(({ event }) => event)).toEqual([{ _tag: "Done", outcome: "cancelled", text: null }])
      expect(exit._tag === "Failure" && exit.cause.toString()).toContain("RunCancelled")
      expect(requests).toHaveLength(1)
    }))

  it.live("a tool call in flight: its answer is dropped, the events end with Done(cancelled), and the model is asked nothing more", () =>
    Effect.gen(function* () {
      const began = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const script: ReadonlyArray<Scripted.Step> = [{ calls: [{ id: "s1", name: "slow", args: {} }] }, { text: "Done." }]
      const agent = DurableAgent.make("worker", { registry: Registry.unsafeMake(held(began, release)) })
      const { events, exit, requests, status } = yield* Effect.gen(function* () {
        const run = yield* Effect.fork(agent.run({ runId: "r", prompt: "work" }))
        yield* Deferred.await(began)
        yield* DurableAgent.cancel("r")
        yield* Deferred.succeed(release, undefined)
        const exit = yield* Fiber.await(run)
        const requests = yield* (yield* Scripted.ScriptedModel).requests
        return { events: yield* DurableAgent.events("r"), exit, requests, status: yield* DurableAgent.status("r") }
      }).pipe(Effect.provide(runtime(agent, freshStore(), script)))
      expect(status._tag).toBe("Cancelled")
      expect(events.map(({ event }) => event._tag)).toEqual(["TurnFinished", "CallStarted", "Done"])
      expect(events.at(-1)!.event).toEqual({ _tag: "Done", outcome: "cancelled", text: null })
      expect(exit._tag === "Failure" && exit.cause.toString()).toContain("RunCancelled")
      expect(requests).toHaveLength(1)
    }))

  it.scopedLive("on PostgreSQL, cancelled from a client only while the runner's model call is in flight: nothing after Done(cancelled)", () =>
    Effect.gen(function* () {
      const asked = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const steps: ReadonlyArray<Scripted.Step> = [{ calls: [{ id: "a1", name: "add", args: { a: 1, b: 2 } }] }, { text: "3." }]
      const model: Scripted.Responder = (_, index) =>
        index === 0 ? Effect.as(Effect.zipRight(Deferred.succeed(asked, undefined), Deferred.await(release)), steps[0]!) : Effect.succeed(steps[index] ?? { text: "more" })
      const agent = DurableAgent.make("adder", { registry: Registry.unsafeMake(add) })
      const { url } = yield* Effect.acquireRelease(Effect.promise(freshDatabase), (db) => Effect.promise(db.drop))
      const intervals = { messagePollInterval: "100 millis", shardLockRefreshInterval: "1 second", runnerHealthCheckInterval: "1 second" } as const
      const { client, runner } = yield* Effect.gen(function* () {
        const port = yield* freePort
        const runner = yield* Layer.build(
          agent.layer.pipe(Layer.provideMerge(DurableAgent.layerPg({ url, runner: { host: "127.0.0.1", port }, ...intervals })), Layer.provideMerge(Scripted.layer(model)))
        )
        return { runner, client: yield* Layer.build(DurableAgent.layerPg({ url, clientOnly: true, ...intervals })) }
      }).pipe(Logger.withMinimumLogLevel(LogLevel.Error))
      const run = yield* Effect.fork(Effect.provide(agent.run({ runId: "r", prompt: "1+2?" }), runner))
      yield* Deferred.await(asked)
      yield* Effect.provide(DurableAgent.cancel("r"), client)
      yield* Deferred.succeed(release, undefined)
      const exit = yield* Fiber.await(run)
      const events = yield* Effect.provide(DurableAgent.events("r"), client)
      expect(events.map(({ event }) => event)).toEqual([{ _tag: "Done", outcome: "cancelled", text: null }])
      expect(exit._tag === "Failure" && exit.cause.toString()).toContain("RunCancelled")
      expect(yield* Effect.provide(Effect.flatMap(Scripted.ScriptedModel, (scripted) => scripted.requests), runner)).toHaveLength(1)
    }), 60_000)
})
