/**
 * The agent loop: send the transcript and declarations, execute the calls the model asks for, answer them, and
 * repeat until the model answers without calls (or a stop condition, or `maxTurns`).
 *
 * @example
 * const result = yield* Agent.run({ registry, system: "You are helpful.", prompt: "Weather in Oslo?" })
 * result.text          // the answer
 * result.calls         // every call: args, result or error, duration, turn
 * result.stopReason    // { _tag: "Finished" } | MaxTurns | ToolCalled | RepeatedCall
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { AgentEvent } from "./AgentEvent.js"
import type { AgentResult } from "./AgentResult.js"
import type { LoopError, LoopOptions } from "./internal/loop.js"
import { defaultMaxTurns, defaultTurnTimeout, loop, loopStream } from "./internal/loop.js"
import type { LanguageModel } from "./LanguageModel.js"

export type { AgentEvent } from "./AgentEvent.js"
export type { AgentResult, CallRecord, StopReason } from "./AgentResult.js"
export { defaultMaxTurns, defaultTurnTimeout }

/**
 * Options of a run.
 *
 * - `registry`: the tools the model may call (their declarations are sent every turn).
 * - `prompt`: the new user message (text or a turn); `history`: the transcript so far. At least one is needed.
 * - `system`: the system instruction.
 * - `maxTurns` (default 10): model turns before the run stops with `MaxTurns` (a result, not an error).
 * - `concurrency` (default 10): handlers running at once; `"sequential"` runs them one by one.
 * - `toolTimeout` (default none; a tool's own timeout wins); `turnTimeout` (default 15 s) per model request.
 * - `retry` (default `Retry.defaultPolicy`): schedule for retryable model errors; honours `retryAfter`.
 * - `toolChoice`, `temperature` (default 0), `maxOutputTokens`: passed to the model.
 * - `stopWhen`: `StopCondition`s checked after each turn's calls were answered.
 * - `onToolError` (default `"feedback"`): send tool errors back to the model, or `"fail"` the run with them.
 * - `limits`: limits on untrusted arguments.
 * - `streaming` (default false for `run`): use the model's `stream` rather than `generate`.
 */
export interface Options<R> extends LoopOptions<R> {}

export type AgentError = LoopError

/** Runs the conversation to its end and returns the result. */
export const run = <R>(options: Options<R>): Effect.Effect<AgentResult, AgentError, LanguageModel | R> => loop(options)

/**
 * The same run as a stream of events for UIs, ending with `Done`. The model is streamed, so text arrives as
 * `TextDelta`s. Stopping the stream early interrupts the run, including any running tools.
 */
export const stream = <R>(options: Options<R>): Stream.Stream<AgentEvent, AgentError, LanguageModel | R> => loopStream(options)
