/**
 * The agent loop: send the transcript and declarations, execute the calls the model asks for, answer them, and
 * repeat until the model answers without calls (or a stop condition, or `maxTurns`).
 *
 * Given `output` (an Effect Schema), the run's final answer is JSON decoded by it: `result.output` is typed (see `Output`).
 *
 * @example
 * ```ts
 * import { Agent, Registry, Tool } from "@agentfx/core"
 * import { Scripted } from "@agentfx/core/testing"
 * import { Effect, Schema } from "effect"
 *
 * const getWeather = Tool.make("get_weather", {
 *   description: "Current temperature of a city in °C",
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   success: Schema.Struct({ celsius: Schema.Number }),
 *   handler: ({ city }) => Effect.succeed({ celsius: city === "Oslo" ? 7 : 20 })
 * })
 *
 * const program = Effect.gen(function* () {
 *   const registry = yield* Registry.make(getWeather)
 *   const result = yield* Agent.run({ registry, system: "You are helpful.", prompt: "Weather in Oslo?" })
 *   // the answer; every call (args, result or error, duration, turn); why the run stopped
 *   return [result.text, result.calls.length, result.stopReason._tag] as const
 * })
 *
 * const model = Scripted.layer([{ calls: [{ name: "get_weather", args: { city: "Oslo" } }] }, { text: "7 °C in Oslo." }])
 * Effect.runPromise(program.pipe(Effect.provide(model))).then(console.log) // ["7 °C in Oslo.", 1, "Finished"]
 * ```
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import type { AgentEvent, AttemptFailed } from "./AgentEvent.js"
import type { AgentResult, CallRecord, Typed } from "./AgentResult.js"
import type * as Executor from "./Executor.js"
import { loop, loopStream } from "./internal/loop.js"
import type { LanguageModel, ToolChoice } from "./LanguageModel.js"
import type { ModelError } from "./ModelError.js"
import type { OutputInvalid, OutputMissing } from "./Output.js"
import type { Registry } from "./Registry.js"
import type { Policy } from "./Retry.js"
import type { StopCondition } from "./StopCondition.js"
import type { ToolError } from "./ToolError.js"
import type { Transcript, TranscriptViolation } from "./Transcript.js"
import type { Turn } from "./Turn.js"

export type {
  /**
   * One event of `Agent.stream`, tagged (see the `AgentEvent` type's cases).
   *
   * @since 0.1.0
   * @category models
   */
  AgentEvent,
  /**
   * One failed attempt at a model request, said before it is retried or given up (`Agent.Options.onAttemptFailed`).
   *
   * @since 0.2.0
   * @category models
   */
  AttemptFailed
} from "./AgentEvent.js"
export type {
  /**
   * What `Agent.run` returns, and `Agent.stream` ends with (`Done`).
   *
   * @since 0.1.0
   * @category models
   */
  AgentResult,
  /**
   * One executed call. `response` is exactly what the model was sent for it.
   *
   * @since 0.1.0
   * @category models
   */
  CallRecord,
  /**
   * Why a run ended without an error.
   *
   * @since 0.1.0
   * @category models
   */
  StopReason,
  /**
   * What `Agent.run` returns when it was given `output`: the result and the decoded final answer.
   *
   * @since 0.2.0
   * @category models
   */
  Typed
} from "./AgentResult.js"
export {
  /**
   * The default `firstByteTimeout`: 2 minutes until a streamed answer's first part (thinking models are slow to start).
   *
   * @since 0.2.0
   * @category constants
   */
  defaultFirstByteTimeout,
  /**
   * The default `idleTimeout`: 1 minute without a part once a stream has started.
   *
   * @since 0.2.0
   * @category constants
   */
  defaultIdleTimeout,
  /**
   * The default `maxTurns`: 10 model turns.
   *
   * @since 0.1.0
   * @category constants
   */
  defaultMaxTurns,
  /**
   * The default `runTimeout`: 15 minutes of waiting on the model in all, over every request and retry wait of a run.
   *
   * @since 0.2.0
   * @category constants
   */
  defaultRunTimeout,
  /**
   * The default `turnTimeout`: 10 minutes for a whole model request, so that a slow but healthy answer finishes.
   *
   * @since 0.1.0
   * @category constants
   */
  defaultTurnTimeout
} from "./internal/run.js"

