/**
 * Which model the commands talk to. `--provider` wins; without it the environment decides: Gemini when
 * GEMINI_API_KEY or GOOGLE_API_KEY is set, else GLM when ZAI_API_KEY is, else OpenAI when OPENAI_API_KEY is, else
 * the in-process emulator with its offline rule model — so the CLI always works, and always says what it used.
 * Keys are read with `Config.redacted` by the provider layers and are never printed.
 *
 * @example
 * const choice = yield* Provider.choose(undefined)                       // from the environment
 * const model = Provider.layer(choice, { model: undefined, baseUrl: undefined })
 *
 * @since 0.1.0
 */
import { LanguageModel } from "@agentfx/core"
import type { ModelError } from "@agentfx/core"
import type { Policy } from "@agentfx/emulator"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { ProviderError, UsageError } from "./CliError.js"
import { providerNames } from "./commands/options.js"
import { displayUrl } from "./internal/displayUrl.js"
import * as ProviderChoice from "./internal/providerChoice.js"

export const names = providerNames
export type Name = (typeof names)[number]

/**
 * The provider layers and their SDKs, loaded when a real provider's layer is built: a command that ends before
 * (help, a bad argument) or runs offline never pays for @google/genai or openai.
 */
export const providers = Effect.promise(() => import("@agentfx/providers"))

/**
 * The offline model (the emulator, its policies, the eval cassettes), loaded when it is built: a chat shows its
 * prompt while it loads, and a command with a real provider never loads it.
 */
const offline = Effect.promise(() => import("./Offline.js"))

/** The provider and why it was chosen (a flag, or which variable was set). */
export type Choice = ProviderChoice.Choice

/** What `--model` and `--base-url` override (the environment's `*_MODEL` / `*_BASE_URL` otherwise), and `--max-response-bytes`. */
export interface Settings {
  readonly model: string | undefined
  readonly baseUrl: string | undefined
  /** The layers' `maxResponseBytes` (their default, 32 MiB, when undefined). */
  readonly maxResponseBytes?: number | undefined
}

const keyVariables = ProviderChoice.keyVariables

/** A variable's value, if it is present at all (read redacted); an unreadable one counts as absent. */
const present = (name: string): Effect.Effect<Option.Option<Redacted.Redacted>> => Effect.orElseSucceed(Config.option(Config.redacted(name)), () => Option.none())

/** Whether a variable holds a non-blank value (read redacted: the value is never looked at beyond that). */
export const isSet = (name: string): Effect.Effect<boolean> => Effect.map(present(name), Option.exists((value) => Redacted.value(value).trim() !== ""))

/** Whether a variable is present, even blank. */
const isPresent = (name: string): Effect.Effect<boolean> => Effect.map(present(name), Option.isSome)

/** The provider for `--provider` (when given) or the environment (the rule is `ProviderChoice.choose`). */
export const choose = (flag: Name | undefined): Effect.Effect<Choice> =>
  Effect.gen(function* () {
    if (flag !== undefined) return ProviderChoice.choose(flag, () => undefined)
    // Read redacted; the values are only looked at for being blank, inside the rule.
    const values = new Map<string, string>()
    for (const variable of ProviderChoice.allKeys) {
      const value = yield* present(variable)
      if (Option.isSome(value)) values.set(variable, Redacted.value(value.value))
    }
    return ProviderChoice.choose(undefined, (variable) => values.get(variable))
  })

/**
 * A ConfigError as words, each problem once (its `Or` and `And` trees flattened): `WHERE: what`, or just `what` when
 * the message already names its variable (`GEMINI_BASE_URL must be an http:// or https:// URL`).
 */
export const configProblem = (error: ConfigError.ConfigError): string => problemsOf(error).join("; ")

const notConfigured = (name: Exclude<Name, "emulator">) => (error: ConfigError.ConfigError) =>
  new ProviderError({
    provider: name,
    message: ConfigError.isMissingDataOnly(error)
      ? `${name} needs an API key: set ${keyVariables[name].join(" or ")}, or choose another --provider (emulator needs none)`
      : `${name} is not configured correctly: ${configProblem(error)}`
  })

/** Each problem of a configuration error as `WHERE: what`, once (its `Or` and `And` trees flattened). */
const problemsOf = (error: ConfigError.ConfigError): ReadonlyArray<string> => {
  switch (error._op) {
    case "And":
    case "Or":
      return [...new Set([...problemsOf(error.left), ...problemsOf(error.right)])]
    default:
      return [problemOf(error.path.join("_"), error.message)]
  }
}

const problemOf = (path: string, message: string): string =>
  path === "" ? message : message.startsWith(path) ? message : `${path}: ${message}`

/**
 * A provider's key variable set to nothing (`GEMINI_API_KEY=`), with no other of its variables holding a key: said
 * plainly, before the provider reads its configuration (whose own error would be about an empty value).
 */
export const blankKey = (name: Exclude<Name, "emulator">): Effect.Effect<void, UsageError> =>
  Effect.gen(function* () {
    const variables = keyVariables[name]
    for (const variable of variables) if (yield* isSet(variable)) return
    for (const variable of variables) {
      if (yield* isPresent(variable)) {
        return yield* Effect.fail(
          new UsageError({ message: `${variable} is set but empty: put your ${name} API key in it, or choose another --provider (emulator needs none)` })
        )
      }
    }
  })

