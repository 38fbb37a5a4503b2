/**
 * The OpenAI preset of the chat-completions layer (`OPENAI_API_KEY`). Other OpenAI-compatible servers (vLLM,
 * Ollama, OpenRouter, ...) use `ChatCompletions.layer` directly, or this with a `baseUrl`.
 *
 * @example
 * ```ts
 * import { OpenAI } from "@agentfx/providers"
 * import { Redacted } from "effect"
 *
 * const openai = OpenAI.layer({ apiKey: Redacted.make(process.env.OPENAI_API_KEY ?? ""), model: "gpt-4.1-mini" })
 * const fromEnv = OpenAI.layerConfig() // OPENAI_API_KEY, OPENAI_MODEL, OPENAI_BASE_URL
 * ```
 *
 * @since 0.1.0
 */
import type { LanguageModel } from "@agentfx/core"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import * as ChatCompletions from "./ChatCompletions.js"
import { apiKey, definedOnly, optionalBaseUrl } from "./internal/config.js"

/**
 * OpenAI's own endpoint.
 *
 * @since 0.1.0
 */
export const defaultBaseUrl = "https://api.openai.com/v1"

/**
 * The model used when none is named.
 *
 * @since 0.1.0
 */
export const defaultModel = "gpt-4.1-mini"

/**
 * An OpenAI configuration; only the key is required.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly apiKey: Redacted.Redacted<string>
  /** Default `gpt-4.1-mini`. */
  readonly model?: string | undefined
  /** Most bytes read from one response, streamed or not (default 32 MiB). */
  readonly maxResponseBytes?: number | undefined
  /** Default `https://api.openai.com/v1`. */
  readonly baseUrl?: string | undefined
}

/**
 * The ChatCompletions options an OpenAI configuration stands for.
 *
 * @since 0.1.0
 */
export const toChatCompletions = (options: Options): ChatCompletions.Options => ({
  apiKey: options.apiKey,
  maxResponseBytes: options.maxResponseBytes,
  baseUrl: options.baseUrl ?? defaultBaseUrl,
  model: options.model ?? defaultModel,
  provider: "openai",
  // Stryker disable next-line StringLiteral: "full" is also the layer's default (only "auto-only" changes the request); named here for the reader
  toolChoice: "full",
  // OpenAI rejects fields it does not know on messages.
  echoReasoning: false,
  maxTokensField: "max_completion_tokens",
  outputFormat: "json_schema",
  streamUsage: true
})

/**
 * Builds the OpenAI service.
 *
 * @since 0.1.0
 */
export const make = (options: Options): Effect.Effect<LanguageModel.Service> => ChatCompletions.make(toChatCompletions(options))

/**
 * A Layer of the OpenAI `LanguageModel`.
 *
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel> => ChatCompletions.layer(toChatCompletions(options))

/**
 * Options from the environment: `OPENAI_API_KEY`, `OPENAI_MODEL`, `OPENAI_BASE_URL`.
 *
 * @since 0.1.0
 */
export const config: Config.Config<Options> = Config.all({
  apiKey: apiKey("OPENAI_API_KEY"),
  model: Config.withDefault(Config.string("OPENAI_MODEL"), defaultModel),
  baseUrl: optionalBaseUrl("OPENAI_BASE_URL")
})

/**
 * The OpenAI layer configured from the environment (see `config`); `overrides` win over the environment.
 *
 * @since 0.1.0
 */
export const layerConfig = (overrides: Omit<Partial<Options>, "apiKey"> = {}): Layer.Layer<LanguageModel.LanguageModel, ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(config, (options) => layer({ ...options, ...definedOnly(overrides) })))
