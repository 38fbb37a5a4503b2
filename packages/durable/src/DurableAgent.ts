/**
 * Durable runs: the same agent loop, run as a workflow keyed by a run id the caller chooses. Every model attempt
 * and every tool call is a recorded step, so a run resumed after a crash (a kill -9, a deploy) re-executes nothing
 * that finished; a call that needs approval parks the run until any process decides; retry waits sleep on the
 * durable clock. Built on @effect/workflow and @effect/cluster: SQLite for one process (`layerSqlite`), PostgreSQL
 * for several runner processes that share the runs and take over a dead one's (`layerPg`).
 *
 * The example parks a run on a call that needs approval, decides the call, and waits for the run's answer.
 *
 * @example
 * ```ts
 * import { Approval, Registry, Tool } from "@agentfx/core"
 * import { Scripted } from "@agentfx/core/testing"
 * import { DurableAgent } from "@agentfx/durable"
 * import { Effect, Layer, Schema } from "effect"
 * import * as fs from "node:fs"
 * import * as os from "node:os"
 * import * as path from "node:path"
 *
 * const createTicket = Tool.make("create_ticket", {
 *   description: "Opens a support ticket",
 *   parameters: Schema.Struct({ subject: Schema.String }),
 *   needsApproval: true,
 *   handler: ({ subject }) => Effect.succeed({ ticket: `T-${subject}` })
 * })
 * const agent = DurableAgent.make("support", { registry: Registry.unsafeMake(createTicket) })
 *
 * const program = Effect.gen(function* () {
 *   yield* agent.start({ runId: "mail-42", prompt: "My kettle broke after three years." })
 *   // The run parks on the call; any process on the store sees it waiting, and decides.
 *   let status = yield* DurableAgent.status("mail-42")
 *   while (status._tag !== "Waiting") status = yield* Effect.zipRight(Effect.sleep("50 millis"), DurableAgent.status("mail-42"))
 *   yield* DurableAgent.approve("mail-42", status.pending[0]!.callId, Approval.denied("not under warranty"))
 *   return (yield* DurableAgent.attach("mail-42")).text
 * })
 *
 * const model = Scripted.layer([{ calls: [{ name: "create_ticket", args: { subject: "kettle" } }] }, { text: "No ticket: the warranty is over." }])
 * const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agentfx-runs-"))
 * const store = DurableAgent.layerSqlite({ filename: path.join(dir, "runs.db") })
 * Effect.runPromise(program.pipe(Effect.provide(agent.layer.pipe(Layer.provideMerge(store), Layer.provide(model)))))
 *   .then(console.log) // "No ticket: the warranty is over."
 *   .finally(() => fs.rmSync(dir, { recursive: true, force: true }))
 * ```
 *
 * @since 0.3.0
 */
import type { Agent, Approval, LanguageModel, Transcript, Turn } from "@agentfx/core"
import { Telemetry } from "@agentfx/core"
import type { SqlClient } from "@effect/sql/SqlClient"
import * as DurableDeferred from "@effect/workflow/DurableDeferred"
import type { WorkflowEngine } from "@effect/workflow/WorkflowEngine"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as Duration from "effect/Duration"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"
import type { StoreBusy, StoreUnavailable } from "./DurableError.js"
import { NoPendingApproval, RunCancelled, type RunConflict, UnknownRun } from "./DurableError.js"
import * as Delivery from "./internal/delivery.js"
import * as Layers from "./internal/layers.js"
import * as Schemas from "./internal/schemas.js"
import { approvalOf, body, workflowOf } from "./internal/workflow.js"
import type * as RunEvent from "./RunEvent.js"
import type { Listed, RunStatus } from "./RunStatus.js"
import type { Row } from "./RunStore.js"
import { RunStore } from "./RunStore.js"

/**
 * What a durable agent is defined with: `Agent.Options` less the prompt and history (each run brings its own) and
 * `output` (a durable run's result is stored and read back as text, calls and usage: a decoded answer would be lost
 * on the way), plus `nonIdempotent` (tools never run twice) and `approvalTimeout`.
 *
 * @since 0.3.0
 * @category models
 */
