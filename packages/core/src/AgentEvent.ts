/**
 * What `Agent.stream` emits, in order: for each model turn `TurnStarted`, its deltas, `TurnFinished`, then for
 * each call `CallStarted` and `CallFinished` (in completion order); finally `Done` with the same result
 * `Agent.run` returns. `AttemptFailed` says a model request failed (and may be retried): a UI should drop the
 * deltas it showed for that attempt.
 *
 * @since 0.1.0
 */
import type { AgentResult, CallRecord } from "./AgentResult.js"
import type { FunctionCall } from "./FunctionCall.js"
import type { Response } from "./LanguageModel.js"
import type { ModelError } from "./ModelError.js"

export type AgentEvent =
  | { readonly _tag: "TurnStarted"; readonly turn: number }
  | { readonly _tag: "TextDelta"; readonly turn: number; readonly text: string }
  | { readonly _tag: "ReasoningDelta"; readonly turn: number; readonly text: string }
  | { readonly _tag: "AttemptFailed"; readonly turn: number; readonly error: ModelError }
  | { readonly _tag: "TurnFinished"; readonly turn: number; readonly response: Response }
  | { readonly _tag: "CallStarted"; readonly turn: number; readonly call: FunctionCall }
  | { readonly _tag: "CallFinished"; readonly turn: number; readonly record: CallRecord }
  | { readonly _tag: "Done"; readonly result: AgentResult }
