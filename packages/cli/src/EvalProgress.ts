/**
 * An eval suite run with what a person at the terminal needs: progress (cases done of all, passing so far,
 * elapsed, and a case whose model request is being retried: `case-7: Overloaded — retrying (attempt 2/4, next in
 * 3 s)`) redrawn on one status line on a terminal and as plain lines when piped, and a stop for the whole run
 * the moment the provider refuses the key — no point in sixteen 401s. The cases run as `EvalRunner.runCase`
 * runs them (the report is the same as `EvalRunner.run`'s); `agentfx eval` and the demo both use it.
 *
 * @example
 * const report = yield* EvalProgress.run(cases, options, { io, label: "eval", onRefusal: (error) => refused(choice, error) })
 *
 * @since 0.1.0
 */
import type { Agent, LanguageModel, ModelError } from "@agentfx/core"
import { LanguageModel as LanguageModelTag } from "@agentfx/core"
import type { EvalCase } from "@agentfx/tools"
import { EvalReport, EvalRunner, EvalSelection } from "@agentfx/tools"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import type * as Io from "./Io.js"
import { durationText } from "./internal/durationText.js"
import { failedText, retryingText } from "./internal/retryText.js"
import { escapeName } from "./internal/terminalText.js"

export interface Progress<E> {
  readonly io: Io.Service
  /** What the progress line starts with ("eval", "demo eval suite"). */
  readonly label: string
  /** The error that stops the run when the provider refuses the key (401 / 403). */
  readonly onRefusal: (error: ModelError.ModelError) => E
}

/** The model service with every refusal of the key reported to `refused` (the calls still fail as they did). */
export const guard = (service: LanguageModel.Service, refused: (error: ModelError.ModelError) => Effect.Effect<void>): LanguageModel.Service => {
  const check = (error: ModelError.ModelError) => (error._tag === "Unauthorized" ? refused(error) : Effect.void)
  return {
    ...service,
    generate: (request) => Effect.tapError(service.generate(request), check),
    stream: (request) => Stream.tapError(service.stream(request), check)
  }
}

const guardLayer = <E, R>(layer: Layer.Layer<LanguageModel.LanguageModel, E, R>, refused: (error: ModelError.ModelError) => Effect.Effect<void>) =>
  Layer.map(layer, (context) => Context.add(context, LanguageModelTag.LanguageModel, guard(Context.get(context, LanguageModelTag.LanguageModel), refused)))

/** Elapsed time to a tenth of a second (`0ms` at the start, not a bare `0`). */
const seconds = (millis: number): string => durationText(millis, 100)

/** Runs `cases` (bounded, results in case order) and builds the report; fails with `onRefusal`'s error at the first refused key. */
export const run = <R, RM, RD, E>(
  cases: ReadonlyArray<EvalCase.EvalCase>,
  options: EvalRunner.Options<R, RM, RD>,
  progress: Progress<E>
): Effect.Effect<EvalReport.Report, E, R | RM | RD> =>
  Effect.gen(function* () {
    const { io } = progress
    const stop = yield* Deferred.make<never, E>()
    const refused = (error: ModelError.ModelError) => Effect.asVoid(Deferred.fail(stop, progress.onRefusal(error)))
    const model = options.model
    const guarded: EvalRunner.Options<R, RM, RD> = {
      ...options,
      model: typeof model === "function" ? (evalCase) => guardLayer(model(evalCase), refused) : guardLayer(model, refused)
    }
    const total = cases.length
    const started = yield* Clock.currentTimeMillis
    let done = 0
    let passed = 0
    /** Each running case's latest retried attempt, and the clock time its retry starts. */
    const retries = new Map<EvalCase.EvalCase, { readonly failed: Agent.AttemptFailed; readonly at: number }>()
    const line = (now: number) => `${progress.label}: ${done}/${total} done, ${passed} passing, ${seconds(now - started)}`
    /** The status line: the progress, and the case whose retry comes last among those still waiting for one. */
    const status = (now: number) => {
      let latest: [EvalCase.EvalCase, { readonly failed: Agent.AttemptFailed; readonly at: number }] | undefined
      for (const entry of retries) if (entry[1].at > now && (latest === undefined || entry[1].at > latest[1].at)) latest = entry
      if (latest === undefined) return line(now)
      const [evalCase, { failed, at }] = latest
      return `${line(now)} — ${escapeName(evalCase.id)}: ${failed.error._tag} — ${retryingText(failed, at - now)}`
    }
    const redraw = Effect.flatMap(Clock.currentTimeMillis, (now) => io.status(status(now)))
    // On a terminal the line also ticks between results, so a slow model still shows the time going by.
    const ticker = io.interactive ? yield* Effect.forkDaemon(Effect.repeat(redraw, Schedule.spaced("250 millis"))) : undefined
    const retried = (evalCase: EvalCase.EvalCase) => (failed: Agent.AttemptFailed) =>
      !failed.willRetry
        ? Effect.void
        : Effect.flatMap(Clock.currentTimeMillis, (now) => {
            retries.set(evalCase, { failed, at: now + Duration.toMillis(failed.retryIn ?? Duration.zero) })
            return io.interactive ? redraw : io.err(`${progress.label}: ${escapeName(evalCase.id)}: ${failedText(failed)}\n`)
          })
    /** The case's options: the run's, with its failed attempts shown as well as given to the caller's own hook. */
    const caseOptions = (evalCase: EvalCase.EvalCase): EvalRunner.Options<R, RM, RD> => {
      const theirs = guarded.agent?.onAttemptFailed
      const ours = retried(evalCase)
      return { ...guarded, agent: { ...guarded.agent, onAttemptFailed: theirs === undefined ? ours : (failed) => Effect.zipRight(theirs(failed), ours(failed)) } }
    }
    const finished = (evalCase: EvalCase.EvalCase, result: EvalReport.CaseResult) =>
      Effect.gen(function* () {
        retries.delete(evalCase)
        done++
        if (result.status === "passed") passed++
        if (io.interactive) return yield* redraw
        const now = yield* Clock.currentTimeMillis
        yield* io.err(`${line(now)} — ${result.status === "passed" ? "✓" : "✗"} ${escapeName(result.id)}\n`)
      })
    const concurrency = options.concurrency ?? EvalRunner.defaultConcurrency
    const all = EvalSelection.forEachUntil(cases, (evalCase) => Effect.tap(EvalRunner.runCase(evalCase, caseOptions(evalCase)), (result) => finished(evalCase, result)), {
      concurrency,
      bail: options.bail,
      failed: (result) => result.status !== "passed"
    })
    const { results, notRun } = yield* Effect.raceFirst(all, Deferred.await(stop)).pipe(
      Effect.ensuring(Effect.zipRight(ticker === undefined ? Effect.void : Fiber.interrupt(ticker), io.status("")))
    )
    const ended = yield* Clock.currentTimeMillis
    return EvalReport.make({
      suite: options.suite ?? "eval",
      cases: results,
      durationMs: ended - started,
      ...(options.threshold === undefined ? {} : { threshold: options.threshold }),
      ...(options.bail === undefined ? {} : { stopped: { bail: options.bail, notRun: notRun.map((evalCase) => evalCase.id) } })
    })
  })
