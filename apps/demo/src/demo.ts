/**
 * The demo's run (main.ts reads the command line first): the warranty e-mail agent processes the sample e-mails,
 * then the eval suite runs and its report and pass rate are printed. Offline by default (the emulator replays
 * recorded model turns through the real Gemini provider layer); with GEMINI_API_KEY or ZAI_API_KEY set it talks to
 * the real service and says so.
 */
import { Registry } from "@agentfx/core"
import { Provider } from "@agentfx/cli"
import { EvalHtml, EvalReport } from "@agentfx/tools"
import type { Scenario } from "@agentfx/tools"
import * as FileSystem from "@effect/platform/FileSystem"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Duration, Effect, Either, Exit, Layer, Schema } from "effect"
import { fileURLToPath } from "node:url"
import type { Arguments } from "./arguments.js"
import { reportPaths } from "./arguments.js"
import { executorTour } from "./executorTour.js"
import * as ModelSource from "./ModelSource.js"
import { processEmail } from "./Pipeline.js"
import type { Processed } from "./Pipeline.js"
import { Recorder, storeCassettes } from "./Recorder.js"
import * as Sample from "./Sample.js"
import * as Suite from "./Suite.js"
import * as Terminal from "./Terminal.js"
import * as TriageReport from "./TriageReport.js"
import * as Tools from "./tools.js"
import { demoWarranties, Mailer, Ticketing, WarrantyRegistry } from "./Warranty.js"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const directories = { scenarios: here("../scenarios"), evals: here("../evals"), samples: here("../samples"), reports: here("../reports") }

class UsageError extends Schema.TaggedError<UsageError>()("UsageError", { message: Schema.String }) {}

