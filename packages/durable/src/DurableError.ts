/**
 * The errors of durable runs: a run id the store does not know, a run id reused for another run, a store that
 * cannot be opened or reached, a store another process holds, an approval nobody waits for, a cancelled run.
 * Each says in one line what happened and, where there is one, what to do.
 *
 * @since 0.3.0
 */
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * A TypeId shared by the errors of this module.
 *
 * @since 0.3.0
 * @category type ids
 */
export const TypeId: unique symbol = Symbol.for("@agentfx/durable/DurableError")

/**
 * @since 0.3.0
 * @category type ids
 */
export type TypeId = typeof TypeId

/**
 * No run has this id in the store.
 *
 * @since 0.3.0
 * @category errors
 */
export class UnknownRun extends Schema.TaggedError<UnknownRun>()("UnknownRun", { runId: Schema.String }) {
  /**
   * Marks the errors of this module (`isDurableError`).
   *
   * @since 0.3.0
   */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `no run "${this.runId}" in the store`
  }
}

/**
 * A run with this id exists and was started with something else (another agent, prompt or history): the id
 * names one run, so the second start is refused rather than attached to the wrong run.
 *
 * @since 0.3.0
 * @category errors
 */
export class RunConflict extends Schema.TaggedError<RunConflict>()("RunConflict", {
  runId: Schema.String,
  agent: Schema.String,
  existingAgent: Schema.String
}) {
  /**
   * Marks the errors of this module (`isDurableError`).
   *
   * @since 0.3.0
   */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return this.agent === this.existingAgent
      ? `run "${this.runId}" already exists with another prompt or history: choose another run id, or attach to it`
      : `run "${this.runId}" already exists for agent "${this.existingAgent}", not "${this.agent}": choose another run id`
  }
}

/**
 * The store cannot be used: a file path that is a directory or cannot be written, a database that does not answer.
 * `store` names it without any password.
 *
 * @since 0.3.0
 * @category errors
 */
export class StoreUnavailable extends Schema.TaggedError<StoreUnavailable>()("StoreUnavailable", {
  store: Schema.String,
  reason: Schema.String
}) {
  /**
   * Marks the errors of this module (`isDurableError`).
   *
   * @since 0.3.0
   */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `the run store ${this.store} cannot be used: ${this.reason}`
  }
}

/**
 * A SQLite store is run by one process at a time, and another live process runs this one.
 *
 * @since 0.3.0
 * @category errors
 */
export class StoreBusy extends Schema.TaggedError<StoreBusy>()("StoreBusy", {
  store: Schema.String,
  pid: Schema.Number,
  host: Schema.String
}) {
  /**
   * Marks the errors of this module (`isDurableError`).
   *
   * @since 0.3.0
   */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `the run store ${this.store} is run by process ${this.pid} on ${this.host}; a SQLite store serves one process at a time (PostgreSQL serves several)`
  }
}

/**
 * `approve` named a call that waits for no decision: never asked, already decided, or timed out.
 *
 * @since 0.3.0
 * @category errors
 */
export class NoPendingApproval extends Schema.TaggedError<NoPendingApproval>()("NoPendingApproval", {
  runId: Schema.String,
  callId: Schema.String
}) {
  /**
   * Marks the errors of this module (`isDurableError`).
   *
   * @since 0.3.0
   */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `run "${this.runId}" has no call "${this.callId}" waiting for approval`
  }
}

/**
 * The run was cancelled before it finished.
 *
 * @since 0.3.0
 * @category errors
 */
export class RunCancelled extends Schema.TaggedError<RunCancelled>()("RunCancelled", { runId: Schema.String }) {
  /**
   * Marks the errors of this module (`isDurableError`).
   *
   * @since 0.3.0
   */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `run "${this.runId}" was cancelled`
  }
}

/**
 * Any error of this module.
 *
 * @since 0.3.0
 * @category errors
 */
export type DurableError = UnknownRun | RunConflict | StoreUnavailable | StoreBusy | NoPendingApproval | RunCancelled

/**
 * Whether a value is one of this module's errors.
 *
 * @since 0.3.0
 * @category guards
 */
export const isDurableError = (u: unknown): u is DurableError => Predicate.hasProperty(u, TypeId)
