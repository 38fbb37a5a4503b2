/**
 * `agentfx runs … --json` and `agentfx run --durable --json`: the store's runs, one run with its events, and where a
 * run ended up once the command has run it (finished, waiting for a decision, failed, cancelled).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Count, JsonObject, StopReason, Usage } from "./shared.js"

/** Epoch milliseconds. */
const Millis = Count

const summary = { runId: Schema.String, agent: Schema.String, createdAt: Millis, updatedAt: Millis }

/**
 * A run's state.
 *
 * @since 0.1.0
 */
export const State = Schema.Literal("Running", "Waiting", "Finished", "Failed", "Cancelled")

/**
 * What `agentfx runs list --json` prints: every run of the store, oldest first.
 *
 * @since 0.1.0
 */
export const List = Schema.Array(Schema.Struct({ ...summary, state: State }).annotations({ identifier: "Listed" })).annotations({
  identifier: "RunsList",
  title: "agentfx runs list --json"
})

/**
 * A call a run waits on: approve or deny it with `agentfx runs approve RUN CALL`.
 *
 * @since 0.1.0
 */
export const Pending = Schema.Struct({
  callId: Schema.String,
  name: Schema.String,
  args: JsonObject,
  description: Schema.String,
  /** When the call is denied as timed out (epoch milliseconds); null: it waits as long as it takes. */
  deadline: Schema.NullOr(Millis)
}).annotations({ identifier: "Pending" })

/**
 * A call of a finished durable run.
 *
 * @since 0.1.0
 */
export const Call = Schema.Struct({
  id: Schema.NonEmptyString,
  name: Schema.String,
  args: JsonObject,
  turn: Schema.Int.pipe(Schema.positive()),
  isError: Schema.Boolean,
  response: JsonObject
}).annotations({ identifier: "DurableCall" })

/**
 * The run finished: its answer and calls (exit 0).
 *
 * @since 0.1.0
 */
export const Finished = Schema.Struct({
  runId: Schema.String,
  state: Schema.Literal("Finished"),
  text: Schema.String,
  turns: Count,
  stopReason: StopReason,
  usage: Usage,
  calls: Schema.Array(Call)
})

/**
 * The run waits for a decision on `pending` (exit 0: it is parked, not failed).
 *
 * @since 0.1.0
 */
export const Waiting = Schema.Struct({ state: Schema.Literal("Waiting"), ...summary, pending: Schema.Array(Pending) })

/**
 * The run is being run by another process.
 *
 * @since 0.1.0
 */
export const Running = Schema.Struct({ state: Schema.Literal("Running"), ...summary })

/**
 * The run failed (exit 1): the error's tag and message.
 *
 * @since 0.1.0
 */
export const Failed = Schema.Struct({
  runId: Schema.String,
  state: Schema.Literal("Failed"),
  error: Schema.Struct({ type: Schema.String, message: Schema.String })
})

/**
 * The run was cancelled (exit 1).
 *
 * @since 0.1.0
 */
export const Cancelled = Schema.Struct({ state: Schema.Literal("Cancelled"), ...summary })

/**
 * What `agentfx run --durable --json`, `runs resume --json` and `runs approve --json` print: where the run ended up.
 *
 * @since 0.1.0
 */
export const Outcome = Schema.Union(Finished, Waiting, Running, Failed, Cancelled).annotations({ identifier: "RunOutcome", title: "agentfx runs resume|approve --json" })

const CallSummary = Schema.Struct({ id: Schema.String, name: Schema.String, args: JsonObject })

/**
 * One event a durable run recorded, in order.
 *
 * @since 0.1.0
 */
export const Event = Schema.Union(
  Schema.TaggedStruct("TurnFinished", { turn: Count, text: Schema.String, calls: Schema.Array(CallSummary), usage: Usage }),
  Schema.TaggedStruct("CallStarted", { turn: Count, call: CallSummary }),
  Schema.TaggedStruct("CallFinished", {
    turn: Count,
    response: Schema.Struct({
      _tag: Schema.Literal("FunctionResponse"),
      id: Schema.String,
      name: Schema.String,
      response: JsonObject,
      isError: Schema.Boolean,
      metadata: Schema.optional(JsonObject)
    })
  }),
  Schema.TaggedStruct("ApprovalRequested", { call: CallSummary, description: Schema.String, deadline: Schema.NullOr(Millis) }),
  Schema.TaggedStruct("ApprovalDecided", { callId: Schema.String, approved: Schema.Boolean, reason: Schema.NullOr(Schema.String) }),
  Schema.TaggedStruct("Done", { outcome: Schema.Literal("finished", "failed", "cancelled"), text: Schema.NullOr(Schema.String) })
).annotations({ identifier: "RunEvent" })

/**
 * What `agentfx runs show ID --json` prints: the run as `Outcome` says it, and every event it recorded.
 *
 * @since 0.1.0
 */
export const Show = Schema.extend(Outcome, Schema.Struct({ events: Schema.Array(Schema.Struct({ offset: Count, event: Event })) })).annotations({
  identifier: "RunShow",
  title: "agentfx runs show --json"
})
