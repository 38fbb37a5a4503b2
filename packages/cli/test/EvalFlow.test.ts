import { Argv, Cli } from "@agentfx/cli"
import { EvalReport } from "@agentfx/tools"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fs from "node:fs"
import * as path from "node:path"
import { agentfx, tempDir, writeFiles } from "./support/cli.js"
import { mathScenario } from "./support/scenarios.js"

/** A case asking for `expression`; its cassette calls the calculator with `called` (a different one fails it). */
const caseText = (id: string, expression: string, called: string, extra = "") => `- id: ${id}
  description: computes ${expression}
${extra}  scenario: math
  input: what is ${expression}?
  expected_function_calls:
    - function_name: calculator
      arguments: { expression: "${expression}" }
  x-cassette:
    - calls: [{ name: calculator, args: { expression: "${called}" } }]
    - text: done
`

const suite = Effect.gen(function* () {
  const dir = yield* tempDir
  writeFiles(dir, {
    "scenarios/math.md": mathScenario,
    "cases/a.yaml": caseText("adds", "2 + 2", "2 + 2", "  tags: [smoke, sums]\n"),
    "cases/b.yaml": caseText("wrong-product", "3 * 3", "3 + 3", "  tags: [products]\n"),
    "cases/c.yaml": caseText("subtracts", "9 - 4", "9 - 4"),
    "cases/d.yaml": caseText("wrong-quotient", "8 / 2", "8 * 2")
  })
  return { dir, args: ["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), "--concurrency", "1"] }
})

describe("issue 39 item 2: agentfx eval -t, --tag, --bail, --only-failures", () => {
  it.scopedLive("-t runs the cases whose id, description or tag contains the pattern; --tag those with the tag; both: a case must pass both", () =>
    Effect.gen(function* () {
      const { args } = yield* suite
      const byId = yield* agentfx([...args, "-t", "WRONG"])
      expect(byId.code).toBe(1)
      expect(byId.stderr).toContain("eval: 2 of 4 cases selected\n")
      expect(byId.stdout).toContain("0/2 passed")
      const byDescription = yield* agentfx([...args, "--filter", "9 - 4"])
      expect(byDescription.code).toBe(0)
      expect(byDescription.stdout).toContain("✓ subtracts")
      expect(byDescription.stdout).toContain("1/1 passed")
      const byTag = yield* agentfx([...args, "--tag", "smoke", "--tag", "products"])
      expect(byTag.stdout).toMatch(/✓ adds[^\n]*\n✗ wrong-product/)
      expect(byTag.stdout).toContain("1/2 passed")
      const both = yield* agentfx([...args, "-t", "wrong", "--tag", "products"])
      expect(both.stdout).toContain("0/1 passed")
      expect(both.stdout).not.toContain("wrong-quotient")
    })
  )

  it.scopedLive("a pattern or tag that selects no case stops the command before anything runs (exit 2), a misspelt tag with the one meant", () =>
    Effect.gen(function* () {
      const { args } = yield* suite
      const tag = yield* agentfx([...args, "--tag", "smoek"])
      expect(tag).toEqual({ code: 2, stdout: "", stderr: 'agentfx: --tag smoek: no case has it (did you mean "smoke"?); the tags: products, smoke, sums\n' })
      const pattern = yield* agentfx([...args, "-t", "kettle", "-t", "adds"])
      expect(pattern).toEqual({ code: 2, stdout: "", stderr: "agentfx: --filter kettle: no case's id, description or tag contains it\n" })
      const together = yield* agentfx([...args, "-t", "subtracts", "--tag", "smoke"])
      expect(together.stderr).toBe("agentfx: --filter and --tag: no case matches a pattern and has a tag of those given, though each selects cases on its own\n")
      const both = yield* agentfx([...args, "-t", "kettle", "--tag", "smoke", "--tag", "smoek"])
      expect(both).toEqual({
        code: 2,
        stdout: "",
        stderr: 'agentfx: --filter kettle: no case\'s id, description or tag contains it; --tag smoek: no case has it (did you mean "smoke"?); the tags: products, smoke, sums\n'
      })
    })
  )

  it.scopedLive("--max-turns bounds each case's run: a case whose answer comes in a second turn stops after the first, saying why", () =>
    Effect.gen(function* () {
      const { args } = yield* suite
      const result = yield* agentfx([...args, "-t", "adds", "--max-turns", "1", "--report-json", "-"])
      expect(result.code).toBe(0)
      const report = Either.getOrThrow(EvalReport.fromJson(result.stdout))
      expect(report.cases.map((c) => [c.id, c.turns, c.stopReason, c.text])).toEqual([["adds", 1, "max turns (1)", ""]])
    })
  )

  it.scopedLive("a selection of every case says nothing of it (the provider's line comes first)", () =>
    Effect.gen(function* () {
      const { args } = yield* suite
      const every = yield* agentfx([...args, "-t", "s"])
      expect(every.stderr.split("\n")[0]).toMatch(/^provider: emulator — /)
      expect(every.stderr).toContain("eval: 4/4 done")
    })
  )

  it.scopedLive("--bail stops starting cases at the first that does not pass; --bail N at the Nth; the cases not run are named, exit 1", () =>
    Effect.gen(function* () {
      const { dir, args } = yield* suite
      const json = path.join(dir, "report.json")
      const first = yield* agentfx([...args, "--bail", "--report-json", json])
      expect(first.code).toBe(1)
      expect(first.stdout).toContain("✓ adds")
      expect(first.stdout).toContain("✗ wrong-product")
      expect(first.stdout).not.toMatch(/[✓✗] subtracts/)
      expect(first.stdout).toContain("stopped after 1 case that did not pass: 2 not run (subtracts, wrong-quotient)")
      expect(first.stderr).toContain("agentfx: the eval stopped after 1 case that did not pass (--bail): 2 cases were not run\n")
      const report = Either.getOrThrow(EvalReport.fromJson(fs.readFileSync(json, "utf8")))
      expect(report.stopped).toEqual({ bail: 1, notRun: ["subtracts", "wrong-quotient"] })
      expect(report.cases.map((c) => c.id)).toEqual(["adds", "wrong-product"])
      // Two failures allowed: every case ran, and the eval is judged by its pass rate as usual.
      const two = yield* agentfx([...args, "--bail", "2", "--threshold", "0.5"])
      expect(two.code).toBe(0)
      expect(two.stdout).toContain("2/4 passed")
      expect(two.stdout).not.toContain("stopped after")
      const refused = yield* agentfx([...args, "--bail", "0"])
      expect(refused).toEqual({ code: 2, stdout: "", stderr: "agentfx: --bail 0: a whole number of at least 1 is needed\n" })
    })
  )

  it.scopedLive("the printed report: a passing case is one line and a failing one shows its calls and failures; --only-failures leaves passing cases out", () =>
    Effect.gen(function* () {
      const { args } = yield* suite
      const all = yield* agentfx([...args, "--threshold", "0"])
      expect(all.code).toBe(0)
      expect(all.stdout).toMatch(/✓ adds — computes 2 \+ 2 {2}\[math\] \d+ ms\n✗ wrong-product/)
      expect(all.stdout).toContain('    1. calculator({"expression":"3 + 3"}) → {"expression":"3 + 3","result":6}')
      expect(all.stdout).toContain('      - call 1 calculator: arguments.expression: expected "3 * 3", got "3 + 3"')
      expect(all.stdout).not.toContain('calculator({"expression":"2 + 2"})')
      const failures = yield* agentfx([...args, "--threshold", "0", "--only-failures"])
      expect(failures.stdout).not.toContain("adds")
      expect(failures.stdout).not.toContain("subtracts")
      expect(failures.stdout).toContain("✗ wrong-product")
      expect(failures.stdout).toContain("✗ wrong-quotient")
      expect(failures.stdout).toContain("2/4 passed (50 %), 2 failed, 0 errored")
    })
  )

  it("--bail takes a number after it as its N, and leaves anything else to be the next argument", () => {
    const read = (argv: ReadonlyArray<string>) => {
      const parsed = Argv.parse(Cli.commands, ["eval", ...argv])
      return parsed._tag === "Run" ? { bail: parsed.options.text("bail"), args: parsed.args } : parsed._tag === "Invalid" ? parsed.message : parsed._tag
    }
    expect(read(["--bail", "cases", "--scenarios", "s"])).toEqual({ bail: "", args: ["cases"] })
    expect(read(["cases", "--bail", "3", "--scenarios", "s"])).toEqual({ bail: "3", args: ["cases"] })
    expect(read(["cases", "--bail=2", "--scenarios", "s"])).toEqual({ bail: "2", args: ["cases"] })
    expect(read(["cases", "--scenarios", "s", "--bail"])).toEqual({ bail: "", args: ["cases"] })
    expect(read(["cases", "--scenarios", "s", "--bail", "-1"])).toBe("--bail -1: a whole number of at least 1 is needed")
    expect(read(["cases", "--scenarios", "s", "--bail="])).toBe("--bail is empty: a whole number of at least 1 is needed")
  })
})
