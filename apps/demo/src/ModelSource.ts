/**
 * Where the model comes from: offline (the emulator replaying a cassette through the real Gemini provider layer)
 * unless an API key is set, then the real service. The choice is printed, so nobody wonders what ran.
 */
import type { LanguageModel, Turn } from "@agentfx/core"
import { ModelError } from "@agentfx/core"
import { Gemini, Glm } from "@agentfx/providers"
import { Emulator, Policy } from "@agentfx/providers/emulator"
import { Config, Effect, Layer, Option } from "effect"
import type { ConfigError } from "effect"
import type { Cassette } from "./Cassette.js"
import { toScript } from "./Cassette.js"

export type ModelSource =
  | { readonly _tag: "Offline" }
  | { readonly _tag: "Gemini" }
  | { readonly _tag: "Glm" }

/** Gemini when GEMINI_API_KEY / GOOGLE_API_KEY is set, else GLM when ZAI_API_KEY is, else offline. */
export const fromEnvironment: Effect.Effect<ModelSource> = Effect.gen(function* () {
  const present = (name: string) => Effect.map(Effect.orElseSucceed(Config.option(Config.redacted(name)), () => Option.none()), Option.isSome)
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

/**
 * A policy that serves many conversations from one emulator: each conversation asks for a model named by its key
 * (`cassettes`' keys), and gets the step of its cassette at its position, the number of model turns so far — so a
 * retried request gets the same step again, and conversations can run concurrently.
 */
export const cassettePolicy = (cassettes: ReadonlyMap<string, Cassette>): Policy.Policy =>
  Policy.fromFunction((request) => {
    const cassette = cassettes.get(request.model)
    if (cassette === undefined) return { error: new ModelError.InvalidRequest({ message: `no cassette for the model "${request.model}"` }) }
    const position = request.transcript.filter((turn: Turn.Turn) => turn.role === "model").length
    return (
      toScript(cassette)[position] ?? {
        error: new ModelError.InvalidRequest({ message: `the cassette of "${request.model}" has ${cassette.length} steps; the conversation asked for step ${position + 1}` })
      }
    )
  })

/** The model for one conversation; offline it replays `cassette` on a fresh emulator. */
export const layer = (source: ModelSource, cassette: Cassette | undefined): Layer.Layer<LanguageModel.LanguageModel, ConfigError.ConfigError> => {
  switch (source._tag) {
    case "Gemini":
      return Gemini.layerConfig()
    case "Glm":
      return Glm.layerConfig()
    case "Offline":
      return Emulator.gemini().pipe(Layer.provide(Emulator.layer({ policy: Policy.script(cassette === undefined ? [] : toScript(cassette)) })))
  }
}