export interface Options<R> extends Omit<Agent.Options<R>, "prompt" | "history" | "output"> {
  /**
   * Tools whose calls must never run twice (a ticket opened, an e-mail sent). Such a call is marked started before
   * its handler runs; a run resumed after a crash answers a call that was started and never finished to the model
   * as an `ExecutionFailed` of type `InterruptedCall`, instead of running it again. Other tools are run again.
   */
  readonly nonIdempotent?: ReadonlyArray<string> | undefined
  /** How long a call waits for approval before it is denied as timed out; default: as long as it takes. */
  readonly approvalTimeout?: Duration.DurationInput | undefined
}

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
 * ```ts
 * import { Registry, Tool } from "@agentfx/core"
 * import { DurableAgent } from "@agentfx/durable"
 * import { Effect, Schema } from "effect"
 *
 * const createTicket = Tool.make("create_ticket", {
 *   description: "Opens a support ticket",
 *   parameters: Schema.Struct({ subject: Schema.String }),
 *   needsApproval: true,
 *   handler: ({ subject }) => Effect.succeed({ ticket: `T-${subject}` })
 * })
 *
 * const agent = DurableAgent.make("warranty", {
 *   registry: Registry.unsafeMake(createTicket),
 *   system: "Open a ticket for a product that broke under warranty.",
 *   nonIdempotent: ["create_ticket"], // never run twice, even if the process dies inside the call
 *   approvalTimeout: "2 days" // then the call is denied as timed out
 * })
 * console.log(agent.name) // "warranty"
 * ```
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = <R>(name: string, options: Options<R>): DurableAgent<R> => {
  // A configuration bug (the type has no `output`): refused at once rather than the decoded answer lost in the store.
  if ((options as Agent.Options<R>).output !== undefined) {
    throw new TypeError(`durable agent "${name}": a durable run gives a text answer, and takes no output Schema`)
  }
  const workflow = workflowOf(name)
  const payloadOf = (input: Input) => ({ runId: input.runId, prompt: input.prompt, history: input.history })
  const claim = (input: Input) =>
    Effect.flatMap(RunStore, (store) => store.claim({ runId: input.runId, agent: name, workflow: workflow.name, fingerprint: fingerprintOf(input) }))
  return {
    name,
    layer: Layer.merge(workflow.toLayer(body(options)), Delivery.running(name)) as Layer.Layer<
      never,
      never,
      WorkflowEngine | RunStore | LanguageModel.LanguageModel | Exclude<R, Approval.Approval>
    >,
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
 * The module's example denies a call from the process that runs the agent; any process on the same store can decide it,
 * on a layer with an engine (`layerSqlite`, `layerPg`, a `clientOnly` one too; the readers only read). A process that
 * does not run the agent returns once the decision is stored: a PostgreSQL runner of the agent is told at once; on
 * SQLite the run goes on when a process that runs the agent next opens the store.
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
  const exit = Exit.succeed(decision)
  yield* Delivery.deliver({
    agent: row.agent,
    workflow,
    executionId,
    deferredName: deferred.name,
    exit,
    store: store.name,
    viaEngine: DurableDeferred.done(deferred, { token: DurableDeferred.tokenFromExecutionId(deferred, { workflow, executionId }), exit })
  })
  // Decided now, not when the run resumes: its status stops showing the call as waiting at once.
  yield* store.decide(runId, callId, JSON.stringify(decision))
})

/**
 * Cancels a run: its status is `Cancelled` and its events end with `Done(cancelled)` as soon as this returns. A run
 * parked on an approval (or a long retry wait) stops where it stands; a model call, a tool call or a short retry wait
 * under way finishes in the runner, and its answer is dropped: the run records nothing after its Done and starts no
 * other step.
 * A run that already ended keeps its outcome. Like `approve`, it needs a layer with an engine, and works from a process
 * that does not run the agent.
 *
 * @since 0.3.0
 * @category running
 */
export const cancel = Effect.fn("DurableAgent.cancel")(function* (runId: string) {
  const row = yield* rowOf(runId)
  if (row.state !== "running") return
  const store = yield* RunStore
  // A run that ended meanwhile keeps its outcome (and its Done).
  if (!(yield* store.settle(runId, "cancelled", null))) return
  yield* store.append(runId, "done", { _tag: "Done", outcome: "cancelled", text: null })
  const workflow = workflowOf(row.agent)
  const executionId = yield* workflow.executionId({ runId })
  // The engine's interruption is its deferred "Workflow/InterruptSignal", completed.
  yield* Delivery.deliver({
    agent: row.agent,
    workflow,
    executionId,
    deferredName: "Workflow/InterruptSignal",
    exit: Exit.void,
    store: store.name,
    viaEngine: workflow.interrupt(executionId)
  })
})

