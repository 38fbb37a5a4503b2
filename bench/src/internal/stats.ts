/**
 * Small measurement helpers shared by the benchmark scripts.
 */
import { cpus, loadavg } from "node:os"

export const median = (values: ReadonlyArray<number>): number => {
  if (values.length === 0) throw new RangeError("the median of no values")
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

export const fixed = (value: number, digits = 2): string => value.toFixed(digits)

/** "✓" or "✗" with the goal it was held to, e.g. "≤ 10 ✓". */
export const verdict = (met: boolean, goal: string): string => `${goal} ${met ? "✓" : "✗"}`

/** Where the figures came from, for the notes under a table. */
export const machine = (): string => {
  const cores = cpus()
  const load = loadavg()[0] ?? 0
  return `node ${process.version}, ${process.platform}/${process.arch}, ${cores.length} × ${cores[0]?.model.trim() ?? "unknown CPU"}, 1-min load average ${load.toFixed(2)}`
}