/**
 * Options of a run. Only `registry` is required, and one of `prompt` or `history`.
 *
 * @example
 * ```ts
 * import { Agent, Registry, StopCondition } from "@agentfx/core"
 * import { Duration, Effect } from "effect"
 *
 * const options: Agent.Options<never> = {
 *   registry: Registry.empty,
 *   system: "Answer in one sentence.",
 *   prompt: "Weather in Oslo?",
 *   maxTurns: 5,
 *   idleTimeout: "30 seconds",
 *   stopWhen: [StopCondition.repeatedCall(3)],
 *   // runs as each call finishes, before the turn's answers go back to the model
 *   onCallFinished: (call) => Effect.logInfo(`${call.name} took ${Duration.format(call.duration)}`)
 * }
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<R> {
  /** The tools the model may call; their declarations are sent with every request. */
  readonly registry: Registry<R>
  /** The new user message, as text or a whole turn. Without it, the run continues `history` (e.g. after `MaxTurns`). */
  readonly prompt?: string | Turn | undefined
  /** The conversation so far (validated before anything is sent). The result's transcript continues it. */
  readonly history?: Transcript | undefined
  /** The system instruction. */
  readonly system?: string | undefined
  /** Model turns before the run stops with `MaxTurns` (a result, not an error); default 10. */
  readonly maxTurns?: number | undefined
  /** Handlers running at once: a bound (default 10), `"unbounded"`, or `"sequential"` (one by one). */
  readonly concurrency?: Executor.BatchOptions["concurrency"]
  /** Timeout for tools that set none of their own; default none. */
  readonly toolTimeout?: Duration.DurationInput | undefined
  /**
   * The most one model request may take, from sending it to its last part, streamed or not; default 10 minutes.
   * Hitting it is a retryable `ModelTimeout` with `limit: "turn"`.
   */
  readonly turnTimeout?: Duration.DurationInput | undefined
  /**
   * Streamed requests only: the most to wait for the first part; default 2 minutes. Hitting it is a retryable
   * `ModelTimeout` with `limit: "firstByte"`.
   */
  readonly firstByteTimeout?: Duration.DurationInput | undefined
  /**
   * Streamed requests only: the most to wait between two parts, so a stalled stream is cut while a slow healthy
   * one goes on; default 1 minute. Hitting it is a retryable `ModelTimeout` with `limit: "idle"`.
   */
  readonly idleTimeout?: Duration.DurationInput | undefined
  /**
   * The most the run may wait on the model in all: every request and every retry wait, of every turn, added up;
   * default 15 minutes. Time tools run (and approvals wait) does not count: a run that legitimately calls slow tools
   * is not cut by a bound on a model that does not answer (bound tools with `toolTimeout`). Reaching it fails the run
   * with a `ModelTimeout` with `limit: "run"`, which is not retried; a retry that could not start before it is not
   * waited for, and the run fails at once with the error that asked for it. A `Chat` gives each message its own.
   */
  readonly runTimeout?: Duration.DurationInput | undefined
  /** How retryable model errors are retried (default `Retry.defaultPolicy`, which honours `retryAfter` up to 60 s). */
  readonly retry?: Policy | undefined
  /**
   * Runs in the run's fiber after each failed model request, before any wait: to show or log retries (attempt,
   * `maxAttempts`, `retryIn`) without following `stream`. The same event `stream` emits. It cannot fail.
   *
   * @example
   * Agent.run({ registry, prompt, onAttemptFailed: (failed) => Effect.logWarning(`attempt ${failed.attempt} failed: ${failed.error.message}`) })
   */
  readonly onAttemptFailed?: ((failed: AttemptFailed) => Effect.Effect<void>) | undefined
  /**
   * When the model botches a function call (a `MalformedResponse` with `malformedCall`, e.g. Gemini's
   * `MALFORMED_FUNCTION_CALL`): `"feedback"` (default) retries with a note telling the model its call was malformed
   * and why (the note is part of the retried request only, not of the transcript); `"retry"` retries the same
   * request; `"fail"` fails the run at once. Retries count against `retry` like any other.
   */
  readonly onMalformedCall?: "feedback" | "retry" | "fail" | undefined
  /** Which calls the model may make (passed to the model). */
  readonly toolChoice?: ToolChoice | undefined
  /** Sampling temperature; default none sent, so the provider's own default applies (reasoning models want theirs). */
  readonly temperature?: number | undefined
  /** The most tokens the model may produce per turn. */
  readonly maxOutputTokens?: number | undefined
  /** Conditions checked after each turn's calls were answered; the first, in this order, that says stop decides. */
  readonly stopWhen?: ReadonlyArray<StopCondition> | undefined
  /**
   * The Schema of the final answer: the model's last turn (the one without calls) must be JSON that decodes with
   * it, and the result's `output` is the decoded value (see `Output`). An answer that does not decode is sent back
   * with what failed, at which path, up to `maxOutputRetries` times; then the run fails with `OutputInvalid`. A run
   * that stops before a final answer (`maxTurns`, a stop condition) fails with `OutputMissing`.
   */
  readonly output?: Schema.Schema.AnyNoContext | undefined
  /** Corrections of a final answer that does not decode with `output`, before `OutputInvalid`; default 2. */
  readonly maxOutputRetries?: number | undefined
  /** `"feedback"` (default): tool errors go back to the model so it can correct itself; `"fail"`: the run fails with the first. */
  readonly onToolError?: "feedback" | "fail" | undefined
  /** Limits on untrusted arguments (depth, values, characters), checked before any decoding. */
  readonly limits?: Executor.Options["limits"]
  /** Use the model's `stream` rather than `generate` (default false for `run`, true for `stream`). */
  readonly streaming?: boolean | undefined
  /**
   * Runs in the run's fiber as each call finishes, before the turn's answers go back to the model: to log or store
   * calls as they happen, so none is lost when the run fails later. Cheaper than following `stream` for that alone
   * (a stream has a fixed cost of several turns). It cannot fail; a slow one holds up its turn.
   */
  readonly onCallFinished?: ((call: CallRecord) => Effect.Effect<void, never, R>) | undefined
  /**
   * Receives every event of the run as it happens, text deltas included, then `Done` with the result: the same
   * sequence `Agent.stream` emits, for a UI that needs no Stream (a Stream run has a fixed cost of several loop
   * steps; this has none beyond building the events). With it the model is streamed unless `streaming` is false.
   * It is called in the run's fiber and should return quickly. If it throws, it is called no more and the run dies
   * with what it threw, at the next model turn, chunk of a model stream, or the run's end.
   *
   * @since 0.2.0
   */
  readonly onEvent?: ((event: AgentEvent) => void) | undefined
}

