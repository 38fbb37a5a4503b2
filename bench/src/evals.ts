/**
 * The eval harness at scale: the demo's 16 warranty cases repeated under new ids (1,000 and 10,000 by default),
 * run by `Suite.run` offline — one shared emulator replaying each case's cassette through the real Gemini provider
 * layer, the scenario dispatcher and the validator — at concurrency 16. Goal: 1,000 cases in ≤ 3 s, wall close
 * to CPU, memory ≤ 150 MB and flat in the number of cases.
 *
 * Per run: wall and CPU time (user + system of the whole process, so the emulator, the SDK and garbage
 * collection count), the largest heap seen while it ran (sampled every 50 ms), and after it, with a full GC, the
 * heap with its report kept and dropped, and the resident set. Sizes take turns, after one warm-up run each.
 *
 *   pnpm bench:evals
 *   node --expose-gc bench/dist/evals.js --cases 1000 --repetitions 7
 */
import { Registry } from "@agentfx/core"
import { NodeContext } from "@effect/platform-node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import * as ModelSource from "@agentfx/demo/ModelSource"
import * as Suite from "@agentfx/demo/Suite"
import * as Tools from "@agentfx/demo/tools"
import { demoWarranties, Mailer, Ticketing, WarrantyRegistry } from "@agentfx/demo/Warranty"
import type { EvalReport } from "@agentfx/tools"
import { heapAfterGc } from "./internal/measure.js"
import { fixed, machine, median, megabytes, spread, verdict } from "./internal/stats.js"
import * as Table from "./internal/table.js"

const option = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? undefined : process.argv[at + 1]
}
const sizes = (option("cases") ?? "1000,10000").split(",").map(Number)
const repetitions = Number(option("repetitions") ?? 5)
/** Fewer runs of the largest size, which takes a minute or more here. */
const repetitionsAbove1000 = Number(option("repetitions-above-1000") ?? 3)
const concurrency = Number(option("concurrency") ?? 16)
const wallGoalSeconds = 3
const memoryGoalBytes = 150e6

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const directories = { scenarios: here("../../apps/demo/scenarios"), evals: here("../../apps/demo/evals") }

interface Figures {
  readonly wall: Array<number>
  readonly cpu: Array<number>
  readonly peakHeap: Array<number>
  readonly heapWithReport: Array<number>
  readonly heapAfter: Array<number>
  readonly rss: Array<number>
  readonly passed: Array<number>
}

const figuresOf = (): Figures => ({ wall: [], cpu: [], peakHeap: [], heapWithReport: [], heapAfter: [], rss: [], passed: [] })

