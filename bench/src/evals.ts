/**
 * The eval harness at scale: the demo's 16 warranty cases repeated under new ids (1,000 and 3,000 by default),
 * run by `Suite.run` offline — one shared emulator replaying each case's cassette through the real Gemini provider
 * layer, the scenario dispatcher and the validator — at concurrency 16. Goals: 1,000 cases in ≤ 5 s of CPU and
 * ≤ 3 s of wall, wall close to CPU, memory ≤ 150 MB and flat in the number of cases.
 *
 * Per run: wall and CPU time (user + system of the whole process, so the emulator, the SDK and garbage
 * collection count) and the largest heap seen while it ran (sampled every 50 ms). Two protocols, both reported:
 * steady (no forced GC anywhere in the pass: each timed run follows the one before it), then after a forced GC and
 * one untimed run of min(size, 200) cases, where each timed run is followed by the heap after a full GC with its
 * report kept and dropped, and the resident set. Sizes take turns, after one warm-up run each. The defaults (about
 * 23,000 cases) finish within 10 minutes on 2 cores shared by a load of 14.
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
const sizes = (option("cases") ?? "1000,3000").split(",").map(Number)
const repetitions = Number(option("repetitions") ?? 5)
/** Fewer runs of the larger sizes, which take a minute or more here, in each protocol. */
const repetitionsAbove1000 = Number(option("repetitions-above-1000") ?? 2)
/**
 * The untimed run after a forced GC: the size itself up to this many cases (some 600 model requests, enough for V8
 * to optimise again what the collection dropped).
 */
const untimedAfterGc = 200
const concurrency = Number(option("concurrency") ?? 16)
const wallGoalSeconds = 3
const cpuGoalSeconds = 5
const memoryGoalBytes = 150e6

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const directories = { scenarios: here("../../apps/demo/scenarios"), evals: here("../../apps/demo/evals") }

interface Figures {
  readonly wall: Array<number>
  readonly cpu: Array<number>
  readonly peakHeap: Array<number>
  readonly passed: Array<number>
}

/** After a forced GC: the run's figures, and the heap after it. */
interface HeapFigures extends Figures {
  readonly heapWithReport: Array<number>
  readonly heapAfter: Array<number>
  readonly rss: Array<number>
}

const figuresOf = (): HeapFigures => ({ wall: [], cpu: [], peakHeap: [], heapWithReport: [], heapAfter: [], rss: [], passed: [] })

