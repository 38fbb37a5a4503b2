/** `agentfx eval`: the input checked up front, the cases run with progress, the report printed and written. */
import { Approval, LanguageModel } from "@agentfx/core"
import type { EvalCase, EvalRunner } from "@agentfx/tools"
import { EvalReport } from "@agentfx/tools"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ProviderError } from "../CliError.js"
import { BelowThreshold, UsageError } from "../CliError.js"
import type { Handler } from "../commands/Command.js"
import * as EvalInput from "../EvalInput.js"
import * as EvalProgress from "../EvalProgress.js"
import { Io } from "../Io.js"
import * as Offline from "../Offline.js"
import * as Provider from "../Provider.js"
import * as AgentOptions from "../internal/agentOptions.js"
import { untilInterrupted } from "../internal/untilInterrupted.js"
import * as Output from "../internal/output.js"
import { escapeAll } from "../internal/terminalText.js"

/** Where each rendering of the report goes; at most one of them may take stdout. */
const outputs = (options: { json: boolean; reportJson: string | undefined; junit: string | undefined }) => {
  const onStdout = [options.json ? "--json" : undefined, options.reportJson === "-" ? "--report-json -" : undefined, options.junit === "-" ? "--junit -" : undefined].filter(
    (name): name is string => name !== undefined
  )
  if (onStdout.length > 1) return Effect.fail(new UsageError({ message: `${onStdout.join(" and ")} would both print on stdout: send one of them to a file` }))
  return Effect.succeed({ prettyOnStdout: onStdout.length === 0, reportJson: options.json ? "-" : options.reportJson, junit: options.junit })
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
    const targets = yield* outputs({ json: options.has("json"), reportJson: options.text("report-json"), junit: options.text("junit") })
    // Before any input is read or any case runs: a report that cannot be written would otherwise fail at the end.
    yield* Output.check([
      ...(targets.reportJson === undefined ? [] : [{ option: "--report-json", path: targets.reportJson }]),
      ...(targets.junit === undefined ? [] : [{ option: "--junit", path: targets.junit }])
    ])
    const allowHosts = yield* AgentOptions.allowHosts(options)
    const { cases, scenarios } = yield* EvalInput.load(casesDir, scenariosDir, { root, allowHosts }, {
      maxMessageBytes: options.bytes("mcp-max-bytes"),
      allowCommands: options.has("allow-scenario-commands")
    })

    const choice = yield* Provider.choose(AgentOptions.provider(options))
    const settings = AgentOptions.settings(options)
    const threshold = options.number("threshold") ?? EvalReport.defaultThreshold
    const concurrency = options.number("concurrency")
    const maxTurns = options.number("max-turns")
    const runWith = <RM>(model: EvalRunner.Options<FileSystem.FileSystem, RM, never>["model"]) =>
      EvalProgress.run<FileSystem.FileSystem, RM, never, ProviderError>(
        cases,
        {
          suite: path.basename(path.resolve(casesDir)),
          scenarios,
          model,
          threshold,
          ...(concurrency === undefined ? {} : { concurrency }),
          agent: { maxTurns, ...AgentOptions.request(options) }
        },
        { io, label: "eval", onRefusal: (error) => Provider.refused(choice, error) }
      ).pipe(Effect.provide(approval(options.has("yes"))))

    const report = yield* (
      choice.name === "emulator"
        ? Effect.gen(function* () {
            if (settings.baseUrl !== undefined) return yield* Effect.fail(Provider.baseUrlWithEmulator())
            const replay = Offline.replay(cases, settings.maxResponseBytes)
            yield* io.err(`${Provider.describe({ choice, answers: replay.answers })}\n`)
            return yield* runWith((evalCase: EvalCase.EvalCase) => replay.model(evalCase)).pipe(Effect.provide(replay.emulator))
          })
        : Effect.scoped(
            Effect.gen(function* () {
              const context = yield* Layer.build(Provider.layer(choice, settings))
              const service = Context.get(context, LanguageModel.LanguageModel)
              const baseUrl = yield* Provider.effectiveBaseUrl(choice, settings)
              yield* io.err(`${Provider.describe(Provider.announcement(choice, service, { ...settings, baseUrl }))}\n`)
              return yield* runWith(Layer.succeed(LanguageModel.LanguageModel, service))
            })
          )
    )
    return { report, targets }
  })

export const handler: Handler = (input) =>
  Effect.scoped(Effect.gen(function* () {
    const io = yield* Io
    // Ctrl-C stops every step of it (exit 130): reading the input and starting its MCP servers too, not only the cases.
    const { report, targets } = yield* untilInterrupted(evaluate(input))
    // Case ids, function names and messages come from files and models: escaped before the report paints them.
    const pretty = EvalReport.pretty(escapeAll(report), { color: io.color })
    if (targets.prettyOnStdout) yield* io.out(`${pretty}\n`)
    else yield* io.err(`${pretty.split("\n").at(-1)}\n`)
    if (targets.reportJson !== undefined) yield* Output.writeOutput(targets.reportJson, EvalReport.json(report))
    if (targets.junit !== undefined) yield* Output.writeOutput(targets.junit, EvalReport.junit(report))
    if (!report.summary.ok) return yield* Effect.fail(new BelowThreshold({ passRate: report.summary.passRate, threshold: report.summary.threshold }))
  }))
