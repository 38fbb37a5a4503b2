/**
 * Tracing benchmark: what tracing adds to a model step of `Agent.run` (a `chat` span and an `execute_tool` span per
 * step, inside the run's `invoke_agent` span), next to the same run with no tracer, in one process, interleaved,
 * after warm-up, with forced GC between blocks. Two tracers, each as a real deployment would set it up, with an
 * exporter that goes nowhere (so the figure is the toolkit's and the tracer's share, not a collector's):
 *
 * - @effect/opentelemetry's native `OtlpTracer` (what the CLI uses): Effect spans, batched, serialised to OTLP/JSON
 *   and posted every second to an HTTP client that answers 200 without sending anything;
 * - its `NodeSdk` bridge to the OpenTelemetry SDK, with a `BatchSpanProcessor` and an exporter that drops the spans.
 *
 * Two loops: mock models (pure CPU, the worst case: a step costs ~60 µs, so any span cost shows), and a realistic one
 * — the real Gemini provider layer and @google/genai SDK against the emulator over loopback, the emulator in a child
 * process so its work lands on neither side's clock.
 *
 *   npx -y pnpm@10 bench:tracing
 */
import { Agent, LanguageModel, Registry, Tool, Turn } from "@agentfx/core"
import { Scripted } from "@agentfx/core/testing"
import { Policy } from "@agentfx/emulator"
import { Gemini } from "@agentfx/providers"
import { NodeSdk, OtlpSerialization, OtlpTracer } from "@effect/opentelemetry"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import type { ExportResult } from "@opentelemetry/core"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { performance } from "node:perf_hooks"
import { serve, spawnChild } from "./internal/childEmulator.js"
import type { Figures, Runner, Sample } from "./internal/measure.js"
import { compare, cpuOf, protocols, wallOf } from "./internal/measure.js"
import { fixed, machine, median, spread, verdict } from "./internal/stats.js"
import * as Table from "./internal/table.js"

const overheadGoal = 0.05
const mockSteps = 100
const realSteps = 10

const registry = Registry.unsafeMake(
  Tool.make("t0", { description: "Returns its argument", parameters: Schema.Struct({ a: Schema.Number }), handler: ({ a }) => Effect.succeed(a) })
)
const script: Scripted.Responder = (_request, index) => Effect.succeed(index < mockSteps ? { calls: [{ name: "t0", args: { a: index } }] } : { text: "done" })

/** The emulator's model: a call to `t0` per turn until `realSteps` calls were answered, then an answer. */
const policy = Policy.fromFunction((request) => {
  const answered = request.transcript.filter((turn) => turn.role === "model").length
  return answered < realSteps ? { calls: [{ name: "t0", args: { a: answered } }] } : { text: "done" }
})

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
let otlpPosts = 0
/** An HTTP client that answers every OTLP post with 200 and sends nothing: the serialisation is still paid. */
const nowhere = HttpClient.make((request) =>
  Effect.sync(() => {
    otlpPosts++
    return HttpClientResponse.fromWeb(request, new Response(null, { status: 200 }))
  })
)

type Tracer = "none" | "native" | "sdk"
const tracers: ReadonlyArray<{ readonly tracer: Tracer; readonly name: string }> = [
  { tracer: "none", name: "none (the default: no span is made)" },
  { tracer: "native", name: "Effect's OtlpTracer (batched OTLP/JSON, posted nowhere)" },
  { tracer: "sdk", name: "OpenTelemetry SDK via NodeSdk (BatchSpanProcessor, spans dropped)" }
]

const runtimes = {
  native: ManagedRuntime.make(
    OtlpTracer.layer({ url: "http://127.0.0.1:4318/v1/traces", resource: { serviceName: "bench" }, exportInterval: "1 second" }).pipe(
      Layer.provide(Layer.merge(Layer.succeed(HttpClient.HttpClient, nowhere), OtlpSerialization.layerJson))
    )
  ),
  sdk: ManagedRuntime.make(NodeSdk.layer(() => ({ resource: { serviceName: "bench" }, spanProcessor: new BatchSpanProcessor(exporter) })))
}

const runWith = <A>(tracer: Tracer, program: Effect.Effect<A>): Promise<A> =>
  tracer === "none" ? Effect.runPromise(program) : runtimes[tracer].runPromise(program)

const sample = async (tracer: Tracer, steps: number, program: Effect.Effect<Agent.AgentResult, unknown>, model: unknown): Promise<Sample> => {
  const cpu = process.cpuUsage()
  const wall = performance.now()
  const result = await runWith(tracer, Effect.orDie(program))
  const used = process.cpuUsage(cpu)
  if (result.calls.length !== steps) throw new Error(`ran ${result.calls.length} calls, not ${steps}`)
  return { cpuMicros: used.user + used.system, wallMicros: (performance.now() - wall) * 1000, result, model }
}

