/**
 * Gemini (REST `generateContent` / `streamGenerateContent`) as a `LanguageModel`, through @google/genai.
 *
 * Model turns are echoed exactly as received: every part in place, each `thoughtSignature` on the part it came
 * on (kept in the part's `metadata`); function responses go back in one `user` turn, ids echoed when Gemini gave
 * them; declarations are sent as `parametersJsonSchema`. A run's typed output is JSON mode (`responseMimeType:
 * application/json` with `responseJsonSchema`), except with function declarations on models before Gemini 3, which
 * refuse the two together: there the schema travels in the instructions (`outputMode`). The SDK does not retry (the agent loop owns retries),
 * and interrupting a request aborts it, mid-stream too. On these paths @google/genai prints nothing of a response
 * (it has no logger to route; what it cannot parse it throws, and the layer scrubs the key out of it).
 *
 * @example
 * ```ts
 * import { Gemini } from "@agentfx/providers"
 * import { Redacted } from "effect"
 *
 * const model = Gemini.layer({ apiKey: Redacted.make(process.env.GEMINI_API_KEY ?? ""), model: "gemini-2.5-flash" })
 * const fromEnv = Gemini.layerConfig() // GEMINI_API_KEY, then GOOGLE_API_KEY; GEMINI_MODEL, GEMINI_BASE_URL
 * ```
 *
 * @since 0.1.0
 */
import { LanguageModel, ModelError } from "@agentfx/core"
import type { GenerateContentConfig, GenerateContentParameters, GenerateContentResponse, ToolConfig } from "@google/genai"
import { FunctionCallingConfigMode, GoogleGenAI } from "@google/genai"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { apiKey, definedOnly, optionalBaseUrl } from "./internal/config.js"
import * as codec from "./internal/gemini/codec.js"
import { classify } from "./internal/gemini/errors.js"
import { Aggregator, decodeResponse } from "./internal/gemini/response.js"
import * as Wire from "./internal/gemini/wire.js"
import { capped, defaultMaxResponseBytes, tooLarge } from "./internal/cappedFetch.js"
import { requireContent } from "./internal/emptyTurn.js"
import { baseUrlProblem } from "./internal/endpoint.js"
import { plainErrorBodies } from "./internal/gemini/errorBodies.js"
import { scrubber } from "./internal/secrets.js"
import { wrongShape } from "./internal/wrongShape.js"

export {
  /**
   * What one response may hold at most unless `maxResponseBytes` says otherwise (32 MiB).
   *
   * @since 0.1.0
   * @category constants
   */
  defaultMaxResponseBytes
} from "./internal/cappedFetch.js"

/**
 * The model used when none is named.
 *
 * @since 0.1.0
 */
export const defaultModel = "gemini-2.5-flash"

/**
 * Google's endpoint, used when no `baseUrl` is given.
 *
 * @since 0.1.0
 */
export const defaultBaseUrl = "https://generativelanguage.googleapis.com"

/**
 * How to reach Gemini; only the key is required.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly apiKey: Redacted.Redacted<string>
  /** Default `gemini-2.5-flash`. */
  readonly model?: string | undefined
  /** Override the endpoint (the emulator, a proxy); default Google's. */
  readonly baseUrl?: string | undefined
  /** Default `v1beta`. */
  readonly apiVersion?: string | undefined
  /** Most bytes read from one response, streamed or not (default 32 MiB); past it the request fails. */
  readonly maxResponseBytes?: number | undefined
  /** The transport under the SDK (default the global `fetch`), e.g. the emulator's in-process `fetch`. */
  readonly fetch?: typeof globalThis.fetch | undefined
  /** Extra request settings (thinkingConfig, safetySettings, ...); the layer sets tools, system and sampling. */
  readonly config?: Omit<GenerateContentConfig, "abortSignal" | "tools" | "toolConfig" | "systemInstruction"> | undefined
}

const modes: Record<"AUTO" | "ANY" | "NONE", FunctionCallingConfigMode> = {
  AUTO: FunctionCallingConfigMode.AUTO,
  ANY: FunctionCallingConfigMode.ANY,
  NONE: FunctionCallingConfigMode.NONE
}

const sdkToolConfig = (toolConfig: codec.RequestBody["toolConfig"]): ToolConfig | undefined =>
  toolConfig === undefined
    ? undefined
    : { functionCallingConfig: { ...toolConfig.functionCallingConfig, mode: modes[toolConfig.functionCallingConfig.mode] } }

/**
 * Builds the service (the SDK client is created here, once).
 *
 * @since 0.1.0
 */
