/**
 * Runs eval cases through the agent loop and validates what it did. Each case is isolated: its own mocks, its
 * own dispatcher (call log) and transcript, and its own model — `model` is a Layer, or a function from the case
 * to a Layer (a per-case cassette replayed through an emulator), built afresh for every case. Cases run with
 * bounded concurrency; each is timed and has a timeout covering all of it (choosing the scenario, building the
 * model, the run); a case that cannot finish is an `error`, never a crash, with the calls it made so far.
 *
 * Per case: choose the scenario (the case's own, or `detectScenario`), replace the handlers of the functions the
 * case mocks (arguments are still checked by the implementation's Schema), run the agent with the scenario's
 * instructions as system prompt and the case's input as prompt, then validate the calls.
 *
 * A mock for a function the case's own scenario lacks is a bug of the case file: the case is an `error`. An input
 * routed to another scenario is the agent's failure, not the case's: that scenario runs with the mocks of the
 * functions it offers (the others cannot be called there), and the case is `failed` with a `ScenarioMismatch`.
 *
 * A case whose `mode` (or its scenario's) is `live` runs as a Live session on `live.model` instead: its `input`, then
 * each `follow_up`, sent in turn; its calls are checked the same way, in the order the model asked for them, and its
 * `answer_*` checks and `judge` rubrics read the text of its answers, one per line. A Live session gives no typed
 * answer: a Live case with `expected_output` is an `error`, before its session starts.
 *
 * @example
 * ```ts
 * import { Registry, Tool } from "@agentfx/core"
 * import { Scripted } from "@agentfx/core/testing"
 * import { EvalCase, EvalReport, EvalRunner, Scenario } from "@agentfx/tools"
 * import { Effect, Schema } from "effect"
 *
 * const scenarioFile = `---
 * name: valid-warranty
 * description: The product is under warranty
 * available_functions:
 *   - name: check_warranty
 *     description: Looks up the warranty of a serial number
 *     parameters: { type: object, properties: { serial_number: { type: string } }, required: [serial_number] }
 * ---
 * You answer warranty e-mails. Check the warranty first.`
 *
 * const checkWarranty = Tool.make("check_warranty", {
 *   description: "Looks up the warranty of a serial number",
 *   parameters: Schema.Struct({ serial_number: Schema.String }),
 *   handler: ({ serial_number }) => Effect.succeed({ serial_number, valid: true })
 * })
 *
 * const program = Effect.gen(function* () {
 *   const scenario = yield* Scenario.resolve(yield* Scenario.parse(scenarioFile, "valid-warranty.md"), Registry.unsafeMake(checkWarranty))
 *   const cases = [
 *     yield* EvalCase.make({
 *       id: "kettle",
 *       input: "My kettle SN-1 broke.",
 *       scenario: "valid-warranty",
 *       expected_function_calls: [{ function_name: "check_warranty", arguments: { serial_number: "SN-1" } }]
 *     })
 *   ]
 *   const report = yield* EvalRunner.run(cases, {
 *     scenarios: [scenario],
 *     model: Scripted.layer([{ calls: [{ name: "check_warranty", args: { serial_number: "SN-1" } }] }, { text: "Covered." }]),
 *     concurrency: 8
 *   })
 *   console.log(EvalReport.pretty(report))
 *   process.exitCode = EvalReport.exitCode(report)
 * })
 *
 * Effect.runPromise(program)
 * ```
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Cause from "effect/Cause"
import * as Option from "effect/Option"
import type * as Layer from "effect/Layer"
import type { LanguageModel, Turn } from "@agentfx/core"
import { Json, Registry, Telemetry } from "@agentfx/core"
import type { Agent } from "@agentfx/core"
import * as Dispatcher from "./Dispatcher.js"
import { type EvalCase, liveGivesText, type MockResponse } from "./EvalCase.js"
import * as EvalJudge from "./EvalJudge.js"
import * as EvalReport from "./EvalReport.js"
import * as EvalSelection from "./EvalSelection.js"
import type { ObservedCall } from "./EvalValidator.js"
import * as EvalValidator from "./EvalValidator.js"
import { show } from "./internal/jsonValue.js"
import * as Mocks from "./Mocks.js"
import * as Scenario from "./Scenario.js"
import * as LiveEval from "./internal/liveEval.js"

export type {
  /**
   * The live model of a suite's Live cases, and their sessions' options.
   *
   * @since 0.3.0
   * @category models
   */
  LiveOptions
} from "./internal/liveEval.js"

