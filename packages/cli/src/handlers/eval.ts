/** `agentfx eval`: the input checked up front, the cases run with progress, the report printed and written. */
import { Approval, LanguageModel } from "@agentfx/core"
import type { Emulator } from "@agentfx/emulator"
import type { EvalCase, EvalJudge, EvalRunner } from "@agentfx/tools"
import { EvalBaseline, EvalHtml, EvalReport } from "@agentfx/tools"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ProviderError } from "../CliError.js"
import { BelowThreshold, EvalStopped, InputError, Regressed, UsageError } from "../CliError.js"
import type { Handler } from "../commands/Command.js"
import * as EvalInput from "../EvalInput.js"
import * as EvalProgress from "../EvalProgress.js"
import { Io } from "../Io.js"
import * as Provider from "../Provider.js"
import * as AgentOptions from "../internal/agentOptions.js"
import * as EvalJudges from "../internal/evalJudge.js"
import * as EvalSelection from "../internal/evalSelection.js"
import { untilInterrupted } from "../internal/untilInterrupted.js"
import * as Output from "../internal/output.js"
import { escapeAll, escapeName } from "../internal/terminalText.js"

/** Where each rendering of the report goes; at most one of them may take stdout. */
const outputs = (options: { json: boolean; reportJson: string | undefined; junit: string | undefined; html: string | undefined }) => {
  const onStdout = [
    options.json ? "--json" : undefined,
    options.reportJson === "-" ? "--report-json -" : undefined,
    options.junit === "-" ? "--junit -" : undefined,
    options.html === "-" ? "--report-html -" : undefined
  ].filter((name): name is string => name !== undefined)
  if (onStdout.length > 1) return Effect.fail(new UsageError({ message: `${onStdout.join(" and ")} would both print on stdout: send one of them to a file` }))
  return Effect.succeed({ prettyOnStdout: onStdout.length === 0, reportJson: options.json ? "-" : options.reportJson, junit: options.junit, html: options.html })
}

/** Nobody is asked during an eval: a tool that asks first (an MCP tool that may change things) runs only with --yes. */
const approval = (yes: boolean) =>
  yes ? Approval.allowAll : Approval.layer(() => Effect.succeed(Approval.denied("agentfx eval does not ask for approval: pass --yes to allow tools that need it")))

