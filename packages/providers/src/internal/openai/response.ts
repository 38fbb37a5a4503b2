/**
 * Chat completions → neutral `Response`: a whole completion, or stream chunks accumulated. Tool-call deltas are
 * joined by `index` (the first fragment carries id and name, later ones pieces of `arguments`), defensively: see
 * `addFragment`. Calls are announced once, complete, when the stream ends — fragments of several calls may
 * interleave until then.
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
  // Stryker disable next-line ConditionalExpression,LogicalOperator: without it, neither check below matches undefined or null; it is there for the types
  if (reason === undefined || reason === null) return undefined
  if (codec.blockedReasons.has(reason)) return new ModelError.Blocked({ message: `the answer was blocked (finish_reason ${reason})` })
  if (reason === "network_error") return new ModelError.Unavailable({ message: "the server reported a network error (finish_reason network_error)" })
  return undefined
}

/**
 * Some OpenAI-compatible servers reuse call ids across turns (`call_0` every turn), which would break the
 * transcript's unique ids. Chat completions pairs a tool message only with the assistant message right before it,
 * so such a call just gets a fresh id, which is what is sent back for it.
 */
const freshIds = (turn: Turn.Turn, transcript: Transcript.Transcript, source: IdSource): Turn.Turn => {
  const seen = ids.idsOf(transcript)
  const parts = turn.parts.map((part, position) => {
    if (part._tag !== "FunctionCall") return part
    if (!seen.has(part.id)) {
      seen.add(part.id)
      return part
    }
    const id = source.next(position)
    seen.add(id)
    return { ...part, id }
  })
  return { ...turn, parts }
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
  // Stryker disable next-line ArrayDeclaration: reserving an id no call holds changes nothing (the synthetic ids never match it)
  const reserved = (choice.message.tool_calls ?? []).flatMap((call) => (call.id ? [call.id] : []))
  const source = ids.idSourceAfter(codec.syntheticPrefix, transcript, reserved)
  const turn = freshIds(codec.decodeAssistant(choice.message, source), transcript, source)
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

  constructor(private readonly transcript: Transcript.Transcript) {
    // Stryker disable next-line ArrayDeclaration: reserving an id no call holds changes nothing (the synthetic ids never match it)
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
    for (const fragment of delta?.tool_calls ?? []) this.addFragment(fragment)
    if (choice.finish_reason !== undefined && choice.finish_reason !== null) this.finishReason = choice.finish_reason
    return Either.right(deltas)
  }

  /**
   * Adds one tool-call fragment to its call. A fragment belongs to the call of its `index`, but servers get this
   * wrong in the wild: some give every parallel call index 0, some give no index at all. So a fragment whose id
   * differs from its slot's id starts a new call, and without an index a fragment that names a function while the
   * last call already has a name starts one too (unless it repeats that call's id). Calls are only built in `finish`, once every fragment is in.
   */
  private addFragment(fragment: Wire.ChunkToolCall): void {
    const id = fragment.id === null || fragment.id === "" ? undefined : fragment.id
    const name = typeof fragment.function?.name === "string" && fragment.function.name !== "" ? fragment.function.name : undefined
    const differentId = (slot: Slot) => id !== undefined && slot.id !== undefined && slot.id !== id
    let slot: Slot | undefined
    if (fragment.index !== undefined && fragment.index !== null) {
      slot = this.byIndex.get(fragment.index)
      if (slot === undefined || differentId(slot)) {
        slot = this.open()
        this.byIndex.set(fragment.index, slot)
      }
    } else {
      const last = this.slots[this.slots.length - 1]
      // A named fragment continues a named call only when it repeats that call's id.
      const named = (last: Slot) => name !== undefined && last.name !== "" && (id === undefined || last.id !== id)
      slot = last === undefined || differentId(last) || named(last) ? this.open() : last
    }
    // Here the slot's id is none or this one (a different one opened a new slot).
    slot.id ??= id
    if (name !== undefined && slot.name === "") slot.name = name
    const piece = fragment.function?.arguments
    if (typeof piece === "string") slot.arguments += piece
  }

  private open(): Slot {
    const slot: Slot = { id: undefined, name: "", arguments: "" }
    this.slots.push(slot)
    return slot
  }

  /** The calls (each announced now, complete), then the aggregated response (or the error the finish reason means). */
  finish(): Either.Either<{ readonly deltas: Array<StreamPart>; readonly response: LanguageModel.Response }, ModelError.ModelError> {
    const error = finishError(this.finishReason)
    if (error !== undefined) return Either.left(error)
    const calls = this.slots.map((slot, position): FunctionCall.FunctionCall => {
      const { args, metadata } = codec.parseArguments(slot.arguments)
      return neutral.functionCall({ id: slot.id ?? this.ids.next(position), name: slot.name, args, ...(metadata === undefined ? {} : { metadata }) })
    })
    const parts: Array<Turn.Part> = []
    if (this.reasoning !== undefined) parts.push(neutral.reasoning(this.reasoning))
    if (this.content !== undefined) parts.push(neutral.text(this.content))
    parts.push(...calls)
    const turn = freshIds({ role: "model", parts }, this.transcript, this.ids)
    return Either.right({
      deltas: Turn.calls(turn).map((call): StreamPart => ({ _tag: "CallDelta", call })),
      response: {
        turn,
        finishReason: codec.decodeFinishReason(this.finishReason, this.slots.length > 0),
        usage: codec.decodeUsage(this.usage)
      }
    })
  }
}