const program = Effect.gen(function* () {
  const implementations = yield* Registry.make(...Tools.all)
  const { scenarios, cases } = yield* Suite.load(directories, implementations)
  const generated = (count: number) => Array.from({ length: count }, (_, i) => ({ ...cases[i % cases.length]!, id: `${cases[i % cases.length]!.id}-${i}` }))
  // Each run has an outbox and a ticket counter of its own: the in-memory outbox keeps every mail sent (by design),
  // and shared by all runs it held each run's mails after it ended, which the heap figures then counted.
  const run = (count: number) =>
    Suite.run({ scenarios, cases: generated(count), source: ModelSource.offline, concurrency }).pipe(Effect.provide(Layer.merge(Ticketing.sequential, Mailer.inMemory)))

  /**
   * One measured run; the report is only held in `box`, so that dropping it frees it. `afterGc`: a forced GC and an
   * untimed run first, and the heap after a full GC measured after it; otherwise nothing but the run.
   */
  const measured = (count: number, into: HeapFigures, afterGc: boolean) =>
    Effect.gen(function* () {
      if (afterGc) {
        heapAfterGc()
        yield* run(Math.min(count, untimedAfterGc))
      }
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
      process.stderr.write(`  ${count} cases, ${afterGc ? "after GC" : "steady"}: ${fixed(wall / 1000)} s wall, ${fixed((used.user + used.system) / 1e6)} s CPU\n`)
      if (!afterGc) return
      into.heapWithReport.push(heapAfterGc())
      box.report = undefined
      // The fiber's run loop still holds the value it resumed this generator with (a local of its frame) until it
      // yields: only then is the report unreachable.
      yield* Effect.yieldNow()
      into.heapAfter.push(heapAfterGc())
      into.rss.push(process.memoryUsage().rss)
    })

  for (const count of sizes) yield* run(Math.min(count, 64))
  const steady = sizes.map(figuresOf)
  const afterGc = sizes.map(figuresOf)
  for (const [figures, gc] of [[steady, false], [afterGc, true]] as const) {
    for (let repetition = 0; repetition < repetitions; repetition++) {
      for (let k = 0; k < sizes.length; k++) {
        const index = (k + repetition) % sizes.length
        const count = sizes[index]!
        if (count > 1000 && repetition >= repetitionsAbove1000) continue
        yield* measured(count, figures[index]!, gc)
      }
    }
  }

  const seconds = (values: ReadonlyArray<number>) => `${spread(values, 2)}`
  const mb = (values: ReadonlyArray<number>) => `${megabytes(median(values))} (${fixed(Math.min(...values) / 1e6, 0)}–${fixed(Math.max(...values) / 1e6, 0)})`
  const notes = (gc: boolean) => [
    `Median (min–max) of ${repetitions} runs (${repetitionsAbove1000} above 1,000 cases), sizes taking turns after a warm-up run each; concurrency ${concurrency}. ${
      gc
        ? `Each timed run follows a forced GC and one untimed run of min(size, ${untimedAfterGc.toLocaleString("en")}) cases.`
        : "No forced GC in this pass: each timed run follows the one before it."
    }`,
    `CPU = user + system of the whole process (the emulator, the SDK and garbage collection included). Heap during = the largest heap sampled every 50 ms while the suite ran${
      gc ? "; after GC = after a full collection, with the run's report still held and then dropped" : ""
    }. MB = 10^6 bytes.`,
    machine()
  ]
  // Both tables open with the same timing columns; the one after a forced GC adds what the heap keeps.
  const timingColumns = [
    { header: "cases", align: "right" },
    { header: "wall s", align: "right" },
    { header: "CPU s", align: "right" },
    { header: "CPU ms / case", align: "right" },
    { header: "wall ÷ CPU", align: "right" },
    { header: "heap during", align: "right" }
  ] as const
  const timingCells = (f: Figures, count: number) => [
    count.toLocaleString("en"),
    seconds(f.wall),
    seconds(f.cpu),
    fixed((median(f.cpu) * 1000) / count, 2),
    fixed(median(f.wall) / median(f.cpu), 2),
    mb(f.peakHeap)
  ]
  const cpuGoal = (f: Figures, count: number) => (count === 1000 ? verdict(median(f.cpu) <= cpuGoalSeconds, `CPU ≤ ${cpuGoalSeconds} s`) : "")
  Table.print({
    title: `Eval suite offline (emulator + real Gemini layer), concurrency ${concurrency}, steady (no forced GC)`,
    columns: [
      ...timingColumns,
      { header: "passed", align: "right" },
      { header: "goal" }
    ],
    rows: sizes.map((count, i) => {
      const f = steady[i]!
      return [
        ...timingCells(f, count),
        `${Math.min(...f.passed)}/${count}`,
        cpuGoal(f, count)
      ]
    }),
    notes: notes(false)
  })
  Table.print({
    title: `Eval suite offline (emulator + real Gemini layer), concurrency ${concurrency}, after a forced GC and one untimed run`,
    columns: [
      ...timingColumns,
      { header: "heap after GC, report kept", align: "right" },
      { header: "heap after GC, dropped", align: "right" },
      { header: "RSS after", align: "right" },
      { header: "passed", align: "right" },
      { header: "goal" }
    ],
    rows: sizes.map((count, i) => {
      const f = afterGc[i]!
      return [
        ...timingCells(f, count),
        mb(f.heapWithReport),
        mb(f.heapAfter),
        mb(f.rss),
        `${Math.min(...f.passed)}/${count}`,
        cpuGoal(f, count)
      ]
    }),
    notes: notes(true)
  })
  const goals: Array<ReadonlyArray<string>> = []
  const at1000 = sizes.indexOf(1000)
  if (at1000 !== -1) {
    for (const [name, figures] of [["steady", steady], ["after GC", afterGc]] as const) {
      const cpu = median(figures[at1000]!.cpu)
      goals.push([`1,000 cases, CPU, ${name}`, `${fixed(cpu)} s`, verdict(cpu <= cpuGoalSeconds, `≤ ${cpuGoalSeconds} s`)])
      const wall = median(figures[at1000]!.wall)
      goals.push([`1,000 cases, wall, ${name}`, `${fixed(wall)} s`, verdict(wall <= wallGoalSeconds, `≤ ${wallGoalSeconds} s`)])
    }
  }
  sizes.forEach((count, i) => {
    const peak = Math.max(...steady[i]!.peakHeap, ...afterGc[i]!.peakHeap)
    goals.push([`${count.toLocaleString("en")} cases, largest heap during a run`, megabytes(peak), verdict(peak <= memoryGoalBytes, `≤ ${memoryGoalBytes / 1e6} MB`)])
  })
  if (sizes.length > 1) {
    const first = median(afterGc[0]!.heapAfter)
    const last = median(afterGc[sizes.length - 1]!.heapAfter)
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