const program = Effect.gen(function* () {
  const implementations = yield* Registry.make(...Tools.all)
  const { scenarios, cases } = yield* Suite.load(directories, implementations)
  const generated = (count: number) => Array.from({ length: count }, (_, i) => ({ ...cases[i % cases.length]!, id: `${cases[i % cases.length]!.id}-${i}` }))
  // Each run has an outbox and a ticket counter of its own: the in-memory outbox keeps every mail sent (by design),
  // and shared by all runs it held each run's mails after it ended, which the heap figures then counted.
  const run = (count: number) =>
    Suite.run({ scenarios, cases: generated(count), source: ModelSource.offline, concurrency }).pipe(Effect.provide(Layer.merge(Ticketing.sequential, Mailer.inMemory)))

  /** One measured run; the report is only held in `box`, so that dropping it frees it. */
  const measured = (count: number, into: Figures) =>
    Effect.gen(function* () {
      heapAfterGc()
      let peak = process.memoryUsage().heapUsed
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().heapUsed)
      }, 50)
      const cpu = process.cpuUsage()
      const start = performance.now()
      const box: { report: EvalReport.Report | undefined } = { report: yield* run(count) }
      const wall = performance.now() - start
      const used = process.cpuUsage(cpu)
      clearInterval(sampler)
      into.wall.push(wall / 1000)
      into.cpu.push((used.user + used.system) / 1e6)
      into.peakHeap.push(Math.max(peak, process.memoryUsage().heapUsed))
      into.passed.push(box.report?.summary.passed ?? 0)
      into.heapWithReport.push(heapAfterGc())
      box.report = undefined
      // The fiber's run loop still holds the value it resumed this generator with (a local of its frame) until it
      // yields: only then is the report unreachable.
      yield* Effect.yieldNow()
      into.heapAfter.push(heapAfterGc())
      into.rss.push(process.memoryUsage().rss)
      process.stderr.write(`  ${count} cases: ${fixed(wall / 1000)} s wall, ${fixed((used.user + used.system) / 1e6)} s CPU\n`)
    })

  for (const count of sizes) yield* run(Math.min(count, 64))
  const figures = sizes.map(figuresOf)
  for (let repetition = 0; repetition < repetitions; repetition++) {
    for (let k = 0; k < sizes.length; k++) {
      const index = (k + repetition) % sizes.length
      const count = sizes[index]!
      if (count > 1000 && repetition >= repetitionsAbove1000) continue
      yield* measured(count, figures[index]!)
    }
  }

  const seconds = (values: ReadonlyArray<number>) => `${spread(values, 2)}`
  const mb = (values: ReadonlyArray<number>) => `${megabytes(median(values))} (${fixed(Math.min(...values) / 1e6, 0)}–${fixed(Math.max(...values) / 1e6, 0)})`
  const notes = [
    `Median (min–max) of ${repetitions} runs (${repetitionsAbove1000} above 1,000 cases), sizes taking turns after a warm-up run each; concurrency ${concurrency}.`,
    "CPU = user + system of the whole process (the emulator, the SDK and garbage collection included). Heap during = the largest heap sampled every 50 ms while the suite ran; after GC = after a full collection, with the run's report still held and then dropped. MB = 10^6 bytes.",
    machine()
  ]
  Table.print({
    title: `Eval suite offline (emulator + real Gemini layer), concurrency ${concurrency}`,
    columns: [
      { header: "cases", align: "right" },
      { header: "wall s", align: "right" },
      { header: "CPU s", align: "right" },
      { header: "CPU ms / case", align: "right" },
      { header: "wall ÷ CPU", align: "right" },
      { header: "heap during", align: "right" },
      { header: "heap after GC, report kept", align: "right" },
      { header: "heap after GC, dropped", align: "right" },
      { header: "RSS after", align: "right" },
      { header: "passed", align: "right" }
    ],
    rows: sizes.map((count, i) => {
      const f = figures[i]!
      return [
        count.toLocaleString("en"),
        seconds(f.wall),
        seconds(f.cpu),
        fixed((median(f.cpu) * 1000) / count, 2),
        fixed(median(f.wall) / median(f.cpu), 2),
        mb(f.peakHeap),
        mb(f.heapWithReport),
        mb(f.heapAfter),
        mb(f.rss),
        `${Math.min(...f.passed)}/${count}`
      ]
    }),
    notes
  })
  const goals: Array<ReadonlyArray<string>> = []
  const at1000 = sizes.indexOf(1000)
  if (at1000 !== -1) {
    const wall = median(figures[at1000]!.wall)
    goals.push(["1,000 cases, wall", `${fixed(wall)} s`, verdict(wall <= wallGoalSeconds, `≤ ${wallGoalSeconds} s`)])
  }
  sizes.forEach((count, i) => {
    const peak = Math.max(...figures[i]!.peakHeap)
    goals.push([`${count.toLocaleString("en")} cases, largest heap during a run`, megabytes(peak), verdict(peak <= memoryGoalBytes, `≤ ${memoryGoalBytes / 1e6} MB`)])
  })
  if (sizes.length > 1) {
    const first = median(figures[0]!.heapAfter)
    const last = median(figures[sizes.length - 1]!.heapAfter)
    goals.push([
      `heap after GC, ${sizes[sizes.length - 1]!.toLocaleString("en")} cases ÷ ${sizes[0]!.toLocaleString("en")}`,
      fixed(last / first, 2),
      verdict(last / first <= 1.1, "≤ 1.1 (flat)")
    ])
  }
  Table.print({ title: "Goals", columns: [{ header: "goal" }, { header: "measured", align: "right" }, { header: "verdict" }], rows: goals, notes: [machine()] })
})

Effect.runPromise(program.pipe(Effect.provide(Layer.merge(NodeContext.layer, WarrantyRegistry.fromTable(demoWarranties))))).catch(
  (error: unknown) => {
    console.error(error)
    process.exitCode = 1
  }
)
