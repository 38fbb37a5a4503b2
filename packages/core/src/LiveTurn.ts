/**
 * What a live session records: each call the server asked for, with how it ended, and each model turn with its
 * text, its calls and its usage. `LiveAgent`'s `send` answers with a `LiveTurn`; `calls` lists every record.
 *
 * @since 0.2.0
 */
import type * as Duration from "effect/Duration"
import type { CallResult } from "./Executor.js"
import type { FunctionCall } from "./FunctionCall.js"
import type { JsonObject } from "./Json.js"
import type { Usage } from "./LanguageModel.js"
import type { ToolResponse } from "./LiveModel.js"

/**
 * How a call ended. Every outcome but `Cancelled` and `Lost` sent exactly one response for it.
 *
 * @since 0.2.0
 * @category models
 */
export type CallOutcome =
  /** It ran; `response` (its result or error, as an object) was sent. */
  | { readonly _tag: "Answered"; readonly result: CallResult; readonly response: ToolResponse }
  /** The server cancelled it: its handler was interrupted (or never started) and it was not answered. */
  | { readonly _tag: "Cancelled" }
  /**
   * The user stopped the turn (`cancelTurn`, or an interrupted `send`): its handler was interrupted and it was
   * answered with an error saying so, so the model does not wait for it.
   */
  | { readonly _tag: "Stopped"; readonly response: ToolResponse }
  /**
   * Its connection ended first: its handler was interrupted (or its answer could not be delivered), and it is
   * not answered on any later connection.
   */
  | { readonly _tag: "Lost"; readonly reason: string }
  /** Asked again on a later connection after it already ran there: not run twice, answered with an error. */
  | { readonly _tag: "Repeated"; readonly response: ToolResponse }

/**
 * One call of a live session.
 *
 * @since 0.2.0
 * @category models
 */
export interface CallRecord {
  readonly id: string
  readonly name: string
  readonly args: JsonObject
  readonly outcome: CallOutcome
  /** How long its handler ran (zero if it never started). */
  readonly duration: Duration.Duration
  /** The model turn (1-based) that asked for it. */
  readonly turn: number
  /** The connection (1-based) that asked for it, and the only one it may be answered on. */
  readonly connection: number
}

/**
 * A piece of a turn's text. The model may be interrupted mid-sentence (a non-blocking result scheduled `interrupt`,
 * the user speaking over it) and go on in the same turn: the text it said up to each interruption is a segment with
 * `interrupted` true, what it said after the last one a segment with `interrupted` false.
 *
 * @since 0.3.0
 * @category models
 */
export interface Segment {
  readonly text: string
  readonly interrupted: boolean
}

/**
 * A completed model turn.
 *
 * @since 0.2.0
 * @category models
 */
export interface LiveTurn {
  /** 1-based, counting the model turns of the session (a lost turn keeps its number). */
  readonly turn: number
  /** The model's text, deltas joined (the segments joined). */
  readonly text: string
  /**
   * The text split where the model was interrupted, in order: one segment per interruption (its text may be empty,
   * when it was cut before it said anything), then what followed the last one unless that is empty. Empty when the
   * model said nothing and was not interrupted.
   *
   * @example
   * // "Your flight leaves at" cut by a search result scheduled `interrupt`, then the model speaks of the result:
   * // [{ text: "Your flight leaves at", interrupted: true }, { text: "I found three hotels.", interrupted: false }]
   */
  readonly segments: ReadonlyArray<Segment>
  /** The calls asked in this turn that had ended when it completed, in the order they ended. */
  readonly calls: ReadonlyArray<CallRecord>
  /** The calls asked in this turn still running when it completed (non-blocking ones, usually). */
  readonly running: ReadonlyArray<FunctionCall>
  /** The turn's usage (its last report). */
  readonly usage: Usage
  /** The model was interrupted during the turn. */
  readonly interrupted: boolean
  /** Why the turn ended abnormally, when the server said (e.g. `MALFORMED_FUNCTION_CALL`). */
  readonly reason?: string | undefined
}
