/**
 * Where the model comes from, by the same rule as every `agentfx` command (the CLI's `Provider`): a real provider
 * when its key is set (GEMINI_API_KEY / GOOGLE_API_KEY, then ZAI_API_KEY, then OPENAI_API_KEY), else offline — the
 * emulator replaying recorded model turns through the real Gemini provider layer. The choice is announced the
 * same way too, so nobody wonders what ran.
 */
import { LanguageModel } from "@agentfx/core"
import { Offline, Provider } from "@agentfx/cli"
import type { CliError } from "@agentfx/cli"
import { Emulator, Policy } from "@agentfx/emulator"
import { Cassette } from "@agentfx/tools"
import { Context, Effect, Layer } from "effect"
import type { Scope } from "effect"

export type ModelSource =
  | { readonly _tag: "Offline"; readonly choice: Provider.Choice }
  /** A real provider, its model service built once for the whole demo. */
  | { readonly _tag: "Online"; readonly choice: Provider.Choice; readonly model: LanguageModel.Service; readonly baseUrl: string | undefined }

const noOverrides: Provider.Settings = { model: undefined, baseUrl: undefined }

/** Offline, as if no key were set. */
export const offline: ModelSource = { _tag: "Offline", choice: { name: "emulator", reason: "--offline" } }

/** The source the environment chooses; a real provider's layer is built here, in `scope`. */
export const fromEnvironment: Effect.Effect<ModelSource, CliError.ProviderError | CliError.UsageError, Scope.Scope> = Effect.gen(function* () {
  const choice = yield* Provider.choose(undefined)
  if (choice.name === "emulator") return { _tag: "Offline" as const, choice }
  const context = yield* Layer.build(Provider.layer(choice, noOverrides))
  const baseUrl = yield* Provider.effectiveBaseUrl(choice, noOverrides)
  return { _tag: "Online" as const, choice, model: Context.get(context, LanguageModel.LanguageModel), baseUrl }
})

/** The announcement line (see `Provider.describe`). */
export const describe = (source: ModelSource): string =>
  Provider.describe(
    source._tag === "Offline"
      ? { choice: source.choice, answers: "the recorded model turns (each sample's and each case's cassette)" }
      : Provider.announcement(source.choice, source.model, { ...noOverrides, baseUrl: source.baseUrl })
  )

/** The model for one conversation; offline it replays `cassette` on a fresh emulator. */
export const layer = (source: ModelSource, cassette: Cassette.Cassette | undefined): Layer.Layer<LanguageModel.LanguageModel> =>
  source._tag === "Online"
    ? Layer.succeed(LanguageModel.LanguageModel, source.model)
    : Offline.onEmulator(Cassette.offlineModel).pipe(Layer.provide(Emulator.layer({ policy: Policy.script(cassette ?? []) })))
