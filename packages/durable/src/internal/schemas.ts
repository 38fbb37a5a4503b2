/**
 * Schemas of what a durable run records: a model turn's accepted response, a handler's outcome, the run's result
 * and its error. Each step is stored encoded with one of these, so a replay hands back exactly what was recorded.
 */
import type { Json } from "@agentfx/core"
import { LanguageModel, ModelError, Output, ToolError, Transcript, Turn } from "@agentfx/core"
import * as Schema from "effect/Schema"

/** A model turn as the loop accepted it. */
export const Response = Schema.Struct({
  turn: Turn.Turn,
  finishReason: LanguageModel.FinishReason,
  usage: LanguageModel.Usage
})

/** The arguments of a call, as the model sent them. */
export type Args = Json.JsonObject

/** A JSON object (arguments, a response). */
export const JsonRecord = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** A call's answer as the model is sent it. */
export const FunctionResponse = Schema.Struct({
  _tag: Schema.Literal("FunctionResponse"),
  id: Schema.String,
  name: Schema.String,
  response: JsonRecord,
  isError: Schema.Boolean,
  metadata: Schema.optional(JsonRecord)
})

/** Why a handler produced no result (the executor's `HandlerFailure`). */
export const HandlerFailure = Schema.Struct({ cause: Schema.Unknown, defect: Schema.Boolean })

/** One executed call of the result. */
export const CallRecord = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  args: JsonRecord,
  result: Schema.Either({ right: Schema.Unknown, left: ToolError.ToolError }),
  response: FunctionResponse,
  duration: Schema.DurationFromMillis,
  turn: Schema.Number
})

/** Why a run ended without an error. */
export const StopReason = Schema.Union(
  Schema.TaggedStruct("Finished", {}),
  Schema.TaggedStruct("MaxTurns", { maxTurns: Schema.Number }),
  Schema.TaggedStruct("ToolCalled", { name: Schema.String }),
  Schema.TaggedStruct("RepeatedCall", { name: Schema.String, times: Schema.Number })
)

/** What a finished run hands back (`AgentResult`). */
export const AgentResult = Schema.Struct({
  text: Schema.String,
  calls: Schema.Array(CallRecord),
  turns: Schema.Number,
  stopReason: StopReason,
  transcript: Transcript.Transcript,
  usage: LanguageModel.Usage
})

/** What a run can fail with (`AgentError`; a durable run has no typed output, but the union is the core's). */
export const AgentError = Schema.Union(ModelError.ModelError, Transcript.TranscriptViolation, ToolError.ToolError, Output.OutputInvalid, Output.OutputMissing)

/** A call as events and approvals show it. */
export const CallSummary = Schema.Struct({ id: Schema.String, name: Schema.String, args: JsonRecord })

/** The workflow's payload: the run id, and what the run starts from. */
export const Payload = {
  runId: Schema.String,
  prompt: Schema.optional(Schema.Union(Schema.String, Turn.Turn)),
  history: Schema.optional(Transcript.Transcript)
}

/** An approval's answer, as the durable deferred carries it. */
export const Decision = Schema.Union(
  Schema.Struct({ approved: Schema.Literal(true) }),
  Schema.Struct({ approved: Schema.Literal(false), reason: Schema.String })
)