const mockRun = (tracer: Tracer) => (): Promise<Sample> => {
  const model = Effect.runSync(Scripted.make(script))
  return sample(tracer, mockSteps, Agent.run({ registry, prompt: "go", maxTurns: mockSteps + 1 }).pipe(Effect.provide(model)), model)
}

const realRun = (tracer: Tracer, gemini: Layer.Layer<LanguageModel.LanguageModel>) => (): Promise<Sample> =>
  sample(tracer, realSteps, Agent.run({ registry, prompt: Turn.user("go"), maxTurns: realSteps + 1 }).pipe(Effect.provide(gemini)), undefined)

/** Rows: figures per tracer and the overhead of each against the first (no tracer), per repetition. */
const rows = (figures: ReadonlyArray<Figures>, pick: (f: Figures) => ReadonlyArray<number>): Array<Array<string>> =>
  figures.map((f, i) => {
    if (i === 0) return [tracers[i]!.name, spread(pick(f)), "", ""]
    const overheads = pick(f).map((value, r) => value / pick(figures[0]!)[r]! - 1)
    return [tracers[i]!.name, spread(pick(f)), spread(overheads.map((o) => o * 100)), verdict(median(overheads) <= overheadGoal, `≤ ${overheadGoal * 100} %`)]
  })

const columns = (unit: string) => [
  { header: "tracer" },
  { header: `${unit} per step, median (min–max)`, align: "right" as const },
  { header: "overhead, %", align: "right" as const },
  { header: "goal" }
]

const main = Effect.gen(function* () {
  const progress = (line: string) => console.error(line)
  const mock = yield* Effect.promise(() =>
    compare(
      tracers.map(({ tracer, name }): Runner<number> => ({ name, run: mockRun(tracer) })),
      { size: mockSteps, perBlock: 20, warmUp: 50, repetitions: 9 },
      (size) => size,
      progress
    )
  )
  for (const [protocol, name] of protocols) {
    Table.print({
      title: `Tracing, mock model: CPU µs per model step of Agent.run (${mockSteps} steps, one tool call each), ${name}`,
      columns: columns("CPU µs"),
      rows: rows(mock, (f) => cpuOf(f, protocol)),
      notes: [
        "Each step: a chat span and an execute_tool span; each run an invoke_agent span. The worst case: a step is pure CPU.",
        `Interleaved blocks of 20 runs, 9 repetitions, each after ${protocol === "steady" ? "50 warm-up runs and no forced GC" : "a forced GC and one untimed block of 20 runs"}; CPU time of the process.`,
        machine()
      ]
    })
  }

  const emulator = yield* spawnChild(import.meta.url)
  const gemini = Layer.succeed(LanguageModel.LanguageModel, yield* Gemini.make({ apiKey: Redacted.make(emulator.apiKey), baseUrl: emulator.url }))
  const real = yield* Effect.promise(() =>
    compare(
      tracers.map(({ tracer, name }): Runner<number> => ({ name, run: realRun(tracer, gemini) })),
      { size: realSteps, perBlock: 10, warmUp: 10, repetitions: 9 },
      (size) => size,
      progress
    )
  )
  for (const [protocol, name] of protocols) {
    const realNotes = [
      `Agent.run of ${realSteps} steps through the Gemini provider layer and @google/genai against the emulator (child process) over loopback.`,
      `Interleaved blocks of 10 runs, 9 repetitions, each after ${protocol === "steady" ? "10 warm-up runs and no forced GC" : "a forced GC and one untimed block of 10 runs"}.`,
      machine()
    ]
    Table.print({ title: `Tracing, Gemini layer against the emulator: CPU µs per model step (this process), ${name}`, columns: columns("CPU µs"), rows: rows(real, (f) => cpuOf(f, protocol)), notes: realNotes })
    Table.print({ title: `Tracing, Gemini layer against the emulator: wall µs per model step, ${name}`, columns: columns("wall µs"), rows: rows(real, (f) => wallOf(f, protocol)), notes: realNotes })
  }
  yield* Effect.promise(() => Promise.all([runtimes.native.dispose(), runtimes.sdk.dispose()]))
  console.log(`> Exported: ${fixed(exporter.spans, 0)} spans through the SDK's exporter, ${fixed(otlpPosts, 0)} OTLP posts from OtlpTracer.`)
})

Effect.runPromise(process.argv[2] === "--emulator" ? serve({ policy, signatures: false }) : Effect.scoped(main)).catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
