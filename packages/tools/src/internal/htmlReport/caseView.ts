/**
 * One case of the HTML report: a `<details>` whose summary line is its status, id, description, scenario and time,
 * and whose body holds why it did not pass, the expected and actual calls side by side with the first divergence
 * marked, each call on a timeline with its arguments, result and duration, the final answer and the judge's verdicts.
 * Every text is escaped: what a model or a case file wrote is shown, never read as markup.
 */
import type * as EvalReport from "../../EvalReport.js"
import * as EvalValidator from "../../EvalValidator.js"
import { show } from "../jsonValue.js"
import { firstDivergence } from "./divergence.js"
import { escapeHtml as e } from "./escape.js"

const marks: Record<EvalReport.Status, string> = { passed: "✓", failed: "✗", error: "!" }

/** A duration: tenths below 10 ms (a mocked call takes a fraction of one, and its bar should say how much). */
export const ms = (value: number): string =>
  value < 10 ? `${Number(value.toFixed(1))} ms` : value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`

const pretty = (value: unknown): string => JSON.stringify(value, null, 2) ?? "undefined"

/** What an expected call asks, on one line: its function and each condition. */
const expectedText = (call: NonNullable<EvalReport.CaseResult["expectedCalls"]>[number]): string =>
  [
    call.arguments === undefined ? `${call.function_name}(…)` : `${call.function_name}(${show(call.arguments, 400)})`,
    ...(call.arguments_contain === undefined ? [] : [`arguments contain ${show(call.arguments_contain, 400)}`]),
    ...(call.result_contains === undefined ? [] : [`result contains ${show(call.result_contains, 400)}`]),
    ...(call.body_contains === undefined ? [] : [`body contains ${call.body_contains.map((phrase) => JSON.stringify(phrase)).join(", ")}`])
  ].join("; ")

const actualText = (call: EvalReport.CaseResult["calls"][number]): string => `${call.name}(${show(call.args, 400)}) ${call.isError ? "✗" : "→"} ${show(call.response, 400)}`

/** Expected and actual calls side by side, the first divergence marked and named. */
const sequences = (result: EvalReport.CaseResult): string => {
  const expected = result.expectedCalls
  if (expected === undefined) return ""
  const diverges = firstDivergence(result)
  const rows: Array<string> = ['<div class="head">#</div><div class="head">expected</div><div class="head">actual</div>']
  for (let i = 0; i < Math.max(expected.length, result.calls.length); i++) {
    const mark = i === diverges ? ' class="diverges"' : ""
    const want = expected[i] === undefined ? '<span class="muted">(none)</span>' : `<code>${e(expectedText(expected[i]!))}</code>`
    const got = result.calls[i] === undefined ? '<span class="muted">(none)</span>' : `<code>${e(actualText(result.calls[i]!))}</code>`
    rows.push(`<div${mark}>${i + 1}</div><div${mark}>${want}</div><div${mark}>${got}</div>`)
  }
  const label = diverges === undefined ? "" : `<p class="divergence-label">The calls part from the expected ones at call ${diverges + 1}.</p>`
  return `<h3>Calls: expected and actual</h3>${label}<div class="sequences">${rows.join("")}</div>`
}

/** Each call on a timeline: a bar as long as its share of the slowest call, its turn, and what it was sent and gave. */
const timeline = (result: EvalReport.CaseResult): string => {
  if (result.calls.length === 0) return '<h3>Timeline</h3><p class="muted">No calls.</p>'
  const longest = Math.max(...result.calls.map((call) => call.durationMs), 1)
  const calls = result.calls.map((call, i) => {
    const width = Math.max(0.5, (call.durationMs / longest) * 60).toFixed(1)
    const turn = call.turn === undefined ? "" : ` · turn ${call.turn}`
    return `<div class="call${call.isError ? " failed-call" : ""}"><span class="bar" style="width:${width}%"></span><span class="mono">#${i + 1}${turn} · ${e(call.name)} · ${ms(call.durationMs)}${call.isError ? " · failed" : ""}</span>
<details><summary>arguments and result</summary><pre>${e(pretty(call.args))}</pre><pre>${e(pretty(call.response))}</pre></details></div>`
  })
  return `<h3>Timeline</h3><div class="timeline">${calls.join("\n")}</div>`
}

const verdicts = (result: EvalReport.CaseResult): string => {
  if (result.verdicts === undefined || result.verdicts.length === 0) return ""
  const rows = result.verdicts.map(
    (verdict) =>
      `<tr><td>${e(verdict.rubric)}</td><td class="${verdict.pass ? "passed" : "failed"}">${verdict.pass ? "pass" : "fail"}</td><td>${verdict.score ?? ""}</td><td>${e(verdict.reason)}</td></tr>`
  )
  return `<h3>Judge</h3><table><thead><tr><th>rubric</th><th>verdict</th><th>score</th><th>reason</th></tr></thead><tbody>${rows.join("")}</tbody></table>`
}

/** The words the filter box looks in: id, description, scenarios and status. */
export const searchText = (result: EvalReport.CaseResult): string =>
  [result.id, result.description, result.expectedScenario, result.scenario ?? "", result.status].join(" ").toLowerCase()

/** The title of a case: its id, and its description after a dash. */
export const title = (result: EvalReport.CaseResult): string => (result.description === "" ? result.id : `${result.id} — ${result.description}`)

/** One case as a `<details>` element, open when it did not pass. */
export const caseView = (result: EvalReport.CaseResult, index: number): string => {
  const failures = result.mismatches.map((mismatch) => `<li>${e(EvalValidator.describe(mismatch, 2000))}</li>`)
  const scenario = result.scenario === undefined ? "no scenario" : result.scenario
  return `<details class="case" id="case-${index}" data-status="${result.status}" data-search="${e(searchText(result))}"${result.status === "passed" ? "" : " open"}>
<summary><span class="${result.status}">${marks[result.status]} ${result.status}</span> <strong>${e(title(result))}</strong> <span class="muted">[${e(scenario)}] ${ms(result.durationMs)} · ${result.calls.length} call${result.calls.length === 1 ? "" : "s"}</span></summary>
<div>
${result.error === undefined ? "" : `<h3>Error</h3><pre class="error">${e(result.error)}</pre>`}
${failures.length === 0 ? "" : `<h3>Failures</h3><ul class="failures">${failures.join("")}</ul>`}
${sequences(result)}
${timeline(result)}
<h3>Final answer</h3>${result.text === "" ? '<p class="muted">(none)</p>' : `<pre>${e(result.text)}</pre>`}
${verdicts(result)}
<p class="muted">${result.turns} turn${result.turns === 1 ? "" : "s"}, stopped: ${e(result.stopReason)}${result.file === undefined ? "" : ` · ${e(result.file)}`}</p>
</div>
</details>`
}
