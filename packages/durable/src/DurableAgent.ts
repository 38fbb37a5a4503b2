/**
 * Durable runs: the same agent loop, run as a workflow keyed by a run id the caller chooses. Every model attempt
 * and every tool call is a recorded step, so a run resumed after a crash (a kill -9, a deploy) re-executes nothing
 * that finished; a call that needs approval parks the run until any process decides; retry waits sleep on the
 * durable clock. Built on @effect/workflow and @effect/cluster: SQLite for one process (`layerSqlite`), PostgreSQL
 * for several runner processes that share the runs and take over a dead one's (`layerPg`).
 *
 * @example
 * const agent = DurableAgent.make("support", { registry, system: "Help the customer.", nonIdempotent: ["create_ticket"] })
 * const result = yield* agent.run({ runId: "mail-42", prompt: "My kettle broke." })
 * // elsewhere, in another process:
 * const status = yield* DurableAgent.status("mail-42")
 * yield* DurableAgent.approve("mail-42", "call_0_0", Approval.approved)
 *
 * @since 0.3.0
 */
import type { Agent, LanguageModel, Transcript, Turn } from "@agentfx/core"
import { Telemetry } from "@agentfx/core"
import type { Approval } from "@agentfx/core"
import * as DurableDeferred from "@effect/workflow/DurableDeferred"
import type { WorkflowEngine } from "@effect/workflow/WorkflowEngine"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"
import type { StoreUnavailable } from "./DurableError.js"
import { NoPendingApproval, RunCancelled, type RunConflict, UnknownRun } from "./DurableError.js"
import * as Schemas from "./internal/schemas.js"
import type { Definition } from "./internal/workflow.js"
import { approvalOf, body, workflowOf } from "./internal/workflow.js"
import type * as RunEvent from "./RunEvent.js"
import type { Listed, RunStatus } from "./RunStatus.js"
import type { Row } from "./RunStore.js"
import { RunStore } from "./RunStore.js"

export { layerPg, layerPgReader, layerSqlite, layerSqliteReader } from "./internal/layers.js"
export type { PgOptions, SqliteOptions } from "./internal/layers.js"

/**
 * What a durable agent is defined with: `Agent.Options` less the prompt and history (each run brings its own),
 * plus `nonIdempotent` (tools never run twice) and `approvalTimeout`.
 *
 * @since 0.3.0
 * @category models
 */
export type Options<R> = Definition<R>

/**
 * What one run starts from: its id (the caller's; starting the same id again attaches to the one run), and the
 * prompt and/or history, as for `Agent.run`.
 *
 * @since 0.3.0
 * @category models
 */
export interface Input {
  readonly runId: string
  readonly prompt?: string | Turn.Turn | undefined
  readonly history?: Transcript.Transcript | undefined
}

/**
 * A durable agent: its name (shared by every process that runs it), the Layer that registers it with the engine
 * (every runner process provides it, with the model and what its tools need), and its runs.
 *
 * @since 0.3.0
 * @category models
 */
export interface DurableAgent<R> {
  readonly name: string
  /** Registers the agent's workflow: a process that provides it runs (and resumes) this agent's runs. */
  readonly layer: Layer.Layer<never, never, WorkflowEngine | RunStore | LanguageModel.LanguageModel | Exclude<R, Approval.Approval>>
  /** Starts the run (or attaches to it) and waits for its result, through approvals and restarts. */
  readonly run: (input: Input) => Effect.Effect<Agent.AgentResult, Agent.AgentError | RunConflict | RunCancelled | StoreUnavailable, WorkflowEngine | RunStore>
  /** Starts the run (or finds it) and returns its id at once. */
  readonly start: (input: Input) => Effect.Effect<string, RunConflict | StoreUnavailable, WorkflowEngine | RunStore>
}

const fingerprintOf = (input: Input): string =>
  createHash("sha256")
    .update(JSON.stringify([input.prompt ?? null, input.history ?? null]))
    .digest("hex")

