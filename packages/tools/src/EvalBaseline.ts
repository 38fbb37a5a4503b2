/**
 * A run compared with an earlier one (its JSON report): the cases that newly fail, those that newly pass, those whose
 * calls changed (names or arguments, in order), the cases only one of the runs has, and the pass rate of the cases
 * both have, before and after. A case newly failing is a regression: `agentfx eval --fail-on-regression` stops on it.
 *
 * @example
 * ```ts
 * import { EvalBaseline, EvalReport } from "@agentfx/tools"
 *
 * const result = (id: string, status: EvalReport.Status): EvalReport.CaseResult => ({
 *   id, description: "", expectedScenario: "s", scenario: "s", status, calls: [], mismatches: [], text: "", turns: 1, stopReason: "finished", durationMs: 1
 * })
 * const before = EvalReport.make({ suite: "s", cases: [result("a", "passed"), result("b", "failed")], durationMs: 1 })
 * const after = EvalReport.make({ suite: "s", cases: [result("a", "failed"), result("b", "passed")], durationMs: 1 })
 * const comparison = EvalBaseline.compare(before, after)
 * console.log(comparison.newlyFailing.map((c) => c.id)) // ["a"]
 * console.log(EvalBaseline.pretty(comparison, "before.json"))
 * ```
 *
 * @since 0.2.0
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { Telemetry } from "@agentfx/core"
import * as EvalReport from "./EvalReport.js"
import * as BoundedText from "./internal/boundedText.js"

/**
 * A case whose status changed: what it was, what it is.
 *
 * @since 0.2.0
 */
export const Change = Schema.Struct({ id: Schema.String, was: EvalReport.Status, now: EvalReport.Status })

/**
 * A case whose calls changed: each call as `name(arguments)`, before and after.
 *
 * @since 0.2.0
 */
export const CallChange = Schema.Struct({ id: Schema.String, was: Schema.Array(Schema.String), now: Schema.Array(Schema.String) })

/**
 * The comparison of a run with its baseline. `passRate` is over the cases both runs have.
 *
 * @since 0.2.0
 */
export const Comparison = Schema.Struct({
  newlyFailing: Schema.Array(Change),
  newlyPassing: Schema.Array(Change),
  changedCalls: Schema.Array(CallChange),
  /** Cases of this run the baseline does not have. */
  added: Schema.Array(Schema.String),
  /** Cases of the baseline this run did not run (removed, not selected, or not reached). */
  missing: Schema.Array(Schema.String),
  shared: Schema.Number,
  passRate: Schema.Struct({ was: Schema.Number, now: Schema.Number, delta: Schema.Number })
})
/**
 * The comparison of a run with its baseline (the type of the `Comparison` schema).
 *
 * @since 0.2.0
 * @category models
 */
export interface Comparison extends Schema.Schema.Type<typeof Comparison> {}

/** A call as `name({"arg":1})`, its arguments with their keys sorted so that their order does not count. */
const signature = (call: EvalReport.CaseResult["calls"][number]): string => `${call.name}(${JSON.stringify(sorted(call.args))})`

const sorted = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sorted)
    : typeof value === "object" && value !== null
      ? Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted((value as Record<string, unknown>)[key])]))
      : value

/**
 * Compares `current` with `baseline`, case by case (by id).
 *
 * @since 0.2.0
 */
export const compare = (baseline: EvalReport.Report, current: EvalReport.Report): Comparison => {
  const before = new Map(baseline.cases.map((result) => [result.id, result]))
  const ids = new Set(current.cases.map((result) => result.id))
  const newlyFailing: Array<typeof Change.Type> = []
  const newlyPassing: Array<typeof Change.Type> = []
  const changedCalls: Array<typeof CallChange.Type> = []
  const added: Array<string> = []
  let shared = 0
  let passedBefore = 0
  let passedNow = 0
  for (const result of current.cases) {
    const was = before.get(result.id)
    if (was === undefined) {
      added.push(result.id)
      continue
    }
    shared++
    if (was.status === "passed") passedBefore++
    if (result.status === "passed") passedNow++
    if (was.status === "passed" && result.status !== "passed") newlyFailing.push({ id: result.id, was: was.status, now: result.status })
    if (was.status !== "passed" && result.status === "passed") newlyPassing.push({ id: result.id, was: was.status, now: result.status })
    const [wasCalls, nowCalls] = [was.calls.map(signature), result.calls.map(signature)]
    if (wasCalls.length !== nowCalls.length || wasCalls.some((call, i) => call !== nowCalls[i])) changedCalls.push({ id: result.id, was: wasCalls, now: nowCalls })
  }
  const rate = (passed: number) => (shared === 0 ? 0 : passed / shared)
  return {
    newlyFailing,
    newlyPassing,
    changedCalls,
    added,
    missing: baseline.cases.filter((result) => !ids.has(result.id)).map((result) => result.id),
    shared,
    passRate: { was: rate(passedBefore), now: rate(passedNow), delta: rate(passedNow) - rate(passedBefore) }
  }
}

