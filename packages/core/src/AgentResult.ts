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

/** One executed call. `response` is exactly what the model was sent for it. */
export interface CallRecord {
  readonly id: string
  readonly name: string
  readonly args: JsonObject
  readonly result: Either.Either<unknown, ToolError>
  readonly response: FunctionResponse
  readonly duration: Duration.Duration
  /** The model turn (1-based, within this run) that asked for it. */
  readonly turn: number
}

export type StopReason =
  /** The model answered without calls. */
  | { readonly _tag: "Finished" }
  /** `maxTurns` model turns were used; the last turn's calls were executed and answered. */
  | { readonly _tag: "MaxTurns"; readonly maxTurns: number }
  | { readonly _tag: "ToolCalled"; readonly name: string }
  | { readonly _tag: "RepeatedCall"; readonly name: string; readonly times: number }

export interface AgentResult {
  /** Text of the last model turn. */
  readonly text: string
  readonly calls: ReadonlyArray<CallRecord>
  /** Model turns used by this run. */
  readonly turns: number
  readonly stopReason: StopReason
  /** The whole transcript, history included; valid and resumable whatever the stop reason. */
  readonly transcript: Transcript
  readonly usage: Usage
}
