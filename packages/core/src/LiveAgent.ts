/**
 * A live session for the user: connects to the `LiveModel`, declares the registry's tools, runs each call the
 * server asks for through the executor the moment it arrives (one fiber per call id, while the socket keeps being
 * read), answers each id exactly once, honours cancellations, and reconnects with the last resumption handle when
 * the server goes away or the connection drops. It records every call and turn and shows them as a stream of
 * events; `send` is the request/response form for CLIs and demos.
 *
 * @example
 * ```ts
 * import { LiveAgent, Registry, Tool } from "@agentfx/core"
 * import { ScriptedLive } from "@agentfx/core/testing"
 * import { Console, Effect, Schema, Stream } from "effect"
 *
 * const lamp = Tool.make("lamp", {
 *   description: "Turns the kitchen lamp on or off",
 *   parameters: Schema.Struct({ on: Schema.Boolean }),
 *   handler: ({ on }) => Effect.succeed({ on })
 * })
 *
 * const program = Effect.gen(function* () {
 *   const registry = yield* Registry.make(lamp)
 *   const session = yield* LiveAgent.session({ registry, system: "You control the lights." })
 *   yield* Effect.forkScoped(Stream.runForEach(yield* session.subscribe, (event) => Console.log(event._tag)))
 *   const first = yield* session.send("Turn on the kitchen lamp.") // after its calls ran and were answered
 *   return [first.text, first.calls.map((call) => call.outcome._tag)] as const
 * }).pipe(Effect.scoped)
 *
 * // Gemini Live in production (GeminiLive.layerConfig() from @agentfx/providers); a scripted server here.
 * const live = ScriptedLive.layer(ScriptedLive.conversation([{ calls: [{ name: "lamp", args: { on: true } }], text: "The lamp is on." }]))
 * Effect.runPromise(program.pipe(Effect.provide(live)))
 * ```
 *
 * @since 0.2.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type * as Executor from "./Executor.js"
import type { FunctionDeclaration } from "./FunctionDeclaration.js"
import { make } from "./internal/live/session.js"
import type { Usage } from "./LanguageModel.js"
import type { LiveAgentEvent } from "./LiveAgentEvent.js"
import type { SendError, SessionError } from "./LiveError.js"
import type { LiveModel } from "./LiveModel.js"
import type { CallRecord, LiveTurn } from "./LiveTurn.js"
import type { Registry } from "./Registry.js"
import * as Retry from "./Retry.js"

export type {
  /**
   * One event of a live session, tagged.
   *
   * @since 0.2.0
   * @category models
   */
  LiveAgentEvent
} from "./LiveAgentEvent.js"
export type {
  /**
   * Why a message could not be sent or answered.
   *
   * @since 0.2.0
   * @category models
   */
  SendError,
  /**
   * Why a session ended abnormally: a setup the server refused (a `ModelError`), a fatal close, or too many failed
   * reconnects.
   *
   * @since 0.2.0
   * @category models
   */
  SessionError
} from "./LiveError.js"
export type {
  /**
   * How a call ended. Every outcome but `Cancelled` and `Lost` sent exactly one response for it.
   *
   * @since 0.2.0
   * @category models
   */
  CallOutcome,
  /**
   * One call of a live session.
   *
   * @since 0.2.0
   * @category models
   */
  CallRecord,
  /**
   * A completed model turn.
   *
   * @since 0.2.0
   * @category models
   */
  LiveTurn
} from "./LiveTurn.js"

/**
 * Options of a session.
 *
 * - `registry`: the tools, declared at every (re)connect; a `Tool.nonBlocking` tool is declared non-blocking and
 *   its answers carry its scheduling. A registry with a source (`Registry.dynamic`, MCP servers) is followed: when
 *   its version moved, at the next turn boundary with no call outstanding (a turn completed, or before a `send`)
 *   the session lists the tools again and, if the declarations changed, moves to a connection resumed from the last
 *   handle whose setup declares them (`ToolsChanged`). Without a handle yet it keeps its tools and warns once; a
 *   listing that fails is logged and tried again after the next turn.
 * - `system`, `temperature`, `maxOutputTokens`: the setup.
 * - `concurrency` (default 10): handlers running at once over the session; `"sequential"`, `"unbounded"`.
 * - `toolTimeout` (default none; a tool's own timeout wins) and `limits`: as for `Agent.run`.
 * - `reconnect` (default `defaultReconnect`): the schedule of reconnect attempts after a failed one. A healthy
 *   connection (the model said something on it) that ends is replaced at once; each failed attempt (the connect
 *   failed, or the connection ended before the model said anything) waits as the schedule says, and when it gives
 *   up the session fails with `ReconnectFailed`. Keep it bounded.
 * - `resumptionHandle`: continue an earlier session (its `resumptionHandle`).
 * - `firstByteTimeout`, `idleTimeout` (default none), `turnTimeout` (default 10 minutes, `defaultTurnTimeout`):
 *   bounds on a `send`, from the text going out to the model's first reply, between two of its replies (time our
 *   tools run does not count: the model waits for them), and to the turn's end (a send's own `timeout` replaces
 *   it). Hitting one fails the `send` with a `ModelTimeout` naming it and stops the turn's calls as `cancelTurn`
 *   does; the session goes on.
 * - `ownTurnWait` (default 10 s, `defaultOwnTurnWait`): how long a `send` waits, with the model silent, for a turn
 *   the model owes on its own before it sends anyway (see `Session.send`).
 *
 * @since 0.2.0
 * @category models
 */
