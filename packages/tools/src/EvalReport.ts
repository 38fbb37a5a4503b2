/**
 * The result of an eval run, as data (a Schema, so the JSON report round-trips), and its three renderings:
 * `pretty` for a terminal, `json`, and `junit` XML for CI. The pass rate against the threshold decides the exit.
 *
 * @example
 * ```ts
 * import { Registry, Tool } from "@agentfx/core"
 * import { Scripted } from "@agentfx/core/testing"
 * import { EvalCase, EvalReport, EvalRunner, Scenario } from "@agentfx/tools"
 * import { Effect, Schema } from "effect"
 *
 * const scenarioFile = `---
 * name: valid-warranty
 * description: The product is under warranty
 * available_functions:
 *   - name: check_warranty
 *     description: Looks up the warranty of a serial number
 *     parameters: { type: object, properties: { serial_number: { type: string } }, required: [serial_number] }
 * ---
 * You answer warranty e-mails. Check the warranty first.`
 *
 * const checkWarranty = Tool.make("check_warranty", {
 *   description: "Looks up the warranty of a serial number",
 *   parameters: Schema.Struct({ serial_number: Schema.String }),
 *   handler: ({ serial_number }) => Effect.succeed({ serial_number, valid: true })
 * })
 *
 * const program = Effect.gen(function* () {
 *   const scenario = yield* Scenario.resolve(yield* Scenario.parse(scenarioFile, "valid-warranty.md"), Registry.unsafeMake(checkWarranty))
 *   const cases = [
 *     yield* EvalCase.make({
 *       id: "kettle",
 *       input: "My kettle SN-1 broke.",
 *       scenario: "valid-warranty",
 *       expected_function_calls: [{ function_name: "check_warranty", arguments: { serial_number: "SN-1" } }]
 *     })
 *   ]
 *   const report = yield* EvalRunner.run(cases, {
 *     scenarios: [scenario],
 *     model: Scripted.layer([{ calls: [{ name: "check_warranty", args: { serial_number: "SN-1" } }] }, { text: "Covered." }]),
 *     concurrency: 8
 *   })
 *   console.log(EvalReport.pretty(report))
 *   process.exitCode = EvalReport.exitCode(report)
 * })
 *
 * Effect.runPromise(program)
 * ```
 *
 * @since 0.1.0
 */
import type * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as EvalJudge from "./EvalJudge.js"
import { Mismatch, ObservedCall } from "./EvalValidator.js"
import * as EvalValidator from "./EvalValidator.js"
import { show } from "./internal/jsonValue.js"

/**
 * `passed`: every expectation met; `failed`: mismatches; `error`: the case could not run to its end.
 *
 * @since 0.1.0
 */
export const Status = Schema.Literal("passed", "failed", "error")
/**
 * A case's status (the type of the `Status` schema).
 *
 * @since 0.1.0
 * @category models
 */
export type Status = typeof Status.Type

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * An expected call as the case gave it (`body_contains` as a list), so that a report shows what was expected beside
 * what was done.
 *
 * @since 0.2.0
 */
export const ExpectedCall = Schema.Struct({
  function_name: Schema.String,
  arguments: Schema.optional(JsonObject),
  arguments_contain: Schema.optional(JsonObject),
  result_contains: Schema.optional(JsonObject),
  body_contains: Schema.optional(Schema.Array(Schema.String))
})

/**
 * The outcome of one case: what the agent did, what did not match, and how long it took.
 *
 * @since 0.1.0
 */