/**
 * Defines a durable agent. `name` identifies it in the store: every process that runs it defines it with the same
 * name and the same tools.
 *
 * @example
 * const agent = DurableAgent.make("warranty", { registry, system, approvalTimeout: "2 days", nonIdempotent: ["create_ticket"] })
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = <R>(name: string, options: Options<R>): DurableAgent<R> => {
  const workflow = workflowOf(name)
  const payloadOf = (input: Input) => ({ runId: input.runId, prompt: input.prompt, history: input.history })
  const claim = (input: Input) =>
    Effect.flatMap(RunStore, (store) => store.claim({ runId: input.runId, agent: name, workflow: workflow.name, fingerprint: fingerprintOf(input) }))
  return {
    name,
    layer: workflow.toLayer(body(options)) as Layer.Layer<never, never, WorkflowEngine | RunStore | LanguageModel.LanguageModel | Exclude<R, Approval.Approval>>,
    run: Effect.fn("DurableAgent.run")(function* (input: Input) {
      yield* claim(input)
      const exit = yield* Effect.exit(workflow.execute(payloadOf(input)))
      if (Exit.isSuccess(exit)) return exit.value as Agent.AgentResult
      const failure = Cause.failureOption(exit.cause)
      if (Option.isSome(failure)) return yield* Effect.fail(failure.value as Agent.AgentError)
      if (Cause.isInterruptedOnly(exit.cause)) return yield* Effect.fail(new RunCancelled({ runId: input.runId }))
      return yield* Effect.failCause(exit.cause as Cause.Cause<never>)
    }),
    start: Effect.fn("DurableAgent.start")(function* (input: Input) {
      yield* claim(input)
      yield* workflow.execute(payloadOf(input), { discard: true })
      return input.runId
    })
  }
}

const decodeResult = Schema.decodeSync(Schema.parseJson(Schemas.AgentResult))
const decodeError = Schema.decodeSync(Schema.parseJson(Schemas.AgentError))

const rowOf = (runId: string) =>
  Effect.flatMap(RunStore, (store) =>
    Effect.flatMap(store.get(runId), (row) => (row === undefined ? Effect.fail(new UnknownRun({ runId })) : Effect.succeed(row)))
  )

const statusOf = (row: Row): Effect.Effect<RunStatus, StoreUnavailable, RunStore> => {
  const summary = { runId: row.runId, agent: row.agent, createdAt: row.createdAt, updatedAt: row.updatedAt }
  switch (row.state) {
    case "finished":
      return Effect.succeed({ ...summary, _tag: "Finished", result: decodeResult(row.outcome ?? "null") as Agent.AgentResult })
    case "failed":
      return Effect.succeed({ ...summary, _tag: "Failed", error: decodeError(row.outcome ?? "null") as Agent.AgentError })
    case "cancelled":
      return Effect.succeed({ ...summary, _tag: "Cancelled" })
    case "running":
      return Effect.map(
        Effect.flatMap(RunStore, (store) => store.pending(row.runId)),
        (pending): RunStatus => (pending.length === 0 ? { ...summary, _tag: "Running" } : { ...summary, _tag: "Waiting", pending })
      )
  }
}

/**
 * Where a run stands: running, waiting for approval (with the calls that wait), finished, failed or cancelled.
 *
 * @since 0.3.0
 * @category reading
 */
export const status = Effect.fn("DurableAgent.status")(function* (runId: string) {
  return yield* statusOf(yield* rowOf(runId))
})

/**
 * Every run in the store, oldest first.
 *
 * @since 0.3.0
 * @category reading
 */
export const list: Effect.Effect<ReadonlyArray<Listed>, StoreUnavailable, RunStore> = Telemetry.span("DurableAgent.list", {}, () =>
  Effect.gen(function* () {
    const rows = yield* (yield* RunStore).list
    return yield* Effect.forEach(rows, (row) => Effect.map(statusOf(row), (status) => ({ runId: row.runId, agent: row.agent, createdAt: row.createdAt, updatedAt: row.updatedAt, state: status._tag })))
  })
)

/**
 * A run's events from `offset` (default 0) on: a reader that saw events 0…n-1 asks for `n`.
 *
 * @since 0.3.0
 * @category reading
 */
export const events = Effect.fn("DurableAgent.events")(function* (runId: string, offset = 0) {
  yield* rowOf(runId)
  return (yield* (yield* RunStore).events(runId, offset)) as ReadonlyArray<RunEvent.Numbered>
})

/**
 * Waits for a run's end, from any process: its result, its error, or `RunCancelled`.
 *
 * @since 0.3.0
 * @category running
 */
export const attach = Effect.fn("DurableAgent.attach")(function* (runId: string) {
  let current = yield* status(runId)
  while (current._tag === "Running" || current._tag === "Waiting") {
    yield* Effect.sleep("100 millis")
    current = yield* status(runId)
  }
  switch (current._tag) {
    case "Finished":
      return current.result
    case "Failed":
      return yield* Effect.fail(current.error)
    default:
      return yield* Effect.fail(new RunCancelled({ runId }))
  }
})

/**
 * Decides a call that waits for approval; the run resumes in whichever process runs it (this one, if it runs the
 * agent). A call that does not wait is `NoPendingApproval`.
 *
 * @example
 * yield* DurableAgent.approve("mail-42", "call_0_0", Approval.denied("not under warranty"))
 *
 * @since 0.3.0
 * @category approvals
 */
export const approve = Effect.fn("DurableAgent.approve")(function* (runId: string, callId: string, decision: Approval.Decision) {
  const row = yield* rowOf(runId)
  const store = yield* RunStore
  const pending = yield* store.pending(runId)
  if (row.state !== "running" || !pending.some((approval) => approval.callId === callId)) return yield* Effect.fail(new NoPendingApproval({ runId, callId }))
  const workflow = workflowOf(row.agent)
  const executionId = yield* workflow.executionId({ runId })
  const deferred = approvalOf(callId)
  yield* DurableDeferred.done(deferred, { token: DurableDeferred.tokenFromExecutionId(deferred, { workflow, executionId }), exit: Exit.succeed(decision) })
  // Decided now, not when the run resumes: its status stops showing the call as waiting at once.
  yield* store.decide(runId, callId, JSON.stringify(decision))
})

/**
 * Cancels a run: it is interrupted where it stands (a running tool with it) and its status is `Cancelled`. A run
 * that already ended keeps its outcome.
 *
 * @since 0.3.0
 * @category running
 */
export const cancel = Effect.fn("DurableAgent.cancel")(function* (runId: string) {
  const row = yield* rowOf(runId)
  if (row.state !== "running") return
  const store = yield* RunStore
  yield* store.settle(runId, "cancelled", null)
  yield* store.append(runId, "done", { _tag: "Done", outcome: "cancelled", text: null })
  const workflow = workflowOf(row.agent)
  yield* workflow.interrupt(yield* workflow.executionId({ runId }))
})

