/**
 * The emulator's Gemini REST side: `POST …/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`.
 * Strict where Gemini is: the key, roles, turn order and counts, object-only function responses, and (like
 * Gemini 3) the thought signature it issued on a call, required back on that call within the current turn.
 * SSE framing as Gemini's: `data: <json>` events separated by a blank line, no `event:` lines, no
 * `continuationToken` (the SDK would re-POST).
 */
import { ModelError, Turn } from "@agentfx/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Fault from "../../emulator/Fault.js"
import type * as Policy from "../../emulator/Policy.js"
import * as codec from "../gemini/codec.js"
import * as Wire from "../gemini/wire.js"
import * as jsonText from "../json.js"
import { isPlainObject } from "../json.js"
import type { Answer, Decision } from "./answer.js"
import { faultOfError, has, pieces, policyRequest, streamStop } from "./answer.js"
import type { Exchange } from "./exchange.js"
import * as respond from "./exchange.js"
import type { Signer } from "./signature.js"
import { callSubject, isBase64 } from "./signature.js"

export interface Context {
  readonly apiKey: string
  readonly signer: Signer
  readonly signatures: boolean
  readonly frameDelay: number
  readonly decide: (request: Policy.Request) => Effect.Effect<Decision>
}

export const route = /^(?:.*)\/(v1beta|v1alpha|v1)\/models\/([^/:]+):(generateContent|streamGenerateContent)$/

