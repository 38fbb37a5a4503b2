/**
 * How a comparison is measured: runners side by side in one process, interleaved, repeated; CPU time (user +
 * system, all threads of the process, so garbage collection is counted) rather than wall time, which other
 * processes on the machine disturb far more. Every comparison is measured under two protocols, and both are
 * reported, because the choice moves the figures:
 *
 * - **steady** (no forced GC): each timed block follows a warm-up and nothing else; collections happen when V8
 *   decides, as in a process that has been running the same work. No forced GC runs anywhere in this pass.
 * - **after GC**: a forced full GC, then one untimed block of the timed block's size, then the timed block. A full
 *   GC lets V8 drop optimised code that embedded objects of the runs before (they died), so the first thousands of
 *   steps after one cost 2–8× more, and not alike for every toolkit; the untimed block pays that before the clock
 *   starts. The heap each runner's last result keeps alive is measured in this pass, after its timed block.
 */
import { performance } from "node:perf_hooks"

/**
 * One timed piece of work, with what its caller could keep afterwards, for the heap figures: its `result`, and the
 * test double it ran against (`model`), which may record what it was sent.
 */
export interface Sample {
  readonly cpuMicros: number
  readonly wallMicros: number
  readonly result: unknown
  readonly model: unknown
}

/** Times `work` on the CPU and the clock. */
export const timed = async (work: () => Promise<unknown>, model: unknown): Promise<Sample> => {
  const cpu = process.cpuUsage()
  const wall = performance.now()
  const result = await work()
  const used = process.cpuUsage(cpu)
  return { cpuMicros: used.user + used.system, wallMicros: (performance.now() - wall) * 1000, result, model }
}

/** Checked when first used, not on import: a benchmark's child emulator imports this module without the flag. */
const collect = (): void => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) throw new Error("run the benchmarks with node --expose-gc (pnpm bench:* does)")
  gc()
  gc()
}

/** Bytes on the heap after a full collection. */
export const heapAfterGc = (): number => {
  collect()
  return process.memoryUsage().heapUsed
}

interface Kept {
  result: unknown
  model: unknown
}

/**
 * Heap bytes kept alive by a run's result, and by its result and model together: the heap after full collections
 * with both, with the result only, and with neither. The box must hold the only references.
 */
const heapHeldBy = (kept: Kept): { readonly result: number; readonly withModel: number } => {
  const both = heapAfterGc()
  kept.model = undefined
  const result = heapAfterGc()
  kept.result = undefined
  const none = heapAfterGc()
  return { result: Math.max(0, result - none), withModel: Math.max(0, both - none) }
}

/** One contender: `run(size)` does one unit of work of that size and returns its sample. */
export interface Runner<Size> {
  readonly name: string
  readonly run: (size: Size) => Promise<Sample>
  /** A smaller size to warm up with, for contenders whose big runs are very slow (default: the size itself). */
  readonly warmUpSize?: (size: Size) => Size
  /** Untimed units before each steady block, at the warm-up size (default: the plan's). */
  readonly warmUp?: (size: Size) => number
  /** Fewer repetitions at sizes where one unit takes minutes (default: the plan's). */
  readonly repetitions?: (size: Size) => number
}

export interface Plan<Size> {
  readonly size: Size
  /** Units of work per timed block, so that short units add up to something a clock can measure. */
  readonly perBlock: number
  /** Untimed units run before each steady block (the other protocol runs one untimed block instead). */
  readonly warmUp: number
  readonly repetitions: number
}

/** `steady`: no forced GC; `afterGc`: a forced GC, then one untimed block (see above). */
export type Protocol = "steady" | "afterGc"

/** The two protocols, as the tables name them. */
export const protocols: ReadonlyArray<readonly [Protocol, string]> = [
  ["steady", "steady (no forced GC)"],
  ["afterGc", "after a forced GC and one untimed block"]
]

