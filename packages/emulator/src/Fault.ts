/**
 * Faults the emulator can inject into one request. Each is rendered the way the server being emulated would
 * send it: a rate limit is a Gemini 429 `RESOURCE_EXHAUSTED` with `RetryInfo`, a GLM 429 with code 1302, or an
 * OpenAI 429 `rate_limit_exceeded`, depending on the route the request came in on.
 *
 * Three kinds:
 * - answer faults replace the answer (an error status, a stall, a dropped connection; on Gemini Live a close);
 * - shaping faults change how the policy's answer is sent (dropped or stalled mid-stream, malformed tool
 *   arguments, omitted call ids or stream indexes, frames split across TCP writes; on Gemini Live a cancellation
 *   of the calls, a `goAway`, a drop once the calls are answered);
 * - setup faults (Gemini Live only) refuse or delay a connection's setup, or send a frame before it completes.
 *
 * @example
 * ```ts
 * import { Emulator, Fault } from "@agentfx/emulator"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const emulator = yield* Emulator.make()
 *   yield* emulator.inject(Fault.rateLimited({ retryAfter: "2 seconds" })) // the next request, whatever its protocol
 *   yield* emulator.inject(Fault.dropMidStream(2), { protocol: "openai" }) // the next chat-completions request
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Schema from "effect/Schema"

/**
 * A Live fault (or `closeLive`) was given a close code no WebSocket close frame may carry: 1004, 1005, 1015, a code
 * below 1000, 1016–2999 or above 4999 (RFC 6455 §7.4). Thrown when such a fault is made, so the mistake shows
 * where it was written rather than as a connection that never closes. 1006 is allowed: the socket is dropped
 * without a close frame, which is what 1006 reports.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidCloseCode extends Schema.TaggedError<InvalidCloseCode>()("InvalidCloseCode", {
  code: Schema.Number,
  message: Schema.String
}) {}

/**
 * True for the codes a Live close can use: those a close frame may carry, and 1006 (a drop, no frame).
 *
 * @since 0.1.0
 */
export const isSendableCloseCode = (code: number): boolean =>
  Number.isInteger(code) && ((code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005) || (code >= 3000 && code <= 4999))

/**
 * The error saying why a Live close cannot use `code`; undefined when it can.
 *
 * @since 0.1.0
 */
export const checkCloseCode = (code: number): InvalidCloseCode | undefined =>
  isSendableCloseCode(code)
    ? undefined
    : new InvalidCloseCode({
        code,
        message: `${code} is not a WebSocket close code a server can send: use 1000–1003, 1006 (a drop without a close frame), 1007–1014 or 3000–4999`
      })

const sendable = (code: number): number => {
  const error = checkCloseCode(code)
  if (error !== undefined) throw error
  return code
}

/**
 * An HTTP error with exactly this status, body and headers (the body defaults to the protocol's envelope).
 *
 * @since 0.1.0
 * @category models
 */