const rpcStatus = (status: number): string =>
  ({ 400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 408: "DEADLINE_EXCEEDED", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED" })[status] ?? "UNKNOWN"

const defaultMessage = (status: number): string =>
  ({
    400: "Request contains an invalid argument.",
    401: "Request had invalid authentication credentials.",
    403: "The caller does not have permission",
    404: "Requested entity was not found.",
    429: "Resource has been exhausted (e.g. check quota).",
    500: "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
    503: "The model is overloaded. Please try again later.",
    504: "The request timed out. Please try again."
  })[status] ?? "Unknown error."

const envelope = (status: number, message: string, details?: ReadonlyArray<unknown>) => ({
  error: { code: status, message, status: rpcStatus(status), ...(details === undefined ? {} : { details }) }
})

// The real API's texts (ai.google.dev, and the issues quoted in the protocol notes).
export const messages = {
  missingKey:
    "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
  invalidKey: "API key not valid. Please pass a valid API key.",
  role: "Please use a valid role: user, model.",
  callOrder: "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
  responseOrder: "Please ensure that function response turn comes immediately after a function call turn.",
  responseCount: "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
  missingSignature: (name: string, position: number) =>
    `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${position}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
  corruptedSignature: "Corrupted thought signature."
} as const

const invalidKeyBody = envelope(400, messages.invalidKey, [
  { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com", metadata: { service: "generativelanguage.googleapis.com" } }
])

const delayText = (delay: Duration.Duration): string => `${Number((Duration.toMillis(delay) / 1000).toFixed(3))}s`

const quotaFailure = (quotaId: string, model: string) => ({
  "@type": "type.googleapis.com/google.rpc.QuotaFailure",
  violations: [
    {
      quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
      quotaId,
      quotaDimensions: { location: "global", model },
      quotaValue: "10"
    }
  ]
})

/** The status, body and headers Gemini would send for an answer fault (`undefined` for a stall or a drop). */
export const errorOf = (fault: Fault.AnswerFault, model: string): { status: number; body: unknown; headers?: Readonly<Record<string, string>> } | undefined => {
  switch (fault._tag) {
    case "Status":
      return { status: fault.status, body: fault.body ?? envelope(fault.status, fault.message ?? defaultMessage(fault.status)), headers: fault.headers }
    case "RateLimited":
      return {
        status: 429,
        body: envelope(429, "You exceeded your current quota, please check your plan and billing details.", [
          quotaFailure("GenerateRequestsPerMinutePerProjectPerModel-FreeTier", model),
          ...(fault.retryAfter === undefined ? [] : [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: delayText(fault.retryAfter) }])
        ])
      }
    case "QuotaExhausted":
      // Google sends a RetryInfo with a per-day quota too; retrying after it is still pointless.
      return {
        status: 429,
        body: envelope(429, "You exceeded your current quota, please check your plan and billing details.", [
          quotaFailure("GenerateRequestsPerDayPerProjectPerModel-FreeTier", model),
          { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "30s" }
        ])
      }
    case "Overloaded":
      return { status: 503, body: envelope(503, "The model is overloaded. Please try again later.") }
    case "Unauthorized":
      return { status: 400, body: invalidKeyBody }
    case "GlmCode":
      return { status: fault.status, body: envelope(fault.status, fault.message) }
    case "Stall":
    case "Disconnect":
      return undefined
  }
}

// ---------------------------------------------------------------------------------------------------------------
// the server's rules

const countCalls = (content: Wire.Content): number => (content.parts ?? []).filter((part) => part.functionCall !== undefined).length
const countResponses = (content: Wire.Content): number => (content.parts ?? []).filter((part) => part.functionResponse !== undefined).length

const declarationName = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/

/** The 400 message Gemini would answer this body with, if any. */
export const violation = (body: Wire.Request, signer: Signer | undefined): string | undefined => {
  const contents = body.contents ?? []
  if (contents.length === 0) return "* GenerateContentRequest.contents: contents is not specified\n"
  const tools = body.tools ?? []
  for (let t = 0; t < tools.length; t++) {
    const declarations = tools[t]!.functionDeclarations ?? []
    for (let f = 0; f < declarations.length; f++) {
      const declaration = declarations[f]!
      const at = `* GenerateContentRequest.tools[${t}].function_declarations[${f}]`
      if (!declarationName.test(declaration.name)) {
        return `${at}.name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.\n`
      }
      if (declaration.parameters !== undefined && declaration.parametersJsonSchema !== undefined) {
        return `${at}: parameters and parameters_json_schema are mutually exclusive.\n`
      }
    }
  }
  const mode = body.toolConfig?.functionCallingConfig?.mode
  if (mode !== undefined && !["MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED"].includes(mode)) {
    return `Invalid value at 'tool_config.function_calling_config.mode' (type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), "${mode}"`
  }
  // Field checks first (as the API validates the payload before the conversation's rules).
  if (contents.some((content) => (content.role ?? "user") !== "user" && content.role !== "model")) return messages.role
  for (let i = 0; i < contents.length; i++) {
    const parts = contents[i]!.parts ?? []
    if (parts.length === 0) return `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`
    for (let j = 0; j < parts.length; j++) {
      const part = parts[j]!
      const response = part.functionResponse
      if (response !== undefined && !isPlainObject(response.response)) {
        return Array.isArray(response.response)
          ? `Invalid JSON payload received. Unknown name "response" at 'contents[${i}].parts[${j}].function_response': Proto field is not repeating, cannot start list.`
          : `Invalid value at 'contents[${i}].parts[${j}].function_response.response' (type.googleapis.com/google.protobuf.Struct), ${JSON.stringify(response.response ?? null)}`
      }
      if (part.thoughtSignature !== undefined && !isBase64(part.thoughtSignature)) {
        return `Invalid value at 'contents[${i}].parts[${j}].thought_signature' (TYPE_BYTES), Base64 decoding failed for "${part.thoughtSignature}"`
      }
    }
  }
  // Then the conversation's rules.
  for (let i = 0; i < contents.length; i++) {
    const content = contents[i]!
    const role = content.role ?? "user"
    const calls = countCalls(content)
    const responses = countResponses(content)
    const previous = contents[i - 1]
    if (calls > 0) {
      if (role !== "model" || previous === undefined || (previous.role ?? "user") !== "user") return messages.callOrder
      const next = contents[i + 1]
      if (next !== undefined && ((next.role ?? "user") !== "user" || countResponses(next) !== calls)) {
        return countResponses(next) === 0 && (next.role ?? "user") !== "user" ? messages.responseOrder : messages.responseCount
      }
    }
    if (responses > 0) {
      if (role !== "user" || previous === undefined || previous.role !== "model" || countCalls(previous) === 0) return messages.responseOrder
      if (responses !== countCalls(previous)) return messages.responseCount
    }
  }
  if (signer !== undefined) {
    // Gemini 3 checks the calls of the current turn: everything since the last user message that is not responses.
    let start = 0
    for (let i = contents.length - 1; i >= 0; i--) {
      const content = contents[i]!
      if ((content.role ?? "user") === "user" && countResponses(content) === 0) {
        start = i + 1
        break
      }
    }
    for (let i = start; i < contents.length; i++) {
      const parts = contents[i]!.parts ?? []
      const first = parts.find((part) => part.functionCall !== undefined)
      if (contents[i]!.role !== "model" || first === undefined) continue
      const call = first.functionCall!
      if (first.thoughtSignature === undefined) return messages.missingSignature(call.name, i + 1)
      if (!signer.verify(callSubject(call), first.thoughtSignature)) return messages.corruptedSignature
    }
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------------------------
// rendering

const frame = (body: unknown): string => `data: ${JSON.stringify(body)}\r\n\r\n`

/** The answer's parts on the wire, signed like Gemini 3 (first call; else the last part when not streaming). */
const wireParts = (answer: Answer, ctx: Context, faults: ReadonlyArray<Fault.ShapingFault>): Array<codec.PartOut> => {
  const omitIds = has(faults, "OmitCallIds") !== undefined
  const synthetic = new Set(omitIds ? Turn.calls(answer.turn).map((call) => call.id) : [])
  const parts = answer.turn.parts.flatMap((part) => {
    const encoded = codec.encodePart(part, synthetic)
    return encoded === undefined ? [] : [encoded]
  })
  if (!ctx.signatures) return parts
  const first = parts.findIndex((part) => part.functionCall !== undefined)
  if (first !== -1) parts[first] = { ...parts[first], thoughtSignature: ctx.signer.sign(callSubject(parts[first]!.functionCall!)) }
  return parts
}

const textSubject = (answer: Answer) => ({ kind: "text", text: Turn.text(answer.turn) })

const completeBody = (answer: Answer, ctx: Context, faults: ReadonlyArray<Fault.ShapingFault>, model: string, id: string) => {
  const parts = wireParts(answer, ctx, faults)
  if (ctx.signatures && parts.length > 0 && !parts.some((part) => part.functionCall !== undefined)) {
    parts[parts.length - 1] = { ...parts[parts.length - 1], thoughtSignature: ctx.signer.sign(textSubject(answer)) }
  }
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: codec.encodeFinishReason(answer.finishReason), index: 0 }],
    usageMetadata: codec.encodeUsage(answer.usage),
    modelVersion: model,
    responseId: id
  }
}

/** The stream's chunks: reasoning and text a word at a time, then calls, finish reason and usage in the last one. */
const streamChunks = (answer: Answer, ctx: Context, faults: ReadonlyArray<Fault.ShapingFault>, model: string, id: string): Array<unknown> => {
  const parts = wireParts(answer, ctx, faults)
  const frames: Array<unknown> = []
  const chunk = (chunkParts: ReadonlyArray<codec.PartOut>, extra: object = {}) => ({
    candidates: [{ content: { role: "model", parts: chunkParts }, ...extra, index: 0 }],
    modelVersion: model,
    responseId: id
  })
  const last: Array<codec.PartOut> = []
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
    candidates: [{ content: { role: "model", parts: last }, finishReason: codec.encodeFinishReason(answer.finishReason), index: 0 }],
    usageMetadata: codec.encodeUsage(answer.usage),
    modelVersion: model,
    responseId: id
  })
  return frames
}

/** A 200 answer that is not a turn: a blocked prompt, or a malformed function call. */
const specialBody = (error: ModelError.ModelError, model: string, id: string): unknown | undefined => {
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

// ---------------------------------------------------------------------------------------------------------------
// the handler

const answerFault = (exchange: Exchange, fault: Fault.AnswerFault, model: string): Effect.Effect<void> => {
  const error = errorOf(fault, model)
  if (error === undefined) return fault._tag === "Stall" ? respond.stall(exchange) : respond.disconnect(exchange)
  exchange.update({ error: JSON.stringify(error.body) })
  return respond.json(exchange, error.status, error.body, error.headers === undefined ? {} : { headers: error.headers })
}

const reject = (exchange: Exchange, status: number, message: string, body: unknown = envelope(status, message)): Effect.Effect<void> => {
  exchange.update({ error: message })
  return respond.json(exchange, status, body)
}

export const handle = (exchange: Exchange, ctx: Context, match: RegExpExecArray): Effect.Effect<void> =>
  Effect.gen(function* () {
    const model = decodeURIComponent(match[2]!)
    const streaming = match[3] === "streamGenerateContent"
    exchange.update({ protocol: "gemini", flavour: "gemini", model, stream: streaming })
    const key = exchange.req.headers["x-goog-api-key"] ?? exchange.query.get("key") ?? undefined
    if (key === undefined || key === "") {
      exchange.update({ apiKey: "missing" })
      return yield* reject(exchange, 403, messages.missingKey)
    }
    if (key !== ctx.apiKey) {
      exchange.update({ apiKey: "invalid" })
      return yield* reject(exchange, 400, messages.invalidKey, invalidKeyBody)
    }
    exchange.update({ apiKey: "valid" })
    const parsed = jsonText.parse(exchange.body)
    if (Either.isLeft(parsed)) return yield* reject(exchange, 400, `Invalid JSON payload received. ${parsed.left}`)
    exchange.update({ body: parsed.right })
    const decoded = Wire.decodeRequest(parsed.right)
    if (Either.isLeft(decoded)) return yield* reject(exchange, 400, `Invalid JSON payload received. ${decoded.left.message}`)
    const problem = violation(decoded.right, ctx.signatures ? ctx.signer : undefined)
    if (problem !== undefined) return yield* reject(exchange, 400, problem)

    const neutral = codec.decodeRequest(decoded.right)
    const request = policyRequest({ protocol: "gemini", flavour: "gemini", index: exchange.record().index, model, stream: streaming }, neutral)
    exchange.update({ request })
    const decision = yield* ctx.decide(request)
    const id = `emulator-${request.index}`
    if (decision._tag === "Fault") return yield* answerFault(exchange, decision.fault, model)

    const faults = decision.faults
    const split = has(faults, "SplitChunks") !== undefined
    const drop = has(faults, "DropMidStream")
    const stallAt = has(faults, "StallMidStream")

    let body: unknown
    let chunks: Array<unknown>
    if (decision._tag === "Error") {
      const special = specialBody(decision.error, model, id)
      if (special === undefined) return yield* answerFault(exchange, faultOfError(decision.error), model)
      body = special
      chunks = [special]
    } else if (has(faults, "MalformedArguments") !== undefined && Turn.calls(decision.answer.turn).length > 0) {
      // Gemini's arguments are objects: its form of a broken call is this finish reason, with nothing usable.
      body = specialBody(new ModelError.MalformedResponse({ message: "the arguments could not be parsed" }), model, id)
      chunks = [body]
    } else {
      body = completeBody(decision.answer, ctx, faults, model, id)
      chunks = streamChunks(decision.answer, ctx, faults, model, id)
    }
    // Without `alt=sse` Gemini streams one JSON array of the chunks (the SDK always asks for SSE).
    if (streaming && exchange.query.get("alt") !== "sse") return yield* respond.json(exchange, 200, chunks, { split })
    const frames = chunks.map(frame)
    if (!streaming) {
      if (drop !== undefined || stallAt !== undefined) {
        if (stallAt !== undefined) return yield* respond.stall(exchange)
        return yield* respond.json(exchange, 200, body, { cutHalfway: true })
      }
      return yield* respond.json(exchange, 200, body, { split })
    }
    return yield* respond.stream(exchange, frames, {
      split,
      delay: ctx.frameDelay,
      stop: streamStop(faults, (fault) => frame(errorOf(fault.error, model)?.body ?? envelope(500, defaultMessage(500))))
    })
  })