export const CaseResult = Schema.Struct({
  id: Schema.String,
  description: Schema.String,
  file: Schema.optional(Schema.String),
  expectedScenario: Schema.String,
  /** The calls the case expects, in order (absent in reports written before they were recorded). */
  expectedCalls: Schema.optional(Schema.Array(ExpectedCall)),
  /** The scenario the input was handled as (absent when none could be chosen). */
  scenario: Schema.optional(Schema.String),
  status: Status,
  calls: Schema.Array(ObservedCall),
  mismatches: Schema.Array(Mismatch),
  /** Why the case could not run to its end (status `error`). */
  error: Schema.optional(Schema.String),
  /** The agent's final text. */
  text: Schema.String,
  /** The judge's verdict on each of the case's rubrics (absent when it has none). */
  verdicts: Schema.optional(Schema.Array(EvalJudge.Graded)),
  /** The run's decoded final answer, when it was given `output`. */
  output: Schema.optional(Schema.Unknown),
  turns: Schema.Number,
  stopReason: Schema.String,
  durationMs: Schema.Number
})
/**
 * The outcome of one case (the type of the `CaseResult` schema).
 *
 * @since 0.1.0
 * @category models
 */
export interface CaseResult extends Schema.Schema.Type<typeof CaseResult> {}

/**
 * Counts, pass rate and the pass/fail decision of a run.
 *
 * @since 0.1.0
 */
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
/**
 * Counts, pass rate and the decision of a run (the type of the `Summary` schema).
 *
 * @since 0.1.0
 * @category models
 */
export interface Summary extends Schema.Schema.Type<typeof Summary> {}

/**
 * A run stopped early (`bail`): after how many cases that did not pass, and the ids of the cases it did not run.
 *
 * @since 0.2.0
 */
export const Stopped = Schema.Struct({
  bail: Schema.Number,
  notRun: Schema.Array(Schema.String)
})

/**
 * A whole run: every case result, in case order, and the summary.
 *
 * @since 0.1.0
 */
export const Report = Schema.Struct({
  suite: Schema.String,
  cases: Schema.Array(CaseResult),
  summary: Summary,
  durationMs: Schema.Number,
  /** Present when the run stopped early: it then does not pass, whatever its pass rate. */
  stopped: Schema.optional(Stopped)
})
/**
 * A whole run (the type of the `Report` schema).
 *
 * @since 0.1.0
 * @category models
 */
export interface Report extends Schema.Schema.Type<typeof Report> {}

/**
 * The default pass-rate threshold.
 *
 * @since 0.1.0
 */
export const defaultThreshold = 0.99

/**
 * Checks a threshold is a fraction in [0, 1] (a defect otherwise: it is configuration, not data).
 *
 * @since 0.1.0
 */
export const checkThreshold = (threshold: number): number => {
  if (!(threshold >= 0 && threshold <= 1)) throw new RangeError(`the threshold is a fraction between 0 and 1, got ${threshold}`)
  return threshold
}

/**
 * Counts and the pass/fail decision for a list of case results.
 *
 * @since 0.1.0
 */
export const summarize = (cases: ReadonlyArray<CaseResult>, threshold = defaultThreshold): Summary => {
  checkThreshold(threshold)
  const passed = cases.filter((c) => c.status === "passed").length
  const errored = cases.filter((c) => c.status === "error").length
  const total = cases.length
  const passRate = total === 0 ? 0 : passed / total
  return { total, passed, failed: total - passed - errored, errored, passRate, threshold, ok: total > 0 && passRate >= threshold }
}

/**
 * A report from case results.
 *
 * @since 0.1.0
 */
export const make = (options: {
  readonly suite: string
  readonly cases: ReadonlyArray<CaseResult>
  readonly threshold?: number
  readonly durationMs: number
  /** The run stopped early: the cases it did not run (none: it ran them all, and is judged as usual). */
  readonly stopped?: typeof Stopped.Type | undefined
}): Report => {
  const summary = summarize(options.cases, options.threshold)
  const stopped = options.stopped !== undefined && options.stopped.notRun.length > 0 ? options.stopped : undefined
  return {
    suite: options.suite,
    cases: options.cases,
    summary: stopped === undefined ? summary : { ...summary, ok: false },
    durationMs: options.durationMs,
    ...(stopped === undefined ? {} : { stopped })
  }
}

/**
 * 0 when the pass rate meets the threshold, 1 otherwise.
 *
 * @since 0.1.0
 */
export const exitCode = (report: Report): 0 | 1 => (report.summary.ok ? 0 : 1)

const percent = (fraction: number): string => `${Number((fraction * 100).toFixed(2))} %`

