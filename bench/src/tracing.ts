/**
 * Tracing benchmark: what OpenTelemetry tracing adds to a model step of `Agent.run` (a turn span and a tool-call
 * span per step, inside the run's span), next to the same run with no tracer, in one process, interleaved, after
 * warm-up, with forced GC between blocks. The tracer is @effect/opentelemetry's bridge to the OpenTelemetry SDK
 * with a batch processor and an exporter that drops what it is given (so the figure is the toolkit's and the SDK's
 * share, not a collector's). The "no tracer" row is the toolkit as every user without a tracer runs it: no span is
 * made then.
 *
 *   npx -y pnpm@10 bench:tracing
 */
import { Agent, Registry, Tool } from "@agentfx/core"
import { Scripted } from "@agentfx/core/testing"
import { NodeSdk } from "@effect/opentelemetry"
import type { ExportResult } from "@opentelemetry/core"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import { performance } from "node:perf_hooks"
import type { Runner, Sample } from "./internal/measure.js"
import { compare } from "./internal/measure.js"
import { fixed, machine, median, spread, verdict } from "./internal/stats.js"
import * as Table from "./internal/table.js"

const overheadGoal = 0.05
const steps = 100

const registry = Registry.unsafeMake(
  Tool.make("t0", { description: "Returns its argument", parameters: Schema.Struct({ a: Schema.Number }), handler: ({ a }) => Effect.succeed(a) })
)
const script: Scripted.Responder = (_request, index) => Effect.succeed(index < steps ? { calls: [{ name: "t0", args: { a: index } }] } : { text: "done" })

/** Counts what it is given and drops it. */
class DroppingExporter implements SpanExporter {
  spans = 0
  export(spans: Array<ReadableSpan>, done: (result: ExportResult) => void): void {
    this.spans += spans.length
    done({ code: 0 })
  }
  shutdown(): Promise<void> {
    return Promise.resolve()
  }
}

const exporter = new DroppingExporter()
const traced = ManagedRuntime.make(NodeSdk.layer(() => ({ resource: { serviceName: "bench" }, spanProcessor: new BatchSpanProcessor(exporter) })))

const runOnce = (tracing: boolean) => async (): Promise<Sample> => {
  const model = Effect.runSync(Scripted.make(script))
  const program = Agent.run({ registry, prompt: "go", maxTurns: steps + 1 }).pipe(Effect.provide(model))
  const cpu = process.cpuUsage()
  const wall = performance.now()
  const result = await (tracing ? traced.runPromise(program) : Effect.runPromise(program))
  const used = process.cpuUsage(cpu)
  if (result.calls.length !== steps) throw new Error(`ran ${result.calls.length} calls`)
  return { cpuMicros: used.user + used.system, wallMicros: (performance.now() - wall) * 1000, result, model }
}

const main = async () => {
  const runners: ReadonlyArray<Runner<number>> = [
    { name: "no tracer", run: runOnce(false) },
    { name: "OpenTelemetry SDK (batch processor, spans dropped)", run: runOnce(true) }
  ]
  const [plain, withTracing] = await compare(runners, { size: steps, perBlock: 20, warmUp: 50, repetitions: 9 }, (size) => size)
  const overheads = plain!.cpu.map((cpu, i) => withTracing!.cpu[i]! / cpu - 1)
  Table.print({
    title: `Tracing: CPU µs per model step of Agent.run (${steps} steps, one tool call each)`,
    columns: [{ header: "tracer" }, { header: "µs per step, median (min–max)", align: "right" }, { header: "overhead, %", align: "right" }, { header: "goal" }],
    rows: [
      ["none (the default)", spread(plain!.cpu), "", ""],
      [runners[1]!.name, spread(withTracing!.cpu), spread(overheads.map((o) => o * 100)), verdict(median(overheads) <= overheadGoal, `≤ ${overheadGoal * 100} %`)]
    ],
    notes: [
      `Each step: a chat span and an execute_tool span (${fixed(exporter.spans, 0)} spans reached the exporter in all).`,
      "Interleaved blocks of 20 runs, 9 repetitions, a forced GC and 50 warm-up runs before each block; CPU time of the process.",
      machine()
    ]
  })
  await traced.dispose()
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
