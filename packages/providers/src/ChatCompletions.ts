/**
 * Any OpenAI-compatible chat-completions server as a `LanguageModel`, through the openai SDK. `Glm` and `OpenAI`
 * are presets of this layer.
 *
 * The assistant message is sent back with its `tool_calls` (arguments byte for byte) and `reasoning_content`,
 * followed immediately by one `role: "tool"` message per call. `arguments` are parsed defensively: text that is
 * not a JSON object gives a call with `args: {}` and `metadata.argumentsError`, never a crash. Stream deltas are
 * joined by index. A run's typed output goes as `outputFormat` says: OpenAI's strict `json_schema` (default),
 * `json_object` with the schema in the instructions (GLM), or the instructions alone (a server with no JSON mode).
 * The SDK's own retries are off (`maxRetries: 0`); interrupting aborts the request. The SDK's
 * own log lines (it prints stream chunks it cannot parse, which may echo the key) go through the key scrubber to
 * Effect's logger at Debug level, never straight to the console.
 *
 * @example
 * ```ts
 * import { ChatCompletions } from "@agentfx/providers"
 * import { Redacted } from "effect"
 *
 * // A local OpenAI-compatible server (vLLM, llama.cpp, Ollama, ...)
 * const local = ChatCompletions.layer({
 *   apiKey: Redacted.make("sk-local"),
 *   baseUrl: "http://127.0.0.1:8000/v1",
 *   model: "qwen3"
 * })
 * ```
 *
 * @since 0.1.0
 */
import type { Json, Output } from "@agentfx/core"
import { Dialect, LanguageModel, ModelError } from "@agentfx/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import OpenAIClient from "openai"
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions"
import * as codec from "./internal/openai/codec.js"
import { classify } from "./internal/openai/errors.js"
import { Accumulator, decodeCompletion } from "./internal/openai/response.js"
import * as Wire from "./internal/openai/wire.js"
import { capped, defaultMaxResponseBytes, tooLarge } from "./internal/cappedFetch.js"
import { requireContent } from "./internal/emptyTurn.js"
import { scrubber } from "./internal/secrets.js"
import { wrongShape } from "./internal/wrongShape.js"
import { baseUrlProblem } from "./internal/endpoint.js"
import * as SdkLogger from "./internal/sdkLogger.js"

/**
 * How to reach an OpenAI-compatible server and which of its dialect choices to make.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly apiKey: Redacted.Redacted<string>
  /** Up to and without `/chat/completions`, e.g. `https://api.z.ai/api/paas/v4`. */
  readonly baseUrl: string
  readonly model: string
  /** Name in results and logs (default `"openai-compatible"`). */
  readonly provider?: string | undefined
  /**
   * `"full"` (default): `auto`, `none`, `required` and a named function. `"auto-only"` (GLM): only `auto` is
   * accepted, so `none` leaves the tools out and `any` / `allowed` narrow the tools offered instead.
   */
  readonly toolChoice?: "full" | "auto-only" | undefined
  /** Send `reasoning_content` back on assistant messages (default true; servers such as OpenAI's reject it). */
  readonly echoReasoning?: boolean | undefined
  /** Where the output limit goes (default `max_tokens`; OpenAI's newer models want `max_completion_tokens`). */
  readonly maxTokensField?: "max_tokens" | "max_completion_tokens" | undefined
  /**
   * How a run's typed output is asked for: `"json_schema"` (default), `response_format` in OpenAI's strict
   * Structured Outputs form (`Dialect.openAIOutput`; a schema strict mode cannot express fails the request before it
   * is sent); `"json_object"`, `response_format: {type: "json_object"}` with the schema in the instructions (GLM's one
   * JSON mode; for an output whose root is no object, the instructions alone); `"instructions"`, no JSON mode.
   */
  readonly outputFormat?: "json_schema" | "json_object" | "instructions" | undefined
  /** Ask for usage in streams with `stream_options.include_usage` (default true). */
  readonly streamUsage?: boolean | undefined
  /** Built-in tools sent after the functions, e.g. GLM `{type: "web_search", web_search: {...}}`. */
  readonly builtinTools?: ReadonlyArray<Json.JsonObject> | undefined
  /** Extra body fields sent as they are, e.g. GLM `{thinking: {type: "enabled"}}`. */
  readonly extraBody?: Json.JsonObject | undefined
  /** Extra HTTP headers. */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** Most bytes read from one response, streamed or not (default 32 MiB); past it the request fails. */
  readonly maxResponseBytes?: number | undefined
}

