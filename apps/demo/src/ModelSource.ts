/**
 * Where the model comes from: offline (the emulator replaying a cassette through the real Gemini provider layer)
 * unless an API key is set, then the real service. The choice is printed, so nobody wonders what ran.
 */
import type { LanguageModel } from "@agentfx/core"
import { Gemini, Glm } from "@agentfx/providers"
import { Emulator, Policy } from "@agentfx/providers/emulator"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import type { ConfigError } from "effect"
import type { Cassette } from "@agentfx/tools"

export type ModelSource =
  | { readonly _tag: "Offline" }
  | { readonly _tag: "Gemini" }
  | { readonly _tag: "Glm" }

/** Gemini when GEMINI_API_KEY / GOOGLE_API_KEY is set, else GLM when ZAI_API_KEY is, else offline. */
export const fromEnvironment: Effect.Effect<ModelSource> = Effect.gen(function* () {
  // A variable set to blanks is no key.
  const present = (name: string) =>
    Effect.map(
      Effect.orElseSucceed(Config.option(Config.redacted(name)), () => Option.none<Redacted.Redacted<string>>()),
      Option.exists((key) => Redacted.value(key).trim() !== "")
    )
  if ((yield* present("GEMINI_API_KEY")) || (yield* present("GOOGLE_API_KEY"))) return { _tag: "Gemini" as const }
  if (yield* present("ZAI_API_KEY")) return { _tag: "Glm" as const }
  return { _tag: "Offline" as const }
})

export const describe = (source: ModelSource): string =>
  source._tag === "Offline"
    ? "offline: the agentfx emulator on 127.0.0.1 replays recorded model turns through the real Gemini provider layer (set GEMINI_API_KEY or ZAI_API_KEY to use the real service)"
    : source._tag === "Gemini"
      ? "Gemini (real service, GEMINI_API_KEY)"
      : "GLM on Z.AI (real service, ZAI_API_KEY)"

/** The model for one conversation; offline it replays `cassette` on a fresh emulator. */
export const layer = (source: ModelSource, cassette: Cassette.Cassette | undefined): Layer.Layer<LanguageModel.LanguageModel, ConfigError.ConfigError> => {
  switch (source._tag) {
    case "Gemini":
      return Gemini.layerConfig()
    case "Glm":
      return Glm.layerConfig()
    case "Offline":
      return Emulator.gemini().pipe(Layer.provide(Emulator.layer({ policy: Policy.script(cassette ?? []) })))
  }
}
