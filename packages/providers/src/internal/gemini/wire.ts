/**
 * The Gemini REST responses this package reads (the subset that matters for text and function calling;
 * everything else on a part is preserved as-is). Decoders keep unknown keys (`onExcessProperty: "preserve"`) so a
 * part can be echoed exactly.
 */
import * as Schema from "effect/Schema"
import { JsonObject } from "../json.js"

export const FunctionCall = Schema.Struct({
  id: Schema.optional(Schema.String),
  name: Schema.String,
  args: Schema.optional(JsonObject)
})
export type FunctionCall = typeof FunctionCall.Type

/** `response` as the model sees it in echoed history (the layer only writes objects). */
export const FunctionResponse = Schema.Struct({
  id: Schema.optional(Schema.String),
  name: Schema.String,
  response: Schema.optional(Schema.Unknown)
})
export type FunctionResponse = typeof FunctionResponse.Type

export const Part = Schema.Struct({
  text: Schema.optional(Schema.String),
  thought: Schema.optional(Schema.Boolean),
  thoughtSignature: Schema.optional(Schema.String),
  functionCall: Schema.optional(FunctionCall),
  functionResponse: Schema.optional(FunctionResponse)
})
/** A part: the fields above plus any others, kept untouched. */
export type Part = typeof Part.Type & { readonly [key: string]: unknown }

export const Content = Schema.Struct({
  role: Schema.optional(Schema.String),
  parts: Schema.optional(Schema.Array(Part))
})
export interface Content {
  readonly role?: string | undefined
  readonly parts?: ReadonlyArray<Part> | undefined
}

export const UsageMetadata = Schema.Struct({
  promptTokenCount: Schema.optional(Schema.Number),
  candidatesTokenCount: Schema.optional(Schema.Number),
  thoughtsTokenCount: Schema.optional(Schema.Number),
  cachedContentTokenCount: Schema.optional(Schema.Number),
  totalTokenCount: Schema.optional(Schema.Number)
})
export type UsageMetadata = typeof UsageMetadata.Type

export const Candidate = Schema.Struct({
  content: Schema.optional(Content),
  finishReason: Schema.optional(Schema.String),
  finishMessage: Schema.optional(Schema.String),
  index: Schema.optional(Schema.Number)
})

/** One `generateContent` response, or one SSE chunk of a stream. */
export const Response = Schema.Struct({
  candidates: Schema.optional(Schema.Array(Candidate)),
  promptFeedback: Schema.optional(
    Schema.Struct({ blockReason: Schema.optional(Schema.String), blockReasonMessage: Schema.optional(Schema.String) })
  ),
  usageMetadata: Schema.optional(UsageMetadata),
  modelVersion: Schema.optional(Schema.String),
  responseId: Schema.optional(Schema.String)
})
export type Response = typeof Response.Type

/** The google.rpc error envelope. */
export const ErrorBody = Schema.Struct({
  error: Schema.Struct({
    code: Schema.optional(Schema.Number),
    message: Schema.optional(Schema.String),
    status: Schema.optional(Schema.String),
    details: Schema.optional(Schema.Array(Schema.Unknown))
  })
})
export type ErrorBody = typeof ErrorBody.Type

const options = { onExcessProperty: "preserve" } as const

export const decodeResponse = Schema.decodeUnknownEither(Response, options)