interface Body {
  readonly [key: string]: unknown
  readonly model: string
  readonly messages: Array<codec.MessageOut>
  tools?: Array<unknown>
  tool_choice?: unknown
  temperature?: number
  max_tokens?: number
  max_completion_tokens?: number
  response_format?: Dialect.OpenAIResponseFormat | { readonly type: "json_object" }
}

/** An output whose root is an object: what `json_object` answers with. */
const objectRoot = (declaration: Output.Declaration): boolean => declaration.schema.type === "object"

/** How the server takes a request's output under `outputFormat` (see `LanguageModel.Service.outputMode`). */
const outputMode = (options: Options) => (request: LanguageModel.Request): Output.Mode => {
  const format = options.outputFormat ?? "json_schema"
  if (format === "json_schema") return "schema"
  return format === "json_object" && request.output !== undefined && objectRoot(request.output) ? "json" : "instructions"
}

const encode = (options: Options, request: LanguageModel.Request): Either.Either<Body, ModelError.ModelError> => {
  const autoOnly = options.toolChoice === "auto-only"
  const choice = request.toolChoice
  const allowed = typeof choice === "object" ? new Set(choice.allowed) : undefined
  const declarations =
    autoOnly && choice === "none" ? [] : allowed === undefined ? request.declarations : request.declarations.filter((d) => allowed.has(d.name))
  const tools = codec.encodeTools(declarations)
  if (Either.isLeft(tools)) return Either.left(new ModelError.InvalidRequest({ message: tools.left.message }))
  const body: Body = {
    ...options.extraBody,
    model: options.model,
    messages: codec.encodeMessages(request.system, request.transcript, { reasoning: options.echoReasoning ?? true })
  }
  const allTools: Array<unknown> = [...tools.right, ...(options.builtinTools ?? [])]
  if (allTools.length > 0) body.tools = allTools
  if (tools.right.length > 0 && choice !== undefined) {
    if (autoOnly) body.tool_choice = "auto"
    else if (choice === "auto" || choice === "none") body.tool_choice = choice
    // Past auto, none and any, the choice names its functions: `allowed` is their set.
    else if (choice === "any" || allowed!.size !== 1) body.tool_choice = "required"
    else body.tool_choice = { type: "function", function: { name: [...allowed!][0] } }
  }
  if (request.output !== undefined) {
    const mode = outputMode(options)(request)
    if (mode === "schema") {
      const format = Dialect.openAIOutput(request.output)
      if (Either.isLeft(format)) return Either.left(new ModelError.InvalidRequest({ message: format.left.message }))
      body.response_format = format.right
    } else if (mode === "json") body.response_format = { type: "json_object" }
  }
  // Stryker disable next-line ConditionalExpression: a field set to undefined is left out of the JSON body all the same
  if (request.temperature !== undefined) body.temperature = request.temperature
  // Stryker disable next-line ConditionalExpression: as above
  if (request.maxOutputTokens !== undefined) body[options.maxTokensField ?? "max_tokens"] = request.maxOutputTokens
  return Either.right(body)
}

/**
 * Builds the service (the SDK client is created here, once, with `maxRetries: 0` and its logging scrubbed, at Debug).
 *
 * @since 0.1.0
 */
