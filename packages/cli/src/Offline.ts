/**
 * The offline model: the emulator behind the real Gemini provider layer, for a command run without a key and for
 * eval cases replayed from their cassettes. Its own module, loaded by `Provider.layer` only when the emulator is
 * chosen: the emulator, its wire Schemas and the eval cassettes are then read while a chat already shows its
 * prompt, and never by a command with a real provider.
 *
 * @since 0.1.0
 */
import type { LanguageModel as LanguageModelService } from "@agentfx/core"
import { LanguageModel } from "@agentfx/core"
import { Emulator, Policy } from "@agentfx/emulator"
import type { EvalCase } from "@agentfx/tools"
import { Cassette, EvalJudge } from "@agentfx/tools"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type { Settings } from "./Provider.js"
import { providers } from "./Provider.js"

/**
 * How the provider reaches the emulator: over 127.0.0.1 (`socket`, the default), or through its in-process
 * `fetch` (the same handler and answers without the socket, for suites that send thousands of requests).
 */
export type Transport = "socket" | "in-process"

/** How the provider layer reaches the emulator, and how much of one answer it reads. */
export interface Reach {
  readonly transport?: Transport
  readonly maxResponseBytes?: number | undefined
}

const emulatedModel = (emulator: Emulator.Service, model: string, reach: Reach): Effect.Effect<LanguageModelService.Service> =>
  Effect.flatMap(providers, ({ Gemini }) =>
    Gemini.make({
      apiKey: Redacted.make(emulator.apiKey),
      baseUrl: emulator.geminiBaseUrl,
      model,
      maxResponseBytes: reach.maxResponseBytes,
      ...(reach.transport === "in-process" ? { fetch: emulator.fetch } : {})
    })
  )

/** The Gemini provider layer pointed at a running emulator: the real client code, the emulator's wire. */
export const emulated = (emulator: Emulator.Service, model: string, reach: Reach = {}): Layer.Layer<LanguageModel.LanguageModel> =>
  Layer.effect(LanguageModel.LanguageModel, emulatedModel(emulator, model, reach))

/**
 * The Gemini provider layer pointed at the emulator in context. One `Layer.effect`, not layers unwrapped from
 * effects: an eval suite builds one per case, and each unwrapping cost more than the SDK client.
 */
export const onEmulator = (model: string, reach: Reach = {}): Layer.Layer<LanguageModel.LanguageModel, never, Emulator.Emulator> =>
  Layer.effect(LanguageModel.LanguageModel, Effect.flatMap(Emulator.Emulator, (emulator) => emulatedModel(emulator, model, reach)))

/** One signing key for every offline emulator: a durable run or a saved session resumed by another process still has valid signatures. */
const offlineSigningKey = "agentfx-offline"

/**
 * The emulator's `LanguageModel`: an emulator started for the layer's lifetime, answering with `policy` (default
 * `Policy.offline`), reached over 127.0.0.1 by the Gemini provider layer.
 */
export const layer = (settings: Settings, policy: Policy.Policy = Policy.offline): Layer.Layer<LanguageModel.LanguageModel> =>
  // Nothing here reads the emulator's record of requests, and each one of a chat carries the whole history:
  // keeping the last hundred would hold a hundred copies of it.
  onEmulator(settings.model ?? Cassette.offlineModel, { maxResponseBytes: settings.maxResponseBytes }).pipe(Layer.provide(Emulator.layer({ policy, record: false, signingKey: offlineSigningKey })))

/**
 * Eval cases replayed offline (see `Cassette.replay`: one key scheme, one rule for a case without a cassette):
 * the emulator that serves them all, each case's model on it, and what answers them, for the announcement.
 */
export const replay = (cases: ReadonlyArray<EvalCase.EvalCase>, maxResponseBytes?: number) => {
  const plan = Cassette.replay(cases)
  const judged = EvalJudge.replay(cases)
  const without = plan.total - plan.recorded
  const onPlan = (model: Either.Either<string, Cassette.CassetteError>): Layer.Layer<LanguageModel.LanguageModel, Cassette.CassetteError, Emulator.Emulator> =>
    // In-process: a suite's requests all go to this emulator, and a socket per request cost more than the rest.
    Either.match(model, { onLeft: (error) => Layer.fail(error), onRight: (name) => onEmulator(name, { transport: "in-process", maxResponseBytes }) })
  return {
    emulator: Emulator.layer({ policy: Policy.byModel(new Map([...plan.scripts, ...judged.scripts]), Policy.offline), record: false }),
    model: (evalCase: EvalCase.EvalCase) => onPlan(plan.modelOf(evalCase)),
    /** The judge of a case's rubric: its recorded verdict (`x-judge-cassette`), through the same provider code. */
    judge: (evalCase: EvalCase.EvalCase, rubric: number) => onPlan(judged.modelOf(evalCase, rubric)),
    answers: `each case's ${Cassette.field} (${plan.recorded} of ${plan.total} cases have one${plan.invalid === 0 ? "" : `, ${plan.invalid} invalid: an error case each`}${without === 0 ? "" : "; the offline rule model answers the others"})`,
    judgeAnswers: `each rubric's recorded verdict in ${EvalJudge.cassetteField} (${judged.recorded} of ${judged.total} rubrics have one${judged.recorded === judged.total ? "" : "; a case with a rubric that has none is an error"})`
  }
}
