/**
 * `approve` and `cancel` from a process that does not run the run's agent: on SQLite, a store's engine layer without
 * the agent's layer (what `agentfx runs cancel` opens), and on PostgreSQL a client only beside a runner of the same
 * database, both in this test process. Each returns once the decision or the cancellation is stored, and the process
 * that runs the agent acts on it: at once on PostgreSQL, when it next opens the store on SQLite.
 */
import { Approval } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { DurableAgent } from "../src/index.js"
import * as cluster from "./support/cluster.js"
import { freshStore, registry, runtime } from "./support/inProcess.js"
import { statusUntil } from "./support/poll.js"

const script = [{ calls: [{ id: "t1", name: "create_ticket", args: { subject: "kettle" } }] }, { text: "Done." }]

/** A runner of the support agent, and a client only, on one fresh database. */
const runnerAndClient = Effect.gen(function* () {
  const agent = DurableAgent.make("support", { registry })
  return { agent, ...(yield* cluster.runnerAndClient(agent, script)) }
})

/** A run of `agent` parked on its approval by a process that then closed the store. */
const parked = (agent: DurableAgent.DurableAgent<never>, filename: string) =>
  Effect.scoped(
    Effect.gen(function* () {
      yield* agent.start({ runId: "mail-1", prompt: "My kettle broke." })
      yield* statusUntil("mail-1", (status) => status._tag === "Waiting")
    }).pipe(Effect.provide(runtime(agent, filename, script)))
  )

/** The store's engine, no agent registered: a process that reads, decides and cancels, and runs nothing. */
const bare = (filename: string) => DurableAgent.layerSqlite({ filename }).pipe(Layer.provide(Logger.minimumLogLevel(LogLevel.Error)))

describe("a SQLite process that does not run the agent", () => {
  it.live("approves a parked call: approve returns, and the run finishes when the agent's process opens the store", () =>
    Effect.gen(function* () {
      const filename = freshStore()
      const agent = DurableAgent.make("support", { registry })
      yield* parked(agent, filename)
      const status = yield* Effect.zipRight(DurableAgent.approve("mail-1", "t1", Approval.approved), DurableAgent.status("mail-1")).pipe(Effect.provide(bare(filename)))
      expect(status._tag).toBe("Running")
      const result = yield* DurableAgent.attach("mail-1").pipe(Effect.provide(runtime(agent, filename, script)))
      expect(result.text).toBe("Done.")
    }), 30_000)

  it.live("cancels a parked run: cancel returns, the run is Cancelled, and the agent's process never resumes it", () =>
    Effect.gen(function* () {
      const filename = freshStore()
      const agent = DurableAgent.make("support", { registry })
      yield* parked(agent, filename)
      const stored = yield* Effect.zipRight(
        DurableAgent.cancel("mail-1"),
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT COUNT(*) AS n FROM cluster_messages WHERE tag = 'deferred' AND payload LIKE '%Workflow/InterruptSignal%'`)
      ).pipe(Effect.provide(bare(filename)))
      // The engine's interruption is stored for the run, as the engine stores it.
      expect(Number(stored[0]!.n)).toBe(1)
      const { events, ran } = yield* Effect.gen(function* () {
        const ran = yield* Effect.flip(agent.run({ runId: "mail-1", prompt: "My kettle broke." }))
        return { events: yield* DurableAgent.events("mail-1"), ran }
      }).pipe(Effect.provide(runtime(agent, filename, script)))
      expect(ran._tag).toBe("RunCancelled")
      expect(events.map(({ event }) => event._tag)).toEqual(["TurnFinished", "ApprovalRequested", "Done"])
    }), 30_000)
})

describe("a client-only process on PostgreSQL", () => {
  it.scopedLive("approves a call a runner's run waits on: approve returns, and the runner finishes the run", () =>
    Effect.gen(function* () {
      const { agent, client, runner } = yield* runnerAndClient
      yield* agent.start({ runId: "mail-1", prompt: "My kettle broke." }).pipe(Effect.provide(runner))
      yield* statusUntil("mail-1", (status) => status._tag === "Waiting").pipe(Effect.provide(client))
      yield* DurableAgent.approve("mail-1", "t1", Approval.approved).pipe(Effect.provide(client))
      const result = yield* DurableAgent.attach("mail-1").pipe(Effect.provide(client))
      expect(result.text).toBe("Done.")
    }), 60_000)

  it.scopedLive("cancels a runner's run that waits: cancel returns, and the run is Cancelled", () =>
    Effect.gen(function* () {
      const { agent, client, runner } = yield* runnerAndClient
      yield* agent.start({ runId: "mail-1", prompt: "My kettle broke." }).pipe(Effect.provide(runner))
      yield* statusUntil("mail-1", (status) => status._tag === "Waiting").pipe(Effect.provide(client))
      yield* DurableAgent.cancel("mail-1").pipe(Effect.provide(client))
      const attached = yield* Effect.flip(DurableAgent.attach("mail-1")).pipe(Effect.provide(client))
      expect(attached.message).toBe('run "mail-1" was cancelled')
      const events = yield* DurableAgent.events("mail-1").pipe(Effect.provide(client))
      expect(events.at(-1)!.event).toEqual({ _tag: "Done", outcome: "cancelled", text: null })
    }), 60_000)
})
