/**
 * A Gemini Live server message → the neutral `LiveModel.Event`s it holds, in the order the interface promises:
 * text, transcriptions, calls, cancellations, usage, then interrupted / generation complete / turn complete, then
 * go-away and resumption updates. A call the server sent without an id cannot be answered, so it is malformed.
 */
import type { FunctionCall, LiveModel } from "@agentfx/core"
import { ModelError } from "@agentfx/core"
import * as Either from "effect/Either"
import { parseDelay } from "../gemini/errors.js"
import * as neutral from "../parts.js"
import type * as Wire from "./wire.js"

type Event = LiveModel.Event

const usageOf = (usage: NonNullable<Wire.ServerMessage["usageMetadata"]>) => {
  const input = usage.promptTokenCount ?? 0
  const thoughts = usage.thoughtsTokenCount
  const output = (usage.responseTokenCount ?? usage.candidatesTokenCount ?? 0) + (thoughts ?? 0)
  return {
    inputTokens: input,
    outputTokens: output,
    totalTokens: usage.totalTokenCount ?? input + output,
    ...(thoughts === undefined ? {} : { reasoningTokens: thoughts }),
    ...(usage.cachedContentTokenCount === undefined ? {} : { cachedTokens: usage.cachedContentTokenCount })
  }
}

/** The events of one server message, or why it cannot be used. */
export const eventsOf = (message: Wire.ServerMessage): Either.Either<Array<Event>, ModelError.MalformedResponse> => {
  const events: Array<Event> = []
  const content = message.serverContent
  for (const part of content?.modelTurn?.parts ?? []) {
    // Thoughts are the model's own notes: a live text session shows only what it says.
    if (typeof part.text === "string" && part.text !== "" && part.thought !== true) events.push({ _tag: "TextDelta", text: part.text })
  }
  if (content?.inputTranscription?.text !== undefined) events.push({ _tag: "Transcription", direction: "input", text: content.inputTranscription.text })
  if (content?.outputTranscription?.text !== undefined) events.push({ _tag: "Transcription", direction: "output", text: content.outputTranscription.text })
  const wireCalls = message.toolCall?.functionCalls ?? []
  if (wireCalls.length > 0) {
    const calls: Array<FunctionCall.FunctionCall> = []
    for (const call of wireCalls) {
      if (call.id === undefined || call.id === "") {
        return Either.left(new ModelError.MalformedResponse({ message: `the server asked for "${call.name}" without an id, so it cannot be answered` }))
      }
      calls.push(neutral.functionCall({ id: call.id, name: call.name, args: call.args ?? {} }))
    }
    events.push({ _tag: "ToolCall", calls })
  }
  const cancelled = message.toolCallCancellation?.ids ?? []
  if (cancelled.length > 0) events.push({ _tag: "ToolCallCancellation", ids: cancelled })
  if (message.usageMetadata !== undefined) events.push({ _tag: "Usage", usage: usageOf(message.usageMetadata) })
  if (content?.interrupted === true) events.push({ _tag: "Interrupted" })
  if (content?.generationComplete === true) events.push({ _tag: "GenerationComplete" })
  if (content?.turnComplete === true) {
    const reason = content.turnCompleteReason
    events.push(reason === undefined || reason === "TURN_COMPLETE_REASON_UNSPECIFIED" ? { _tag: "TurnComplete" } : { _tag: "TurnComplete", reason })
  }
  if (message.goAway !== undefined) {
    const timeLeft = parseDelay(message.goAway.timeLeft)
    if (timeLeft === undefined) return Either.left(new ModelError.MalformedResponse({ message: `goAway with an unreadable timeLeft ${JSON.stringify(message.goAway.timeLeft)}` }))
    events.push({ _tag: "GoAway", timeLeft })
  }
  const update = message.sessionResumptionUpdate
  if (update !== undefined) {
    const resumable = update.resumable === true && update.newHandle !== undefined && update.newHandle !== ""
    events.push({ _tag: "ResumptionUpdate", handle: resumable ? update.newHandle : undefined, resumable })
  }
  return Either.right(events)
}