const ms = (value: number): string => (value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`)

/**
 * Options of `pretty`.
 *
 * @since 0.1.0
 * @category models
 */
export interface PrettyOptions {
  /** ANSI colours (default false). */
  readonly color?: boolean
  /** JSON values longer than this are cut (default 300 characters). */
  readonly maxValueLength?: number
  /**
   * How a case that passed is shown: `calls` with its numbered calls (the default), `line` on its one line, or
   * `hidden` (only the summary counts it). Cases that did not pass always show their calls and failures.
   */
  readonly passed?: "calls" | "line" | "hidden"
}

/**
 * A terminal report: per case ✓/✗ with its numbered calls (arguments → response), then its failures; a summary.
 *
 * @since 0.1.0
 */
export const pretty = (report: Report, options: PrettyOptions = {}): string => {
  const max = options.maxValueLength ?? 300
  const paint = (code: number) => (text: string) => (options.color === true ? `\u001b[${code}m${text}\u001b[0m` : text)
  const green = paint(32)
  const red = paint(31)
  const dim = paint(2)
  const lines: Array<string> = [`${report.suite}: ${report.summary.total} case${report.summary.total === 1 ? "" : "s"}`, ""]
  const passed = options.passed ?? "calls"
  for (const result of report.cases) {
    if (result.status === "passed" && passed === "hidden") continue
    const mark = result.status === "passed" ? green("✓") : red("✗")
    const scenario = result.scenario ?? "no scenario"
    const title = result.description === "" ? result.id : `${result.id} — ${result.description}`
    lines.push(`${mark} ${title}  ${dim(`[${scenario}] ${ms(result.durationMs)}`)}`)
    if (result.status === "passed" && passed === "line") continue
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
  if (report.stopped !== undefined) {
    const { bail, notRun } = report.stopped
    lines.push("", red(`stopped after ${bail} case${bail === 1 ? "" : "s"} that did not pass: ${notRun.length} not run (${notRun.join(", ")})`))
  }
  lines.push(
    "",
    `${summary.passed}/${summary.total} passed (${percent(summary.passRate)}), ${summary.failed} failed, ${summary.errored} errored — threshold ${percent(summary.threshold)}: ${verdict}  ${dim(ms(report.durationMs))}`
  )
  return lines.join("\n")
}

/**
 * The report as JSON (2-space indented); `fromJson` reads it back.
 *
 * @since 0.1.0
 */
export const json = (report: Report): string => JSON.stringify(Schema.encodeSync(Report)(report), null, 2)

/**
 * Reads a JSON report, checked against the Schema.
 *
 * @since 0.1.0
 */
export const fromJson = (text: string): Either.Either<Report, ParseResult.ParseError> => Schema.decodeUnknownEither(Schema.parseJson(Report))(text)

// XML 1.0 forbids most control characters even as references; they are dropped.
// eslint-disable-next-line no-control-regex
const invalidXml = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/**
 * Text safe inside an XML attribute or element.
 *
 * @since 0.1.0
 */
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

/**
 * JUnit XML: one `<testsuite>`, one `<testcase>` per case (classname = scenario), failures and errors with details.
 *
 * @since 0.1.0
 */
export const junit = (report: Report): string => {
  const { summary } = report
  const out: Array<string> = ['<?xml version="1.0" encoding="UTF-8"?>']
  const counts = `tests="${summary.total}" failures="${summary.failed}" errors="${summary.errored}" time="${seconds(report.durationMs)}"`
  out.push(`<testsuites name="${escapeXml(report.suite)}" ${counts}>`)
  out.push(`  <testsuite name="${escapeXml(report.suite)}" ${counts} skipped="${report.stopped?.notRun.length ?? 0}">`)
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
  for (const id of report.stopped?.notRun ?? []) {
    out.push(`    <testcase name="${escapeXml(id)}" classname="${escapeXml(report.suite)}" time="0"><skipped message="not run: the run stopped after ${report.stopped!.bail} that did not pass"/></testcase>`)
  }
  out.push("  </testsuite>", "</testsuites>", "")
  return out.join("\n")
}
