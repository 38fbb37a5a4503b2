/**
 * The warranty eval suite: every case in `evals/` through the agent loop, each case with its own mocks and its own
 * model (offline: one shared emulator replays each case's cassette through the real Gemini layer). Each run gives
 * the scenario's typed triage report (its `output_schema`), which the case's `expected_output` is checked against.
 */
import type { LanguageModel, Registry } from "@agentfx/core"
import { EvalProgress, Offline } from "@agentfx/cli"
import type { Emulator } from "@agentfx/emulator"
import { EvalCase, EvalRunner, Scenario } from "@agentfx/tools"
import type { EvalReport } from "@agentfx/tools"
import type * as FileSystem from "@effect/platform/FileSystem"
import { Data, Effect, Either, Layer, Option, Schema } from "effect"
import * as Email from "./Email.js"
import * as ModelSource from "./ModelSource.js"
import { promptOf, scenarioFor } from "./Pipeline.js"
import { judgeKey } from "./Recorder.js"
import type { Recorder } from "./Recorder.js"
import * as Triage from "./Triage.js"
import { WarrantyRecord, WarrantyRegistry, WarrantyServiceUnavailable } from "./Warranty.js"

export interface SuiteOptions<R> {
  readonly scenarios: ReadonlyArray<Scenario.Scenario<R>>
  readonly cases: ReadonlyArray<EvalCase.EvalCase>
  readonly source: ModelSource.ModelSource
  readonly recorder?: Recorder | undefined
  readonly concurrency?: number
  readonly threshold?: number
}

/**
 * The case's `check_warranty` mocks cannot say what triage needs: no entry matches a serial the e-mail mentions, or
 * a response is not a warranty record. A bug of the case file, not an outage: it must not route the case to the
 * service-unavailable scenario (only an `error:` entry stands for that).
 */
class MockGap extends Data.TaggedError("MockGap")<{ readonly message: string }> {}

/** The warranty registry as the case's `check_warranty` mocks describe it (what triage sees for this case). */
export const mockedWarranties = (evalCase: EvalCase.EvalCase): Layer.Layer<WarrantyRegistry> => {
  const entries = evalCase.mock_function_responses.check_warranty
  return Layer.succeed(WarrantyRegistry, {
    check: (serial) => {
      if (entries === undefined) return Effect.succeed({ serial_number: serial, status: "unknown" as const })
      const args = { serial_number: serial }
      if (EvalRunner.mockEntry(entries, args) === undefined) {
        return Effect.die(new MockGap({ message: `the case's check_warranty mocks answer nothing for ${serial}, a serial number its e-mail mentions` }))
      }
      return Either.match(EvalRunner.mockOutcome("check_warranty", entries, args), {
        onLeft: (error) => Effect.fail(new WarrantyServiceUnavailable({ message: typeof error.message === "string" ? error.message : "unavailable" })),
        onRight: (value) =>
          Either.match(Schema.decodeUnknownEither(WarrantyRecord)(value), {
            onLeft: (problem) => Effect.die(new MockGap({ message: `the case's check_warranty mock for ${serial} is not a warranty record: ${problem.message}` })),
            onRight: Effect.succeed
          })
      })
    }
  })
}

/** Parses the case's e-mail and triages it against its mocks; a malformed e-mail, or mocks that cannot say, fail the case. */
const detectScenario = <R>(scenarios: ReadonlyArray<Scenario.Scenario<R>>) => (evalCase: EvalCase.EvalCase) =>
  Effect.gen(function* () {
    const email = yield* Email.parse(evalCase.input)
    const trigger = yield* Triage.detect(email).pipe(
      Effect.provide(mockedWarranties(evalCase)),
      Effect.catchSomeDefect((defect) => (defect instanceof MockGap ? Option.some(Effect.fail(defect)) : Option.none()))
    )
    return (yield* scenarioFor(scenarios, trigger)).name
  })

const promptFor = (evalCase: EvalCase.EvalCase): string => Either.match(Email.parse(evalCase.input), { onLeft: () => evalCase.input, onRight: promptOf })

/**
 * The model of one case. Offline, every case talks to one shared emulator (see `Offline.replay`: a case with a
 * cassette replays it, a case without one is answered by the offline rule model, an invalid cassette is an error
 * case with the reason); online, the real model, recorded when `recorder` is given.
 */
export const modelFor = (source: ModelSource.ModelSource, recorder: Recorder | undefined, replay: ReturnType<typeof Offline.replay>) =>
  (evalCase: EvalCase.EvalCase): Layer.Layer<LanguageModel.LanguageModel, unknown, Emulator.Emulator> => {
    if (source._tag === "Offline") return replay.model(evalCase)
    const real = ModelSource.layer(source, undefined)
    return recorder === undefined ? real : recorder.wrap(evalCase.id, real)
  }

/**
 * The judge of one rubric of a case: offline its recorded verdict (`x-judge-cassette`), online the real model, its
 * turn recorded under `<case>#judge-<rubric>` when `recorder` is given.
 */
export const judgeFor = (source: ModelSource.ModelSource, recorder: Recorder | undefined, replay: ReturnType<typeof Offline.replay>) =>
  (evalCase: EvalCase.EvalCase, rubric: number): Layer.Layer<LanguageModel.LanguageModel, unknown, Emulator.Emulator> => {
    if (source._tag === "Offline") return replay.judge(evalCase, rubric)
    const real = ModelSource.layer(source, undefined)
    return recorder === undefined ? real : recorder.wrap(judgeKey(evalCase.id, rubric), real)
  }

const runnerOptions = <R>(options: SuiteOptions<R>, replay: ReturnType<typeof Offline.replay>) => ({
  suite: "warranty",
  scenarios: options.scenarios,
  model: modelFor(options.source, options.recorder, replay),
  judge: judgeFor(options.source, options.recorder, replay),
  detectScenario: detectScenario(options.scenarios),
  prompt: promptFor,
  concurrency: options.concurrency ?? 8,
  ...(options.threshold === undefined ? {} : { threshold: options.threshold })
})

/** Runs the suite and returns its report. */
export const run = <R>(options: SuiteOptions<R>): Effect.Effect<EvalReport.Report, never, R> => {
  const replay = Offline.replay(options.cases)
  // Online runs never call the emulator; one idle local server is cheaper than a second code path.
  return EvalRunner.run(options.cases, runnerOptions(options, replay)).pipe(Effect.provide(replay.emulator))
}

/**
 * The same run with progress on the terminal (cases done, passing, elapsed) or plain lines when piped, stopped
 * at the first key the provider refuses with `progress.onRefusal`'s error.
 */
export const runWithProgress = <R, E>(options: SuiteOptions<R>, progress: EvalProgress.Progress<E>): Effect.Effect<EvalReport.Report, E, R> => {
  const replay = Offline.replay(options.cases)
  return EvalProgress.run(options.cases, runnerOptions(options, replay), progress).pipe(Effect.provide(replay.emulator))
}

/** Loads the scenarios (resolved against `implementations`) and the cases. */
export const load = <R>(directories: { readonly scenarios: string; readonly evals: string }, implementations: Registry.Registry<R>) =>
  Effect.all({
    scenarios: Scenario.loadDirectory(directories.scenarios, implementations),
    cases: EvalCase.loadDirectory(directories.evals)
  }) satisfies Effect.Effect<unknown, unknown, FileSystem.FileSystem>
