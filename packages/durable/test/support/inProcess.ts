/** A durable agent in this process on a fresh SQLite store, with a scripted model: the in-process tests' setup. */
import type { LanguageModel } from "@agentfx/core"
import { Registry, Tool } from "@agentfx/core"
import { Scripted } from "@agentfx/core/testing"
import { Effect, Layer, Logger, LogLevel, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { SqlClient } from "@effect/sql/SqlClient"
import type { WorkflowEngine } from "@effect/workflow/WorkflowEngine"
import { DurableAgent, type DurableError, type RunStore } from "../../src/index.js"

export const add = Tool.make("add", {
  description: "Adds two numbers",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Number,
  handler: ({ a, b }) => Effect.succeed(a + b)
})

/** Opens a ticket; needs approval. */
export const ticket = Tool.make("create_ticket", {
  description: "Opens a support ticket",
  parameters: Schema.Struct({ subject: Schema.String }),
  needsApproval: true,
  handler: ({ subject }) => Effect.succeed({ ticket: `T-${subject}` })
})

export const registry = Registry.unsafeMake(add, ticket)

/** A fresh store file in its own folder. */
export const freshStore = (): string => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "durable-")), "runs.db")

/** The agent's runtime: its workflow registered on a SQLite store at `filename`, played by `script`. */
export const runtime = (
  agent: DurableAgent.DurableAgent<never>,
  filename: string,
  script: Parameters<typeof Scripted.layer>[0]
): Layer.Layer<WorkflowEngine | RunStore.RunStore | SqlClient | LanguageModel.LanguageModel | Scripted.ScriptedModel, DurableError.StoreUnavailable | DurableError.StoreBusy> =>
  agent.layer.pipe(
    Layer.provideMerge(DurableAgent.layerSqlite({ filename })),
    Layer.provideMerge(Scripted.layer(script)),
    // @effect/cluster warns of "no healthy runners" when a runner closes at once; tests print nothing.
    Layer.provide(Logger.minimumLogLevel(LogLevel.Error))
  )
