/**
 * The result of an eval run, as data (a Schema, so the JSON report round-trips), and its three renderings:
 * `pretty` for a terminal, `json`, and `junit` XML for CI. The pass rate against the threshold decides the exit.
 *
 * @example
 * const report = yield* EvalRunner.run(cases, options)
 * console.log(EvalReport.pretty(report))
 * yield* fs.writeFileString("eval.xml", EvalReport.junit(report))
 * process.exitCode = EvalReport.exitCode(report)
 *
 * @since 0.1.0
 */
import type * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { Mismatch, ObservedCall } from "./EvalValidator.js"
import * as EvalValidator from "./EvalValidator.js"
import { show } from "./internal/jsonValue.js"

/** `passed`: every expectation met; `failed`: mismatches; `error`: the case could not run to its end. */
export const Status = Schema.Literal("passed", "failed", "error")
export type Status = typeof Status.Type

/** The outcome of one case: what the agent did, what did not match, and how long it took. */
export const CaseResult = Schema.Struct({
  id: Schema.String,
  description: Schema.String,
  file: Schema.optional(Schema.String),
  expectedScenario: Schema.String,
  /** The scenario the input was handled as (absent when none could be chosen). */
  scenario: Schema.optional(Schema.String),
  status: Status,
  calls: Schema.Array(ObservedCall),
  mismatches: Schema.Array(Mismatch),
  /** Why the case could not run to its end (status `error`). */
  error: Schema.optional(Schema.String),
  /** The agent's final text. */
  text: Schema.String,
  /** The run's decoded final answer, when it was given `output`. */
  output: Schema.optional(Schema.Unknown),
  turns: Schema.Number,
  stopReason: Schema.String,
  durationMs: Schema.Number
})
export interface CaseResult extends Schema.Schema.Type<typeof CaseResult> {}

/** Counts, pass rate and the pass/fail decision of a run. */
export const Summary = Schema.Struct({
  total: Schema.Number,
  passed: Schema.Number,
  failed: Schema.Number,
  errored: Schema.Number,
  /** passed / total; 0 for an empty suite. */
  passRate: Schema.Number,
  threshold: Schema.Number,
  /** passRate ≥ threshold (an empty suite never passes: it most likely found no case files). */
  ok: Schema.Boolean
})
export interface Summary extends Schema.Schema.Type<typeof Summary> {}

/** A whole run: every case result, in case order, and the summary. */
export const Report = Schema.Struct({
  suite: Schema.String,
  cases: Schema.Array(CaseResult),
  summary: Summary,
  durationMs: Schema.Number
})
export interface Report extends Schema.Schema.Type<typeof Report> {}

/** The default pass-rate threshold. */
export const defaultThreshold = 0.99

/** Checks a threshold is a fraction in [0, 1] (a defect otherwise: it is configuration, not data). */
export const checkThreshold = (threshold: number): number => {
  if (!(threshold >= 0 && threshold <= 1)) throw new RangeError(`the threshold is a fraction between 0 and 1, got ${threshold}`)
  return threshold
}

/** Counts and the pass/fail decision for a list of case results. */
export const summarize = (cases: ReadonlyArray<CaseResult>, threshold = defaultThreshold): Summary => {
  checkThreshold(threshold)
  const passed = cases.filter((c) => c.status === "passed").length
  const errored = cases.filter((c) => c.status === "error").length
  const total = cases.length
  const passRate = total === 0 ? 0 : passed / total
  return { total, passed, failed: total - passed - errored, errored, passRate, threshold, ok: total > 0 && passRate >= threshold }
}

/** A report from case results. */
export const make = (options: {
  readonly suite: string
  readonly cases: ReadonlyArray<CaseResult>
  readonly threshold?: number
  readonly durationMs: number
}): Report => ({
  suite: options.suite,
  cases: options.cases,
  summary: summarize(options.cases, options.threshold),
  durationMs: options.durationMs
})

/** 0 when the pass rate meets the threshold, 1 otherwise. */
export const exitCode = (report: Report): 0 | 1 => (report.summary.ok ? 0 : 1)

const percent = (fraction: number): string => `${Number((fraction * 100).toFixed(2))} %`