export interface Figures {
  /** Per repetition: CPU and wall microseconds per unit of `per` (e.g. per model step), steady protocol. */
  readonly cpu: ReadonlyArray<number>
  readonly wall: ReadonlyArray<number>
  /** The same, after a forced GC and one untimed block. */
  readonly cpuAfterGc: ReadonlyArray<number>
  readonly wallAfterGc: ReadonlyArray<number>
  /** Per repetition: heap bytes the last unit's result keeps alive, after a full GC. */
  readonly retained: ReadonlyArray<number>
  /** The same, with the model it ran against kept too. */
  readonly retainedWithModel: ReadonlyArray<number>
}

/** A runner's CPU figures under `protocol`. */
export const cpuOf = (figures: Figures, protocol: Protocol): ReadonlyArray<number> => (protocol === "steady" ? figures.cpu : figures.cpuAfterGc)

/** A runner's wall figures under `protocol`. */
export const wallOf = (figures: Figures, protocol: Protocol): ReadonlyArray<number> => (protocol === "steady" ? figures.wall : figures.wallAfterGc)

/**
 * One timed block, in a function of its own: a finished async frame holds nothing, whereas the caller's could still
 * hold the last sample in a register and keep it alive through the heap measure, which then reads 0.
 */
const timedBlock = async <Size>(runner: Runner<Size>, plan: Plan<Size>): Promise<{ readonly cpu: number; readonly wall: number; readonly kept: Kept }> => {
  let cpu = 0
  let wall = 0
  const kept: Kept = { result: undefined, model: undefined }
  for (let i = 0; i < plan.perBlock; i++) {
    const sample = await runner.run(plan.size)
    cpu += sample.cpuMicros
    wall += sample.wallMicros
    kept.result = sample.result
    kept.model = sample.model
  }
  return { cpu, wall, kept }
}

/**
 * Runs every runner `repetitions` times under each protocol, interleaved (the order rotates each repetition, so no
 * runner always follows the same one): first every repetition steady, with no forced GC in the whole pass, then
 * every repetition after a forced GC and an untimed block, each followed by a measure of the heap its last result
 * keeps alive. `per` converts one unit into the count figures are divided by (model steps, calls).
 */
export const compare = async <Size>(
  runners: ReadonlyArray<Runner<Size>>,
  plan: Plan<Size>,
  per: (size: Size) => number,
  progress: (line: string) => void = () => {}
): Promise<ReadonlyArray<Figures>> => {
  const figures = runners.map(() => ({
    cpu: [] as Array<number>,
    wall: [] as Array<number>,
    cpuAfterGc: [] as Array<number>,
    wallAfterGc: [] as Array<number>,
    retained: [] as Array<number>,
    retainedWithModel: [] as Array<number>
  }))
  const units = plan.perBlock * per(plan.size)
  for (const [protocol, name] of protocols) {
    for (let repetition = 0; repetition < plan.repetitions; repetition++) {
      for (let k = 0; k < runners.length; k++) {
        const index = (k + repetition) % runners.length
        const runner = runners[index]!
        if (repetition >= (runner.repetitions?.(plan.size) ?? plan.repetitions)) continue
        const into = figures[index]!
        if (protocol === "afterGc") {
          collect()
          // No collection between this block and the timed one: it would undo it (see above).
          await timedBlock(runner, plan)
        } else {
          const warmUpSize = runner.warmUpSize?.(plan.size) ?? plan.size
          const warmUp = runner.warmUp?.(plan.size) ?? plan.warmUp
          for (let i = 0; i < warmUp; i++) await runner.run(warmUpSize)
        }
        const { cpu, wall, kept } = await timedBlock(runner, plan)
        if (protocol === "steady") {
          into.cpu.push(cpu / units)
          into.wall.push(wall / units)
        } else {
          into.cpuAfterGc.push(cpu / units)
          into.wallAfterGc.push(wall / units)
          const held = heapHeldBy(kept)
          into.retained.push(held.result)
          into.retainedWithModel.push(held.withModel)
        }
        progress(`  ${runner.name}, ${name}: repetition ${repetition + 1}/${plan.repetitions}, ${(cpu / units).toFixed(1)} µs CPU per unit`)
      }
    }
  }
  return figures
}
