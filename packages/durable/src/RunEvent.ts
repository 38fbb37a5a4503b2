/**
 * What a durable run's events say, in the order it happened: each model turn, each call started and finished,
 * each approval asked and decided, and the end. They are stored with the run, numbered from 0, so a reader that
 * reconnects asks for what follows the last one it saw — from any process.
 *
 * @since 0.3.0
 */
import { LanguageModel } from "@agentfx/core"
import * as Schema from "effect/Schema"
import { CallSummary, FunctionResponse } from "./internal/schemas.js"

/**
 * An event of a run.
 *
 * @since 0.3.0
 * @category schemas
 */
export const RunEvent = Schema.Union(
  /** The model answered turn `turn` (1-based within the run), with `calls` to make or its final `text`. */
  Schema.TaggedStruct("TurnFinished", { turn: Schema.Number, text: Schema.String, calls: Schema.Array(CallSummary), usage: LanguageModel.Usage }),
  /** A call's handler is about to run. */
  Schema.TaggedStruct("CallStarted", { turn: Schema.Number, call: CallSummary }),
  /** A call was answered: `response` is what the model is sent. */
  Schema.TaggedStruct("CallFinished", { turn: Schema.Number, response: FunctionResponse }),
  /** A call waits for a person's decision (`DurableAgent.approve`); `deadline` in epoch milliseconds, if any. */
  Schema.TaggedStruct("ApprovalRequested", { call: CallSummary, description: Schema.String, deadline: Schema.NullOr(Schema.Number) }),
  /** The decision on a call that waited. */
  Schema.TaggedStruct("ApprovalDecided", { callId: Schema.String, approved: Schema.Boolean, reason: Schema.NullOr(Schema.String) }),
  /** The run ended: finished (with its final text), failed (with the error's message) or cancelled. */
  Schema.TaggedStruct("Done", { outcome: Schema.Literal("finished", "failed", "cancelled"), text: Schema.NullOr(Schema.String) })
)

/**
 * @since 0.3.0
 * @category models
 */
export type RunEvent = typeof RunEvent.Type

/**
 * An event with its position in the run (0, 1, 2, …).
 *
 * @since 0.3.0
 * @category models
 */
export interface Numbered {
  readonly offset: number
  readonly event: RunEvent
}
