/**
 * Which live model `agentfx live` talks to, by the same rules as `Provider` for the other commands: `--provider`
 * wins; without it Gemini Live when GEMINI_API_KEY or GOOGLE_API_KEY is set, else the in-process emulator's Live
 * endpoint with its offline rule model, reached through the real Gemini Live provider layer. It says what it
 * chose in the same words; a blank key is said as such, naming its variable; a session that cannot start is a
 * failure of the run (exit 1), and a key the server refuses names the variable it was read from.
 *
 * @since 0.2.0
 */
import type { LiveAgent } from "@agentfx/core"
import { LiveModel } from "@agentfx/core"
import { Emulator, Fault, Policy } from "@agentfx/emulator"
import type { EvalCase } from "@agentfx/tools"
import { Cassette, LiveCassette } from "@agentfx/tools"
import * as ConfigError from "effect/ConfigError"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { UsageError } from "./CliError.js"
import { ProviderError, RunFailed } from "./CliError.js"
import type { liveProviderNames } from "./commands/live.js"
import * as Defaults from "./Defaults.js"
import { detailsOf } from "./internal/withModel.js"
import * as Provider from "./Provider.js"

export type Name = (typeof liveProviderNames)[number]

/** The Gemini Live layer and its SDK, loaded when a live model is built. */
const providers = Effect.promise(() => import("@agentfx/providers"))

const keyVariables = ["GEMINI_API_KEY", "GOOGLE_API_KEY"]

/**
 * How long `agentfx live` waits for its session's first connection to be set up, retries included, unless
 * `--connect-timeout` says otherwise; each attempt is bounded by it too.
 *
 * @since 0.3.0
 * @category constants
 */
export const defaultConnectTimeout: Duration.Duration = Duration.millis(Defaults.connectTimeout.millis)

/**
 * The variable the Gemini Live layer reads its key from (the first of GEMINI_API_KEY, GOOGLE_API_KEY that holds
 * one), or undefined for the emulator and when none does.
 *
 * @since 0.3.0
 * @category utils
 */
export const keyVariable = (choice: Provider.Choice): Effect.Effect<string | undefined> =>
  Effect.gen(function* () {
    if (choice.name === "emulator") return undefined
    for (const variable of keyVariables) if (yield* Provider.isSet(variable)) return variable
    return undefined
  })

/** The live provider for `--provider` (when given) or the environment. */
export const choose = (flag: Name | undefined): Effect.Effect<Provider.Choice> =>
  Effect.gen(function* () {
    if (flag !== undefined) return { name: flag, reason: "--provider" }
    for (const variable of keyVariables) if (yield* Provider.isSet(variable)) return { name: "gemini" as const, reason: `${variable} is set` }
    return { name: "emulator" as const, reason: `no Gemini API key is set (${keyVariables.join(", ")})` }
  })

/**
 * The live model of a choice; the emulator runs in-process on 127.0.0.1 for as long as the layer is in use. Each
 * connection's setup is bounded by `connectTimeout`.
 */
export const layer = (
  choice: Provider.Choice,
  settings: Provider.Settings,
  connectTimeout: Duration.Duration = defaultConnectTimeout
): Layer.Layer<LiveModel.LiveModel, ProviderError | UsageError> => {
  if (choice.name === "emulator") {
    if (settings.baseUrl !== undefined) return Layer.fail(Provider.baseUrlWithEmulator())
    return Layer.unwrapScoped(
      Effect.gen(function* () {
        const emulator = yield* Emulator.make({ policy: Policy.offline, record: false })
        const { GeminiLive } = yield* providers
        return GeminiLive.layer({
          apiKey: Redacted.make(emulator.apiKey),
          baseUrl: emulator.geminiBaseUrl,
          maxResponseBytes: settings.maxResponseBytes,
          connectTimeout,
          ...(settings.model === undefined ? {} : { model: settings.model })
        })
      })
    )
  }
  // A blank key is said as such first: the configuration's own error would garble it with the other variable's.
  return Layer.unwrapEffect(
    Effect.zipRight(Provider.blankKey("gemini"), providers).pipe(
      Effect.map(({ GeminiLive }) =>
        Layer.mapError(
          GeminiLive.layerConfig({ model: settings.model, baseUrl: settings.baseUrl, maxResponseBytes: settings.maxResponseBytes, connectTimeout }),
          (error: ConfigError.ConfigError) =>
            new ProviderError({
              provider: "gemini",
              message: ConfigError.isMissingDataOnly(error)
                ? `Gemini Live needs an API key: set ${keyVariables.join(" or ")}, or use --provider emulator (it needs none)`
                : `Gemini Live is not configured correctly: ${Provider.configProblem(error)}`
            })
        )
      )
    )
  )
}

/** A Live cassette's step as the emulator's Live endpoint replays it: the model's step, with what the server did around it. */
const replyOf = (step: LiveCassette.Step): Policy.Reply => {
  const said: Policy.Step = { ...(step.text === undefined ? {} : { text: step.text }), ...(step.calls === undefined ? {} : { calls: step.calls }) }
  const faults: Array<Fault.ShapingFault> = [
    ...(step.cancel_after === undefined ? [] : [Fault.cancelCalls(step.cancel_after)]),
    ...(step.go_away === undefined ? [] : [Fault.goAway(step.go_away)]),
    ...(step.drop_after_responses === undefined ? [] : [Fault.dropAfterResponses(step.drop_after_responses)])
  ]
  return faults.length === 0 ? said : Policy.withFaults(said, ...faults)
}

