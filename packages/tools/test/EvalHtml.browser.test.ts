/**
 * The HTML report in a real browser: Debian's chromium, headless, driven by playwright-core. `.ci/run` installs
 * chromium where it is missing; here a missing one fails the file, it is never skipped. Screenshots are kept under
 * .vitest/artifacts/ (git-ignored) for a person to look at.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import type { Browser, Page } from "playwright-core"
import { chromium } from "playwright-core"
import { Scripted } from "@agentfx/core/testing"
import { EvalBaseline, EvalCase, EvalHtml, EvalReport, EvalRunner, Scenario } from "@agentfx/tools"
import { checkWarrantyYaml, implementations, scenarioText, sendEmailYaml } from "./support/warranty.js"

const artifacts = path.resolve(".vitest", "artifacts")
const work = fs.mkdtempSync(path.join(os.tmpdir(), "agentfx-html-"))

/** Where Debian's chromium is; a clear failure when it is not installed. */
const chromiumPath = (): string => {
  try {
    return execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim()
  } catch {
    throw new Error("chromium is not installed: `apt-get update && apt-get install -y chromium` (.ci/run does it where it is missing)")
  }
}

let browser: Browser
beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ["--no-sandbox", "--disable-background-networking", "--disable-gpu", "--disable-component-update", "--disable-sync", "--no-first-run"]
  })
  fs.mkdirSync(artifacts, { recursive: true })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  fs.rmSync(work, { recursive: true, force: true })
})

const scenario = Either.getOrThrow(
  Either.flatMap(Scenario.parse(scenarioText("valid-warranty", [checkWarrantyYaml, sendEmailYaml]), "valid-warranty.md"), (d) => Scenario.resolve(d, implementations))
)
const caseOf = (id: string, description: string) =>
  Either.getOrThrow(
    EvalCase.make({
      id,
      description,
      input: "My kettle SN-1 broke.",
      scenario: "valid-warranty",
      expected_function_calls: [
        { function_name: "check_warranty", arguments: { serial_number: "SN-1" } },
        { function_name: "send_email", arguments_contain: { to: "ada@example.com" } }
      ]
    })
  )
const email = (to: string) => Scripted.call("send_email", { to, subject: "Re: kettle", body: "Covered." })
const injected = `Done. <script>window.__injected = true</script><img src="x" onerror="window.__injectedImage = true"> & "quoted"`
const models: Record<string, ReadonlyArray<Scripted.Step>> = {
  covered: [Scripted.call("check_warranty", { serial_number: "SN-1" }), email("ada@example.com"), { text: injected }],
  "wrong-address": [Scripted.call("check_warranty", { serial_number: "SN-1" }), email("bob@example.com"), { text: "Sent." }],
  // A script with no turn: the model fails, and the case is an error.
  silent: []
}

/** A report from real runs of three cases (one passes, one calls the wrong address, one makes no call), as a page on disk. */
const page = async (name: string, options: { readonly javaScript?: boolean; readonly baseline?: boolean } = {}): Promise<{ page: Page; requests: Array<string> }> => {
  const cases = [caseOf("covered", "Kettle under warranty"), caseOf("wrong-address", "Replies to the wrong customer"), caseOf("silent", "The model gives out")]
  const report = await Effect.runPromise(EvalRunner.run(cases, { scenarios: [scenario], model: (evalCase) => Scripted.layer(models[evalCase.id]!) }))
  const earlier = EvalReport.make({ suite: report.suite, cases: report.cases.map((c) => ({ ...c, status: "passed" as const })), durationMs: 1 })
  const html = EvalHtml.render(report, options.baseline === true ? { baseline: { source: "earlier.json", comparison: EvalBaseline.compare(earlier, report) } } : {})
  const file = path.join(work, `${name}.html`)
  fs.writeFileSync(file, html)
  const context = await browser.newContext({ javaScriptEnabled: options.javaScript ?? true, viewport: { width: 1200, height: 900 } })
  const opened = await context.newPage()
  const requests: Array<string> = []
  opened.on("request", (request) => void requests.push(request.url()))
  await opened.goto(pathToFileURL(file).href)
  return { page: opened, requests }
}

const shot = (opened: Page, name: string) => opened.screenshot({ path: path.join(artifacts, `eval-report-${name}.png`), fullPage: true })