/**
 * What a run can fail with: a model error that retries did not cure, a history that breaks the transcript
 * invariants, (with `onToolError: "fail"`) a tool error, or (with `output`) a final answer that did not decode or
 * never came.
 *
 * @since 0.1.0
 * @category errors
 */
export type AgentError = ModelError | TranscriptViolation | ToolError | OutputInvalid | OutputMissing

/**
 * Runs the conversation to its end and returns the result. With `output` (an Effect Schema) the result also carries
 * `output`, the final answer decoded and typed (`Typed`).
 *
 * @example
 * ```ts
 * import { Agent, Registry } from "@agentfx/core"
 * import { Scripted } from "@agentfx/core/testing"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const registry = yield* Registry.fromFunctions({ add: ({ a, b }) => Number(a) + Number(b) })
 *   return yield* Agent.run({ registry, prompt: "What is 2 + 3?" })
 * })
 *
 * const model = Scripted.layer([{ calls: [{ name: "add", args: { a: 2, b: 3 } }] }, { text: "5" }])
 * Effect.runPromise(program.pipe(Effect.provide(model))).then((result) => console.log(result.text)) // "5"
 * ```
 *
 * @since 0.1.0
 * @category running
 */
export function run<R, S extends Schema.Schema.AnyNoContext>(
  options: Options<R> & { readonly output: S }
): Effect.Effect<Typed<Schema.Schema.Type<S>>, AgentError, LanguageModel | R>
export function run<R>(options: Options<R>): Effect.Effect<AgentResult, AgentError, LanguageModel | R>
export function run<R>(options: Options<R>): Effect.Effect<AgentResult, AgentError, LanguageModel | R> {
  return loop(options)
}

/**
 * The same run as an Effect Stream of events, ending with `Done`. The model is streamed, so text arrives as
 * `TextDelta`s. Stopping the stream early interrupts the run, including any running tools. Running a Stream has a
 * fixed cost of several loop steps, which weighs on short runs: a UI that only needs the events can take the same
 * sequence through `onEvent` on `Agent.run`.
 *
 * @example
 * ```ts
 * import { Agent, Registry } from "@agentfx/core"
 * import { Scripted } from "@agentfx/core/testing"
 * import { Console, Effect, Stream } from "effect"
 *
 * const program = Agent.stream({ registry: Registry.empty, prompt: "Say hello" }).pipe(
 *   Stream.runForEach((event) => (event._tag === "TextDelta" ? Console.log(event.text) : Effect.void))
 * )
 *
 * Effect.runPromise(program.pipe(Effect.provide(Scripted.layer([{ text: "Hello there!" }]))))
 * ```
 *
 * @since 0.1.0
 * @category running
 */
export function stream<R, S extends Schema.Schema.AnyNoContext>(
  options: Options<R> & { readonly output: S }
): Stream.Stream<AgentEvent<Schema.Schema.Type<S>>, AgentError, LanguageModel | R>
export function stream<R>(options: Options<R>): Stream.Stream<AgentEvent, AgentError, LanguageModel | R>
export function stream<R>(options: Options<R>): Stream.Stream<AgentEvent, AgentError, LanguageModel | R> {
  return loopStream(options)
}
