/**
 * What a run hands back: the final text, every call with its outcome, why it stopped, the transcript and the
 * usage summed over all model turns.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import type * as Either from "effect/Either"
import type { FunctionResponse } from "./FunctionResponse.js"
import type { JsonObject } from "./Json.js"
import type { Usage } from "./LanguageModel.js"
import type { ToolError } from "./ToolError.js"
import type { Transcript } from "./Transcript.js"

/**
 * One executed call. `response` is exactly what the model was sent for it.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallRecord {
  /** The call's id, as in the transcript. */
  readonly id: string
  /** The tool's name. */
  readonly name: string
  /** The arguments as the model sent them (before decoding). */
  readonly args: JsonObject
  /** The handler's result as JSON, or the typed error that took its place. */
  readonly result: Either.Either<unknown, ToolError>
  readonly response: FunctionResponse
  /** How long the call took, decoding and approval included. */
  readonly duration: Duration.Duration
  /** The model turn (1-based, within this run) that asked for it. */
  readonly turn: number
}

/**
 * Why a run ended without an error.
 *
 * @since 0.1.0
 * @category models
 */
export type StopReason =
  /** The model answered without calls. */
  | { readonly _tag: "Finished" }
  /** `maxTurns` model turns were used; the last turn's calls were executed and answered. */
  | { readonly _tag: "MaxTurns"; readonly maxTurns: number }
  /** `StopCondition.toolCalled(name)`: the tool was called (and answered). */
  | { readonly _tag: "ToolCalled"; readonly name: string }
  /** `StopCondition.repeatedCall(times)`: the same call, same arguments, was made `times` times in a row. */
  | { readonly _tag: "RepeatedCall"; readonly name: string; readonly times: number }

/**
 * What `Agent.run` returns, and `Agent.stream` ends with (`Done`).
 *
 * @since 0.1.0
 * @category models
 */
export interface AgentResult {
  /** Text of the last model turn. */
  readonly text: string
  /** Every call executed, in turn order and, within a turn, in the model's order. */
  readonly calls: ReadonlyArray<CallRecord>
  /** Model turns used by this run. */
  readonly turns: number
  readonly stopReason: StopReason
  /** The whole transcript, history included; valid and resumable whatever the stop reason. */
  readonly transcript: Transcript
  /** Tokens summed over the run's model turns. */
  readonly usage: Usage
  /** The decoded final answer, when the run was given `output` (see `Typed`). */
  readonly output?: unknown
}

/**
 * What `Agent.run` returns when given `output`: the result, with the final answer decoded by the output Schema.
 *
 * @example
 * ```ts
 * import { Agent, Registry } from "@agentfx/core"
 * import { Scripted } from "@agentfx/core/testing"
 * import { Effect, Schema } from "effect"
 *
 * const Answer = Schema.Struct({ city: Schema.String, celsius: Schema.Number })
 *
 * const program = Effect.gen(function* () {
 *   const result: Agent.Typed<typeof Answer.Type> = yield* Agent.run({ registry: Registry.empty, prompt: "Weather in Oslo?", output: Answer })
 *   return [result.output.celsius, result.turns] as const
 * })
 *
 * const model = Scripted.layer([{ text: '{"city": "Oslo", "celsius": 7}' }])
 * Effect.runPromise(program.pipe(Effect.provide(model))).then(console.log) // [ 7, 1 ]
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface Typed<A> extends AgentResult {
  readonly output: A
}
