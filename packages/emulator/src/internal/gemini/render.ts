/**
 * The emulated model's answer on Gemini's wire: parts signed like Gemini 3 (the first call of a turn, else the last
 * part), a whole `GenerateContentResponse`, or the chunks of a stream (text a word at a time, calls and the finish
 * reason in the last chunk, a call-less answer's signature on a final empty-text part).
 */
import type { LanguageModel, ModelError } from "@agentfx/core"
import { Turn } from "@agentfx/core"
import type * as Fault from "../../Fault.js"
import type { Answer } from "../answer.js"
import { has, pieces } from "../answer.js"
import { isPlainObject } from "../json.js"
import type { Signer } from "./signature.js"
import { callSubject } from "./signature.js"

/** How the answers of this emulator are signed. */
export interface Signing {
  readonly signer: Signer
  readonly signatures: boolean
}

/** A part as the server writes it. */
export interface WirePart {
  text?: string
  thought?: boolean
  thoughtSignature?: string
  functionCall?: { id?: string; name: string; args: { readonly [key: string]: unknown } }
  readonly [key: string]: unknown
}

export const frame = (body: unknown): string => `data: ${JSON.stringify(body)}\r\n\r\n`

const signatureOf = (metadata: { readonly [key: string]: unknown } | undefined): { thoughtSignature?: string } =>
  typeof metadata?.thoughtSignature === "string" ? { thoughtSignature: metadata.thoughtSignature } : {}

/** A part of a scripted answer on the wire; a signature a script put in a part's metadata is sent on that part. */
const wirePart = (part: Turn.Part, omitIds: boolean): WirePart | undefined => {
  switch (part._tag) {
    case "Text":
      return { text: part.text, ...signatureOf(part.metadata) }
    case "Reasoning":
      return { text: part.text, thought: true, ...signatureOf(part.metadata) }
    case "FunctionCall":
      return { functionCall: omitIds ? { name: part.name, args: part.args } : { id: part.id, name: part.name, args: part.args }, ...signatureOf(part.metadata) }
    case "Opaque":
      return part.provider === "gemini" && isPlainObject(part.data) ? { ...part.data } : undefined
    case "FunctionResponse":
      return undefined
  }
}

export const usageMetadata = (usage: LanguageModel.Usage) => ({
  promptTokenCount: usage.inputTokens,
  candidatesTokenCount: usage.outputTokens - (usage.reasoningTokens ?? 0),
  totalTokenCount: usage.totalTokens,
  ...(usage.reasoningTokens === undefined ? {} : { thoughtsTokenCount: usage.reasoningTokens }),
  ...(usage.cachedTokens === undefined ? {} : { cachedContentTokenCount: usage.cachedTokens })
})

export const finishReason = (reason: LanguageModel.FinishReason): string => {
  switch (reason) {
    case "stop":
    case "tool_calls":
      return "STOP"
    case "length":
      return "MAX_TOKENS"
    case "safety":
      return "SAFETY"
    case "malformed_call":
      return "MALFORMED_FUNCTION_CALL"
    case "other":
      return "OTHER"
  }
}

/** The answer's parts on the wire, signed like Gemini 3 (first call; else the last part when not streaming). */
export const wireParts = (answer: Answer, ctx: Signing, faults: ReadonlyArray<Fault.ShapingFault>): Array<WirePart> => {
  const omitIds = has(faults, "OmitCallIds") !== undefined
  const parts = answer.turn.parts.flatMap((part) => {
    const encoded = wirePart(part, omitIds)
    return encoded === undefined ? [] : [encoded]
  })
  if (!ctx.signatures) return parts
  const first = parts.findIndex((part) => part.functionCall !== undefined)
  if (first !== -1) parts[first] = { ...parts[first], thoughtSignature: ctx.signer.sign(callSubject(parts[first]!.functionCall!)) }
  return parts
}

const textSubject = (answer: Answer) => ({ kind: "text", text: Turn.text(answer.turn) })

export const completeBody = (answer: Answer, ctx: Signing, faults: ReadonlyArray<Fault.ShapingFault>, model: string, id: string) => {
  const parts = wireParts(answer, ctx, faults)
  if (ctx.signatures && parts.length > 0 && !parts.some((part) => part.functionCall !== undefined)) {
    parts[parts.length - 1] = { ...parts[parts.length - 1], thoughtSignature: ctx.signer.sign(textSubject(answer)) }
  }
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: finishReason(answer.finishReason), index: 0 }],
    usageMetadata: usageMetadata(answer.usage),
    modelVersion: model,
    responseId: id
  }
}

/** The stream's chunks: reasoning and text a word at a time, then calls, finish reason and usage in the last one. */
export const streamChunks = (answer: Answer, ctx: Signing, faults: ReadonlyArray<Fault.ShapingFault>, model: string, id: string): Array<unknown> => {
  const parts = wireParts(answer, ctx, faults)
  const frames: Array<unknown> = []
  const chunk = (chunkParts: ReadonlyArray<WirePart>, extra: object = {}) => ({
    candidates: [{ content: { role: "model", parts: chunkParts }, ...extra, index: 0 }],
    modelVersion: model,
    responseId: id
  })
  const last: Array<WirePart> = []
  for (const part of parts) {
    // Once a call is out, everything after it goes in the last frame, so the order of parts is kept.
    if (part.functionCall !== undefined || last.length > 0) {
      last.push(part)
    } else if (typeof part.text === "string" && part.thoughtSignature === undefined && part.thought !== true) {
      for (const piece of pieces(part.text)) frames.push(chunk([{ text: piece }]))
    } else {
      frames.push(chunk([part]))
    }
  }
  // Gemini 3 puts the signature of a call-less answer on a final empty-text part.
  if (ctx.signatures && last.length === 0) last.push({ text: "", thoughtSignature: ctx.signer.sign(textSubject(answer)) })
  frames.push({
    candidates: [{ content: { role: "model", parts: last }, finishReason: finishReason(answer.finishReason), index: 0 }],
    usageMetadata: usageMetadata(answer.usage),
    modelVersion: model,
    responseId: id
  })
  return frames
}

/** A 200 answer that is not a turn: a blocked prompt, or a malformed function call. */
export const specialBody = (error: ModelError.ModelError, model: string, id: string): unknown | undefined => {
  if (error._tag === "Blocked") return { promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 1, totalTokenCount: 1 }, modelVersion: model, responseId: id }
  if (error._tag === "MalformedResponse") {
    return {
      candidates: [{ content: { role: "model", parts: [] }, finishReason: "MALFORMED_FUNCTION_CALL", finishMessage: `Malformed function call: ${error.message}`, index: 0 }],
      modelVersion: model,
      responseId: id
    }
  }
  return undefined
}

