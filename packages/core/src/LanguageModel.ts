/**
 * The model as a service. Providers are Layers that supply it; the loop only ever talks to this interface.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { FunctionCall } from "./FunctionCall.js"
import type { FunctionDeclaration } from "./FunctionDeclaration.js"
import type { ModelError } from "./ModelError.js"
import { MalformedResponse } from "./ModelError.js"
import type { Transcript } from "./Transcript.js"
import type * as Turn from "./Turn.js"

/** `auto`: text or calls; `any`: must call (optionally only `allowed`); `none`: no calls. */
export type ToolChoice = "auto" | "any" | "none" | { readonly allowed: ReadonlyArray<string> }

export interface Request {
  readonly system?: string | undefined
  readonly transcript: Transcript
  readonly declarations: ReadonlyArray<FunctionDeclaration>
  readonly toolChoice?: ToolChoice | undefined
  /** Default 0: tool calling is most reliable deterministic. */
  readonly temperature?: number | undefined
  readonly maxOutputTokens?: number | undefined
}

export const Usage = Schema.Struct({
  inputTokens: Schema.Number,
  outputTokens: Schema.Number,
  totalTokens: Schema.Number,
  reasoningTokens: Schema.optional(Schema.Number),
  cachedTokens: Schema.optional(Schema.Number)
})
export interface Usage extends Schema.Schema.Type<typeof Usage> {}

export const emptyUsage: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }

/** Usage summed field by field (optional fields are summed when either side has them). */
export const addUsage = (a: Usage, b: Usage): Usage => {
  const sum: { -readonly [K in keyof Usage]: Usage[K] } = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens
  }
  if (a.reasoningTokens !== undefined || b.reasoningTokens !== undefined) sum.reasoningTokens = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0)
  if (a.cachedTokens !== undefined || b.cachedTokens !== undefined) sum.cachedTokens = (a.cachedTokens ?? 0) + (b.cachedTokens ?? 0)
  return sum
}

export const FinishReason = Schema.Literal("stop", "tool_calls", "length", "safety", "malformed_call", "other")
export type FinishReason = typeof FinishReason.Type

/** One model turn: the turn exactly as the provider gave it (to be appended verbatim), why it ended, its usage. */
export interface Response {
  readonly turn: Turn.Turn
  readonly finishReason: FinishReason
  readonly usage: Usage
}

/**
 * What `stream` emits: deltas as they arrive, then one `Finish` with the aggregated response. The text deltas
 * concatenate to the final turn's text; each call is announced once, complete, as soon as it is known.
 */
export type StreamPart =
  | { readonly _tag: "TextDelta"; readonly text: string }
  | { readonly _tag: "ReasoningDelta"; readonly text: string }
  | { readonly _tag: "CallDelta"; readonly call: FunctionCall }
  | { readonly _tag: "Finish"; readonly response: Response }

export interface Service {
  /** Provider name for logs and results, e.g. "gemini", "glm", "scripted". */
  readonly provider: string
  readonly model: string
  readonly generate: (request: Request) => Effect.Effect<Response, ModelError>
  readonly stream: (request: Request) => Stream.Stream<StreamPart, ModelError>
}

export class LanguageModel extends Context.Tag("@agentfx/core/LanguageModel")<LanguageModel, Service>() {}

/**
 * A response as a stream: its deltas, then `Finish`. Text comes as one delta per part, or in the pieces `split`
 * makes (the scripted model splits words, to stream like a real provider).
 */
export const streamOfResponse = (
  response: Response,
  split: (text: string) => ReadonlyArray<string> = (text) => [text]
): Stream.Stream<StreamPart> => {
  const deltas: Array<StreamPart> = []
  for (const part of response.turn.parts) {
    if (part._tag === "Text" && part.text !== "") for (const text of split(part.text)) deltas.push({ _tag: "TextDelta", text })
    else if (part._tag === "Reasoning" && part.text !== "") deltas.push({ _tag: "ReasoningDelta", text: part.text })
    else if (part._tag === "FunctionCall") deltas.push({ _tag: "CallDelta", call: part })
  }
  deltas.push({ _tag: "Finish", response })
  return Stream.fromIterable(deltas)
}

/** The final response of a stream; a stream that ends without `Finish` is a `MalformedResponse`. */
export const collect = <E, R>(stream: Stream.Stream<StreamPart, E, R>): Effect.Effect<Response, E | MalformedResponse, R> =>
  Stream.runFold(stream, undefined as Response | undefined, (last, part) => (part._tag === "Finish" ? part.response : last)).pipe(
    Effect.flatMap((response) =>
      response === undefined ? Effect.fail(new MalformedResponse({ message: "the stream ended without a final response" })) : Effect.succeed(response)
    )
  )

/** Builds a service from `generate` alone; `stream` replays each response as deltas. */
export const fromGenerate = (options: {
  readonly provider: string
  readonly model: string
  readonly generate: Service["generate"]
}): Service => ({
  ...options,
  stream: (request) => Stream.unwrap(Effect.map(options.generate(request), streamOfResponse))
})
