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
import { Deferred, Effect, Fiber, Schema } from "effect"
import { DurableAgent } from "../src/index.js"
import { runnerAndClient } from "./support/cluster.js"
import { add, freshStore, runtime } from "./support/inProcess.js"

const addSteps: ReadonlyArray<Scripted.Step> = [{ calls: [{ id: "a1", name: "add", args: { a: 1, b: 2 } }] }, { text: "3." }]

/** The adder's model: its first request says it arrived (`asked`) and waits for `release`; a later one is answered at once. */
const heldModel =
  (asked: Deferred.Deferred<void>, release: Deferred.Deferred<void>): Scripted.Responder =>
  (_, index) =>
    index === 0 ? Effect.as(Effect.zipRight(Deferred.succeed(asked, undefined), Deferred.await(release)), addSteps[0]!) : Effect.succeed(addSteps[index] ?? { text: "more" })

/**
 * Runs `agent` on a fresh SQLite store answered by `model`, cancels the run once `underWay` says its step is in
 * flight, then lets the step finish (`release`): how the run ended, what it recorded, and what the model was asked.
 */
const cancelledInFlight = (
  agent: DurableAgent.DurableAgent<never>,
  model: Parameters<typeof Scripted.layer>[0],
  underWay: Deferred.Deferred<void>,
  release: Deferred.Deferred<void>
) =>
  Effect.gen(function* () {
    const run = yield* Effect.fork(agent.run({ runId: "r", prompt: "go" }))
    yield* Deferred.await(underWay)
    yield* DurableAgent.cancel("r")
    yield* Deferred.succeed(release, undefined)
    const exit = yield* Fiber.await(run)
    const requests = yield* (yield* Scripted.ScriptedModel).requests
    return { events: yield* DurableAgent.events("r"), exit, requests, status: yield* DurableAgent.status("r") }
  }).pipe(Effect.provide(runtime(agent, freshStore(), model)))

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
      const agent = DurableAgent.make("adder", { registry: Registry.unsafeMake(add) })
      const { events, exit, requests, status } = yield* cancelledInFlight(agent, heldModel(asked, release), asked, release)
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
      const { events, exit, requests, status } = yield* cancelledInFlight(agent, script, began, release)
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
      const agent = DurableAgent.make("adder", { registry: Registry.unsafeMake(add) })
      const { client, runner } = yield* runnerAndClient(agent, heldModel(asked, release))
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
