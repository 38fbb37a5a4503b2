import { EvalReport } from "@agentfx/tools"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fs from "node:fs"
import * as path from "node:path"
import { agentfx, emulator, tempDir, viaGemini, writeFiles } from "./support/cli.js"
import { mathScenario } from "./support/scenarios.js"

const caseText = (id: string, called: string, answer: string) => `- id: ${id}
  scenario: math
  input: what is 2 + 2?
  expected_function_calls:
    - function_name: calculator
      arguments: { expression: "2 + 2" }
  x-cassette:
    - calls: [{ name: calculator, args: { expression: "${called}" } }]
    - text: ${JSON.stringify(answer)}
`

const suite = Effect.gen(function* () {
  const dir = yield* tempDir
  writeFiles(dir, {
    "scenarios/math.md": mathScenario,
    "cases/a.yaml": caseText("adds", "2 + 2", "It is 4. <script>alert(1)</script>"),
    "cases/b.yaml": caseText("<b>bold</b>", "2 * 2", "4")
  })
  return { dir, args: ["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), "--threshold", "0"] }
})

describe("issue 39 item 5: agentfx eval --report-html", () => {
  it.scopedLive("writes the report as one HTML page, every text from files and models escaped, the baseline comparison in it", () =>
    Effect.gen(function* () {
      const { dir, args } = yield* suite
      const json = path.join(dir, "earlier.json")
      const html = path.join(dir, "report.html")
      const result = yield* agentfx([...args, "--report-json", json, "--report-html", html])
      expect(result.code).toBe(0)
      const page = fs.readFileSync(html, "utf8")
      expect(page).toMatch(/^<!doctype html>\n/)
      expect(page).toContain("It is 4. &lt;script&gt;alert(1)&lt;/script&gt;")
      expect(page).not.toContain("<script>alert(1)")
      expect(page).toContain("&lt;b&gt;bold&lt;/b&gt;")
      // Nothing from outside: no URL but the page's own anchors.
      expect(page).not.toMatch(/(src|href)="(?!#)/)
      const compared = yield* agentfx([...args, "--baseline", json, "--report-html", html])
      expect(compared.code).toBe(0)
      expect(fs.readFileSync(html, "utf8")).toContain(`<section id="baseline"><h2>Compared with ${json}</h2>`)
    })
  )

  it.scopedLive("--report-html - prints the page on stdout (the summary line on stderr); with --json it is refused, and a path that cannot be written stops it before anything runs", () =>
    Effect.gen(function* () {
      const { dir, args } = yield* suite
      const stdout = yield* agentfx([...args, "--report-html", "-"])
      expect(stdout.code).toBe(0)
      expect(stdout.stdout).toMatch(/^<!doctype html>/)
      expect(stdout.stderr).toMatch(/1\/2 passed \(50 %\)[^\n]*\n$/)
      const both = yield* agentfx([...args, "--json", "--report-html", "-"])
      expect(both).toEqual({ code: 2, stdout: "", stderr: "agentfx: --json and --report-html - would both print on stdout: send one of them to a file\n" })
      const server = yield* emulator()
      const { env, flags } = viaGemini(server)
      const directory = yield* agentfx([...args, ...flags, "--report-html", dir], { env })
      expect(directory).toEqual({ code: 2, stdout: "", stderr: `agentfx: --report-html ${dir}: it is a directory: name a file (in it, say)\n` })
      expect(yield* server.requests).toEqual([])
    })
  )
})

describe("agentfx eval: which report takes stdout", () => {
  it.scopedLive("--report-json - and --junit - each print their report alone on stdout, the summary line on stderr", () =>
    Effect.gen(function* () {
      const { args } = yield* suite
      const json = yield* agentfx([...args, "--report-json", "-"])
      expect(json.code).toBe(0)
      const report = Either.getOrThrow(EvalReport.fromJson(json.stdout))
      // The suite is named by the cases' directory.
      expect(report.suite).toBe("cases")
      expect(report.cases.map((c) => [c.id, c.status])).toEqual([
        ["adds", "passed"],
        ["<b>bold</b>", "failed"]
      ])
      const summary = /\n1\/2 passed \(50 %\), 1 failed, 0 errored — threshold 0 %: PASS {2}\d+ ms\n$/
      expect(json.stderr).toMatch(summary)
      const junit = yield* agentfx([...args, "--junit", "-"])
      expect(junit.code).toBe(0)
      expect(junit.stdout).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites /)
      expect(junit.stderr).toMatch(summary)
    })
  )

  it.scopedLive("two renderings on stdout are refused before anything runs, naming each", () =>
    Effect.gen(function* () {
      const { args } = yield* suite
      const refused = (names: string) => ({ code: 2, stdout: "", stderr: `agentfx: ${names} would both print on stdout: send one of them to a file\n` })
      expect(yield* agentfx([...args, "--report-json", "-", "--junit", "-"])).toEqual(refused("--report-json - and --junit -"))
      expect(yield* agentfx([...args, "--json", "--junit", "-"])).toEqual(refused("--json and --junit -"))
      expect(yield* agentfx([...args, "--report-json", "-", "--report-html", "-"])).toEqual(refused("--report-json - and --report-html -"))
    })
  )
})

