/**
 * Neutral transcript ↔ chat-completions messages, the client's side (the emulator reads requests with its own schemas).
 *
 * - A model turn is one assistant message: `reasoning_content` from its Reasoning parts (GLM needs it back
 *   unchanged), `content` from its Text parts (null when it has none), `tool_calls` from its calls.
 * - `arguments` is a JSON string from the model: parsed defensively. When the text is not what
 *   `JSON.stringify(args)` would give, it is kept in `metadata.arguments` and sent back byte for byte; when it is
 *   not a JSON object at all, the call gets `args: {}` and `metadata.argumentsError` saying why.
 * - A response turn is one `role: "tool"` message per response, in order, `content` the JSON of the response.
 */
import type { FunctionDeclaration, Json, LanguageModel, Transcript } from "@agentfx/core"
import { Dialect, FunctionCall, Turn } from "@agentfx/core"
import * as Either from "effect/Either"
import type { IdSource } from "../ids.js"
import * as json from "../json.js"
import { isPlainObject } from "../json.js"
import * as neutral from "../parts.js"
import type * as Wire from "./wire.js"

export const provider = "openai"

/** Prefix of the ids synthesised for calls a server gave none (they go on the wire: tool messages need one). */
export const syntheticPrefix = "call_"

type Metadata = { [key: string]: unknown }

export interface ToolCallOut {
  id: string
  type: "function"
  function: { name: string; arguments: string }
}

/** A user content part: text, or one this package passes through untouched. */
export type ContentPartOut = { readonly type?: unknown; readonly text?: unknown; readonly [key: string]: unknown }

export type UserContentOut = string | Array<ContentPartOut>

export type MessageOut =
  | { role: "system"; content: string }
  | { role: "user"; content: UserContentOut }
  | { role: "assistant"; content: string | null; reasoning_content?: string; tool_calls?: Array<ToolCallOut> }
  | { role: "tool"; tool_call_id: string; content: string }

export interface EncodeOptions {
  /** Send `reasoning_content` back on assistant messages (GLM: yes; OpenAI rejects unknown fields: no). */
  readonly reasoning: boolean
}

// ---------------------------------------------------------------------------------------------------------------
// arguments

/** `arguments` as the model sent them → args, plus the raw text / the parse error when they matter. */
export const parseArguments = (raw: string | Json.JsonObject | null | undefined): { args: Json.JsonObject; metadata?: Metadata } => {
  if (raw === null || raw === undefined) return { args: {} }
  if (typeof raw !== "string") {
    return isPlainObject(raw) ? { args: raw } : { args: {}, metadata: { [FunctionCall.argumentsErrorKey]: "arguments must be a JSON object" } }
  }
  if (raw.trim() === "") return { args: {}, metadata: { arguments: raw } }
  const parsed = json.parse(raw)
  if (Either.isLeft(parsed)) {
    return { args: {}, metadata: { arguments: raw, [FunctionCall.argumentsErrorKey]: `arguments are not valid JSON: ${parsed.left}` } }
  }
  if (!isPlainObject(parsed.right)) {
    const got = parsed.right === null ? "null" : Array.isArray(parsed.right) ? "an array" : typeof parsed.right
    return { args: {}, metadata: { arguments: raw, [FunctionCall.argumentsErrorKey]: `arguments must be a JSON object, got ${got}` } }
  }
  return JSON.stringify(parsed.right) === raw ? { args: parsed.right } : { args: parsed.right, metadata: { arguments: raw } }
}

const argumentsText = (call: FunctionCall.FunctionCall): string => {
  const raw = call.metadata?.arguments
  return typeof raw === "string" ? raw : JSON.stringify(call.args)
}

// ---------------------------------------------------------------------------------------------------------------
// wire → neutral

const decodeCall = (call: Wire.ToolCall, source: IdSource, position: number): FunctionCall.FunctionCall => {
  const { args, metadata } = parseArguments(call.function.arguments)
  return neutral.functionCall({
    id: call.id !== undefined && call.id !== null && call.id !== "" ? call.id : source.next(position),
    name: call.function.name,
    args,
    ...(metadata === undefined ? {} : { metadata })
  })
}

/** An assistant message → a model turn (reasoning, then text, then calls). */
export const decodeAssistant = (
  message: { readonly content?: unknown; readonly reasoning_content?: string | null | undefined; readonly tool_calls?: ReadonlyArray<Wire.ToolCall> | null | undefined },
  source: IdSource
): Turn.Turn => {
  const parts: Array<Turn.Part> = []
  if (typeof message.reasoning_content === "string") parts.push(neutral.reasoning(message.reasoning_content))
  if (typeof message.content === "string") parts.push(neutral.text(message.content))
  ;(message.tool_calls ?? []).forEach((call, position) => parts.push(decodeCall(call, source, position)))
  return { role: "model", parts }
}