/**
 * How to run a suite: `R` is what the scenarios' tools need, `RM` the model layers, `RD` `detectScenario`, `RL` the
 * live model layers.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<R, RM, RD, RL = never> {
  /** The scenarios cases may use (resolved against implementations; see `Scenario.loadDirectory`). */
  readonly scenarios: Iterable<Scenario.Scenario<R>>
  /** The model: one Layer for all cases, or a Layer per case. It is built afresh for every case. */
  readonly model: Layer.Layer<LanguageModel.LanguageModel, unknown, RM> | ((evalCase: EvalCase) => Layer.Layer<LanguageModel.LanguageModel, unknown, RM>)
  /** The report's name (default "eval"). */
  readonly suite?: string
  /** Cases running at once (default 4). */
  readonly concurrency?: number
  /** Pass-rate threshold (default 0.99). */
  readonly threshold?: number
  /** Start no case once this many have not passed; the report then lists the cases not run (see `EvalSelection.forEachUntil`). */
  readonly bail?: number | undefined
  /**
   * Per case, for all of it: choosing the scenario, building the model, the agent run with its tools. Default 2
   * minutes, or `agent.runTimeout` plus 2 minutes when that is set: the run's own bound counts only its time with the
   * model, and a silent model's case then ends with the run's typed error (`runTimeout`) instead of being cut first.
   */
  readonly timeout?: Duration.DurationInput
  /** Chooses the scenario from the case (e.g. classify the e-mail); default: the case's `scenario`. */
  readonly detectScenario?: (evalCase: EvalCase) => Effect.Effect<string, unknown, RD>
  /** The user message; default: the case's `input`. */
  readonly prompt?: (evalCase: EvalCase) => string | Turn.Turn
  /** The model grading the cases' `judge:` rubrics (see `EvalJudge`); a case with rubrics and no judge is an error. */
  readonly judge?: EvalJudge.Judge<RM> | undefined
  /** Further options of the agent loop (maxTurns, stop conditions, retry policy, ...). */
  readonly agent?: Omit<Dispatcher.RunOptions<R>, "prompt">
  /** The live model of the Live cases (`mode: live`), and their sessions' options. */
  readonly live?: LiveEval.LiveOptions<R, RL> | undefined
}

/**
 * Cases running at once unless `concurrency` says otherwise.
 *
 * @since 0.1.0
 */
export const defaultConcurrency = 4
/**
 * Per-case time limit unless `timeout` (or `agent.runTimeout`) says otherwise.
 *
 * @since 0.1.0
 */
export const defaultTimeout = Duration.minutes(2)

/** The case's time limit under `options`: `timeout`, else the default beyond the run's own bound. */
const caseTimeout = (options: Pick<Options<unknown, unknown, unknown, unknown>, "timeout" | "agent">): Duration.Duration => {
  if (options.timeout !== undefined) return Duration.decode(options.timeout)
  const runTimeout = options.agent?.runTimeout
  return runTimeout === undefined ? defaultTimeout : Duration.sum(Duration.decode(runTimeout), defaultTimeout)
}

/**
 * The mock entry that answers these arguments: the first whose `when` the arguments contain (any, without one).
 *
 * @since 0.1.0
 */
export const mockEntry = Mocks.entry

