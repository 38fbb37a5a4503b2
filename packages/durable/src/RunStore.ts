/**
 * The runs' own records beside the workflow engine's: each run (its agent, what it started from, its outcome),
 * its numbered events, its approvals, and which calls of tools that are not idempotent have started. Status,
 * list and events read only these, so any process can answer them without running anything.
 *
 * @since 0.3.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { StoreUnavailable } from "./DurableError.js"
import type { RunConflict } from "./DurableError.js"
import type * as RunEvent from "./RunEvent.js"
import type { PendingApproval } from "./RunStatus.js"

/**
 * A run's row.
 *
 * @since 0.3.0
 * @category models
 */
export interface Row {
  readonly runId: string
  readonly agent: string
  readonly workflow: string
  readonly state: "running" | "finished" | "failed" | "cancelled"
  /** The encoded result (finished) or error (failed), as JSON text. */
  readonly outcome: string | null
  readonly createdAt: number
  readonly updatedAt: number
}

/**
 * The store's operations. Every write is idempotent by key, so a step replayed after a crash writes nothing twice.
 *
 * @since 0.3.0
 * @category models
 */
export interface Service {
  /** What the store is, for messages: a file path, or a database URL without its user name and password. */
  readonly name: string
  /** Records a new run, or finds the one with this id: a different agent or fingerprint is `RunConflict`. */
  readonly claim: (run: {
    readonly runId: string
    readonly agent: string
    readonly workflow: string
    readonly fingerprint: string
  }) => Effect.Effect<"new" | "existing", RunConflict | StoreUnavailable>
  readonly get: (runId: string) => Effect.Effect<Row | undefined, StoreUnavailable>
  readonly list: Effect.Effect<ReadonlyArray<Row>, StoreUnavailable>
  /**
   * Gives a running run its outcome; true when the run has it now (set now, or already), false when it had ended
   * otherwise (a run cancelled meanwhile stays cancelled; one that finished is not cancelled).
   */
  readonly settle: (runId: string, state: "finished" | "failed" | "cancelled", outcome: string | null) => Effect.Effect<boolean, StoreUnavailable>
  /**
   * Appends an event under `key`; an event already appended under that key is not appended again. Nothing is
   * appended after a run's `Done` (key `done`), whoever appends: false then, true otherwise.
   */
  readonly append: (runId: string, key: string, event: RunEvent.RunEvent) => Effect.Effect<boolean, StoreUnavailable>
  /** The events from `offset` on. */
  readonly events: (runId: string, offset: number) => Effect.Effect<ReadonlyArray<RunEvent.Numbered>, StoreUnavailable>
  /** Records that a call waits for a decision (once). */
  readonly request: (runId: string, approval: PendingApproval) => Effect.Effect<void, StoreUnavailable>
  /** Records a decision; false when the call was not waiting (never asked, or decided already). */
  readonly decide: (runId: string, callId: string, decision: string) => Effect.Effect<boolean, StoreUnavailable>
  readonly pending: (runId: string) => Effect.Effect<ReadonlyArray<PendingApproval>, StoreUnavailable>
  /** Marks a call started; false when it was marked before (its handler may have run already). */
  readonly start: (runId: string, callId: string) => Effect.Effect<boolean, StoreUnavailable>
}

/**
 * The store of runs.
 *
 * @since 0.3.0
 * @category tags
 */
export class RunStore extends Context.Tag("@agentfx/durable/RunStore")<RunStore, Service>() {}
