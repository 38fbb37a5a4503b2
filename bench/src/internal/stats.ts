/**
 * Small measurement helpers shared by the benchmark scripts.
 */
import { cpus, loadavg, totalmem } from "node:os"

export const median = (values: ReadonlyArray<number>): number => {
  if (values.length === 0) throw new RangeError("the median of no values")
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

export const fixed = (value: number, digits = 2): string => value.toFixed(digits)

/** A figure as "median (min–max)", so that every figure says how noisy it was. */
export const spread = (values: ReadonlyArray<number>, digits = 1): string =>
  `${fixed(median(values), digits)} (${fixed(Math.min(...values), digits)}–${fixed(Math.max(...values), digits)})`

/** Bytes as MB with one decimal (MB = 10^6 bytes). */
export const megabytes = (bytes: number): string => `${fixed(bytes / 1e6, 1)} MB`

/** "✓" or "✗" with the goal it was held to, e.g. "≤ 10 ✓". */
export const verdict = (met: boolean, goal: string): string => `${goal} ${met ? "✓" : "✗"}`

/** Where the figures came from, for the notes under a table. */
export const machine = (): string => {
  const cores = cpus()
  const load = loadavg()
  return `node ${process.version}, ${process.platform}/${process.arch}, ${cores.length} × ${cores[0]?.model.trim() ?? "unknown CPU"}, ${fixed(totalmem() / 2 ** 30, 0)} GiB, load average ${load.map((l) => fixed(l, 2)).join(" / ")} (1 / 5 / 15 min)`
}