/**
 * What the case's mocks answer for these arguments: the first entry whose `when` the arguments contain.
 *
 * @since 0.1.0
 */
export const mockOutcome: (functionName: string, entries: ReadonlyArray<MockResponse>, args: Json.JsonObject) => Either.Either<unknown, Json.JsonObject> = (
  functionName,
  entries,
  args
) => Mocks.outcome(functionName, entries, args)

/** Why the case's mocks do not fit its own scenario: a mock for a function the scenario does not offer. */
const foreignMocks = <R>(scenario: Scenario.Scenario<R>, evalCase: EvalCase): string | undefined => {
  const foreign = Object.keys(evalCase.mock_function_responses).filter((name) => !scenario.registry.tools.has(name))
  return foreign.length === 0
    ? undefined
    : `mock_function_responses names ${foreign.map((n) => `"${n}"`).join(", ")}, which scenario "${scenario.name}" does not offer (it offers: ${scenario.registry.names.join(", ") || "nothing"})`
}

/** The scenario with the case's mocks in place of the handlers of the functions it offers (it ignores the others). */
const withMocks = <R>(scenario: Scenario.Scenario<R>, evalCase: EvalCase): Scenario.Scenario<R> => {
  const mocks = evalCase.mock_function_responses
  // Stryker disable next-line ConditionalExpression: a shortcut only; without mocks the rebuilt registry holds the same tools
  if (Object.keys(mocks).length === 0) return scenario
  const withCaseMocks = (registry: Registry.Registry<R>): Registry.Registry<R> => Mocks.apply(registry, mocks)
  const registry = withCaseMocks(scenario.registry)
  const source = scenario.registry.source
  // A registry that follows MCP servers keeps following them, with the mocks in place.
  return {
    ...scenario,
    registry:
      source === undefined
        ? registry
        : Registry.dynamic(registry, { version: source.version, current: Effect.map(source.current, withCaseMocks) }, scenario.registry.sourceVersion)
  }
}

const observed = (call: Dispatcher.DispatchedCall): ObservedCall => ({
  id: call.id,
  name: call.name,
  args: call.args,
  response: call.response,
  isError: call.isError,
  durationMs: Duration.toMillis(call.duration),
  // Stryker disable next-line ConditionalExpression: calls of a run always have their turn (only calls dispatched outside a run have none)
  ...(call.turn === undefined ? {} : { turn: call.turn })
})

const messageOf = (error: unknown): string => {
  if (typeof error === "string") return error
  if (error instanceof Error) return error.message
  if (Json.isPlainObject(error) && typeof error.message === "string") return error.message
  return show(error, 1000)
}

const stopReasonText = (reason: Agent.StopReason): string =>
  reason._tag === "Finished"
    ? "finished"
    : reason._tag === "MaxTurns"
      ? `max turns (${reason.maxTurns})`
      : reason._tag === "ToolCalled"
        ? `tool called (${reason.name})`
        : `repeated call (${reason.name} ×${reason.times})`

/**
 * Runs one case; never fails (problems are an `error` status).
 *
 * @since 0.1.0
 */
