/**
 * GLM (Z.AI) presets of the OpenAI-compatible layer: the general (pay-as-you-go) and the coding-plan endpoints,
 * only `tool_choice: "auto"` (the one GLM accepts), `reasoning_content` sent back with its tool calls
 * (interleaved thinking needs it), GLM business codes classified (1113 and 1308–1313 are never retried), typed
 * output as `json_object` with the schema in the instructions (GLM has no `json_schema`).
 *
 * @example
 * ```ts
 * import { Glm } from "@agentfx/providers"
 * import { Redacted } from "effect"
 *
 * const glm = Glm.layer({ apiKey: Redacted.make(process.env.ZAI_API_KEY ?? ""), endpoint: "coding", model: "glm-4.7" })
 * const fromEnv = Glm.layerConfig() // ZAI_API_KEY, ZAI_MODEL, ZAI_ENDPOINT, ZAI_BASE_URL
 * ```
 *
 * @since 0.1.0
 */
import type { Json, LanguageModel } from "@agentfx/core"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import * as ChatCompletions from "./ChatCompletions.js"
import { apiKey, definedOnly, optionalBaseUrl } from "./internal/config.js"

/**
 * Z.AI's base URLs: `general` for pay-as-you-go keys, `coding` for GLM Coding Plan keys (a key only works on its own).
 *
 * @since 0.1.0
 */
export const endpoints = {
  general: "https://api.z.ai/api/paas/v4",
  coding: "https://api.z.ai/api/coding/paas/v4"
} as const

/**
 * `general` or `coding`.
 *
 * @since 0.1.0
 * @category models
 */
export type Endpoint = keyof typeof endpoints

/**
 * The model used when none is named.
 *
 * @since 0.1.0
 */
export const defaultModel = "glm-4.7"

/**
 * A GLM configuration; only the key is required.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly apiKey: Redacted.Redacted<string>
  /** Default `glm-4.7`. */
  readonly model?: string | undefined
  /** Most bytes read from one response, streamed or not (default 32 MiB). */
  readonly maxResponseBytes?: number | undefined
  /** Default `general`. */
  readonly endpoint?: Endpoint | undefined
  /** Wins over `endpoint` (the emulator, mainland `open.bigmodel.cn`, a proxy). */
  readonly baseUrl?: string | undefined
  /** GLM `thinking.type`; left to the model's default when unset. */
  readonly thinking?: "enabled" | "disabled" | undefined
  /** GLM `tool_stream`: stream tool-call arguments in fragments (GLM-4.6 and newer). */
  readonly toolStream?: boolean | undefined
  /** GLM's server-side `web_search` tool: `true`, or its settings (`search_engine`, `count`, ...). */
  readonly webSearch?: true | Json.JsonObject | undefined
  /** Other body fields sent as they are. */
  readonly extraBody?: Json.JsonObject | undefined
}

/** What `webSearch` adds to the default search settings. */
// Stryker disable next-line ConditionalExpression,BooleanLiteral: spreading `true` adds no field, as spreading {} does
const searchSettings = (webSearch: true | Json.JsonObject): Json.JsonObject => (webSearch === true ? {} : webSearch)

/**
 * The ChatCompletions options a GLM configuration stands for.
 *
 * @since 0.1.0
 */
export const toChatCompletions = (options: Options): ChatCompletions.Options => {
  const extraBody: Record<string, unknown> = { ...options.extraBody }
  if (options.thinking !== undefined) extraBody.thinking = { type: options.thinking }
  if (options.toolStream !== undefined) extraBody.tool_stream = options.toolStream
  const webSearch = options.webSearch
  return {
    apiKey: options.apiKey,
    maxResponseBytes: options.maxResponseBytes,
    baseUrl: options.baseUrl ?? endpoints[options.endpoint ?? "general"],
    model: options.model ?? defaultModel,
    provider: "glm",
    toolChoice: "auto-only",
    echoReasoning: true,
    maxTokensField: "max_tokens",
    outputFormat: "json_object",
    // GLM puts usage in the last chunk by itself; stream_options is not part of its API.
    streamUsage: false,
    extraBody,
    builtinTools:
      webSearch === undefined
        ? undefined
        : [{ type: "web_search", web_search: { enable: true, search_engine: "search_pro_jina", ...searchSettings(webSearch) } }]
  }
}

/**
 * Builds the GLM service.
 *
 * @since 0.1.0
 */
export const make = (options: Options): Effect.Effect<LanguageModel.Service> => ChatCompletions.make(toChatCompletions(options))

/**
 * A Layer of the GLM `LanguageModel`.
 *
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel> => ChatCompletions.layer(toChatCompletions(options))

/**
 * Options from the environment: `ZAI_API_KEY`, `ZAI_MODEL`, `ZAI_ENDPOINT` (general | coding), `ZAI_BASE_URL`.
 *
 * @since 0.1.0
 */
export const config: Config.Config<Options> = Config.all({
  apiKey: apiKey("ZAI_API_KEY"),
  model: Config.withDefault(Config.string("ZAI_MODEL"), defaultModel),
  endpoint: Config.withDefault(Config.literal("general", "coding")("ZAI_ENDPOINT"), "general" as const),
  baseUrl: optionalBaseUrl("ZAI_BASE_URL")
})

/**
 * The GLM layer configured from the environment (see `config`); `overrides` win over the environment.
 *
 * @since 0.1.0
 */
export const layerConfig = (overrides: Omit<Partial<Options>, "apiKey"> = {}): Layer.Layer<LanguageModel.LanguageModel, ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(config, (options) => layer({ ...options, ...definedOnly(overrides) })))