describe("issue 39 item 5: the HTML report in headless Chromium", () => {
  it("shows the counts, the verdict and each case; loads nothing but itself", async () => {
    const { page: opened, requests } = await page("counts")
    const figures = await opened.locator("#summary .figure").allTextContents()
    expect(figures.slice(0, 6)).toEqual(["3", "1", "1", "1", "33.33 %", "99 %"])
    expect(await opened.locator("#summary .verdict").textContent()).toBe("FAIL")
    expect(await opened.locator("details.case").count()).toBe(3)
    expect(await opened.locator("#case-list tbody tr").count()).toBe(3)
    expect(requests).toEqual([pathToFileURL(path.join(work, "counts.html")).href])
    await shot(opened, "summary")
  })

  it("a failed case shows where its calls part from the expected ones, side by side", async () => {
    const { page: opened } = await page("divergence")
    const failed = opened.locator('details.case[data-status="failed"]').first()
    expect(await failed.getAttribute("open")).not.toBeNull()
    expect(await failed.locator(".divergence-label").textContent()).toBe("The calls part from the expected ones at call 2.")
    const marked = await failed.locator(".sequences .diverges").allTextContents()
    expect(marked[0]).toBe("2")
    expect(marked[1]).toContain('send_email(…); arguments contain {"to":"ada@example.com"}')
    expect(marked[2]).toContain('send_email({"to":"bob@example.com"')
    expect(await failed.locator("ul.failures li").allTextContents()).toEqual(['call 2 send_email: arguments_contain.to: expected "ada@example.com", got "bob@example.com"'])
    expect(await failed.locator(".timeline .call").count()).toBe(2)
    await failed.scrollIntoViewIfNeeded()
    await failed.screenshot({ path: path.join(artifacts, "eval-report-divergence.png") })
  })

  it("the filter box narrows the list and the cases to those matching every word typed", async () => {
    const { page: opened } = await page("filter")
    await opened.fill("#filter", "wrong")
    expect(await opened.locator("#shown").textContent()).toBe("1 of 3 cases shown")
    expect(await opened.locator("details.case:visible").count()).toBe(1)
    expect(await opened.locator("details.case:visible summary strong").textContent()).toBe("wrong-address — Replies to the wrong customer")
    expect(await opened.locator("#case-list tbody tr:visible").count()).toBe(1)
    await opened.fill("#filter", "error")
    expect(await opened.locator("details.case:visible summary strong").allTextContents()).toEqual(["silent — The model gives out"])
    await opened.fill("#filter", "")
    expect(await opened.locator("#shown").textContent()).toBe("3 of 3 cases shown")
    await opened.fill("#filter", "passed kettle")
    await shot(opened, "filtered")
    expect(await opened.locator("details.case:visible").count()).toBe(1)
  })

  it("an answer holding <script> and an onerror attribute is shown as text and runs nothing", async () => {
    const { page: opened } = await page("injection")
    expect(await opened.evaluate(() => [(globalThis as { __injected?: unknown }).__injected, (globalThis as { __injectedImage?: unknown }).__injectedImage])).toEqual([
      undefined,
      undefined
    ])
    const answer = await opened.locator("#case-0 pre").last().textContent()
    expect(answer).toBe(injected)
    expect(await opened.locator("#case-0 script, #case-0 img").count()).toBe(0)
  })

  it("with scripts disabled the summary, the list and every case are there; the filter box is not", async () => {
    const { page: opened } = await page("no-script", { javaScript: false })
    expect(await opened.locator("#summary .figure").first().textContent()).toBe("3")
    expect(await opened.locator("#summary").isVisible()).toBe(true)
    expect(await opened.locator("#toolbar").isVisible()).toBe(false)
    expect(await opened.locator("#case-list tbody tr").count()).toBe(3)
    await opened.locator("#case-0 > summary").click()
    expect(await opened.locator("#case-0 .timeline").isVisible()).toBe(true)
    await shot(opened, "no-script")
  })

  it("with a baseline, the comparison is on the page", async () => {
    const { page: opened } = await page("baseline", { baseline: true })
    const rows = await opened.locator("#baseline tbody tr").allTextContents()
    expect(rows.filter((row) => row.startsWith("newly failing"))).toEqual(["newly failingwrong-addresspassed → failed", "newly failingsilentpassed → error"])
    expect(await opened.locator("#baseline p").first().textContent()).toBe("3 cases in both runs; pass rate 100 % → 33.33 % (-66.67 points)")
    await shot(opened, "baseline")
  })
})