export const make = (options: Options): Effect.Effect<LanguageModel.Service> =>
  Effect.map(SdkLogger.make("openai", scrubber(options.apiKey)), (logger) => {
    const client = new OpenAIClient({
      apiKey: Redacted.value(options.apiKey),
      baseURL: options.baseUrl,
      maxRetries: 0,
      logger,
      fetch: capped(options.maxResponseBytes ?? defaultMaxResponseBytes),
      // Stryker disable next-line ConditionalExpression: default headers spread from undefined are none all the same
      ...(options.headers === undefined ? {} : { defaultHeaders: { ...options.headers } })
    })
    const scrub = scrubber(options.apiKey)
    const provider = options.provider ?? "openai-compatible"
    // A base URL that cannot work fails every request at once, as a request no retry can fix.
    const problem = baseUrlProblem(options.baseUrl)
    const misconfigured = problem === undefined ? undefined : Either.left(new ModelError.InvalidRequest({ message: scrub(problem) }))
    const encoded = (request: LanguageModel.Request) => misconfigured ?? encode(options, request)

    // A flat pipeline, no `Effect.fn` span: on this path a span per request measured ~0.1 ms, a third of the
    // per-turn budget; the caller's spans (the agent loop's) cover the request.
    const generate = (request: LanguageModel.Request): Effect.Effect<LanguageModel.Response, ModelError.ModelError> =>
      Either.match(encoded(request), {
        onLeft: Effect.fail,
        onRight: (body) => {
          // The SDK's types do not know server extensions (reasoning_content, GLM's thinking, ...); it sends the body as is.
          const params = body as unknown as ChatCompletionCreateParamsNonStreaming
          return Effect.flatMap(
            Effect.tryPromise({
              try: (signal) => client.chat.completions.create(params, { signal }),
              catch: (error) => tooLarge(error) ?? classify(error, scrub, options.baseUrl)
            }),
            (raw) =>
              Wire.decodeCompletion(raw).pipe(
                Either.mapLeft((error) => wrongShape("completion", error, scrub)),
                Either.flatMap((completion) => decodeCompletion(request.transcript, completion)),
                Either.flatMap(requireContent)
              )
          )
        }
      })

    const stream = (request: LanguageModel.Request): Stream.Stream<LanguageModel.StreamPart, ModelError.ModelError> =>
      Either.match(encoded(request), {
        onLeft: Stream.fail,
        onRight: (body) => {
          const params = {
            ...body,
            stream: true,
            ...(options.streamUsage === false ? {} : { stream_options: { include_usage: true } })
          } as unknown as ChatCompletionCreateParamsStreaming
          return LanguageModel.streamOfChunks<unknown, ModelError.ModelError>(() => {
            const accumulator = new Accumulator(request.transcript)
            let chunks = 0
            return {
              start: (signal) => client.chat.completions.create(params, { signal }),
              onChunk: (chunk) => {
                // Stryker disable next-line UpdateOperator: only whether any chunk came counts
                chunks++
                return Wire.decodeChunk(chunk).pipe(
                  Either.mapLeft((error) => wrongShape("chunk", error, scrub)),
                  Either.flatMap((decoded) => accumulator.push(decoded))
                )
              },
              // The SDK reads a body that is no event stream (an HTML page, plain JSON) as a stream of no chunks.
              onEnd: () =>
                chunks === 0
                  ? Either.left(new ModelError.MalformedResponse({ message: "the response is not an event stream: it held no chunk" }))
                  : Either.flatMap(accumulator.finish(), ({ deltas, response }) =>
                      Either.map(requireContent(response), () => [...deltas, { _tag: "Finish" as const, response }])
                    ),
              onError: (error) => tooLarge(error) ?? classify(error, scrub, options.baseUrl)
            }
          })
        }
      })

    return { provider, model: options.model, generate, stream, outputMode: outputMode(options) }
  })

/**
 * A Layer of an OpenAI-compatible `LanguageModel`.
 *
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel> => Layer.effect(LanguageModel.LanguageModel, make(options))
