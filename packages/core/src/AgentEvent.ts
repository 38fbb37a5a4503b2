/**
 * What `Agent.stream` emits, in order: for each model turn `TurnStarted`, its deltas, `TurnFinished`, then for
 * each call `CallStarted` and `CallFinished` (in completion order); finally `Done` with the same result
 * `Agent.run` returns. `AttemptFailed` says a model request failed (and whether it is retried): a UI should drop the
 * deltas it showed for that attempt. A run given `output` also emits `OutputDelta` after each text delta that reads
 * as (the start of) JSON, and for each final answer `OutputDecoded` (the value; then `Done`) or `OutputRejected`
 * (what failed; a correction follows when `willRetry`).
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import type { AgentResult, CallRecord } from "./AgentResult.js"
import type { FunctionCall } from "./FunctionCall.js"
import type { Response } from "./LanguageModel.js"
import type { ModelError } from "./ModelError.js"
import type { Issue } from "./Output.js"

/**
 * One event of a run; `turn` is the model turn (1-based, within the run) it belongs to.
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
 * @category models
 */
export type AgentEvent<A = unknown> =
  /** A model request is about to be sent. */
  | { readonly _tag: "TurnStarted"; readonly turn: number }
  /** A piece of the model's answer text, as it streams. */
  | { readonly _tag: "TextDelta"; readonly turn: number; readonly text: string }
  /** A piece of the model's visible reasoning, as it streams. */
  | { readonly _tag: "ReasoningDelta"; readonly turn: number; readonly text: string }
  /**
   * A request failed; the deltas shown for it are void. `willRetry`: the retry policy sends it again after `retryIn`
   * (false for the last attempt, for an error that is not retried, and for a retry that could not start before the
   * run's `runTimeout`: the run then fails with `error`). `attempt` counts the turn's requests from 1; `maxAttempts`
   * is the most the policy makes, when it says (`Retry.maxAttempts`).
   */
  | AttemptFailed
  /** The model's answer for the turn, complete and appended to the transcript. */
  | { readonly _tag: "TurnFinished"; readonly turn: number; readonly response: Response }
  /** A call's arguments were read and its handler starts. */
  | { readonly _tag: "CallStarted"; readonly turn: number; readonly call: FunctionCall }
  /** A call finished, with its outcome and the response the model is sent. */
  | { readonly _tag: "CallFinished"; readonly turn: number; readonly record: CallRecord }
  /**
   * Typed output: the final answer as parsed so far, best effort (complete members, the string being written), after a
   * text delta; the turn may still turn out to call tools, or not to decode.
   */
  | { readonly _tag: "OutputDelta"; readonly turn: number; readonly partial: unknown }
  /** Typed output: the final answer, decoded by the output Schema (the result's `output`). */
  | { readonly _tag: "OutputDecoded"; readonly turn: number; readonly value: A }
  /**
   * Typed output: the final answer did not decode; `attempt` counts the final answers so far. With `willRetry` a
   * correction saying what failed is appended and the model asked again; else the run fails with `OutputInvalid`.
   */
  | { readonly _tag: "OutputRejected"; readonly turn: number; readonly issues: ReadonlyArray<Issue>; readonly attempt: number; readonly willRetry: boolean }
  /** The run's end: the result `Agent.run` would return. Always the last event of a run that did not fail. */
  | { readonly _tag: "Done"; readonly result: AgentResult }

/**
 * The event of a failed model request, e.g. for a status line: `retrying (attempt 2/4, next in 3 s)`.
 *
 * @since 0.2.0
 * @category models
 */
export interface AttemptFailed {
  readonly _tag: "AttemptFailed"
  readonly turn: number
  readonly error: ModelError
  readonly willRetry: boolean
  /** The request of the turn that failed, from 1. */
  readonly attempt: number
  /** The most requests the retry policy makes per turn, when it says; undefined for a hand-made Schedule. */
  readonly maxAttempts: number | undefined
  /** The wait before the next attempt, when `willRetry`. */
  readonly retryIn: Duration.Duration | undefined
}
