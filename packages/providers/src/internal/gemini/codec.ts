/**
 * Neutral transcript ↔ Gemini wire, the client's side: requests encoded, model parts decoded. (The emulator reads
 * requests with its own schemas, written from the protocol, so that a mistake here is caught there.)
 *
 * Where Gemini data goes in the neutral model:
 * - `thoughtSignature` → `metadata.thoughtSignature` of the part it came on (text, thought or call);
 * - a call id Gemini did not give → synthesised, with `metadata.syntheticId: true` so it is never sent back;
 * - other fields of a known part → `metadata.geminiPart`; a part of unknown kind → `Opaque { provider: "gemini" }`;
 * - a `thought: true` text part → `Reasoning`.
 */
import type { Json, LanguageModel, Output, Transcript, Turn } from "@agentfx/core"
import { Dialect } from "@agentfx/core"
import * as Either from "effect/Either"
import type { IdSource } from "../ids.js"
import * as ids from "../ids.js"
import { isPlainObject } from "../json.js"
import * as neutral from "../parts.js"
import type * as Wire from "./wire.js"

export const provider = "gemini"

type Metadata = { [key: string]: unknown }

/** A part this package builds: known fields typed as the SDK wants them, the rest carried through. */
export interface PartOut {
  text?: string
  thought?: boolean
  thoughtSignature?: string
  functionCall?: { id?: string; name: string; args: Json.JsonObject }
  functionResponse?: { id?: string; name: string; response: Json.JsonObject }
  [key: string]: unknown
}

/** A Content this package builds (fresh arrays, so it can be handed to the SDK as is). */
export interface ContentOut {
  role: "user" | "model"
  parts: Array<PartOut>
}

/** The body `generateContent` sends (what the SDK puts on the wire). */
export interface RequestBody {
  contents: Array<ContentOut>
  systemInstruction?: ContentOut
  tools?: Array<{ functionDeclarations: Array<Dialect.GeminiDeclaration> }>
  toolConfig?: { functionCallingConfig: { mode: "AUTO" | "ANY" | "NONE"; allowedFunctionNames?: Array<string> } }
  generationConfig?: { temperature?: number; maxOutputTokens?: number; responseMimeType?: string; responseJsonSchema?: Json.JsonObject }
}

/** Prefix of the ids synthesised for calls Gemini gave none. */
export const syntheticPrefix = "gemini_call_"

/** The id source for the model turn that answers `transcript`. */
export const idSourceAfter = (transcript: Transcript.Transcript, reserved: ReadonlyArray<string>): IdSource =>
  ids.idSourceAfter(syntheticPrefix, transcript, reserved)

// ---------------------------------------------------------------------------------------------------------------
// wire → neutral

const extraFields = (part: Wire.Part, known: ReadonlyArray<string>): Metadata | undefined => {
  let extra: Metadata | undefined
  for (const key of Object.keys(part)) {
    if (known.includes(key) || part[key] === undefined) continue
    extra ??= {}
    extra[key] = part[key]
  }
  return extra
}

const metadataOf = (fields: Metadata): Metadata | undefined => {
  let metadata: Metadata | undefined
  for (const key of Object.keys(fields)) {
    if (fields[key] === undefined) continue
    metadata ??= {}
    metadata[key] = fields[key]
  }
  return metadata
}

const withMetadata = (fields: Metadata): { metadata?: Metadata } => {
  const metadata = metadataOf(fields)
  return metadata === undefined ? {} : { metadata }
}

const textKeys = ["text", "thought", "thoughtSignature"]
const callKeys = ["functionCall", "thoughtSignature"]

/** A model-side part. `position` is the call's index among the turn's calls (for a synthesised id). */
export const decodeModelPart = (part: Wire.Part, source: IdSource, position: number): Turn.Part => {
  const call = part.functionCall
  if (call !== undefined) {
    return neutral.functionCall({
      id: call.id ?? source.next(position),
      name: call.name,
      args: call.args ?? {},
      ...withMetadata({
        thoughtSignature: part.thoughtSignature,
        syntheticId: call.id === undefined ? true : undefined,
        geminiPart: extraFields(part, callKeys)
      })
    })
  }
  if (typeof part.text === "string" && part.functionResponse === undefined) {
    const metadata = metadataOf({
      thoughtSignature: part.thoughtSignature,
      geminiPart: extraFields(part, part.thought === true ? textKeys : ["text", "thoughtSignature"])
    })
    return part.thought === true ? neutral.reasoning(part.text, metadata) : neutral.text(part.text, metadata)
  }
  return neutral.opaque(provider, part)
}

