import { Io } from "@agentfx/cli"
import { EvalReport } from "@agentfx/tools"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fs from "node:fs"
import * as path from "node:path"
import { agentfx, emulator, tempDir, viaGemini, writeFiles } from "./support/cli.js"
import { calculatorCase, mathScenario } from "./support/scenarios.js"

describe("issue 39 item 4: agentfx eval --baseline, --fail-on-regression", () => {
  it.scopedLive("a run with one regressed case: the table names it, and --fail-on-regression exits 1 naming it", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const cases = path.join(dir, "cases")
      writeFiles(dir, { "scenarios/math.md": mathScenario, "cases/a.yaml": calculatorCase("adds", "2 + 2", "2 + 2"), "cases/b.yaml": calculatorCase("multiplies", "3 * 3", "3 + 3") })
      const args = ["eval", cases, "--scenarios", path.join(dir, "scenarios"), "--threshold", "0", "--concurrency", "1"]
      const earlier = path.join(dir, "earlier.json")
      expect((yield* agentfx([...args, "--report-json", earlier])).code).toBe(0)
      // Now adds calls the calculator wrongly, and multiplies is fixed.
      writeFiles(dir, { "cases/a.yaml": calculatorCase("adds", "2 + 2", "2 * 2"), "cases/b.yaml": calculatorCase("multiplies", "3 * 3", "3 * 3") })

      const compared = yield* agentfx([...args, "--baseline", earlier])
      expect(compared.code).toBe(0)
      expect(compared.stdout).toContain(
        [
          `compared with ${earlier}: 2 cases in both runs, pass rate 50 % → 50 % (±0 points)`,
          "  newly failing  adds        passed → failed",
          "  newly passing  multiplies  failed → passed",
          '  calls changed  adds        calculator({"expression":"2 + 2"}) → calculator({"expression":"2 * 2"})',
          '  calls changed  multiplies  calculator({"expression":"3 + 3"}) → calculator({"expression":"3 * 3"})'
        ].join("\n")
      )

      const gated = yield* agentfx([...args, "--baseline", earlier, "--fail-on-regression"])
      expect(gated.code).toBe(1)
      expect(gated.stderr).toContain(`agentfx: 1 case passes in ${earlier} and not now: adds\n`)

      // Against a baseline this run does not fall short of, --fail-on-regression passes.
      const now = path.join(dir, "now.json")
      expect((yield* agentfx([...args, "--report-json", now])).code).toBe(0)
      const same = yield* agentfx([...args, "--baseline", now, "--fail-on-regression"])
      expect([same.code, same.stderr.includes("agentfx:")]).toEqual([0, false])

      // --json keeps stdout the report alone; the table goes to stderr.
      const json = yield* agentfx([...args, "--baseline", earlier, "--json"])
      expect(Either.isRight(EvalReport.fromJson(json.stdout))).toBe(true)
      expect(json.stderr).toContain("  newly failing  adds        passed → failed")
    })
  )

  it.scopedLive("a baseline that is not a report, or --fail-on-regression alone, stops the command before anything runs (exit 2)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "scenarios/math.md": mathScenario, "cases/a.yaml": calculatorCase("adds", "2 + 2", "2 + 2"), "junk.json": '{"suite": 3}' })
      const server = yield* emulator()
      const { env, flags } = viaGemini(server)
      const args = ["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), ...flags]
      const junk = path.join(dir, "junk.json")
      const bad = yield* agentfx([...args, "--baseline", junk], { env })
      expect(bad.code).toBe(2)
      expect(bad.stderr).toMatch(new RegExp(`^agentfx: --baseline ${junk}: is not a JSON report of agentfx eval \\(--report-json\\): `))
      const missing = yield* agentfx([...args, "--baseline", path.join(dir, "none.json")], { env })
      expect(missing.code).toBe(2)
      expect(missing.stderr).toContain("cannot be read")
      const alone = yield* agentfx([...args, "--fail-on-regression"], { env })
      expect(alone).toEqual({ code: 2, stdout: "", stderr: "agentfx: --fail-on-regression compares with a baseline: give --baseline FILE (a JSON report of an earlier run)\n" })
      expect(yield* server.requests).toEqual([])
      expect(fs.existsSync(junk)).toBe(true)
    })
  )
})

describe("agentfx eval's report on stdout, with and without a baseline", () => {
  it.scoped("without a baseline the report alone; with one, the table after it, painted as the report is on a colour terminal", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "scenarios/math.md": mathScenario, "cases/a.yaml": calculatorCase("adds", "2 + 2", "2 + 2") })
      const args = ["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios")]
      const earlier = path.join(dir, "earlier.json")
      const alone = yield* agentfx([...args, "--report-json", earlier])
      writeFiles(dir, { "cases/a.yaml": calculatorCase("adds", "2 + 2", "2 * 2") })
      const terminal = yield* Effect.tap(Io.memory({ color: true }), (memory) => memory.end)
      const compared = yield* agentfx([...args, "--baseline", earlier, "--threshold", "0"], { terminal })
      expect([alone.code, alone.stdout]).toStrictEqual([0, "cases: 1 case\n\n✓ adds  [math] 0 ms\n\n1/1 passed (100 %), 0 failed, 0 errored — threshold 99 %: PASS  0 ms\n"])
      const [red, green, dim, off] = ["\u001b[31m", "\u001b[32m", "\u001b[2m", "\u001b[0m"]
      expect(compared.code).toBe(0)
      expect(compared.stdout).toBe(
        [
          "cases: 1 case",
          "",
          `${red}✗${off} adds  ${dim}[math] 0 ms${off}`,
          '    1. calculator({"expression":"2 * 2"}) → {"expression":"2 * 2","result":4}',
          "    failures:",
          `${red}      - call 1 calculator: arguments.expression: expected "2 + 2", got "2 * 2"${off}`,
          "",
          `0/1 passed (0 %), 1 failed, 0 errored — threshold 0 %: ${green}PASS${off}  ${dim}0 ms${off}`,
          "",
          `compared with ${earlier}: 1 case in both runs, pass rate 100 % → 0 % (−100 points)`,
          `  ${red}newly failing${off}  adds  passed → failed`,
          '  calls changed           adds  calculator({"expression":"2 + 2"}) → calculator({"expression":"2 * 2"})',
          ""
        ].join("\n")
      )
    }))
})