const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

const percent = (fraction: number): string => `${Number((fraction * 100).toFixed(2))} %`
const points = (delta: number): string => `${delta > 0 ? "+" : delta < 0 ? "−" : "±"}${Number(Math.abs(delta * 100).toFixed(2))} points`

/**
 * The comparison as a table for a terminal: a headline with the pass rates, then a row per case that newly fails,
 * newly passes, or calls differently; `source` names the baseline.
 *
 * @since 0.2.0
 */
export const pretty = (comparison: Comparison, source: string, options: { readonly color?: boolean; readonly maxValueLength?: number } = {}): string => {
  const paint = (code: number) => (text: string) => (options.color === true ? `\u001b[${code}m${text}\u001b[0m` : text)
  const [red, green, dim] = [paint(31), paint(32), paint(2)]
  const max = options.maxValueLength ?? 160
  const { passRate } = comparison
  const lines = [
    `compared with ${source}: ${comparison.shared} case${comparison.shared === 1 ? "" : "s"} in both runs, pass rate ${percent(passRate.was)} → ${percent(passRate.now)} (${points(passRate.delta)})`
  ]
  const rows: Array<readonly [string, string, string]> = [
    ...comparison.newlyFailing.map((c) => [red("newly failing"), c.id, `${c.was} → ${c.now}`] as const),
    ...comparison.newlyPassing.map((c) => [green("newly passing"), c.id, `${c.was} → ${c.now}`] as const),
    ...comparison.changedCalls.map((c) => ["calls changed", c.id, `${cut(c.was.join(", ") || "none", max)} → ${cut(c.now.join(", ") || "none", max)}`] as const)
  ]
  const width = Math.max(0, ...rows.map(([, id]) => id.length))
  const label = Math.max(0, ...rows.map(([kind]) => kind.length))
  for (const [kind, id, what] of rows) lines.push(`  ${kind.padEnd(label)}  ${id.padEnd(width)}  ${what}`)
  if (rows.length === 0) lines.push(dim("  no case changed status or calls"))
  if (comparison.added.length > 0) lines.push(dim(`  not in the baseline: ${comparison.added.join(", ")}`))
  if (comparison.missing.length > 0) lines.push(dim(`  not in this run: ${comparison.missing.join(", ")}`))
  return lines.join("\n")
}

/**
 * The baseline file cannot be read or is not a JSON report of `agentfx eval`.
 *
 * @since 0.2.0
 * @category errors
 */
export class BaselineError extends Schema.TaggedError<BaselineError>()("BaselineError", { file: Schema.String, reason: Schema.String }) {
  override get message(): string {
    return `${this.file}: ${this.reason}`
  }
}

/**
 * The largest baseline read (64 MiB): a report holds every call of every case.
 *
 * @since 0.2.0
 */
export const defaultMaxBytes = 64 * 1024 * 1024

/**
 * Reads a JSON report to compare with (anything but a regular file is refused before it is opened).
 *
 * @since 0.2.0
 */
export const load = (file: string, maxBytes = defaultMaxBytes): Effect.Effect<EvalReport.Report, BaselineError, FileSystem.FileSystem> =>
  Telemetry.span("EvalBaseline.load", { file }, () =>
    Effect.gen(function* () {
      const text = yield* Effect.mapError(BoundedText.read(file, maxBytes), (reason) => new BaselineError({ file, reason }))
      return yield* Either.mapLeft(
        EvalReport.fromJson(text),
        (error) => new BaselineError({ file, reason: `is not a JSON report of agentfx eval (--report-json): ${error.message.split("\n").slice(0, 6).join(" ")}` })
      )
    })
  )
