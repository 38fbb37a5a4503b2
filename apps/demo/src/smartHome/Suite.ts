/**
 * The smart-home eval suite: every case in `smart-home/evals/` as a Live session (the scenario says `mode: live`),
 * each case with its own mocks and its own live model. Offline, one emulator serves them all: a case with an
 * `x-live-cassette` replays it on the emulator's Live endpoint through the real SDK and provider layer, a case
 * without one is answered by the demo's offline model. Online (GEMINI_API_KEY), each case talks to Gemini Live, and
 * with a recorder its model's messages are kept for `--record`.
 */
import type { LanguageModel } from "@agentfx/core"
import { LiveModel } from "@agentfx/core"
import { LiveProvider } from "@agentfx/cli"
import { GeminiLive } from "@agentfx/providers"
import { EvalCase, EvalRunner, LiveCassette, Scenario } from "@agentfx/tools"
import type { EvalReport } from "@agentfx/tools"
import { Effect, Layer } from "effect"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import * as Home from "./Home.js"
import { policy } from "./offlineModel.js"

/** Where the scenario and its cases are: `apps/demo/smart-home` (the same from `src/` and from `dist/`). */
export const directory = fileURLToPath(new URL("../../smart-home/", import.meta.url))

/** Where the model comes from: the emulator replaying the cassettes, or a live model per case (Gemini Live: `gemini`). */
export type Source =
  | { readonly _tag: "Offline" }
  | { readonly _tag: "Live"; readonly model: (evalCase: EvalCase.EvalCase) => Layer.Layer<LiveModel.LiveModel, unknown> }

export interface SuiteOptions {
  readonly scenario: Scenario.Scenario
  readonly cases: ReadonlyArray<EvalCase.EvalCase>
  readonly source: Source
  readonly concurrency?: number | undefined
  readonly threshold?: number | undefined
}

/** The scenario (resolved against the home's own tools, which a case's mocks replace) and the cases. */
export const load = (dir: string = directory) =>
  Effect.gen(function* () {
    const home = yield* Home.make()
    return {
      scenario: yield* Scenario.load(NodePath.join(dir, "smart-home.md"), home.registry),
      cases: yield* EvalCase.loadDirectory(NodePath.join(dir, "evals"))
    }
  })

// Every case of the suite is a Live case: nothing asks for a REST model.
const noRestModel = Layer.die(new Error("the smart-home suite runs Live cases only"))

/** Gemini Live for every case (from the environment), each case's messages recorded into `recorders` when given. */
export const gemini = (recorders?: Map<string, LiveCassette.Recorder>): Source => ({
  _tag: "Live",
  model: (evalCase) => {
    const live = GeminiLive.layerConfig()
    if (recorders === undefined) return live
    return Layer.effect(
      LiveModel.LiveModel,
      Effect.gen(function* () {
        const recorder = yield* LiveCassette.recorder
        recorders.set(evalCase.id, recorder)
        return recorder.wrap(yield* LiveModel.LiveModel)
      })
    ).pipe(Layer.provide(live))
  }
})

/** Runs the suite and returns its report. */
export const run = (options: SuiteOptions): Effect.Effect<EvalReport.Report> => {
  const replay = LiveProvider.replay(options.cases, { fallback: policy })
  return EvalRunner.run(options.cases, {
    suite: "smart-home",
    scenarios: [options.scenario],
    model: noRestModel as Layer.Layer<LanguageModel.LanguageModel>,
    live: { model: options.source._tag === "Offline" ? replay.model : options.source.model },
    concurrency: options.concurrency ?? 4,
    ...(options.threshold === undefined ? {} : { threshold: options.threshold })
  }).pipe(Effect.provide(replay.emulator))
}
