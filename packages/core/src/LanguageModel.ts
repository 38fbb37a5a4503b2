/**
 * The model as a service. Providers are Layers that supply it; the loop only ever talks to this interface.
 *
 * @example
 * ```ts
 * import { LanguageModel, Turn } from "@agentfx/core"
 * import { Scripted } from "@agentfx/core/testing"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const model = yield* LanguageModel.LanguageModel
 *   const response = yield* model.generate({ transcript: [Turn.user("Hi")], declarations: [] })
 *   return Turn.text(response.turn)
 * })
 *
 * Effect.runPromise(program.pipe(Effect.provide(Scripted.layer([{ text: "Hello!" }])))).then(console.log) // "Hello!"
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import type { FunctionCall } from "./FunctionCall.js"
import type { FunctionDeclaration } from "./FunctionDeclaration.js"
import { type ChunkSource, pump } from "./internal/pump.js"
import { forEachPart, replay } from "./internal/streaming.js"
import type { MalformedResponse, ModelError } from "./ModelError.js"
import type * as Output from "./Output.js"
import type { Transcript } from "./Transcript.js"
import type * as Turn from "./Turn.js"

/**
 * Which calls the model may make: `auto`, text or calls; `any`, it must call (optionally only `allowed`);
 * `none`, no calls.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolChoice = "auto" | "any" | "none" | { readonly allowed: ReadonlyArray<string> }

/**
 * One request to the model: everything it is sent for one turn.
 *
 * @since 0.1.0
 * @category models
 */
export interface Request {
  /** The system instruction. */
  readonly system?: string | undefined
  /** The conversation so far, every call answered; an immutable snapshot (later turns never show up in it). */
  readonly transcript: Transcript
  /** The functions the model may call. */
  readonly declarations: ReadonlyArray<FunctionDeclaration>
  /** Which calls it may make (default: the provider's, normally `auto`). */
  readonly toolChoice?: ToolChoice | undefined
  /** Sampling temperature; when undefined none is sent and the provider's default applies. */
  readonly temperature?: number | undefined
  /** The most tokens the model may produce for this turn. */
  readonly maxOutputTokens?: number | undefined
  /**
   * The final answer's JSON Schema, when the run is to give typed output (`Agent.run({ output })`): a provider with a
   * JSON mode uses it (see `Service.outputMode`). The loop has already put it in `system` unless that mode is `"schema"`.
   */
  readonly output?: Output.Declaration | undefined
}

/**
 * Tokens used by one model turn, or summed over several.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Usage = Schema.Struct({
  inputTokens: Schema.Number,
  outputTokens: Schema.Number,
  totalTokens: Schema.Number,
  reasoningTokens: Schema.optional(Schema.Number),
  cachedTokens: Schema.optional(Schema.Number)
})
/**
 * @since 0.1.0
 * @category models
 */
export interface Usage extends Schema.Schema.Type<typeof Usage> {}

/**
 * No tokens: the start of a sum.
 *
 * @since 0.1.0
 * @category constants
 */
export const emptyUsage: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }

/**
 * Usage summed field by field (optional fields are summed when either side has them).
 *
 * @example
 * ```ts
 * import { LanguageModel } from "@agentfx/core"
 *
 * const turn = { inputTokens: 120, outputTokens: 30, totalTokens: 150 }
 * const total = LanguageModel.addUsage(LanguageModel.emptyUsage, turn) // { inputTokens: 120, outputTokens: 30, totalTokens: 150 }
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
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

/**
 * Why a model turn ended, in neutral form.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FinishReason = Schema.Literal("stop", "tool_calls", "length", "safety", "malformed_call", "other")

/**
 * @since 0.1.0
 * @category models
 */
export type FinishReason = typeof FinishReason.Type

/**
 * One model turn: the turn exactly as the provider gave it (to be appended verbatim), why it ended, its usage.
 *
 * @since 0.1.0
 * @category models
 */
export interface Response {
  readonly turn: Turn.Turn
  readonly finishReason: FinishReason
  readonly usage: Usage
}

/**
 * What `stream` emits: deltas as they arrive, then one `Finish` with the aggregated response. The text deltas
 * concatenate to the final turn's text; each call is announced once, complete, as soon as it is known.
 *
 * @since 0.1.0
 * @category models
 */
export type StreamPart =
  | { readonly _tag: "TextDelta"; readonly text: string }
  | { readonly _tag: "ReasoningDelta"; readonly text: string }
  | { readonly _tag: "CallDelta"; readonly call: FunctionCall }
  | { readonly _tag: "Finish"; readonly response: Response }

/**
 * What a provider implements.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Provider name for logs and results, e.g. "gemini", "glm", "scripted". */
  readonly provider: string
  /** The model's name as the provider knows it, e.g. "gemini-2.5-flash". */
  readonly model: string
  /** One turn, answered whole. */
  readonly generate: (request: Request) => Effect.Effect<Response, ModelError>
  /** One turn, as its parts arrive, ending with `Finish`. */
  readonly stream: (request: Request) => Stream.Stream<StreamPart, ModelError>
  /**
   * How this model takes a request's `output` (see `Output.Mode`): `"schema"` when its JSON mode enforces the schema
   * (the loop then leaves the instructions out), `"json"` when it answers JSON but is told the schema, `"instructions"`
   * when it is only told. Absent: `"instructions"` (a model that knows no JSON mode is told the schema in its
   * system instruction, and its answer is decoded and corrected all the same).
   */
  readonly outputMode?: ((request: Request) => Output.Mode) | undefined
}

