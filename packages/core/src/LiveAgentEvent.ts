/**
 * What a live session shows a UI, in the order it happened: connections and reconnects, the model's text, each
 * call as it starts and ends (answered, cancelled, lost), and each completed turn.
 *
 * A CLI prints `TextDelta`s as they come, a line per `CallStarted` / `CallFinished` / `CallCancelled` /
 * `CallLost`, and `Reconnecting` / `Connected` / `ToolsChanged` as status; after `Reconnecting` it should drop the
 * partial text of an unfinished turn (that turn is lost).
 *
 * @since 0.2.0
 */
import type * as Duration from "effect/Duration"
import type { FunctionCall } from "./FunctionCall.js"
import type { JsonObject } from "./Json.js"
import type { Usage } from "./LanguageModel.js"
import type { Scheduling } from "./LiveModel.js"
import type { CallRecord, LiveTurn } from "./LiveTurn.js"

/**
 * One event of a live session, tagged.
 *
 * @since 0.2.0
 * @category models
 */
export type LiveAgentEvent =
  /** A connection is open (`connection` counts from 1); `resumed` when it continued the session from a handle. */
  | { readonly _tag: "Connected"; readonly connection: number; readonly resumed: boolean }
  /**
   * The connection was lost (or is being replaced after `GoAway`) and attempt `attempt` of this outage begins.
   * `fresh` means there is no resumption handle yet: the new connection starts a new conversation.
   */
  | {
      readonly _tag: "Reconnecting"
      readonly attempt: number
      readonly reason: string
      readonly code?: number | undefined
      readonly fresh: boolean
    }
  /**
   * The registry's source changed the tools (names added, removed, or declared differently): the session moves to
   * connection `connection`, resumed from the last handle, whose setup declares them. Calls from then on run with them.
   */
  | {
      readonly _tag: "ToolsChanged"
      readonly added: ReadonlyArray<string>
      readonly removed: ReadonlyArray<string>
      readonly changed: ReadonlyArray<string>
      readonly connection: number
    }
  /** The server will close this connection after `timeLeft`; the session moves to a new one at a quiet moment. */
  | { readonly _tag: "GoAway"; readonly timeLeft: Duration.Duration }
  | { readonly _tag: "TextDelta"; readonly turn: number; readonly text: string }
  | { readonly _tag: "Transcription"; readonly turn: number; readonly direction: "input" | "output"; readonly text: string }
  /** A call arrived and its handler starts (now, or as soon as a slot of the tool concurrency frees). */
  | { readonly _tag: "CallStarted"; readonly turn: number; readonly call: FunctionCall }
  /**
   * A running call reported progress (`ToolContext.progress`), rendered as a response is: for a non-blocking call it
   * was `sent` to the model with `scheduling` (a response that will continue); a blocking call's is only shown.
   */
  | {
      readonly _tag: "CallProgress"
      readonly turn: number
      readonly call: FunctionCall
      readonly response: JsonObject
      readonly sent: boolean
      readonly scheduling?: Scheduling | undefined
    }
  /** A call was answered (outcome `Answered`, or `Repeated`). */
  | { readonly _tag: "CallFinished"; readonly record: CallRecord }
  /** A call was cancelled: by the server (`Cancelled`) or by the user (`Stopped`). */
  | { readonly _tag: "CallCancelled"; readonly record: CallRecord }
  /** A call was lost with its connection (`Lost`). */
  | { readonly _tag: "CallLost"; readonly record: CallRecord }
  /** The model stopped generating (the user spoke over it). */
  | { readonly _tag: "Interrupted"; readonly turn: number }
  | { readonly _tag: "GenerationComplete"; readonly turn: number }
  /** The turn's usage so far (a later report of the same turn replaces it). */
  | { readonly _tag: "Usage"; readonly turn: number; readonly usage: Usage }
  | { readonly _tag: "TurnComplete"; readonly turn: LiveTurn }