export interface Options<R> {
  readonly registry: Registry<R>
  readonly system?: string | undefined
  readonly temperature?: number | undefined
  readonly maxOutputTokens?: number | undefined
  readonly concurrency?: Executor.BatchOptions["concurrency"]
  readonly toolTimeout?: Duration.DurationInput | undefined
  readonly limits?: Executor.Options["limits"]
  readonly reconnect?: Retry.Policy | undefined
  readonly resumptionHandle?: string | undefined
  readonly firstByteTimeout?: Duration.DurationInput | undefined
  readonly idleTimeout?: Duration.DurationInput | undefined
  readonly turnTimeout?: Duration.DurationInput | undefined
  readonly ownTurnWait?: Duration.DurationInput | undefined
}

/**
 * Options of one `send`.
 *
 * @since 0.3.0
 * @category models
 */
export interface SendOptions {
  /** The most the answer may take, from the text going out to the turn's end; default the session's `turnTimeout`. */
  readonly timeout?: Duration.DurationInput | undefined
  /**
   * When the connection is lost before the turn completes (`TurnLost`, or `Unavailable` as the text went out) and
   * the state the session resumes from predates the message (no resumable handle came after it went out), send it
   * again, once, on the new connection. The lost turn's calls are not run again, but the model may ask for them
   * again. Default false: the send fails and the caller decides.
   */
  readonly resendOnTurnLost?: boolean | undefined
}

/**
 * The connection a session uses: its number (from 1), and whether it continued the session from a handle.
 *
 * @since 0.3.0
 * @category models
 */
export interface Connected {
  readonly connection: number
  readonly resumed: boolean
}

/**
 * An open session. Its methods need nothing from the environment: tools run with what `session` was given.
 *
 * @since 0.2.0
 * @category models
 */
export interface Session {
  /**
   * Sends a user message and waits for the model's turn to complete: its text, the calls asked in it (run and
   * answered meanwhile, cancellations honoured) and its usage. One `send` at a time (others wait their turn).
   * Interrupting it (Ctrl-C) stops the turn's running calls as `cancelTurn` does; the session goes on. Fails
   * with `ModelTimeout` past its bounds (`timeout`, by default the session's `turnTimeout` of 10 minutes), with
   * `TurnLost` if the connection is lost before the turn completes (the session reconnects; the message is re-sent
   * only with `resendOnTurnLost`), with `Unavailable` if it dropped just as the text went out, and with the
   * session's end once over.
   *
   * Live servers do not number turns: the answer is the first turn to complete after the text went out. So the
   * text goes out only once the model is quiet: no turn under way (one the model started on its own included),
   * and none owed — a non-blocking result sent with `whenIdle` or `interrupt` while the model waited for no blocking
   * call makes the model speak of it in a turn of its own, and the send waits for that turn to complete first
   * (while the model stays silent, at most `ownTurnWait`). The answer is then never a turn the model started
   * before the message.
   */
  readonly send: (text: string, options?: SendOptions) => Effect.Effect<LiveTurn, SendError>
  /**
   * The connection in use: at once when there is one, else once the session has reconnected (after a `TurnLost`,
   * say); fails with the session's end. Bound it with `Effect.timeout` to wait no longer than you can.
   *
   * @example
   * const { connection, resumed } = yield* session.awaitConnected.pipe(Effect.timeout("30 seconds"))
   */
  readonly awaitConnected: Effect.Effect<Connected, SendError>
  /** Sends a user message without waiting (the answer shows in the events). Waits while the session reconnects. */
  readonly sendText: (text: string) => Effect.Effect<void, SendError>
  /**
   * Stops the turn in progress: its running calls are interrupted (their finalizers run) and each is answered with
   * an error saying the user stopped it, so the model is not left waiting.
   */
  readonly cancelTurn: Effect.Effect<void>
  /**
   * The session's events from when the stream starts; it ends with the session (failing with its error, if it
   * failed). Use `subscribe` to be sure to see the events of a message sent right after.
   */
  readonly events: Stream.Stream<LiveAgentEvent, SessionError>
  /** Subscribes now (for as long as the scope lasts) and returns the stream of the events from now on. */
  readonly subscribe: Effect.Effect<Stream.Stream<LiveAgentEvent, SessionError>, never, Scope.Scope>
  /** Every call so far, in the order they ended. */
  readonly calls: Effect.Effect<ReadonlyArray<CallRecord>>
  /** Every completed turn so far. */
  readonly turns: Effect.Effect<ReadonlyArray<LiveTurn>>
  /** Usage summed over the turns. */
  readonly usage: Effect.Effect<Usage>
  /** The tools declared on the connection in use (a registry with a source may change them between turns). */
  readonly declarations: Effect.Effect<ReadonlyArray<FunctionDeclaration>>
  /** The last resumable handle the server gave (save it to resume the session later). */
  readonly resumptionHandle: Effect.Effect<Option.Option<string>>
  /** Ends the session now: running handlers are interrupted, the connection is closed. Idempotent. */
  readonly close: Effect.Effect<void>
  /** Completes when the session ends: successfully when closed or ended by the server, else with its error. */
  readonly await: Effect.Effect<void, SessionError>
}

