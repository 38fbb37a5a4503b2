/**
 * A runner and a client only on one PostgreSQL database, in this test process: two processes' layers, as a machine
 * that runs the agent and one that only starts, decides and cancels runs would build them.
 */
import type { LanguageModel } from "@agentfx/core"
import { Scripted } from "@agentfx/core/testing"
import type { SqlClient } from "@effect/sql/SqlClient"
import type { WorkflowEngine } from "@effect/workflow/WorkflowEngine"
import type { Context, Scope } from "effect"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { createServer } from "node:net"
import { DurableAgent, type DurableError, type RunStore } from "../../src/index.js"
import { freshDatabase } from "./postgres.js"

/** A port no one listens on, on loopback: where a runner of the test listens. */
export const freePort: Effect.Effect<number> = Effect.async<number>((resume) => {
  const server = createServer()
  server.on("error", (error) => resume(Effect.die(error)))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    server.close(() => resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0)))
  })
})

/** Short cluster intervals: the runner reads the messages a client stored within a tenth of a second. */
const intervals = { messagePollInterval: "100 millis", shardLockRefreshInterval: "1 second", runnerHealthCheckInterval: "1 second" } as const

/**
 * A runner of `agent`, answered by `script`, and a client only, on a fresh database dropped with the test's scope:
 * their contexts, built for that scope (the runner's holds the scripted model, to read what it was asked).
 */
export const runnerAndClient = (
  agent: DurableAgent.DurableAgent<never>,
  script: Parameters<typeof Scripted.layer>[0]
): Effect.Effect<
  {
    readonly runner: Context.Context<WorkflowEngine | RunStore.RunStore | SqlClient | LanguageModel.LanguageModel | Scripted.ScriptedModel>
    readonly client: Context.Context<WorkflowEngine | RunStore.RunStore | SqlClient>
  },
  DurableError.StoreUnavailable,
  Scope.Scope
> =>
  Effect.gen(function* () {
    const { url } = yield* Effect.acquireRelease(Effect.promise(freshDatabase), (db) => Effect.promise(db.drop))
    const port = yield* freePort
    const runner = yield* Layer.build(
      agent.layer.pipe(
        Layer.provideMerge(DurableAgent.layerPg({ url, runner: { host: "127.0.0.1", port }, ...intervals })),
        Layer.provideMerge(Scripted.layer(script))
      )
    )
    const client = yield* Layer.build(DurableAgent.layerPg({ url, clientOnly: true, ...intervals }))
    return { runner, client }
  }).pipe(Logger.withMinimumLogLevel(LogLevel.Error))