/** Everything up to the report: the input read and checked, its MCP servers started, the cases run. */
const evaluate = ({ options, args }: Parameters<Handler>[0]) =>
  Effect.gen(function* () {
    const io = yield* Io
    const path = yield* Path.Path
    const casesDir = yield* AgentOptions.directory("<cases-dir>", args[0]!)
    const scenariosDir = yield* AgentOptions.directory("--scenarios", options.text("scenarios")!)
    const root = yield* AgentOptions.directory("--root", options.text("root") ?? ".")
    const targets = yield* outputs({ json: options.has("json"), reportJson: options.text("report-json"), junit: options.text("junit"), html: options.text("report-html") })
    // Before any input is read or any case runs: a report that cannot be written would otherwise fail at the end.
    yield* Output.check([
      ...(targets.reportJson === undefined ? [] : [{ option: "--report-json", path: targets.reportJson }]),
      ...(targets.junit === undefined ? [] : [{ option: "--junit", path: targets.junit }]),
      ...(targets.html === undefined ? [] : [{ option: "--report-html", path: targets.html }])
    ])
    const baselineFile = options.text("baseline")
    if (options.has("fail-on-regression") && baselineFile === undefined) {
      return yield* Effect.fail(new UsageError({ message: "--fail-on-regression compares with a baseline: give --baseline FILE (a JSON report of an earlier run)" }))
    }
    // Read before the input and before any case runs, as the report paths are checked: a bad file stops it at once.
    const baseline = baselineFile === undefined
      ? undefined
      : yield* Effect.mapError(EvalBaseline.load(baselineFile), (error) => new InputError({ message: `--baseline ${error.message}` }))
    const allowHosts = yield* AgentOptions.allowHosts(options)
    const { cases, scenarios, total } = yield* EvalInput.load(
      casesDir,
      scenariosDir,
      { root, allowHosts },
      { maxMessageBytes: options.bytes("mcp-max-bytes"), allowCommands: options.has("allow-scenario-commands") },
      EvalSelection.fromOptions(options)
    )
    const selected = EvalSelection.described(cases.length, total)
    if (selected !== undefined) yield* io.err(`${selected}\n`)

    const choice = yield* Provider.choose(AgentOptions.provider(options))
    const settings = AgentOptions.settings(options)
    const threshold = options.number("threshold") ?? EvalReport.defaultThreshold
    const concurrency = options.number("concurrency")
    const maxTurns = options.number("max-turns")
    const runWith = <RM>(model: EvalRunner.Options<FileSystem.FileSystem, RM, never>["model"], judge: EvalJudge.Judge<RM> | undefined) =>
      EvalProgress.run<FileSystem.FileSystem, RM, never, ProviderError>(
        cases,
        {
          suite: path.basename(path.resolve(casesDir)),
          scenarios,
          model,
          judge,
          threshold,
          ...(concurrency === undefined ? {} : { concurrency }),
          ...(options.has("bail") ? { bail: Number(options.text("bail") || "1") } : {}),
          agent: { maxTurns, ...AgentOptions.request(options) }
        },
        { io, label: "eval", onRefusal: (error) => Provider.refused(choice, error) }
      ).pipe(Effect.provide(approval(options.has("yes"))))

    const judging = EvalJudges.judging(cases, choice, settings, options)
    const report = yield* Effect.scoped(
      Effect.gen(function* () {
        if (choice.name === "emulator" && settings.baseUrl !== undefined) return yield* Effect.fail(Provider.baseUrlWithEmulator())
        // The offline model (the emulator and the cassettes' plan) is loaded only when the agent or the judge is it.
        const offline = choice.name === "emulator" || judging?.choice.name === "emulator" ? yield* Effect.promise(() => import("../Offline.js")) : undefined
        const replay = offline?.replay(cases, settings.maxResponseBytes)
        const agent = choice.name === "emulator" ? undefined : yield* EvalJudges.service(choice, settings)
        yield* io.err(`${Provider.describe(agent === undefined ? { choice, answers: replay?.answers } : agent.announcement)}\n`)
        const judge = judging === undefined || judging.choice.name === "emulator" ? undefined : yield* EvalJudges.service(judging.choice, judging.settings)
        if (judging !== undefined) yield* io.err(`${EvalJudges.describe(judging, judge?.announcement, replay?.judgeAnswers)}\n`)
        if (replay === undefined) {
          return yield* runWith<never>(Layer.succeed(LanguageModel.LanguageModel, agent!.service), judge === undefined ? undefined : Layer.succeed(LanguageModel.LanguageModel, judge.service))
        }
        // The emulator replays the cassettes of the agent, of the judge, or both.
        return yield* runWith<Emulator.Emulator>(
          agent === undefined ? (evalCase: EvalCase.EvalCase) => replay.model(evalCase) : Layer.succeed(LanguageModel.LanguageModel, agent.service),
          judging === undefined ? undefined : judge === undefined ? replay.judge : Layer.succeed(LanguageModel.LanguageModel, judge.service)
        ).pipe(Effect.provide(replay.emulator))
      })
    )
    return { report, targets, baseline: baseline === undefined ? undefined : { file: baselineFile!, report: baseline } }
  })

export const handler: Handler = (input) =>
  Effect.scoped(Effect.gen(function* () {
    const io = yield* Io
    // Ctrl-C stops every step of it (exit 130): reading the input and starting its MCP servers too, not only the cases.
    const { report, targets, baseline } = yield* untilInterrupted(evaluate(input))
    // Case ids, function names and messages come from files and models: escaped before the report paints them.
    const pretty = EvalReport.pretty(escapeAll(report), { color: io.color, passed: input.options.has("only-failures") ? "hidden" : "line" })
    const comparison = baseline === undefined ? undefined : EvalBaseline.compare(baseline.report, report)
    const table = comparison === undefined ? undefined : EvalBaseline.pretty(escapeAll(comparison), escapeName(baseline!.file), { color: io.color })
    if (targets.prettyOnStdout) yield* io.out(`${pretty}\n${table === undefined ? "" : `\n${table}\n`}`)
    else yield* io.err(`${pretty.split("\n").at(-1)}\n${table === undefined ? "" : `${table}\n`}`)
    if (targets.reportJson !== undefined) yield* Output.writeOutput(targets.reportJson, EvalReport.json(report))
    if (targets.junit !== undefined) yield* Output.writeOutput(targets.junit, EvalReport.junit(report))
    if (targets.html !== undefined) {
      const page = EvalHtml.render(report, comparison === undefined ? {} : { baseline: { source: baseline!.file, comparison } })
      yield* Output.writeOutput(targets.html, page)
    }
    if (report.stopped !== undefined) return yield* Effect.fail(new EvalStopped({ bail: report.stopped.bail, notRun: report.stopped.notRun.length }))
    if (comparison !== undefined && input.options.has("fail-on-regression") && comparison.newlyFailing.length > 0) {
      return yield* Effect.fail(new Regressed({ baseline: baseline!.file, ids: comparison.newlyFailing.map((change) => change.id) }))
    }
    if (!report.summary.ok) return yield* Effect.fail(new BelowThreshold({ passRate: report.summary.passRate, threshold: report.summary.threshold }))
  }))