/**
 * Live eval cases replayed offline, through one emulator serving every case at once: each case with an
 * `x-live-cassette` talks to the emulator's Live endpoint as the model named by its key (`live-case-<position>`),
 * whose script is its cassette's steps with their cancellations, `goAway`s and drops; a case without one asks for
 * the model `fallback` answers (default the offline rule model); a case whose cassette is invalid is an error case,
 * with the reason. Each case's live model is the real Gemini Live provider on that emulator.
 *
 * @since 0.3.0
 * @category constructors
 */
export const replay = (
  cases: ReadonlyArray<EvalCase.EvalCase>,
  options: { readonly fallback?: Policy.Policy; readonly maxResponseBytes?: number; readonly record?: boolean } = {}
) => {
  const scripts = new Map<string, ReadonlyArray<Policy.Reply>>()
  const models = new Map<EvalCase.EvalCase, Either.Either<string, Cassette.CassetteError>>()
  cases.forEach((evalCase, position) => {
    const cassette = LiveCassette.ofCase(evalCase)
    if (cassette === undefined) return void models.set(evalCase, Either.right(Cassette.offlineModel))
    if (Either.isLeft(cassette)) return void models.set(evalCase, Either.left(cassette.left))
    const key = `live-case-${position}`
    scripts.set(key, LiveCassette.steps(cassette.right).map(replyOf))
    models.set(evalCase, Either.right(key))
  })
  const invalid = [...models.values()].filter(Either.isLeft).length
  return {
    // The emulator's record of each connection is kept only when asked for (a test's look at the frames).
    emulator: Emulator.layer({ policy: Policy.byModel(scripts, options.fallback ?? Policy.offline), ...(options.record === true ? {} : { record: false }) }),
    model: (evalCase: EvalCase.EvalCase): Layer.Layer<LiveModel.LiveModel, Cassette.CassetteError, Emulator.Emulator> =>
      Either.match(models.get(evalCase) ?? Either.right(Cassette.offlineModel), {
        onLeft: (error) => Layer.fail(error),
        onRight: (model) =>
          Layer.unwrapEffect(
            Effect.gen(function* () {
              const emulator = yield* Emulator.Emulator
              const { GeminiLive } = yield* providers
              return GeminiLive.layer({ apiKey: Redacted.make(emulator.apiKey), baseUrl: emulator.geminiBaseUrl, model, maxResponseBytes: options.maxResponseBytes })
            })
          )
      }),
    answers: `each case's ${LiveCassette.field} (${scripts.size + invalid} of ${cases.length} cases have one${invalid === 0 ? "" : `, ${invalid} invalid: an error case each`}${
      scripts.size + invalid === cases.length ? "" : "; the offline model answers the others"
    })`
  }
}

/** Where the live connection goes, for the status line while it is set up: `MODEL at HOST`, or the emulator. */
export const target = (choice: Provider.Choice, settings: Provider.Settings): Effect.Effect<string, never, LiveModel.LiveModel> =>
  Effect.gen(function* () {
    if (choice.name === "emulator") return "the in-process emulator's Live endpoint"
    const live = yield* LiveModel.LiveModel
    const baseUrl = yield* Provider.effectiveBaseUrl(choice, settings)
    // The host only: a base URL may carry credentials or a query.
    const host = baseUrl === undefined ? "generativelanguage.googleapis.com" : URL.canParse(baseUrl) ? new URL(baseUrl).host : "the configured base URL"
    return `${live.model} at ${host}`
  })

/** One line saying what is used, e.g. `provider: gemini live, model gemini-live-2.5-flash-preview (GEMINI_API_KEY is set)`. */
export const announce = (choice: Provider.Choice, settings: Provider.Settings): Effect.Effect<string, never, LiveModel.LiveModel> =>
  Effect.gen(function* () {
    const live = yield* LiveModel.LiveModel
    if (choice.name === "emulator") {
      const why = choice.reason === "--provider" ? "Chosen with --provider" : `${choice.reason.replace(/^no/, "No")}: set one to use Gemini Live`
      return `provider: emulator — the offline rule model on the Live WebSocket, in-process on 127.0.0.1, through the Gemini Live provider, no network. ${why}.`
    }
    const baseUrl =
      settings.baseUrl ??
      (yield* Config.option(Config.string("GEMINI_BASE_URL")).pipe(Effect.map(Option.getOrUndefined), Effect.orElseSucceed(() => undefined)))
    return `provider: gemini live, model ${live.model}${baseUrl === undefined || baseUrl.trim() === "" ? "" : ` at ${baseUrl}`} (${choice.reason === "--provider" ? "chosen with --provider" : choice.reason})`
  })

/**
 * The command's error for a session that could not start: a refused key is one line naming `readFrom`, the variable
 * the key was read from (see `keyVariable`); anything else the server or the connection did is a failure of the run
 * (exit 1), with the details a decoder kept for `--verbose`.
 */
export const startFailed = (choice: Provider.Choice, readFrom: string | undefined) => (error: LiveAgent.SessionError): ProviderError | RunFailed =>
  error._tag === "Unauthorized"
    ? Provider.refused(readFrom === undefined ? choice : { ...choice, reason: `${readFrom} is set` }, error)
    : new RunFailed({
        message: `the live session could not start — ${error._tag}: ${error.message}`,
        ...detailsOf(error._tag === "ReconnectFailed" ? error.error : error)
      })