export const make = (options: Options): Effect.Effect<LanguageModel.Service> =>
  Effect.sync(() => {
    const model = options.model ?? defaultModel
    const client = new GoogleGenAI({
      apiKey: Redacted.value(options.apiKey),
      httpOptions: {
        fetch: plainErrorBodies(capped(options.maxResponseBytes ?? defaultMaxResponseBytes, options.fetch)),
        // Stryker disable next-line ConditionalExpression: the SDK takes an undefined baseUrl or apiVersion as not given
        ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
        // Stryker disable next-line ConditionalExpression: as above
        ...(options.apiVersion === undefined ? {} : { apiVersion: options.apiVersion })
      }
    })
    const scrub = scrubber(options.apiKey)
    const endpoint = options.baseUrl ?? defaultBaseUrl
    // A base URL that cannot work fails every request at once, as a request no retry can fix.
    const problem = baseUrlProblem(endpoint)
    const misconfigured = problem === undefined ? undefined : new ModelError.InvalidRequest({ message: scrub(problem) })

    const parameters = (request: LanguageModel.Request): Either.Either<GenerateContentParameters, ModelError.ModelError> =>
      misconfigured !== undefined ? Either.left(misconfigured) : Either.match(codec.encodeRequest(request, model), {
        onLeft: (error) => Either.left(new ModelError.InvalidRequest({ message: error.message })),
        onRight: (body) => {
          const config: GenerateContentConfig = { ...options.config }
          // Stryker disable next-line ConditionalExpression: the SDK leaves out a field set to undefined (tested: none of the three is sent)
          if (body.systemInstruction !== undefined) config.systemInstruction = body.systemInstruction
          // Stryker disable next-line ConditionalExpression: as above
          if (body.tools !== undefined) config.tools = body.tools
          const toolConfig = sdkToolConfig(body.toolConfig)
          // Stryker disable next-line ConditionalExpression: as above
          if (toolConfig !== undefined) config.toolConfig = toolConfig
          if (body.generationConfig?.temperature !== undefined) config.temperature = body.generationConfig.temperature
          if (body.generationConfig?.maxOutputTokens !== undefined) config.maxOutputTokens = body.generationConfig.maxOutputTokens
          if (body.generationConfig?.responseJsonSchema !== undefined) {
            // The output's schema replaces any the options set: the two fields may not travel together.
            delete config.responseSchema
            config.responseMimeType = body.generationConfig.responseMimeType
            config.responseJsonSchema = body.generationConfig.responseJsonSchema
          }
          return Either.right({ model, contents: body.contents, config })
        }
      })

    const withSignal = (params: GenerateContentParameters, signal: AbortSignal): GenerateContentParameters => ({
      ...params,
      config: { ...params.config, abortSignal: signal }
    })

    // Only the fields read are decoded: the SDK's response object also carries its HTTP response and getters.
    const decodeChunk = (chunk: GenerateContentResponse): Either.Either<Wire.Response, ModelError.ModelError> =>
      Either.mapLeft(
        Wire.decodeResponse({ candidates: chunk.candidates, promptFeedback: chunk.promptFeedback, usageMetadata: chunk.usageMetadata }),
        (error) => wrongShape("response", error, scrub)
      )

    // A flat pipeline, no `Effect.fn` span: on this path a span per request measured ~0.1 ms, a third of the
    // per-turn budget; the caller's spans (the agent loop's) cover the request.
    const generate = (request: LanguageModel.Request): Effect.Effect<LanguageModel.Response, ModelError.ModelError> =>
      Either.match(parameters(request), {
        onLeft: Effect.fail,
        onRight: (params) =>
          Effect.flatMap(
            Effect.tryPromise({
              try: (signal) => client.models.generateContent(withSignal(params, signal)),
              catch: (error) => tooLarge(error) ?? classify(error, scrub, endpoint)
            }),
            (raw) =>
              decodeChunk(raw).pipe(
                Either.flatMap((response) => decodeResponse(request.transcript, response)),
                Either.flatMap(requireContent)
              )
          )
      })

    const stream = (request: LanguageModel.Request): Stream.Stream<LanguageModel.StreamPart, ModelError.ModelError> =>
      Either.match(parameters(request), {
        onLeft: Stream.fail,
        onRight: (params) =>
          LanguageModel.streamOfChunks<GenerateContentResponse, ModelError.ModelError>(() => {
            const aggregator = new Aggregator(request.transcript, true)
            return {
              start: (signal) => client.models.generateContentStream(withSignal(params, signal)),
              onChunk: (chunk) => Either.flatMap(decodeChunk(chunk), (decoded) => aggregator.push(decoded)),
              onEnd: () => aggregator.finish().pipe(Either.flatMap(requireContent), Either.map((response) => [{ _tag: "Finish", response }])),
              onError: (error) => tooLarge(error) ?? classify(error, scrub, endpoint)
            }
          })
      })

    return { provider: codec.provider, model, generate, stream, outputMode: codec.outputMode(model) }
  })

/**
 * A Layer of the Gemini `LanguageModel`.
 *
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))

/**
 * Options from the environment: `GEMINI_API_KEY` (else `GOOGLE_API_KEY`), `GEMINI_MODEL`, `GEMINI_BASE_URL`.
 * The key is read with `Config.redacted`, so it never shows in logs or config errors.
 *
 * @since 0.1.0
 */
export const config: Config.Config<Options> = Config.all({
  apiKey: apiKey("GEMINI_API_KEY", "GOOGLE_API_KEY"),
  model: Config.withDefault(Config.string("GEMINI_MODEL"), defaultModel),
  baseUrl: optionalBaseUrl("GEMINI_BASE_URL")
})

/**
 * The Gemini layer configured from the environment (see `config`); `overrides` win over the environment.
 *
 * @since 0.1.0
 */
export const layerConfig = (
  overrides: Omit<Partial<Options>, "apiKey"> = {}
): Layer.Layer<LanguageModel.LanguageModel, ConfigError.ConfigError> =>
  Layer.effect(
    LanguageModel.LanguageModel,
    Effect.flatMap(config, (options) => make({ ...options, ...definedOnly(overrides) }))
  )
