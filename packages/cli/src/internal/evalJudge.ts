/**
 * The judge of `agentfx eval`: the model grading the cases' `judge:` rubrics. It is the eval's own provider and
 * model unless `--judge-provider` / `--judge-model` say otherwise; on the emulator it replays each rubric's recorded
 * verdict (`x-judge-cassette`), as the agent's turns are replayed.
 */
import { LanguageModel } from "@agentfx/core"
import type { EvalCase } from "@agentfx/tools"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as Argv from "../Argv.js"
import type { ProviderError, UsageError } from "../CliError.js"
import * as Provider from "../Provider.js"

/** Who grades, and with which settings; absent when no case has a rubric. */
export interface Judging {
  readonly choice: Provider.Choice
  readonly settings: Provider.Settings
}

/** The judge the options ask for, when some case has a rubric. */
export const judging = (cases: ReadonlyArray<EvalCase.EvalCase>, choice: Provider.Choice, settings: Provider.Settings, options: Argv.Values): Judging | undefined => {
  if (!cases.some((evalCase) => (evalCase.judge?.length ?? 0) > 0)) return undefined
  const name = options.text("judge-provider") as Provider.Name | undefined
  // The eval's --model and --base-url are its provider's: another provider's judge has its own defaults.
  const same = name === undefined || name === choice.name
  return {
    choice: name === undefined ? choice : { name, reason: "chosen with --judge-provider" },
    settings: { ...settings, model: options.text("judge-model") ?? (same ? settings.model : undefined), baseUrl: same ? settings.baseUrl : undefined }
  }
}

/** A real provider's model service, built for the scope, with what announces it. */
export const service = (
  choice: Provider.Choice,
  settings: Provider.Settings
): Effect.Effect<{ readonly service: LanguageModel.Service; readonly announcement: Provider.Announcement }, ProviderError | UsageError, Scope.Scope> =>
  Effect.gen(function* () {
    const context = yield* Layer.build(Provider.layer(choice, settings))
    const model = Context.get(context, LanguageModel.LanguageModel)
    const baseUrl = yield* Provider.effectiveBaseUrl(choice, settings)
    return { service: model, announcement: Provider.announcement(choice, model, { ...settings, baseUrl }) }
  })

/**
 * The line saying who grades the rubrics: `judge: ` and what `Provider.describe` says of its model (`replayed`: what
 * the emulator replays, when the judge is the emulator).
 */
export const describe = (judging: Judging, announcement: Provider.Announcement | undefined, replayed: string | undefined): string => {
  // Provider.describe's line starts with "provider: ", which the judge's says in its place.
  const described = Provider.describe(announcement ?? { choice: judging.choice, answers: replayed })
  return `judge: ${described.slice("provider: ".length)}`
}