/**
 * The model service. Provide it with a provider's Layer (or `Scripted.layer` in tests).
 *
 * @example
 * ```ts
 * import { Agent, Registry } from "@agentfx/core"
 * import { Scripted } from "@agentfx/core/testing"
 * import { Effect } from "effect"
 *
 * // Any layer that provides LanguageModel: Gemini, GLM, OpenAI, or the scripted one.
 * const program = Agent.run({ registry: Registry.empty, prompt: "Hi" }).pipe(Effect.provide(Scripted.layer([{ text: "Hello!" }])))
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class LanguageModel extends Context.Tag("@agentfx/core/LanguageModel")<LanguageModel, Service>() {}

/**
 * A response as a stream: its deltas, then `Finish`. Text comes as one delta per part, or in the pieces `split`
 * makes (the scripted model splits words, to stream like a real provider). The loop reads such a replayed
 * response without running the Stream.
 *
 * @example
 * ```ts
 * import { LanguageModel, Turn } from "@agentfx/core"
 *
 * const stream = LanguageModel.streamOfResponse({ turn: Turn.model("Hi there"), finishReason: "stop", usage: LanguageModel.emptyUsage })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const streamOfResponse = (
  response: Response,
  split: (text: string) => ReadonlyArray<string> = (text) => [text]
): Stream.Stream<StreamPart> => replay(Effect.succeed(response), split)

export type {
  /**
   * How `streamOfChunks` reads one response from an SDK: `start` sends the request (and must abort it when the
   * signal does); `onChunk` turns each chunk into parts, or an error that ends the stream; `onEnd` gives the last
   * parts, the `Finish` among them; `onError` turns whatever `start` or the iterable threw into the stream's error.
   * A throw of any of the three is a defect: the stream dies with it (the request aborted), it is not a retryable
   * error.
   *
   * @since 0.1.0
   * @category models
   */
  ChunkSource
}

/**
 * A provider's streamed response: the async iterable an SDK returns, decoded chunk by chunk into parts. `make` is
 * called once per run of the stream (so a retried stream starts afresh), the request is sent at the first pull and
 * aborted when the reader stops before the response ended. Chunks that arrive while the reader is busy cross
 * together. The loop reads such a stream without running it as a Stream (whose fixed cost is that of several loop
 * steps); run as a Stream, it yields the same parts.
 *
 * @example
 * ```ts
 * import { LanguageModel, ModelError, Turn } from "@agentfx/core"
 * import { Either } from "effect"
 *
 * // An SDK whose request resolves to an async iterable of text chunks.
 * type Chunk = { readonly text: string }
 * const sdk = {
 *   stream: async (_body: unknown, _options: { readonly signal: AbortSignal }): Promise<AsyncIterable<Chunk>> =>
 *     (async function* () {
 *       yield { text: "Hel" }
 *       yield { text: "lo" }
 *     })()
 * }
 *
 * const stream = (request: LanguageModel.Request) =>
 *   LanguageModel.streamOfChunks(() => {
 *     let text = "" // one aggregator per run of the stream: a retried stream starts afresh
 *     return {
 *       start: (signal) => sdk.stream({ contents: request.transcript.map(Turn.text) }, { signal }),
 *       onChunk: (chunk: Chunk) => {
 *         text += chunk.text
 *         return Either.right([{ _tag: "TextDelta", text: chunk.text }])
 *       },
 *       onEnd: () => Either.right([{ _tag: "Finish", response: { turn: Turn.model(text), finishReason: "stop", usage: LanguageModel.emptyUsage } }]),
 *       onError: (error) => new ModelError.Unavailable({ message: String(error) })
 *     }
 *   })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const streamOfChunks = <Item, E = ModelError>(make: () => ChunkSource<Item, E>): Stream.Stream<StreamPart, E> => pump(make)

/**
 * The final response of a stream (its last `Finish`); a stream that ends without `Finish` is a `MalformedResponse`.
 *
 * @example
 * ```ts
 * import { LanguageModel, Turn } from "@agentfx/core"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const stream = LanguageModel.streamOfResponse({ turn: Turn.model("Hi there"), finishReason: "stop", usage: LanguageModel.emptyUsage })
 *   const response = yield* LanguageModel.collect(stream)
 *   return Turn.text(response.turn) // "Hi there"
 * })
 * ```
 *
 * @since 0.1.0
 * @category destructors
 */
export const collect = <E, R>(stream: Stream.Stream<StreamPart, E, R>): Effect.Effect<Response, E | MalformedResponse, R> =>
  forEachPart(stream, ignore)

const ignore = (): void => {}

/**
 * Builds a service from `generate` alone; `stream` replays each response as deltas (one per text part).
 *
 * @example
 * ```ts
 * import { LanguageModel, Turn } from "@agentfx/core"
 * import { Effect } from "effect"
 *
 * const echo = LanguageModel.fromGenerate({
 *   provider: "echo",
 *   model: "echo-1",
 *   generate: (request) =>
 *     Effect.succeed({ turn: Turn.model(Turn.text(request.transcript.at(-1) ?? Turn.user(""))), finishReason: "stop", usage: LanguageModel.emptyUsage })
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromGenerate = (options: {
  readonly provider: string
  readonly model: string
  readonly generate: Service["generate"]
}): Service => ({
  ...options,
  stream: (request) => replay(options.generate(request))
})
