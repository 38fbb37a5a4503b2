/**
 * Chat completions → neutral `Response`: a whole completion, or stream chunks accumulated. Tool-call deltas are
 * joined by `index` (the first fragment carries id and name, later ones pieces of `arguments`); a delta without
 * an index continues the last call unless it brings a new id. A call is announced once, complete, when the next
 * call starts or the stream ends.
 */
import type { LanguageModel, Transcript } from "@agentfx/core"
import type { FunctionCall } from "@agentfx/core"
import { ModelError, Turn } from "@agentfx/core"
import * as Either from "effect/Either"
import type { IdSource } from "../ids.js"
import * as ids from "../ids.js"
import * as neutral from "../parts.js"
import * as codec from "./codec.js"
import type * as Wire from "./wire.js"

type StreamPart = LanguageModel.StreamPart

const finishError = (reason: string | null | undefined): ModelError.ModelError | undefined => {
  if (reason === undefined || reason === null) return undefined
  if (codec.blockedReasons.has(reason)) return new ModelError.Blocked({ message: `the answer was blocked (finish_reason ${reason})` })
  if (reason === "network_error") return new ModelError.Unavailable({ message: "the server reported a network error (finish_reason network_error)" })
  return undefined
}

/** A whole completion → the neutral response. */
export const decodeCompletion = (
  transcript: Transcript.Transcript,
  completion: Wire.Completion
): Either.Either<LanguageModel.Response, ModelError.ModelError> => {
  const choice = completion.choices[0]
  if (choice === undefined) return Either.left(new ModelError.MalformedResponse({ message: "the completion has no choices" }))
  const error = finishError(choice.finish_reason)
  if (error !== undefined) return Either.left(error)
  const reserved = (choice.message.tool_calls ?? []).flatMap((call) => (call.id ? [call.id] : []))
  const turn = codec.decodeAssistant(choice.message, ids.idSourceAfter(codec.syntheticPrefix, transcript, reserved))
  return Either.right({
    turn,
    finishReason: codec.decodeFinishReason(choice.finish_reason, Turn.calls(turn).length > 0),
    usage: codec.decodeUsage(completion.usage)
  })
}

interface Slot {
  id: string | undefined
  name: string
  arguments: string
  call: FunctionCall.FunctionCall | undefined
}

/** Accumulates stream chunks into the model turn. */
export class Accumulator {
  private reasoning: string | undefined
  private content: string | undefined
  private readonly slots: Array<Slot> = []
  private readonly byIndex = new Map<number, Slot>()
  private finishReason: string | null | undefined
  private usage: Wire.Usage | null | undefined
  private readonly ids: IdSource

  constructor(transcript: Transcript.Transcript) {
    this.ids = ids.idSourceAfter(codec.syntheticPrefix, transcript, [])
  }

  push(chunk: Wire.Chunk): Either.Either<Array<StreamPart>, ModelError.ModelError> {
    if (chunk.usage !== undefined && chunk.usage !== null) this.usage = chunk.usage
    const choice = chunk.choices?.[0]
    if (choice === undefined) return Either.right([])
    const deltas: Array<StreamPart> = []
    const delta = choice.delta
    if (typeof delta?.reasoning_content === "string" && delta.reasoning_content !== "") {
      this.reasoning = (this.reasoning ?? "") + delta.reasoning_content
      deltas.push({ _tag: "ReasoningDelta", text: delta.reasoning_content })
    }
    if (typeof delta?.content === "string") {
      this.content = (this.content ?? "") + delta.content
      if (delta.content !== "") deltas.push({ _tag: "TextDelta", text: delta.content })
    }
    for (const fragment of delta?.tool_calls ?? []) this.addFragment(fragment, deltas)
    if (choice.finish_reason !== undefined && choice.finish_reason !== null) this.finishReason = choice.finish_reason
    return Either.right(deltas)
  }

  private addFragment(fragment: Wire.ChunkToolCall, deltas: Array<StreamPart>): void {
    const id = fragment.id ?? undefined
    const last = this.slots[this.slots.length - 1]
    let slot: Slot | undefined
    if (fragment.index !== undefined && fragment.index !== null) {
      slot = this.byIndex.get(fragment.index)
      if (slot === undefined) {
        slot = this.open(deltas)
        this.byIndex.set(fragment.index, slot)
      }
    } else if (last === undefined || (id !== undefined && id !== "" && last.id !== undefined && last.id !== id)) {
      slot = this.open(deltas)
    } else {
      slot = last
    }
    if (id !== undefined && id !== "" && slot.id === undefined) slot.id = id
    const name = fragment.function?.name
    if (typeof name === "string" && name !== "" && slot.name === "") slot.name = name
    const piece = fragment.function?.arguments
    if (typeof piece === "string") slot.arguments += piece
  }

  /** A new call starts: every earlier one is complete. */
  private open(deltas: Array<StreamPart>): Slot {
    this.announce(deltas)
    const slot: Slot = { id: undefined, name: "", arguments: "", call: undefined }
    this.slots.push(slot)
    return slot
  }

  private announce(deltas: Array<StreamPart>): void {
    this.slots.forEach((slot, position) => {
      if (slot.call !== undefined) return
      const { args, metadata } = codec.parseArguments(slot.arguments)
      slot.call = neutral.functionCall({
        id: slot.id ?? this.ids.next(position),
        name: slot.name,
        args,
        ...(metadata === undefined ? {} : { metadata })
      })
      deltas.push({ _tag: "CallDelta", call: slot.call })
    })
  }

  /** The calls still unannounced, then the aggregated response (or the error the finish reason means). */
  finish(): Either.Either<{ readonly deltas: Array<StreamPart>; readonly response: LanguageModel.Response }, ModelError.ModelError> {
    const error = finishError(this.finishReason)
    if (error !== undefined) return Either.left(error)
    const deltas: Array<StreamPart> = []
    this.announce(deltas)
    const parts: Array<Turn.Part> = []
    if (this.reasoning !== undefined) parts.push(neutral.reasoning(this.reasoning))
    if (this.content !== undefined) parts.push(neutral.text(this.content))
    for (const slot of this.slots) parts.push(slot.call!)
    const turn: Turn.Turn = { role: "model", parts }
    return Either.right({
      deltas,
      response: {
        turn,
        finishReason: codec.decodeFinishReason(this.finishReason, this.slots.length > 0),
        usage: codec.decodeUsage(this.usage)
      }
    })
  }
}