/** `--base-url` given with the in-process emulator. */
export const baseUrlWithEmulator = (): UsageError =>
  new UsageError({
    message:
      "--base-url does not apply to the in-process emulator; to use an emulator started with `agentfx emulator`, pass --provider gemini (or glm, openai) with its base URL and set that provider's key to the emulator's"
  })

/** A real provider's layer from its configuration, a blank key and a bad setting each said in one line. */
const configured = (
  name: Exclude<Name, "emulator">,
  build: (loaded: Effect.Effect.Success<typeof providers>) => Layer.Layer<LanguageModel.LanguageModel, ConfigError.ConfigError>
): Layer.Layer<LanguageModel.LanguageModel, ProviderError | UsageError> =>
  Layer.unwrapEffect(Effect.zipRight(blankKey(name), Effect.map(providers, (loaded) => Layer.mapError(build(loaded), notConfigured(name)))))

/**
 * The `LanguageModel` of a choice. The emulator runs in-process on 127.0.0.1 for as long as the layer is in use,
 * answering with `policy` (default the offline rule model) through the real Gemini provider layer (see `Offline`).
 */
export const layer = (
  choice: Choice,
  settings: Settings,
  policy?: Policy.Policy
): Layer.Layer<LanguageModel.LanguageModel, ProviderError | UsageError> => {
  const overrides = { model: settings.model, baseUrl: settings.baseUrl, maxResponseBytes: settings.maxResponseBytes }
  switch (choice.name) {
    case "emulator":
      if (settings.baseUrl !== undefined) return Layer.fail(baseUrlWithEmulator())
      return Layer.unwrapEffect(Effect.map(offline, (Offline) => Offline.layer(settings, policy)))
    case "gemini":
      return configured("gemini", ({ Gemini }) => Gemini.layerConfig(overrides))
    case "glm":
      return configured("glm", ({ Glm }) => Glm.layerConfig(overrides))
    case "glm-coding":
      return configured("glm-coding", ({ Glm }) => Glm.layerConfig({ ...overrides, endpoint: "coding" }))
    case "openai":
      return configured("openai", ({ OpenAI }) => OpenAI.layerConfig(overrides))
  }
}

/** The variable that moves each provider's endpoint. */
const baseUrlVariables: Record<Exclude<Name, "emulator">, string> = {
  gemini: "GEMINI_BASE_URL",
  glm: "ZAI_BASE_URL",
  "glm-coding": "ZAI_BASE_URL",
  openai: "OPENAI_BASE_URL"
}

/** The base URL a real provider will use when it is not its default: `--base-url`, else the environment's. */
export const effectiveBaseUrl = (choice: Choice, settings: Settings): Effect.Effect<string | undefined> =>
  choice.name === "emulator" || settings.baseUrl !== undefined
    ? Effect.succeed(settings.baseUrl)
    : Config.option(Config.string(baseUrlVariables[choice.name])).pipe(
        Effect.map(Option.filter((url) => url.trim() !== "")),
        Effect.map(Option.getOrUndefined),
        Effect.orElseSucceed(() => undefined)
      )

/**
 * The one line for a key the provider refused (401 / 403): which variable holds it and how to run offline.
 * `offline` is how this command runs without a key (`--provider emulator` for agentfx, `--offline` for the demo).
 */
export const refused = (choice: Choice, error: ModelError.ModelError, offline = "--provider emulator"): ProviderError => {
  const variables = choice.name === "emulator" ? [] : keyVariables[choice.name]
  const which = choice.reason.endsWith(" is set") ? choice.reason.slice(0, -" is set".length) : variables.join(" or ")
  return new ProviderError({
    provider: choice.name,
    refused: true,
    message: `${choice.name} refused the API key${"status" in error && error.status !== undefined ? ` (${error.status})` : ""}: check ${which}, or run offline with ${offline}`
  })
}

/**
 * What a command says about its model before it starts, as data: every command (run, chat, eval, the demo)
 * builds one and prints it with `describe`, so they all say it the same way.
 */
export interface Announcement {
  readonly choice: Choice
  /** The model name (a real provider's). */
  readonly model?: string | undefined
  readonly baseUrl?: string | undefined
  /** Who answers on the emulator (default: the offline rule model). */
  readonly answers?: string | undefined
}

/** The announcement of a real provider's model service, or of the emulator. */
export const announcement = (choice: Choice, model: LanguageModel.Service, settings: Settings, answers?: string): Announcement =>
  choice.name === "emulator" ? { choice, answers } : { choice, model: model.model, baseUrl: settings.baseUrl }

/** One line saying what is used, e.g. `provider: gemini, model gemini-2.5-flash (GEMINI_API_KEY is set)`. */
export const describe = (announced: Announcement): string => {
  const { choice } = announced
  if (choice.name === "emulator") return ProviderChoice.describeEmulator(choice, announced.answers)
  const where = announced.baseUrl === undefined ? "" : ` at ${displayUrl(announced.baseUrl)}`
  return `provider: ${choice.name}, model ${announced.model}${where} (${choice.reason === "--provider" ? "chosen with --provider" : choice.reason})`
}

/** The model service of the current context, described (with the base URL from `--base-url` or the environment). */
export const announce = (choice: Choice, settings: Settings): Effect.Effect<string, never, LanguageModel.LanguageModel> =>
  Effect.gen(function* () {
    const model = yield* LanguageModel.LanguageModel
    const baseUrl = yield* effectiveBaseUrl(choice, settings)
    return describe(announcement(choice, model, { ...settings, baseUrl }))
  })
