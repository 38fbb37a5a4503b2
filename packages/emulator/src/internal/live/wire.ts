/**
 * The Gemini Live client messages as the server reads them (`BidiGenerateContentClientMessage` and its parts),
 * written from the API reference and the SDK's wire captures: exactly one top-level message per frame, `setup`
 * first and once, fields it does not know refused ("Unknown name …"), each with the 1007 close a bad payload gets.
 * The server's own frames are built in `session.ts`.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { isPlainObject } from "../json.js"
import { bool, Content, describeIssue, FunctionResponse, GenerationConfig, message, opt, repeated, string, struct, Tool } from "../gemini/wire.js"

const live = (name: string) => `BidiGenerateContent${name}`

export const SessionResumption = message(live("SessionResumptionConfig"), { handle: opt(string), transparent: opt(bool) })

export const Setup = message(live("Setup"), {
  model: string,
  generationConfig: opt(GenerationConfig),
  systemInstruction: opt(Content),
  tools: opt(repeated(Tool)),
  sessionResumption: opt(SessionResumption),
  realtimeInputConfig: opt(struct),
  contextWindowCompression: opt(struct),
  inputAudioTranscription: opt(struct),
  outputAudioTranscription: opt(struct),
  proactivity: opt(struct),
  historyConfig: opt(struct),
  explicitVadSignal: opt(bool),
  safetySettings: opt(repeated(struct))
})
export type Setup = typeof Setup.Type

export const ClientContent = message(live("ClientContent"), { turns: opt(repeated(Content)), turnComplete: opt(bool) })
export type ClientContent = typeof ClientContent.Type

const Blob = message("Blob", { mimeType: opt(string), data: opt(string) })

export const RealtimeInput = message(live("RealtimeInput"), {
  text: opt(string),
  audio: opt(Blob),
  video: opt(Blob),
  mediaChunks: opt(repeated(Blob)),
  audioStreamEnd: opt(bool),
  activityStart: opt(struct),
  activityEnd: opt(struct)
})
export type RealtimeInput = typeof RealtimeInput.Type

export const ToolResponse = message(live("ToolResponse"), { functionResponses: opt(repeated(FunctionResponse)) })
export type ToolResponse = typeof ToolResponse.Type

export const ContextUpdate = message(live("ContextUpdate"), { systemInstruction: opt(Content), tools: opt(struct) })

const clientMessage = live("ClientMessage")

const ClientMessage = message(clientMessage, {
  setup: opt(Setup),
  clientContent: opt(ClientContent),
  realtimeInput: opt(RealtimeInput),
  toolResponse: opt(ToolResponse),
  contextUpdate: opt(ContextUpdate)
})

/** One client frame, read: the message it holds, or the 1007 reason the server closes the connection with. */
export type ClientFrame =
  | { readonly _tag: "setup"; readonly setup: Setup }
  | { readonly _tag: "clientContent"; readonly clientContent: ClientContent }
  | { readonly _tag: "realtimeInput"; readonly realtimeInput: RealtimeInput }
  | { readonly _tag: "toolResponse"; readonly toolResponse: ToolResponse }
  | { readonly _tag: "contextUpdate" }

const decode = Schema.decodeUnknownEither(ClientMessage, {
  // Stryker disable next-line StringLiteral: all the issues or the first, the first is the one told (describeIssue)
  errors: "first",
  onExcessProperty: "error"
})

const messageKinds = ["setup", "clientContent", "realtimeInput", "toolResponse", "contextUpdate"] as const

/** A parsed client frame as the server reads it. */
export const decodeFrame = (frame: unknown): Either.Either<ClientFrame, string> => {
  if (!isPlainObject(frame)) return Either.left(`Invalid JSON payload received. Expected an object, got ${JSON.stringify(frame) ?? "nothing"}.`)
  return Either.flatMap(
    Either.mapLeft(decode(frame), (error) => describeIssue(error.issue, clientMessage)),
    (read): Either.Either<ClientFrame, string> => {
      const kinds = messageKinds.filter((kind) => read[kind] !== undefined)
      if (kinds.length === 0) return Either.left("Invalid JSON payload received. A client message must hold one of setup, clientContent, realtimeInput, toolResponse.")
      if (kinds.length > 1) return Either.left(`Invalid JSON payload received. Oneof field 'message_type' is already set. Cannot set '${kinds[1]}'.`)
      switch (kinds[0]!) {
        case "setup":
          return Either.right({ _tag: "setup", setup: read.setup! })
        case "clientContent":
          return Either.right({ _tag: "clientContent", clientContent: read.clientContent! })
        case "realtimeInput":
          return Either.right({ _tag: "realtimeInput", realtimeInput: read.realtimeInput! })
        case "toolResponse":
          return Either.right({ _tag: "toolResponse", toolResponse: read.toolResponse! })
        case "contextUpdate":
          return Either.right({ _tag: "contextUpdate" })
      }
    }
  )
}
