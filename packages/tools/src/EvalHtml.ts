/**
 * The eval report as one HTML page for a person to look at: the summary (counts, pass rate, threshold, the verdict),
 * the list of cases, and each case with why it did not pass, its expected and actual calls side by side with the first
 * divergence marked, its calls on a timeline (arguments, result, duration), its final answer and the judge's
 * verdicts; with a baseline, the comparison. One self-contained file: its style and its one script are inline, it
 * loads nothing (its Content-Security-Policy allows no request and no script but its own), and it works from
 * `file://`. Without scripts, everything but the filter box is there.
 *
 * Every text in it comes from models, case files and servers: all of it is escaped, so an answer holding `<script>` is
 * shown as text.
 *
 * @example
 * ```ts
 * import { EvalHtml, EvalReport } from "@agentfx/tools"
 *
 * const report = EvalReport.make({ suite: "smoke", cases: [], durationMs: 0 })
 * const page = EvalHtml.render(report) // write it to a file, open it in a browser
 * ```
 *
 * @since 0.2.0
 */
import { createHash } from "node:crypto"
import type * as EvalBaseline from "./EvalBaseline.js"
import type * as EvalReport from "./EvalReport.js"
import { caseView, ms, searchText, title } from "./internal/htmlReport/caseView.js"
import { escapeHtml as e } from "./internal/htmlReport/escape.js"
import { script } from "./internal/htmlReport/script.js"
import { css } from "./internal/htmlReport/style.js"

/**
 * What the page shows besides the report: the comparison with a baseline, and where the baseline came from.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly baseline?: { readonly source: string; readonly comparison: EvalBaseline.Comparison } | undefined
}

const percent = (fraction: number): string => `${Number((fraction * 100).toFixed(2))} %`

// The one script the page may run, by its hash: a script that escaped the escaping still would not run.
const scriptHash = createHash("sha256").update(script).digest("base64")
const policy = `default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${scriptHash}'; img-src data:; base-uri 'none'; form-action 'none'`

const summary = (report: EvalReport.Report): string => {
  const { summary: s } = report
  const figure = (value: string | number, label: string, cls = "") => `<div><div class="figure ${cls}">${value}</div><div class="muted">${label}</div></div>`
  const stopped =
    report.stopped === undefined
      ? ""
      : `<p class="failed">Stopped after ${report.stopped.bail} case${report.stopped.bail === 1 ? "" : "s"} that did not pass: ${report.stopped.notRun.length} not run (${e(report.stopped.notRun.join(", "))}).</p>`
  return `<section id="summary" class="summary">
${figure(s.total, "cases")}${figure(s.passed, "passed", "passed")}${figure(s.failed, "failed", "failed")}${figure(s.errored, "errored", "error")}
${figure(percent(s.passRate), "pass rate")}${figure(percent(s.threshold), "threshold")}
<div><div class="figure"><span class="verdict ${s.ok ? "pass" : "fail"}">${s.ok ? "PASS" : "FAIL"}</span></div><div class="muted">${ms(report.durationMs)}</div></div>
</section>${stopped}`
}

const caseList = (report: EvalReport.Report): string => {
  const rows = report.cases.map(
    (result, i) =>
      `<tr data-search="${e(searchText(result))}"><td class="${result.status}">${result.status}</td><td><a href="#case-${i}">${e(title(result))}</a></td><td>${e(result.scenario ?? "no scenario")}</td><td>${result.calls.length}</td><td>${result.mismatches.length}</td><td>${ms(result.durationMs)}</td></tr>`
  )
  return `<table id="case-list"><thead><tr><th>status</th><th>case</th><th>scenario</th><th>calls</th><th>failures</th><th>time</th></tr></thead><tbody>${rows.join("")}</tbody></table>`
}

const baselineSection = (baseline: NonNullable<Options["baseline"]>): string => {
  const { comparison: c } = baseline
  const points = (c.passRate.delta * 100).toFixed(2)
  const rows = [
    ...c.newlyFailing.map((change) => ["failed", "newly failing", change.id, `${change.was} → ${change.now}`]),
    ...c.newlyPassing.map((change) => ["passed", "newly passing", change.id, `${change.was} → ${change.now}`]),
    ...c.changedCalls.map((change) => ["", "calls changed", change.id, `${change.was.join(", ") || "none"} → ${change.now.join(", ") || "none"}`])
  ].map(([cls, kind, id, what]) => `<tr><td class="${cls}">${kind}</td><td>${e(id!)}</td><td><code>${e(what!)}</code></td></tr>`)
  const only = [
    ...(c.added.length === 0 ? [] : [`<p class="muted">Not in the baseline: ${e(c.added.join(", "))}</p>`]),
    ...(c.missing.length === 0 ? [] : [`<p class="muted">Not in this run: ${e(c.missing.join(", "))}</p>`])
  ]
  return `<section id="baseline"><h2>Compared with ${e(baseline.source)}</h2>
<p>${c.shared} case${c.shared === 1 ? "" : "s"} in both runs; pass rate ${percent(c.passRate.was)} → ${percent(c.passRate.now)} (${c.passRate.delta > 0 ? "+" : ""}${points} points)</p>
${rows.length === 0 ? '<p class="muted">No case changed status or calls.</p>' : `<table><thead><tr><th>change</th><th>case</th><th>what</th></tr></thead><tbody>${rows.join("")}</tbody></table>`}
${only.join("")}</section>`
}

/**
 * The report as one self-contained HTML page.
 *
 * @since 0.2.0
 */
export const render = (report: EvalReport.Report, options: Options = {}): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(`eval report: ${report.suite}`)}</title>
<style>${css}</style>
</head>
<body>
<header><h1>${e(report.suite)}</h1><p class="muted">agentfx eval report · ${report.summary.total} case${report.summary.total === 1 ? "" : "s"}</p></header>
${summary(report)}
${options.baseline === undefined ? "" : baselineSection(options.baseline)}
<h2>Cases</h2>
<div class="toolbar" id="toolbar" hidden><input id="filter" type="search" placeholder="Filter: id, description, scenario, status" aria-label="Filter cases"><span id="shown" class="muted"></span></div>
${caseList(report)}
<main>
${report.cases.map(caseView).join("\n")}
</main>
<script>${script}</script>
</body>
</html>
`