export interface Status {
  readonly _tag: "Status"
  readonly status: number
  readonly message?: string | undefined
  readonly body?: unknown
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/**
 * Too many requests: Gemini 429 + `RetryInfo`; GLM 429 code 1302; OpenAI 429 `rate_limit_exceeded` + `retry-after`.
 *
 * @since 0.1.0
 * @category models
 */
export interface RateLimited {
  readonly _tag: "RateLimited"
  readonly retryAfter?: Duration.Duration | undefined
}

/**
 * A quota that will not clear: Gemini per-day `QuotaFailure`; GLM 429 code 1113; OpenAI 429 `insufficient_quota`.
 *
 * @since 0.1.0
 * @category models
 */
export interface QuotaExhausted {
  readonly _tag: "QuotaExhausted"
}

/**
 * Gemini 503 "The model is overloaded"; GLM 503 code 1305; OpenAI 503.
 *
 * @since 0.1.0
 * @category models
 */
export interface Overloaded {
  readonly _tag: "Overloaded"
}

/**
 * What a wrong key gets: Gemini 400 `API_KEY_INVALID` (Live: a close 1007 with its words); GLM 401 code 1002; OpenAI
 * 401 `invalid_api_key`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Unauthorized {
  readonly _tag: "Unauthorized"
}

/**
 * A GLM business error `{error: {code, message}}` with its HTTP status.
 *
 * @since 0.1.0
 * @category models
 */
export interface GlmCode {
  readonly _tag: "GlmCode"
  readonly code: string
  readonly status: number
  readonly message: string
}

/**
 * Never answer; the connection stays open until the client gives up (or the emulator stops).
 *
 * @since 0.1.0
 * @category models
 */
export interface Stall {
  readonly _tag: "Stall"
}

/**
 * Close the connection without answering.
 *
 * @since 0.1.0
 * @category models
 */
export interface Disconnect {
  readonly _tag: "Disconnect"
}

/**
 * Stream `afterChunks` chunks, then drop the connection (a non-streamed answer is cut half-way).
 *
 * @since 0.1.0
 * @category models
 */
export interface DropMidStream {
  readonly _tag: "DropMidStream"
  readonly afterChunks: number
}

/**
 * Stream `afterChunks` chunks, then send nothing more until the client gives up.
 *
 * @since 0.1.0
 * @category models
 */
export interface StallMidStream {
  readonly _tag: "StallMidStream"
  readonly afterChunks: number
}

/**
 * Stream `afterChunks` chunks, then an error event (the way servers report a failure inside a stream).
 *
 * @since 0.1.0
 * @category models
 */
export interface ErrorMidStream {
  readonly _tag: "ErrorMidStream"
  readonly afterChunks: number
  readonly error: AnswerFault
}

/**
 * The first call's `arguments` text is broken: not JSON, cut short, or two objects run together.
 *
 * @since 0.1.0
 * @category models
 */
export interface MalformedArguments {
  readonly _tag: "MalformedArguments"
  readonly kind: "invalid" | "truncated" | "concatenated"
}

/**
 * Calls are sent without ids (Gemini may do this; so do some OpenAI-compatible servers).
 *
 * @since 0.1.0
 * @category models
 */
export interface OmitCallIds {
  readonly _tag: "OmitCallIds"
}

/**
 * Stream tool-call deltas without `index`.
 *
 * @since 0.1.0
 * @category models
 */
export interface OmitIndex {
  readonly _tag: "OmitIndex"
}

/**
 * Every stream frame (or the body) is written in two TCP writes, split mid-JSON.
 *
 * @since 0.1.0
 * @category models
 */
export interface SplitChunks {
  readonly _tag: "SplitChunks"
}

/**
 * Gemini Live: close the connection with this code and reason (a REST route answers 500 with the reason).
 *
 * @since 0.1.0
 * @category models
 */
export interface Close {
  readonly _tag: "Close"
  readonly code: number
  readonly reason: string
}

/**
 * Gemini Live: send the turn's calls, then cancel them all (`toolCallCancellation`) after `after`.
 *
 * @since 0.1.0
 * @category models
 */
export interface CancelCalls {
  readonly _tag: "CancelCalls"
  readonly after: Duration.Duration
}

/**
 * Gemini Live: after the turn's frames, say `goAway` with `timeLeft`, then close with `code` once it has passed.
 *
 * @since 0.1.0
 * @category models
 */
export interface GoAway {
  readonly _tag: "GoAway"
  readonly timeLeft: Duration.Duration
  readonly code: number
}

/**
 * Gemini Live: when the turn's calls are all answered, close with `code` instead of going on.
 *
 * @since 0.1.0
 * @category models
 */
export interface DropAfterResponses {
  readonly _tag: "DropAfterResponses"
  readonly code: number
}

/**
 * Gemini Live: refuse the setup: close with `code` and `reason` instead of `setupComplete`.
 *
 * @since 0.1.0
 * @category models
 */
export interface RefuseSetup {
  readonly _tag: "RefuseSetup"
  readonly code: number
  readonly reason: string
}

/**
 * Gemini Live: send `setupComplete` only after `delay` (or never, for a stall).
 *
 * @since 0.1.0
 * @category models
 */
export interface SlowSetup {
  readonly _tag: "SlowSetup"
  readonly delay: Duration.Duration
}

/**
 * Gemini Live: send this frame before the turn's answer (text, or a binary frame) — e.g. one that is not JSON. Bytes
 * go out as they are: in a text frame, bytes that are not UTF-8 are a frame every client must refuse (RFC 6455 §8.1).
 *
 * @since 0.1.0
 * @category models
 */
export interface RawFrame {
  readonly _tag: "RawFrame"
  readonly data: string | Uint8Array
  readonly binary: boolean
}

/**
 * Gemini Live: send this frame (as `RawFrame` sends it) when the setup arrives, before `setupComplete`.
 *
 * @since 0.1.0
 * @category models
 */
export interface FrameBeforeSetup {
  readonly _tag: "FrameBeforeSetup"
  readonly data: string | Uint8Array
  readonly binary: boolean
}

/**
 * Faults that replace the answer.
 *
 * @since 0.1.0
 * @category models
 */
export type AnswerFault = Status | RateLimited | QuotaExhausted | Overloaded | Unauthorized | GlmCode | Stall | Disconnect | Close

/**
 * Faults that change how the policy's answer is sent.
 *
 * @since 0.1.0
 * @category models
 */
export type ShapingFault =
  | DropMidStream
  | StallMidStream
  | ErrorMidStream
  | MalformedArguments
  | OmitCallIds
  | OmitIndex
  | SplitChunks
  | CancelCalls
  | GoAway
  | DropAfterResponses
  | RawFrame

/**
 * Faults of a Gemini Live connection's setup.
 *
 * @since 0.1.0
 * @category models
 */
export type SetupFault = RefuseSetup | SlowSetup | FrameBeforeSetup

/**
 * Any fault.
 *
 * @since 0.1.0
 * @category models
 */
export type Fault = AnswerFault | ShapingFault | SetupFault

const answerTags: ReadonlySet<string> = new Set(["Status", "RateLimited", "QuotaExhausted", "Overloaded", "Unauthorized", "GlmCode", "Stall", "Disconnect", "Close"])
const setupTags: ReadonlySet<string> = new Set(["RefuseSetup", "SlowSetup", "FrameBeforeSetup"])

/**
 * True for faults that replace the answer.
 *
 * @since 0.1.0
 */
export const isAnswerFault = (fault: Fault): fault is AnswerFault => answerTags.has(fault._tag)

/**
 * True for faults of a Gemini Live setup.
 *
 * @since 0.1.0
 */
export const isSetupFault = (fault: Fault): fault is SetupFault => setupTags.has(fault._tag)

/**
 * An HTTP error with this status (and optionally body / headers).
 *
 * @since 0.1.0
 */
export const status = (
  code: number,
  options: { readonly message?: string; readonly body?: unknown; readonly headers?: Readonly<Record<string, string>> } = {}
): Status => ({ _tag: "Status", status: code, ...options })

/**
 * A rate limit, with a retry hint when `retryAfter` is given (Gemini `RetryInfo`, `retry-after` headers).
 *
 * @since 0.1.0
 */
export const rateLimited = (options: { readonly retryAfter?: Duration.DurationInput } = {}): RateLimited => ({
  _tag: "RateLimited",
  retryAfter: options.retryAfter === undefined ? undefined : Duration.decode(options.retryAfter)
})

/**
 * A quota that will not clear soon (Gemini per-day quota, GLM 1113, OpenAI `insufficient_quota`).
 *
 * @since 0.1.0
 */
export const quotaExhausted = (): QuotaExhausted => ({ _tag: "QuotaExhausted" })

/**
 * Alias of `quotaExhausted`: on Gemini it is the per-day quota.
 *
 * @since 0.1.0
 */
export const dailyQuota = quotaExhausted

/**
 * The model is overloaded (503).
 *
 * @since 0.1.0
 */
export const overloaded = (): Overloaded => ({ _tag: "Overloaded" })

/**
 * What a wrong key gets.
 *
 * @since 0.1.0
 */
export const unauthorized = (): Unauthorized => ({ _tag: "Unauthorized" })

const glmDefaults: Readonly<Record<string, { readonly status: number; readonly message: string }>> = {
  "1113": { status: 429, message: "余额不足或无可用资源包,请充值。" },
  "1301": { status: 400, message: "系统检测到输入或生成内容可能包含不安全或敏感内容，请您避免输入易产生敏感内容的提示语，感谢您的配合。" },
  "1302": { status: 429, message: "High concurrency usage of this API, please reduce concurrency or contact customer service to increase limits" },
  "1305": { status: 503, message: "The service may be temporarily overloaded, please try again later" },
  "1308": { status: 429, message: "Usage limit reached for 5 hour. Your limit will reset at 2026-01-01 00:00:00" },
  "1309": { status: 429, message: "Your GLM Coding Plan package has expired" },
  "1313": { status: 429, message: "Your account's current usage pattern does not comply with the Fair Usage Policy" }
}

/**
 * A GLM business error; well-known codes get their usual status and message.
 *
 * @since 0.1.0
 */
export const glm = (code: string, options: { readonly status?: number; readonly message?: string } = {}): GlmCode => ({
  _tag: "GlmCode",
  code,
  status: options.status ?? glmDefaults[code]?.status ?? 400,
  message: options.message ?? glmDefaults[code]?.message ?? `error ${code}`
})

/**
 * Never answer.
 *
 * @since 0.1.0
 */
export const stall: Stall = { _tag: "Stall" }

/**
 * Close the connection without an answer.
 *
 * @since 0.1.0
 */
export const disconnect: Disconnect = { _tag: "Disconnect" }

/**
 * Send `afterChunks` stream chunks, then drop the connection.
 *
 * @since 0.1.0
 */
export const dropMidStream = (afterChunks: number): DropMidStream => ({ _tag: "DropMidStream", afterChunks })

/**
 * Send `afterChunks` stream chunks, then nothing more.
 *
 * @since 0.1.0
 */
export const stallMidStream = (afterChunks: number): StallMidStream => ({ _tag: "StallMidStream", afterChunks })

/**
 * Send `afterChunks` stream chunks, then `error` as an error event.
 *
 * @since 0.1.0
 */
export const errorMidStream = (afterChunks: number, error: AnswerFault): ErrorMidStream => ({ _tag: "ErrorMidStream", afterChunks, error })

/**
 * Break the first call's `arguments` text (chat completions; on Gemini: a MALFORMED_FUNCTION_CALL finish).
 *
 * @since 0.1.0
 */
export const malformedArguments = (kind: MalformedArguments["kind"]): MalformedArguments => ({ _tag: "MalformedArguments", kind })

/**
 * Send calls without ids.
 *
 * @since 0.1.0
 */
export const omitCallIds: OmitCallIds = { _tag: "OmitCallIds" }

/**
 * Send stream tool-call deltas without `index`.
 *
 * @since 0.1.0
 */
export const omitIndex: OmitIndex = { _tag: "OmitIndex" }

/**
 * Write each frame in two TCP writes.
 *
 * @since 0.1.0
 */
export const splitChunks: SplitChunks = { _tag: "SplitChunks" }

/**
 * Gemini Live: close the connection with `code` (default 1011, an internal error) and `reason`; 1006 drops the
 * socket without a close frame. Throws `InvalidCloseCode` for a code no close frame may carry.
 *
 * @since 0.1.0
 */
export const close = (code = 1011, reason = "Internal error encountered."): Close => ({ _tag: "Close", code: sendable(code), reason })

/**
 * Gemini Live: cancel the turn's calls `after` they were sent (default at once).
 *
 * @since 0.1.0
 */
export const cancelCalls = (after: Duration.DurationInput = 0): CancelCalls => ({ _tag: "CancelCalls", after: Duration.decode(after) })

/**
 * Gemini Live: `goAway` with `timeLeft` after the turn, then a close with `code` (default 1011) when it has passed.
 * Throws `InvalidCloseCode` for a code no close frame may carry.
 *
 * @since 0.1.0
 */
export const goAway = (timeLeft: Duration.DurationInput, options: { readonly code?: number } = {}): GoAway => ({
  _tag: "GoAway",
  timeLeft: Duration.decode(timeLeft),
  code: sendable(options.code ?? 1011)
})

/**
 * Gemini Live: close with `code` (default 1011) once the turn's calls are answered, instead of going on. Throws
 * `InvalidCloseCode` for a code no close frame may carry.
 *
 * @since 0.1.0
 */
export const dropAfterResponses = (code = 1011): DropAfterResponses => ({ _tag: "DropAfterResponses", code: sendable(code) })

/**
 * Gemini Live: refuse the setup with `code` (default 1008) and `reason` (default: the model does not exist).
 * Throws `InvalidCloseCode` for a code no close frame may carry.
 *
 * @since 0.1.0
 */
export const refuseSetup = (options: { readonly code?: number; readonly reason?: string } = {}): RefuseSetup => ({
  _tag: "RefuseSetup",
  code: sendable(options.code ?? 1008),
  reason: options.reason ?? "models/unknown is not found for API version v1beta, or is not supported for bidiGenerateContent."
})

/**
 * Gemini Live: complete the setup only after `delay`.
 *
 * @since 0.1.0
 */
export const slowSetup = (delay: Duration.DurationInput): SlowSetup => ({ _tag: "SlowSetup", delay: Duration.decode(delay) })

/**
 * Gemini Live: send `data` as a frame of its own before the turn's answer (`binary`: as a binary frame; bytes go out
 * as they are, so `new Uint8Array([0xff])` in a text frame is one that is not UTF-8).
 *
 * @since 0.1.0
 */
export const rawFrame = (data: string | Uint8Array, options: { readonly binary?: boolean } = {}): RawFrame => ({
  _tag: "RawFrame",
  data,
  binary: options.binary ?? false
})

/**
 * Gemini Live: send `data` as a frame of its own before `setupComplete` (as `rawFrame` sends it).
 *
 * @since 0.1.0
 */
export const frameBeforeSetup = (data: string | Uint8Array, options: { readonly binary?: boolean } = {}): FrameBeforeSetup => ({
  _tag: "FrameBeforeSetup",
  data,
  binary: options.binary ?? false
})