const show = (value: unknown, max = 160) => {
  const text = JSON.stringify(value) ?? "undefined"
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

const printProcessed = (processed: Processed) => {
  console.log(`  scenario  ${processed.scenario} (trigger ${processed.trigger})`)
  processed.calls.forEach((call, i) => {
    const outcome = Either.isRight(call.result) ? show(call.result.right) : `${call.result.left._tag}: ${call.result.left.message}`
    console.log(`  ${i + 1}. ${call.name} ${show(call.args, 120)}\n       → ${outcome}  [${Duration.toMillis(call.duration).toFixed(1)} ms]`)
  })
  console.log(`  reply to ${processed.reply.to} — ${processed.reply.subject}`)
  for (const line of processed.reply.body.split("\n")) console.log(`    │ ${line}`)
  const usage = processed.result.usage
  console.log(`  triage    ${TriageReport.line(processed.triage)}`)
  console.log(`            ${processed.triage.summary} (${processed.result.turns} turns, ${usage.totalTokens} tokens)`)
}

/** A key the provider refused: the whole demo stops with one line (exit 1) — every other e-mail would fail alike. */
const refusal = (source: ModelSource.ModelSource, error: unknown) =>
  typeof error === "object" && error !== null && "_tag" in error && error._tag === "Unauthorized"
    ? Effect.fail(Provider.refused(source.choice, error as Parameters<typeof Provider.refused>[1], "--offline"))
    : Effect.void

const runSamples = <R>(source: ModelSource.ModelSource, scenarios: ReadonlyArray<Scenario.Scenario<R>>) =>
  Effect.gen(function* () {
    const samples = yield* Sample.loadDirectory(directories.samples)
    for (const [i, sample] of samples.entries()) {
      const subject = /^Subject:\s*(.*)$/im.exec(sample.email)?.[1] ?? sample.file
      const which = `e-mail ${i + 1} of ${samples.length}`
      yield* Terminal.line(`\n━━ ${which}: ${subject}${sample.warranty_service === "down" ? "   (warranty service down)" : ""}`)
      yield* Terminal.terminal.status(`demo: ${which} — triage, then the agent (waiting for the model)…`)
      const warranties = sample.warranty_service === "down" ? WarrantyRegistry.down : WarrantyRegistry.fromTable(demoWarranties)
      const outcome = yield* processEmail(sample.email, scenarios).pipe(
        Effect.provide(Layer.merge(ModelSource.layer(source, sample.cassette), warranties)),
        Effect.either,
        Effect.ensuring(Terminal.terminal.status(""))
      )
      if (Either.isLeft(outcome)) yield* refusal(source, outcome.left)
      Either.match(outcome, {
        onRight: printProcessed,
        onLeft: (error: unknown) => console.log(`  ✗ ${error instanceof Error ? `${error.name}: ${error.message}` : show(error)}`)
      })
    }
  })

const program = (args: Arguments) => Effect.gen(function* () {
  if (args.executorTour) return yield* executorTour
  const source = args.offline ? ModelSource.offline : yield* ModelSource.fromEnvironment
  console.log(`agentfx warranty demo — ${ModelSource.describe(source)}`)
  if (args.record && source._tag === "Offline") {
    return yield* Effect.fail(new UsageError({ message: "--record needs a real model: set GEMINI_API_KEY (or ZAI_API_KEY)" }))
  }
  const implementations = yield* Registry.make(...Tools.all)
  const { scenarios, cases } = yield* Suite.load(directories, implementations)
  console.log(`scenarios: ${scenarios.map((s) => `${s.name} [${s.registry.names.join(", ")}]`).join("; ")}`)

  if (args.durable) {
    const { runDurable } = yield* Effect.promise(() => import("./durableDemo.js"))
    return yield* runDurable(source, scenarios, yield* Sample.loadDirectory(directories.samples))
  }
  yield* runSamples(source, scenarios)

  console.log(`\n━━ Eval suite: ${cases.length} cases`)
  const recorder = args.record ? new Recorder() : undefined
  const report = yield* Suite.runWithProgress(
    { scenarios, cases, source, recorder },
    { io: Terminal.terminal, label: "demo eval suite", onRefusal: (error) => Provider.refused(source.choice, error, "--offline") }
  )
  console.log(EvalReport.pretty(report, { color: process.stdout.isTTY === true }))
  const fs = yield* FileSystem.FileSystem
  // The JSON and, beside it, the HTML page a person opens: always written, and said where.
  const reports = reportPaths(args.json, directories.reports)
  if (!reports.chosen) yield* fs.makeDirectory(directories.reports, { recursive: true })
  yield* fs.writeFileString(reports.json, EvalReport.json(report))
  yield* fs.writeFileString(reports.html, EvalHtml.render(report))
  console.log(`eval report: ${reports.html} (open it in a browser; the JSON beside it: ${reports.json})`)
  if (args.junit !== undefined) yield* fs.writeFileString(args.junit, EvalReport.junit(report))
  if (recorder !== undefined) {
    for (const file of new Set(cases.map((c) => c.file))) {
      const { stored, notStored } = yield* storeCassettes(file, recorder, report.cases)
      console.log(`recorded ${stored.length} cassettes into ${file}`)
      for (const { id, reason } of notStored) yield* Terminal.terminal.err(`demo: not recorded: ${id} in ${file}: ${reason}\n`)
    }
  }
  process.exitCode = EvalReport.exitCode(report)
})

const backOffice = Layer.mergeAll(NodeContext.layer, Ticketing.sequential, Mailer.inMemory, WarrantyRegistry.fromTable(demoWarranties))

/** Runs the demo as the process: its exit code says how it went. */
export const run = (args: Arguments): void =>
  program(args).pipe(
    Effect.scoped,
    Effect.provide(backOffice),
    Effect.catchAll((error) =>
      Effect.sync(() => {
        console.error(`agentfx demo: ${error instanceof Error ? error.message : show(error)}`)
        // A refused key ran and failed (1); bad arguments or input never ran (2).
        process.exitCode = typeof error === "object" && error !== null && "exitCode" in error && typeof error.exitCode === "number" ? error.exitCode : 2
      })
    ),
    // A run stopped with Ctrl-C did not pass: exit 130, not runMain's 0.
    NodeRuntime.runMain({
      teardown: (exit, onExit) => onExit(Exit.isInterrupted(exit) ? 130 : Exit.isFailure(exit) ? 1 : Number(process.exitCode ?? 0))
    })
  )