/**
 * How long a `send` may wait for its answer unless the session or the send says otherwise.
 *
 * @since 0.3.0
 * @category constants
 */
export const defaultTurnTimeout: Duration.Duration = Duration.minutes(10)

/**
 * How long a `send` waits, with the model silent, for a turn the model owes on its own.
 *
 * @since 0.3.0
 * @category constants
 */
export const defaultOwnTurnWait: Duration.Duration = Duration.seconds(10)

/**
 * Reconnects: after a failed attempt wait 0.5 s, doubling (jittered, capped at 8 s), and give up after 5 more.
 *
 * @since 0.2.0
 */
export const defaultReconnect: Retry.Policy = Retry.policy({ maxRetries: 5, base: "500 millis", cap: "8 seconds" })

/**
 * Opens a session; it lasts as long as the scope. Completes once the first connection is set up; a setup the
 * server refuses fails with its `ModelError` (`InvalidRequest`, `Unauthorized`), an unreachable server with
 * `ReconnectFailed` once the reconnect schedule gives up.
 *
 * @since 0.2.0
 */
export const session = <R>(options: Options<R>): Effect.Effect<Session, SessionError, LiveModel | R | Scope.Scope> =>
  make(options, { reconnect: options.reconnect ?? defaultReconnect, turnTimeout: defaultTurnTimeout, ownTurnWait: defaultOwnTurnWait })

/**
 * A whole scripted conversation: opens a session, sends each message in turn (waiting for each answer), closes it,
 * and returns the turns. For demos and tests.
 *
 * @example
 * ```ts
 * import { LiveAgent, Registry, Tool } from "@agentfx/core"
 * import { ScriptedLive } from "@agentfx/core/testing"
 * import { Effect, Schema } from "effect"
 *
 * const lamp = Tool.make("lamp", {
 *   description: "Turns the kitchen lamp on or off",
 *   parameters: Schema.Struct({ on: Schema.Boolean }),
 *   handler: ({ on }) => Effect.succeed({ on })
 * })
 *
 * const program = Effect.gen(function* () {
 *   const registry = yield* Registry.make(lamp)
 *   const turns = yield* LiveAgent.run({ registry, messages: ["Lamp on?", "Thanks!"] })
 *   return turns.map((turn) => turn.text) // ["The lamp is on.", "You're welcome."]
 * })
 *
 * const live = ScriptedLive.layer(
 *   ScriptedLive.conversation([{ calls: [{ name: "lamp", args: { on: true } }], text: "The lamp is on." }, { text: "You're welcome." }])
 * )
 * Effect.runPromise(program.pipe(Effect.provide(live)))
 * ```
 *
 * @since 0.2.0
 */
export const run = <R>(
  options: Options<R> & { readonly messages: ReadonlyArray<string> }
): Effect.Effect<ReadonlyArray<LiveTurn>, SendError, LiveModel | R> =>
  Effect.scoped(Effect.flatMap(session(options), (live) => Effect.forEach(options.messages, (message) => live.send(message))))