/** The parts of a model Content, each kept in place. */
export const decodeModelParts = (parts: ReadonlyArray<Wire.Part>, source: IdSource): Array<Turn.Part> => {
  let position = 0
  return parts.map((part) => decodeModelPart(part, source, part.functionCall === undefined ? position : position++))
}

// ---------------------------------------------------------------------------------------------------------------
// neutral → wire

const metadataString = (metadata: Json.JsonObject | undefined, key: string): string | undefined => {
  const value = metadata?.[key]
  return typeof value === "string" ? value : undefined
}

const extraOf = (metadata: Json.JsonObject | undefined): Metadata => {
  const extra = metadata?.geminiPart
  return isPlainObject(extra) ? extra : {}
}

const withSignature = (part: PartOut, metadata: Json.JsonObject | undefined): PartOut => {
  const signature = metadataString(metadata, "thoughtSignature")
  return signature === undefined ? part : { ...part, thoughtSignature: signature }
}

/**
 * One neutral part as a Gemini part. `synthetic` holds the ids this package invented: they never go on the wire.
 * Opaque parts of other providers have no Gemini form and are left out.
 */
export const encodePart = (part: Turn.Part, synthetic: ReadonlySet<string>): PartOut | undefined => {
  switch (part._tag) {
    case "Text":
      return withSignature({ ...extraOf(part.metadata), text: part.text }, part.metadata)
    case "Reasoning":
      return withSignature({ ...extraOf(part.metadata), text: part.text, thought: true }, part.metadata)
    case "FunctionCall":
      return withSignature(
        {
          ...extraOf(part.metadata),
          functionCall: synthetic.has(part.id) ? { name: part.name, args: part.args } : { id: part.id, name: part.name, args: part.args }
        },
        part.metadata
      )
    case "FunctionResponse":
      return {
        ...extraOf(part.metadata),
        functionResponse: synthetic.has(part.id)
          ? { name: part.name, response: part.response }
          : { id: part.id, name: part.name, response: part.response }
      }
    case "Opaque":
      return part.provider === provider && isPlainObject(part.data) ? (part.data as PartOut) : undefined
  }
}

/**
 * The transcript as `contents`, every model turn exactly as it was received. A turn left with no parts (an empty
 * MAX_TOKENS answer) is not sent: Gemini rejects a Content without parts.
 */
export const encodeContents = (transcript: Transcript.Transcript): Array<ContentOut> => {
  const synthetic = new Set<string>()
  const contents: Array<ContentOut> = []
  for (const turn of transcript) {
    const parts: Array<PartOut> = []
    for (const part of turn.parts) {
      // Stryker disable next-line ConditionalExpression: only a call's metadata ever says syntheticId (decodeModelPart sets it), so the tag test only guards against a hand-made part
      if (part._tag === "FunctionCall" && part.metadata?.syntheticId === true) synthetic.add(part.id)
      const encoded = encodePart(part, synthetic)
      if (encoded !== undefined) parts.push(encoded)
    }
    if (parts.length > 0) contents.push({ role: turn.role, parts })
  }
  return contents
}

/** `toolConfig` for a tool choice (nothing when the choice is the default). */
export const encodeToolConfig = (choice: LanguageModel.ToolChoice | undefined): RequestBody["toolConfig"] => {
  if (choice === undefined) return undefined
  if (choice === "auto") return { functionCallingConfig: { mode: "AUTO" } }
  if (choice === "none") return { functionCallingConfig: { mode: "NONE" } }
  if (choice === "any") return { functionCallingConfig: { mode: "ANY" } }
  return { functionCallingConfig: { mode: "ANY", allowedFunctionNames: [...choice.allowed] } }
}