const ms = (value: number): string => (value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`)

/** Options of `pretty`. */
export interface PrettyOptions {
  /** ANSI colours (default false). */
  readonly color?: boolean
  /** JSON values longer than this are cut (default 300 characters). */
  readonly maxValueLength?: number
}

/** A terminal report: per case ✓/✗ with its numbered calls (arguments → response), then its failures; a summary. */
export const pretty = (report: Report, options: PrettyOptions = {}): string => {
  const max = options.maxValueLength ?? 300
  const paint = (code: number) => (text: string) => (options.color === true ? `\u001b[${code}m${text}\u001b[0m` : text)
  const green = paint(32)
  const red = paint(31)
  const dim = paint(2)
  const lines: Array<string> = [`${report.suite}: ${report.summary.total} case${report.summary.total === 1 ? "" : "s"}`, ""]
  for (const result of report.cases) {
    const mark = result.status === "passed" ? green("✓") : red("✗")
    const scenario = result.scenario ?? "no scenario"
    const title = result.description === "" ? result.id : `${result.id} — ${result.description}`
    lines.push(`${mark} ${title}  ${dim(`[${scenario}] ${ms(result.durationMs)}`)}`)
    if (result.calls.length === 0) lines.push(dim("    (no calls)"))
    result.calls.forEach((call, i) => {
      const outcome = call.isError ? red(`✗ ${show(call.response, max)}`) : `→ ${show(call.response, max)}`
      lines.push(`    ${i + 1}. ${call.name}(${show(call.args, max)}) ${outcome}`)
    })
    if (result.output !== undefined) lines.push(`    output: ${show(result.output, max)}`)
    if (result.error !== undefined) lines.push(red(`    error: ${result.error}`))
    if (result.mismatches.length > 0) {
      lines.push("    failures:")
      for (const mismatch of result.mismatches) lines.push(red(`      - ${EvalValidator.describe(mismatch, max)}`))
    }
  }
  const { summary } = report
  const verdict = summary.ok ? green("PASS") : red("FAIL")
  lines.push(
    "",
    `${summary.passed}/${summary.total} passed (${percent(summary.passRate)}), ${summary.failed} failed, ${summary.errored} errored — threshold ${percent(summary.threshold)}: ${verdict}  ${dim(ms(report.durationMs))}`
  )
  return lines.join("\n")
}

/** The report as JSON (2-space indented); `fromJson` reads it back. */
export const json = (report: Report): string => JSON.stringify(Schema.encodeSync(Report)(report), null, 2)

/** Reads a JSON report, checked against the Schema. */
export const fromJson = (text: string): Either.Either<Report, ParseResult.ParseError> => Schema.decodeUnknownEither(Schema.parseJson(Report))(text)

// XML 1.0 forbids most control characters even as references; they are dropped.
// eslint-disable-next-line no-control-regex
const invalidXml = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/** Text safe inside an XML attribute or element. */
export const escapeXml = (text: string): string =>
  text
    .replace(invalidXml, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(/\r/g, "&#13;")
    .replace(/\n/g, "&#10;")

const escapeText = (text: string): string => text.replace(invalidXml, "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

const seconds = (durationMs: number): string => (durationMs / 1000).toFixed(3)

/** JUnit XML: one `<testsuite>`, one `<testcase>` per case (classname = scenario), failures and errors with details. */
export const junit = (report: Report): string => {
  const { summary } = report
  const out: Array<string> = ['<?xml version="1.0" encoding="UTF-8"?>']
  const counts = `tests="${summary.total}" failures="${summary.failed}" errors="${summary.errored}" time="${seconds(report.durationMs)}"`
  out.push(`<testsuites name="${escapeXml(report.suite)}" ${counts}>`)
  out.push(`  <testsuite name="${escapeXml(report.suite)}" ${counts} skipped="0">`)
  out.push(`    <properties><property name="passRate" value="${summary.passRate}"/><property name="threshold" value="${summary.threshold}"/></properties>`)
  for (const result of report.cases) {
    const name = escapeXml(result.description === "" ? result.id : `${result.id}: ${result.description}`)
    const classname = escapeXml(result.expectedScenario)
    out.push(`    <testcase name="${name}" classname="${classname}" time="${seconds(result.durationMs)}"${result.file === undefined ? "" : ` file="${escapeXml(result.file)}"`}>`)
    if (result.status === "error") {
      out.push(`      <error message="${escapeXml(result.error ?? "the case did not complete")}" type="error">${escapeText(result.error ?? "")}</error>`)
    }
    if (result.mismatches.length > 0) {
      const details = result.mismatches.map((m) => EvalValidator.describe(m, Infinity))
      const first = details[0]!
      out.push(`      <failure message="${escapeXml(details.length === 1 ? first : `${first} (+${details.length - 1} more)`)}" type="mismatch">${escapeText(details.join("\n"))}</failure>`)
    }
    const calls = result.calls.map((call, i) => `${i + 1}. ${call.name}(${show(call.args)}) ${call.isError ? "✗" : "→"} ${show(call.response)}`)
    if (calls.length > 0) out.push(`      <system-out>${escapeText(calls.join("\n"))}</system-out>`)
    out.push("    </testcase>")
  }
  out.push("  </testsuite>", "</testsuites>", "")
  return out.join("\n")
}
