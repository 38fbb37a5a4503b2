/**
 * Gemini responses → neutral `Response`, for `generateContent` (one response, parts kept one to one) and for
 * streams (chunks aggregated). Aggregation merges consecutive text chunks of the same kind into one part, and a
 * `thoughtSignature` goes on the part it arrived with: a signature on an empty-text chunk after a call stays its
 * own empty-text part, never dropped (dropping it is the classic way to get Gemini 3's 400 on the next turn).
 */
import type { LanguageModel, Transcript, Turn } from "@agentfx/core"
import { ModelError } from "@agentfx/core"
import * as Either from "effect/Either"
import type { IdSource } from "../ids.js"
import * as neutral from "../parts.js"
import * as codec from "./codec.js"
import type * as Wire from "./wire.js"

type StreamPart = LanguageModel.StreamPart

const blockedError = (feedback: NonNullable<Wire.Response["promptFeedback"]>): ModelError.Blocked =>
  new ModelError.Blocked({
    message: `the prompt was blocked (${feedback.blockReason})${feedback.blockReasonMessage === undefined ? "" : `: ${feedback.blockReasonMessage}`}`
  })

// Stryker disable ArrayDeclaration: reserving an id no call holds changes nothing (the synthetic ids never match it)
const reservedIds = (candidate: Wire.Response): Array<string> => {
  const ids: Array<string> = []
  for (const part of candidate.candidates?.[0]?.content?.parts ?? []) {
    if (part.functionCall?.id !== undefined) ids.push(part.functionCall.id)
  }
  return ids
}
// Stryker restore ArrayDeclaration

const isMergeableText = (part: Turn.Part): part is Turn.Text | Turn.Reasoning =>
  (part._tag === "Text" || part._tag === "Reasoning") && part.metadata?.geminiPart === undefined

/** Collects chunks (or one whole response) into the model turn. */
export class Aggregator {
  private readonly parts: Array<Turn.Part> = []
  private readonly ids: IdSource
  private calls = 0
  private finishReason: string | undefined
  private finishMessage: string | undefined
  private usage: Wire.UsageMetadata | undefined
  private sawCandidate = false

  constructor(
    transcript: Transcript.Transcript,
    private readonly merge: boolean,
    // Stryker disable next-line ArrayDeclaration: as above
    reserved: ReadonlyArray<string> = []
  ) {
    this.ids = codec.idSourceAfter(transcript, reserved)
  }

  /** Adds one chunk; returns its deltas, or the error the chunk carries. */
  push(chunk: Wire.Response): Either.Either<Array<StreamPart>, ModelError.ModelError> {
    if (chunk.promptFeedback?.blockReason !== undefined) return Either.left(blockedError(chunk.promptFeedback))
    if (chunk.usageMetadata !== undefined) this.usage = chunk.usageMetadata
    const candidate = chunk.candidates?.[0]
    if (candidate === undefined) return Either.right([])
    this.sawCandidate = true
    if (candidate.finishReason !== undefined) this.finishReason = candidate.finishReason
    if (candidate.finishMessage !== undefined) this.finishMessage = candidate.finishMessage
    const deltas: Array<StreamPart> = []
    for (const wirePart of candidate.content?.parts ?? []) {
      const part = codec.decodeModelPart(wirePart, this.ids, this.calls)
      if (part._tag === "FunctionCall") {
        this.calls++
        deltas.push({ _tag: "CallDelta", call: part })
      } else if (part._tag === "Text" && part.text !== "") {
        deltas.push({ _tag: "TextDelta", text: part.text })
      } else if (part._tag === "Reasoning" && part.text !== "") {
        deltas.push({ _tag: "ReasoningDelta", text: part.text })
      }
      this.add(part)
    }
    return Either.right(deltas)
  }

  private add(part: Turn.Part): void {
    const last = this.parts[this.parts.length - 1]
    if (
      this.merge &&
      last !== undefined &&
      isMergeableText(last) &&
      isMergeableText(part) &&
      last._tag === part._tag &&
      last.metadata?.thoughtSignature === undefined
    ) {
      const text = last.text + part.text
      this.parts[this.parts.length - 1] = last._tag === "Text" ? neutral.text(text, part.metadata) : neutral.reasoning(text, part.metadata)
      return
    }
    this.parts.push(part)
  }

  /** The aggregated response, or why there is none. */
  finish(): Either.Either<LanguageModel.Response, ModelError.ModelError> {
    const reason = this.finishReason
    // Stryker disable next-line ConditionalExpression: no set of reasons holds undefined; the check is there for the types
    if (reason !== undefined && codec.blockedReasons.has(reason)) {
      return Either.left(
        new ModelError.Blocked({ message: `the answer was blocked (${reason})${this.finishMessage === undefined ? "" : `: ${this.finishMessage}`}` })
      )
    }
    if (reason === codec.missingSignatureReason) {
      return Either.left(
        new ModelError.InvalidRequest({
          message: `the request's function call turn lacks its thought signature (${reason}): the model's turns must be sent back as received${this.finishMessage === undefined ? "" : `: ${this.finishMessage}`}`
        })
      )
    }
    // Stryker disable next-line ConditionalExpression: as above
    if (reason !== undefined && codec.malformedCallReasons.has(reason) && this.calls === 0) {
      return Either.left(
        new ModelError.MalformedResponse({
          message: `the model produced an unusable function call (${reason})${this.finishMessage === undefined ? "" : `: ${this.finishMessage}`}`,
          malformedCall: this.finishMessage === undefined ? reason : `${reason}: ${this.finishMessage}`
        })
      )
    }
    if (!this.sawCandidate) return Either.left(new ModelError.MalformedResponse({ message: "the response has no candidates" }))
    const turn: Turn.Turn = { role: "model", parts: this.parts }
    return Either.right({
      turn,
      finishReason: codec.decodeFinishReason(reason, this.calls > 0),
      usage: codec.decodeUsage(this.usage)
    })
  }
}

/** A whole `generateContent` response → the neutral response (parts kept one to one). */
export const decodeResponse = (
  transcript: Transcript.Transcript,
  response: Wire.Response
): Either.Either<LanguageModel.Response, ModelError.ModelError> => {
  const aggregator = new Aggregator(transcript, false, reservedIds(response))
  return Either.flatMap(aggregator.push(response), () => aggregator.finish())
}
