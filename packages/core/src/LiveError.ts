/**
 * The typed ways a live session ends or a message fails. None is thrown; a reconnectable close never surfaces as
 * one (the session reconnects), only what a reconnect cannot fix or gave up on.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { ModelError } from "./ModelError.js"

/**
 * The server closed the session with a code a reconnect would not fix: `1007` (a payload it cannot read, a setup
 * it refuses) or `1008` (policy, an unknown model), or any code that is neither normal nor transient.
 *
 * @since 0.2.0
 * @category errors
 */
export class LiveClosed extends Schema.TaggedError<LiveClosed>()("LiveClosed", {
  code: Schema.Number,
  reason: Schema.String
}) {
  override get message(): string {
    return `the live session was closed with code ${this.code}${this.reason === "" ? "" : `: ${this.reason}`}`
  }
}

/**
 * Reconnecting failed `attempts` times in a row (the reconnect schedule gave up); `error` is the last failure.
 *
 * @since 0.2.0
 * @category errors
 */
export class ReconnectFailed extends Schema.TaggedError<ReconnectFailed>()("ReconnectFailed", {
  attempts: Schema.Number,
  error: ModelError
}) {
  override get message(): string {
    return `gave up reconnecting after ${this.attempts} failed attempt${this.attempts === 1 ? "" : "s"}: ${this.error.message}`
  }
}

/**
 * The connection was lost before the model completed the turn a `send` waited for. The session goes on, on a new
 * connection; whether to send the message again is the caller's choice (the turn's calls were not answered, and
 * re-sending may make the model call them again).
 *
 * @since 0.2.0
 * @category errors
 */
export class TurnLost extends Schema.TaggedError<TurnLost>()("TurnLost", {
  turn: Schema.Number,
  reason: Schema.String
}) {
  override get message(): string {
    return `turn ${this.turn} was lost with its connection (${this.reason})`
  }
}

/**
 * The session is over (closed, or ended by the server): nothing more can be sent.
 *
 * @since 0.2.0
 * @category errors
 */
export class SessionEnded extends Schema.TaggedError<SessionEnded>()("SessionEnded", {
  reason: Schema.String
}) {
  override get message(): string {
    return `the live session has ended: ${this.reason}`
  }
}

/**
 * Why a session ended abnormally: a setup the server refused (a `ModelError`), a fatal close, or too many failed reconnects.
 *
 * @since 0.2.0
 * @category models
 */
export type SessionError = ModelError | LiveClosed | ReconnectFailed

/**
 * Why a message could not be sent or answered.
 *
 * @since 0.2.0
 * @category models
 */
export type SendError = SessionError | SessionEnded | TurnLost