export const runCase = <R = never, RM = never, RD = never, RL = never>(
  evalCase: EvalCase,
  options: Options<R, RM, RD, RL>
): Effect.Effect<EvalReport.CaseResult, never, R | RM | RD | RL> => {
  const base = {
    id: evalCase.id,
    description: evalCase.description,
    ...(evalCase.file === "<inline>" ? {} : { file: evalCase.file }),
    expectedScenario: evalCase.scenario,
    expectedCalls: evalCase.expected_function_calls
  }
  const timeout = caseTimeout(options)
  const errored = (scenario: string | undefined, error: string, calls: ReadonlyArray<ObservedCall> = []) => ({
    ...base,
    ...(scenario === undefined ? {} : { scenario }),
    status: "error" as const,
    calls,
    mismatches: [],
    error,
    text: "",
    turns: 0,
    stopReason: "error"
  })

  // How far the case got, for the error result of a case that times out at any point.
  interface Reached {
    scenario?: string
    dispatcher?: Dispatcher.Dispatcher<R>
    /** A Live case's calls so far. */
    live?: Effect.Effect<ReadonlyArray<ObservedCall>>
  }

  const whole = (reached: Reached) => Effect.gen(function* () {
    const detected = options.detectScenario === undefined
      ? Either.right(evalCase.scenario)
      : yield* Effect.either(Effect.mapError(options.detectScenario(evalCase), (error) => `the scenario could not be chosen: ${messageOf(error)}`))
    if (Either.isLeft(detected)) return errored(undefined, detected.left)
    const name = detected.right
    reached.scenario = name
    const scenario = Scenario.get(options.scenarios, name)
    if (Either.isLeft(scenario)) return errored(name, scenario.left.message)
    // The case file is checked against the case's own scenario, whichever one the input was routed to.
    // Stryker disable next-line ConditionalExpression: a shortcut only; looking the case's scenario up again finds the same one
    const own = name === evalCase.scenario ? scenario : Scenario.get(options.scenarios, evalCase.scenario)
    const caseBug = Either.isRight(own) ? foreignMocks(own.right, evalCase) : undefined
    if (caseBug !== undefined) return errored(name, caseBug)
    if (LiveEval.isLive(evalCase, scenario.right)) return yield* live(name, scenario.right, reached)
    if (evalCase.follow_up !== undefined) return errored(name, "follow_up is sent only in a Live session: give the case (or its scenario) mode: live")
    const dispatcher = yield* Dispatcher.make(withMocks(scenario.right, evalCase))
    reached.dispatcher = dispatcher
    const layer = typeof options.model === "function" ? options.model(evalCase) : options.model
    const outcome = yield* dispatcher
      .run({ ...options.agent, prompt: options.prompt === undefined ? evalCase.input : options.prompt(evalCase) })
      .pipe(
        Effect.provide(layer),
        Effect.mapError(messageOf),
        Effect.catchAllDefect((defect) => Effect.fail(`the run died: ${messageOf(defect)}`)),
        Effect.either
      )
    const logged = yield* dispatcher.calls
    if (Either.isLeft(outcome)) return errored(name, outcome.left, logged.map(observed))
    // The log is in completion order; expected calls are in the order the model made them.
    const order = new Map(outcome.right.calls.map((call, i) => [call.id, i]))
    const calls = [...logged].sort((a, b) => (order.get(a.id) ?? Infinity) - (order.get(b.id) ?? Infinity)).map(observed)
    const judged = yield* Effect.either(EvalJudge.judgeCase(evalCase, { text: outcome.right.text, calls }, options.judge))
    if (Either.isLeft(judged)) return errored(name, judged.left, calls)
    const output = outcome.right.output
    const mismatches = [...EvalValidator.validate(evalCase, { scenario: name, calls, text: outcome.right.text, output }), ...judged.right.mismatches]
    return {
      ...base,
      scenario: name,
      status: mismatches.length === 0 ? ("passed" as const) : ("failed" as const),
      calls,
      mismatches,
      text: outcome.right.text,
      ...(judged.right.verdicts.length === 0 ? {} : { verdicts: judged.right.verdicts }),
      ...(output === undefined ? {} : { output }),
      turns: outcome.right.turns,
      stopReason: stopReasonText(outcome.right.stopReason)
    }
  })

  /** The case as a Live session, validated as a REST run is. */
  const live = (name: string, scenario: Scenario.Scenario<R>, reached: Reached) =>
    Effect.gen(function* () {
      if (Object.hasOwn(evalCase, "expected_output")) {
        const whose = evalCase.mode === undefined ? ` of scenario "${scenario.name}"` : ""
        return errored(name, `expected_output: the case runs as a Live session (mode: live${whose}), which ${liveGivesText}`)
      }
      if (options.live === undefined) return errored(name, "the case runs as a Live session (mode: live), and the runner was given no live model (`live`)")
      const outcome = yield* Effect.either(
        LiveEval.run(evalCase, withMocks(scenario, evalCase), options.live, (calls) => (reached.live = calls)).pipe(
          Effect.catchAllDefect((defect) => Effect.fail(`the run died: ${messageOf(defect)}`))
        )
      )
      if (Either.isLeft(outcome)) return errored(name, outcome.left, yield* (reached.live ?? Effect.succeed([])))
      const { calls, text, turns } = outcome.right
      // The answer of a Live case is the text of its answers, one per line: its answer_* checks and rubrics read it.
      const judged = yield* Effect.either(EvalJudge.judgeCase(evalCase, { text, calls }, options.judge))
      if (Either.isLeft(judged)) return errored(name, judged.left, calls)
      const mismatches = [...EvalValidator.validate(evalCase, { scenario: name, calls, text }), ...judged.right.mismatches]
      return {
        ...base,
        scenario: name,
        status: mismatches.length === 0 ? ("passed" as const) : ("failed" as const),
        calls,
        mismatches,
        text,
        ...(judged.right.verdicts.length === 0 ? {} : { verdicts: judged.right.verdicts }),
        turns,
        stopReason: "finished"
      }
    })

  const attempt = Effect.suspend(() => {
    const reached: Reached = {}
    return Effect.flatMap(Effect.timeoutOption(whole(reached), timeout), (result) =>
      Option.isSome(result)
        ? Effect.succeed(result.value)
        : Effect.map(
            reached.live ?? Effect.map(reached.dispatcher?.calls ?? Effect.succeed<ReadonlyArray<Dispatcher.DispatchedCall>>([]), (logged) => logged.map(observed)),
            (calls) => errored(reached.scenario, `the case timed out after ${Duration.format(timeout)}`, calls)
          )
    )
  })

  return Telemetry.span("EvalRunner.runCase", { case: evalCase.id }, () =>
    attempt.pipe(
      Effect.catchAllCause((cause) => Effect.succeed(errored(undefined, `the case crashed: ${Cause.pretty(cause).split("\n")[0]}`))),
      Effect.timed,
      Effect.map(([duration, result]): EvalReport.CaseResult => ({ ...result, durationMs: Duration.toMillis(duration) }))
    )
  )
}