/**
 * The options of `layerSqlite` and `layerSqliteReader`.
 *
 * @since 0.3.0
 * @category models
 */
export interface SqliteOptions {
  /** The database file; its folder is created when missing. */
  readonly filename: string
}

/**
 * The options of `layerPg` (`layerPgReader` takes the `url` alone).
 *
 * @since 0.3.0
 * @category models
 */
export interface PgOptions {
  /** `postgres://user:password@host:port/database`; messages show it without its user name and password. */
  readonly url: string
  /** Where the other runners reach this one (default `localhost:34431`); every runner needs its own. */
  readonly runner?: { readonly host: string; readonly port: number } | undefined
  /** How long a dead runner's shards stay locked before another takes them (default 35 s as @effect/cluster has it). */
  readonly shardLockExpiration?: Duration.DurationInput | undefined
  /** How often a runner renews its shard locks (default 10 s). */
  readonly shardLockRefreshInterval?: Duration.DurationInput | undefined
  /** How often a runner reads the store for messages sent by other processes (default 1 s). */
  readonly messagePollInterval?: Duration.DurationInput | undefined
  /** How often a runner checks that the others answer; one that does not loses its shards (default 1 minute). */
  readonly runnerHealthCheckInterval?: Duration.DurationInput | undefined
  /** A process that only starts, reads, decides and cancels runs, and runs none (it listens on no port). */
  readonly clientOnly?: boolean | undefined
}

/**
 * The embedded store (and its `SqlClient`): a SQLite file, run by this process alone (another live process on it
 * is `StoreBusy`; one that died is taken over at once). A path that is a directory or cannot be written is
 * `StoreUnavailable`.
 *
 * @example
 * ```ts
 * import { DurableAgent } from "@agentfx/durable"
 * import { Effect } from "effect"
 * import * as fs from "node:fs"
 * import * as os from "node:os"
 * import * as path from "node:path"
 *
 * const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agentfx-runs-"))
 * const store = DurableAgent.layerSqlite({ filename: path.join(dir, "agentfx", "runs.db") }) // the folder is made
 * Effect.runPromise(DurableAgent.list.pipe(Effect.provide(store)))
 *   .then(console.log) // [] — a new store: no runs yet
 *   .finally(() => fs.rmSync(dir, { recursive: true, force: true }))
 * ```
 *
 * @since 0.3.0
 * @category layers
 */
export const layerSqlite: (options: SqliteOptions) => Layer.Layer<WorkflowEngine | RunStore | SqlClient, StoreUnavailable | StoreBusy> =
  Layers.layerSqlite

/**
 * Several runner processes on one PostgreSQL database (its `SqlClient` comes along): each takes a share of the
 * runs' shards and listens at `runner` for the others; the shards of a runner that dies go to the others. A
 * database that does not answer is `StoreUnavailable`, naming the URL without its user name and password.
 *
 * @example
 * ```ts
 * import { Registry } from "@agentfx/core"
 * import { Scripted } from "@agentfx/core/testing"
 * import { DurableAgent } from "@agentfx/durable"
 * import { Layer } from "effect"
 *
 * const agent = DurableAgent.make("support", { registry: Registry.empty })
 * // One runner process: it runs a share of the runs, and the other runners reach it at 10.0.0.7:34431.
 * const runner = agent.layer.pipe(
 *   Layer.provideMerge(DurableAgent.layerPg({ url: "postgres://agentfx@db.internal/runs", runner: { host: "10.0.0.7", port: 34431 } })),
 *   Layer.provide(Scripted.layer([{ text: "Hello." }])) // in production a provider's layer, e.g. Gemini.layerConfig()
 * )
 * // Layer.launch(runner) serves runs until the process stops; agent.run, DurableAgent.status, … run with it provided.
 * ```
 *
 * @since 0.3.0
 * @category layers
 */
export const layerPg: (options: PgOptions) => Layer.Layer<WorkflowEngine | RunStore | SqlClient, StoreUnavailable> = Layers.layerPg

/**
 * A SQLite store to read (status, list, events) while another process may run it: no engine, no claim on the file.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerSqliteReader: (options: SqliteOptions) => Layer.Layer<RunStore | SqlClient, StoreUnavailable> = Layers.layerSqliteReader

/**
 * A PostgreSQL store to read (status, list, events): no engine, no runner.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerPgReader: (options: Pick<PgOptions, "url">) => Layer.Layer<RunStore | SqlClient, StoreUnavailable> = Layers.layerPgReader
