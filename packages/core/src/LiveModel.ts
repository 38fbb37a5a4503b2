/**
 * A live (bidirectional, server-driven) model as a service: Gemini Live over a WebSocket, or the scripted one in
 * `@agentfx/core/testing`. Unlike `LanguageModel`, the server talks when it wants: it sends text, asks for
 * several calls at once, cancels calls it asked for, warns that it will go away, and hands out resumption
 * handles. A connection is a scoped resource whose `events` are that conversation in neutral form; the
 * `LiveAgent` driver runs tools through the executor on top of it. Only providers translate to a wire format.
 *
 * @example
 * ```ts
 * import { LiveModel } from "@agentfx/core"
 * import { ScriptedLive } from "@agentfx/core/testing"
 * import { Console, Effect, Stream } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const live = yield* LiveModel.LiveModel
 *   const connection = yield* live.connect({ system: "Be brief.", declarations: [] })
 *   yield* connection.sendText("Is the lamp on?")
 *   yield* Stream.runForEach(connection.events.pipe(Stream.takeUntil((event) => event._tag === "TurnComplete")), (event) => Console.log(event._tag))
 * }).pipe(Effect.scoped)
 *
 * Effect.runPromise(program.pipe(Effect.provide(ScriptedLive.layer(ScriptedLive.conversation([{ text: "It is off." }])))))
 * ```
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { FunctionCall } from "./FunctionCall.js"
import type { FunctionDeclaration } from "./FunctionDeclaration.js"
import type { JsonObject } from "./Json.js"
import type { Usage } from "./LanguageModel.js"
import type { ModelError } from "./ModelError.js"

/**
 * When the model hears the answer of a non-blocking call: `interrupt` stops what it is saying to speak about it,
 * `whenIdle` (the server's default) waits until it is done, `silent` only adds it to the context.
 *
 * @since 0.2.0
 * @category models
 */
export type Scheduling = "interrupt" | "whenIdle" | "silent"

/**
 * What a session starts with. Declarations with `behavior: "nonBlocking"` let the model talk while they run.
 * Providers always ask the server for resumption updates (Gemini: `sessionResumption: {}` even without a handle):
 * the driver reconnects with them.
 *
 * @since 0.2.0
 * @category models
 */
export interface Setup {
  readonly system?: string | undefined
  readonly declarations: ReadonlyArray<FunctionDeclaration>
  /** Resume the session this handle stands for (its history is kept by the server). */
  readonly resumptionHandle?: string | undefined
  readonly temperature?: number | undefined
  readonly maxOutputTokens?: number | undefined
}

/**
 * The answer to one call, matched by `id`.
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolResponse {
  readonly id: string
  readonly name: string
  /** Always a JSON object (the executor's rendering of a result or an error). */
  readonly response: JsonObject
  /** Only for non-blocking calls. */
  readonly scheduling?: Scheduling | undefined
  /** More responses for this id will follow (a non-blocking call that reports progress). */
  readonly willContinue?: boolean | undefined
}

/**
 * What the server said, in neutral form, in the order it said it. One server frame may carry several events
 * (text, usage and the end of the turn, say); they are emitted in the order of this list.
 *
 * @since 0.2.0
 * @category models
 */
export type Event =
  /** A piece of the model's text. */
  | { readonly _tag: "TextDelta"; readonly text: string }
  /** A transcription of the user's audio (`input`) or of the model's spoken answer (`output`). */
  | { readonly _tag: "Transcription"; readonly direction: "input" | "output"; readonly text: string }
  /** Calls to run; each must be answered by id exactly once, unless it is cancelled. */
  | { readonly _tag: "ToolCall"; readonly calls: ReadonlyArray<FunctionCall> }
  /** These calls must not be answered any more (the user interrupted); their results are dropped. */
  | { readonly _tag: "ToolCallCancellation"; readonly ids: ReadonlyArray<string> }
  /**
   * Token usage of the current model turn. A turn may report several times: its last report is its usage (the
   * driver sums turns, never reports). It comes before its frame's `TurnComplete`, so it counts for that turn.
   */
  | { readonly _tag: "Usage"; readonly usage: Usage }
  /** The model stopped generating (the user spoke over it). */
  | { readonly _tag: "Interrupted" }
  /** The model has generated its whole answer (it may still be playing out). */
  | { readonly _tag: "GenerationComplete" }
  /** The model's turn is over; `reason` is set when it ended abnormally (e.g. `MALFORMED_FUNCTION_CALL`). */
  | { readonly _tag: "TurnComplete"; readonly reason?: string | undefined }
  /** The server will close the connection after `timeLeft`: reconnect with the last resumable handle. */
  | { readonly _tag: "GoAway"; readonly timeLeft: Duration.Duration }
  /** A new resumption handle; `handle` is undefined (and `resumable` false) while calls are outstanding. */
  | { readonly _tag: "ResumptionUpdate"; readonly handle: string | undefined; readonly resumable: boolean }
  /**
   * The connection closed (always the last event): a WebSocket close code and reason (see `CloseCode`). A socket
   * that dropped without a close frame is `1006`; the client's own `close` is `1000`.
   */
  | { readonly _tag: "Closed"; readonly code: number; readonly reason: string }

/**
 * The close codes that matter to a live session. `goingAway`, `abnormal` (a dropped socket), `internalError`,
 * `serviceRestart`, `tryAgainLater` and `badGateway` are worth a reconnect with the last resumption handle;
 * `invalidPayload` (a response that is not a Struct, a bad setup) and `policyViolation` (an unknown model, a
 * refused request) will fail again the same way.
 *
 * @since 0.2.0
 */
export const CloseCode = {
  normal: 1000,
  goingAway: 1001,
  abnormal: 1006,
  invalidPayload: 1007,
  policyViolation: 1008,
  internalError: 1011,
  serviceRestart: 1012,
  tryAgainLater: 1013,
  badGateway: 1014
} as const

/**
 * An open live connection. Everything sent after it closed fails with `Unavailable`. A transport failure may end
 * `events` either with `Closed` (code `1006`) or with an `Unavailable` failure: the driver treats both as a drop.
 *
 * @since 0.2.0
 * @category models
 */
export interface Connection {
  /**
   * The server's events, ending after `Closed`. It fails with `MalformedResponse` when the server sent a frame
   * that cannot be read (the connection is then closed). Read it once: it is a queue, not a replay.
   */
  readonly events: Stream.Stream<Event, ModelError>
  /** Sends a user message (the provider picks the form the model accepts). */
  readonly sendText: (text: string) => Effect.Effect<void, ModelError>
  /** Answers calls. */
  readonly sendToolResponses: (responses: ReadonlyArray<ToolResponse>) => Effect.Effect<void, ModelError>
  /** Closes the connection (idempotent); `events` then ends with `Closed`. */
  readonly close: Effect.Effect<void>
}

/**
 * What a live model provides: connections.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** Provider name for logs and results, e.g. "gemini-live", "scripted-live". */
  readonly provider: string
  readonly model: string
  /**
   * Opens a connection and completes its setup; the connection closes with the scope. A setup the server refuses
   * is `InvalidRequest` (or `Unauthorized` for a bad key), a server that never completes the setup `ModelTimeout`,
   * an unreachable one `Unavailable`.
   */
  readonly connect: (setup: Setup) => Effect.Effect<Connection, ModelError, Scope.Scope>
}

/**
 * The live model service; provided by `GeminiLive.layer` or the scripted live model.
 *
 * @since 0.2.0
 * @category tags
 */
export class LiveModel extends Context.Tag("@agentfx/core/LiveModel")<LiveModel, Service>() {}