/**
 * Runs every case (bounded concurrency; results in case order) and builds the report.
 *
 * @since 0.1.0
 */
export const run = <R = never, RM = never, RD = never, RL = never>(
  cases: ReadonlyArray<EvalCase>,
  options: Options<R, RM, RD, RL>
): Effect.Effect<EvalReport.Report, never, R | RM | RD | RL> =>
  // A bad threshold or concurrency is a configuration bug: a defect, raised when the run starts.
  Effect.suspend(() => {
  const threshold = EvalReport.checkThreshold(options.threshold ?? EvalReport.defaultThreshold)
  const concurrency = options.concurrency ?? defaultConcurrency
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be an integer ≥ 1, got ${concurrency}`)
  const scenarios = [...options.scenarios]
  return Telemetry.span("EvalRunner.run", { suite: options.suite ?? "eval", cases: cases.length }, () =>
    EvalSelection.forEachUntil(cases, (evalCase) => runCase(evalCase, { ...options, scenarios }), { concurrency, bail: options.bail, failed: (result) => result.status !== "passed" }).pipe(
      Effect.timed,
      Effect.map(([duration, { results, notRun }]) =>
        EvalReport.make({
          suite: options.suite ?? "eval",
          cases: results,
          threshold,
          durationMs: Duration.toMillis(duration),
          ...(options.bail === undefined ? {} : { stopped: { bail: options.bail, notRun: notRun.map((evalCase) => evalCase.id) } })
        })
      )
    )
  )
  })
