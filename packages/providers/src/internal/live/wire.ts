/**
 * The Gemini Live server messages this package reads (a frame may hold several of them). Decoders keep unknown
 * keys: the server adds fields over time, and what is not read here is not needed.
 */
import * as Schema from "effect/Schema"
import { Content, UsageMetadata } from "../gemini/wire.js"
import { JsonObject } from "../json.js"

const Transcription = Schema.Struct({ text: Schema.optional(Schema.String), finished: Schema.optional(Schema.Boolean) })

export const ServerContent = Schema.Struct({
  modelTurn: Schema.optional(Content),
  turnComplete: Schema.optional(Schema.Boolean),
  interrupted: Schema.optional(Schema.Boolean),
  generationComplete: Schema.optional(Schema.Boolean),
  inputTranscription: Schema.optional(Transcription),
  outputTranscription: Schema.optional(Transcription),
  turnCompleteReason: Schema.optional(Schema.String)
})

export const LiveFunctionCall = Schema.Struct({
  id: Schema.optional(Schema.String),
  name: Schema.String,
  args: Schema.optional(JsonObject)
})

export const ServerMessage = Schema.Struct({
  setupComplete: Schema.optional(Schema.Unknown),
  serverContent: Schema.optional(ServerContent),
  toolCall: Schema.optional(Schema.Struct({ functionCalls: Schema.optional(Schema.Array(LiveFunctionCall)) })),
  toolCallCancellation: Schema.optional(Schema.Struct({ ids: Schema.optional(Schema.Array(Schema.String)) })),
  usageMetadata: Schema.optional(Schema.extend(UsageMetadata, Schema.Struct({ responseTokenCount: Schema.optional(Schema.Number) }))),
  goAway: Schema.optional(Schema.Struct({ timeLeft: Schema.optional(Schema.String) })),
  sessionResumptionUpdate: Schema.optional(Schema.Struct({ newHandle: Schema.optional(Schema.String), resumable: Schema.optional(Schema.Boolean) }))
})
export type ServerMessage = typeof ServerMessage.Type

export const decodeServerMessage = Schema.decodeUnknownEither(ServerMessage, { onExcessProperty: "preserve" })