// ---------------------------------------------------------------------------------------------------------------
// neutral → wire

/**
 * A model turn as the assistant message to send back; `undefined` for a turn with neither text nor calls (only
 * reasoning, or nothing), which GLM refuses (1214 "content and tool_calls cannot both be empty") and OpenAI too.
 */
export const encodeAssistant = (turn: Turn.Turn, options: EncodeOptions): MessageOut | undefined => {
  let reasoning: string | undefined
  let content: string | null = null
  const toolCalls: Array<ToolCallOut> = []
  for (const part of turn.parts) {
    if (part._tag === "Reasoning") reasoning = (reasoning ?? "") + part.text
    else if (part._tag === "Text") content = (content ?? "") + part.text
    else if (part._tag === "FunctionCall") {
      toolCalls.push({ id: part.id, type: "function", function: { name: part.name, arguments: argumentsText(part) } })
    }
  }
  if (toolCalls.length === 0 && (content === null || content === "")) return undefined
  return {
    role: "assistant",
    // Empty text beside tool calls is sent as null, as the servers send it themselves.
    content: content === "" ? null : content,
    ...(options.reasoning && reasoning !== undefined ? { reasoning_content: reasoning } : {}),
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {})
  }
}

const encodeUser = (turn: Turn.Turn): Array<MessageOut> => {
  const responses = Turn.responses(turn)
  if (responses.length > 0) {
    return responses.map((response) => ({ role: "tool", tool_call_id: response.id, content: JSON.stringify(response.response) }))
  }
  const content: Array<ContentPartOut> = []
  for (const part of turn.parts) {
    if (part._tag === "Text" || part._tag === "Reasoning") {
      content.push({ type: "text", text: part.text })
      continue
    }
    // A content part this package has no name for (an image, audio) goes back as it came. (Stryker reads a disable
    // comment only where it leads a statement, not before an `else`.)
    // Stryker disable next-line ConditionalExpression: only an Opaque part has a provider, so the tag test only narrows the type
    if (part._tag === "Opaque" && part.provider === provider && isPlainObject(part.data)) content.push(part.data)
  }
  if (content.length === 0) return []
  const [only] = content
  return [{ role: "user", content: content.length === 1 && only!.type === "text" && typeof only!.text === "string" ? only!.text : content }]
}

/** System instruction and transcript as `messages`. */
export const encodeMessages = (system: string | undefined, transcript: Transcript.Transcript, options: EncodeOptions): Array<MessageOut> => {
  const messages: Array<MessageOut> = []
  if (system !== undefined && system !== "") messages.push({ role: "system", content: system })
  for (const turn of transcript) {
    if (turn.role === "model") {
      const assistant = encodeAssistant(turn, options)
      if (assistant !== undefined) messages.push(assistant)
    }
    else messages.push(...encodeUser(turn))
  }
  return messages
}

/** Declarations as `tools[]`; a declaration that cannot be expressed is a `DeclarationError`. */
export const encodeTools = (
  declarations: ReadonlyArray<FunctionDeclaration.FunctionDeclaration>
): Either.Either<Array<Dialect.OpenAITool>, Dialect.DeclarationError> => {
  const tools: Array<Dialect.OpenAITool> = []
  for (const declaration of declarations) {
    const compiled = Dialect.openAI(declaration)
    if (Either.isLeft(compiled)) return Either.left(compiled.left)
    tools.push(compiled.right)
  }
  return Either.right(tools)
}

// ---------------------------------------------------------------------------------------------------------------
// usage and finish reasons

export const decodeUsage = (usage: Wire.Usage | null | undefined): LanguageModel.Usage => {
  const input = usage?.prompt_tokens ?? 0
  const output = usage?.completion_tokens ?? 0
  const reasoning = usage?.completion_tokens_details?.reasoning_tokens
  const cached = usage?.prompt_tokens_details?.cached_tokens
  return {
    inputTokens: input,
    outputTokens: output,
    totalTokens: usage?.total_tokens ?? input + output,
    ...(reasoning === undefined || reasoning === null ? {} : { reasoningTokens: reasoning }),
    ...(cached === undefined || cached === null ? {} : { cachedTokens: cached })
  }
}

/** Finish reasons that mean the answer was withheld (GLM says `sensitive`). */
export const blockedReasons: ReadonlySet<string> = new Set(["content_filter", "sensitive"])

export const decodeFinishReason = (reason: string | null | undefined, hasCalls: boolean): LanguageModel.FinishReason => {
  if (reason === undefined || reason === null || reason === "stop") return hasCalls ? "tool_calls" : "stop"
  if (reason === "tool_calls" || reason === "function_call") return "tool_calls"
  if (reason === "length" || reason === "model_context_window_exceeded") return "length"
  if (blockedReasons.has(reason)) return "safety"
  return "other"
}