/**
 * Whether a model takes JSON mode together with function declarations: Gemini 3 does; 2.x and earlier answer 400
 * "Function calling with a response mime type: 'application/json' is unsupported". A name that says no version
 * (an alias) is taken as the older kind: told the schema, it answers all the same.
 */
export const jsonWithTools = (model: string): boolean => {
  const major = /^(?:models\/)?gemini-(\d+)(?:[.-]|$)/.exec(model)?.[1]
  return major !== undefined && Number(major) >= 3
}

/**
 * How a Gemini model takes a request's output: JSON mode with `responseJsonSchema` (`"schema"`), unless function
 * declarations come with it on a model that refuses both (then the loop tells the schema in the instructions).
 */
export const outputMode = (model: string) => (request: LanguageModel.Request): Output.Mode =>
  request.declarations.length > 0 && !jsonWithTools(model) ? "instructions" : "schema"

/** The whole request body; a declaration Gemini cannot express is a `DeclarationError`. */
export const encodeRequest = (request: LanguageModel.Request, model = "gemini-3-flash-preview"): Either.Either<RequestBody, Dialect.DeclarationError> => {
  const declarations: Array<Dialect.GeminiDeclaration> = []
  for (const declaration of request.declarations) {
    const compiled = Dialect.gemini(declaration)
    if (Either.isLeft(compiled)) return Either.left(compiled.left)
    declarations.push(compiled.right)
  }
  const body: RequestBody = { contents: encodeContents(request.transcript) }
  if (request.system !== undefined && request.system !== "") body.systemInstruction = { role: "user", parts: [{ text: request.system }] }
  if (declarations.length > 0) {
    body.tools = [{ functionDeclarations: declarations }]
    const toolConfig = encodeToolConfig(request.toolChoice)
    if (toolConfig !== undefined) body.toolConfig = toolConfig
  }
  const generationConfig: NonNullable<RequestBody["generationConfig"]> = {}
  if (request.temperature !== undefined) generationConfig.temperature = request.temperature
  if (request.maxOutputTokens !== undefined) generationConfig.maxOutputTokens = request.maxOutputTokens
  if (request.output !== undefined && outputMode(model)(request) === "schema") {
    const schema = Dialect.geminiOutput(request.output)
    if (Either.isLeft(schema)) return Either.left(schema.left)
    generationConfig.responseMimeType = "application/json"
    generationConfig.responseJsonSchema = schema.right
  }
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig
  return Either.right(body)
}

// ---------------------------------------------------------------------------------------------------------------
// usage and finish reasons

export const decodeUsage = (usage: Wire.UsageMetadata | undefined): LanguageModel.Usage => {
  const input = usage?.promptTokenCount ?? 0
  const thoughts = usage?.thoughtsTokenCount
  const output = (usage?.candidatesTokenCount ?? 0) + (thoughts ?? 0)
  return {
    inputTokens: input,
    outputTokens: output,
    totalTokens: usage?.totalTokenCount ?? input + output,
    ...(thoughts === undefined ? {} : { reasoningTokens: thoughts }),
    ...(usage?.cachedContentTokenCount === undefined ? {} : { cachedTokens: usage.cachedContentTokenCount })
  }
}

/** Finish reasons that mean the answer was withheld. */
export const blockedReasons: ReadonlySet<string> = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
  "IMAGE_RECITATION"
])

/** Finish reasons that mean the model tried to call a function and produced something unusable. */
export const malformedCallReasons: ReadonlySet<string> = new Set(["MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"])

/**
 * A call turn of our request lacked its thought signature: our request's fault (the model turn was not echoed as
 * received), not the model's — never told to the model as a malformed call, and no retry of the same request
 * can fix it.
 */
export const missingSignatureReason = "MISSING_THOUGHT_SIGNATURE"

export const decodeFinishReason = (reason: string | undefined, hasCalls: boolean): LanguageModel.FinishReason => {
  if (reason === undefined || reason === "STOP" || reason === "FINISH_REASON_UNSPECIFIED") return hasCalls ? "tool_calls" : "stop"
  if (reason === "MAX_TOKENS") return "length"
  if (blockedReasons.has(reason)) return "safety"
  if (malformedCallReasons.has(reason)) return "malformed_call"
  return "other"
}
