import { NodeFileSystem } from "@effect/platform-node"
import * as FileSystem from "@effect/platform/FileSystem"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as NodePath from "node:path"
import { EvalBaseline, EvalReport } from "@agentfx/tools"

const call = (name: string, args: Record<string, unknown>) => ({ name, args, response: {}, isError: false, durationMs: 1 })
const result = (id: string, status: EvalReport.Status, calls = [call("f", { a: 1, b: 2 })]): EvalReport.CaseResult => ({
  id, description: "", expectedScenario: "s", scenario: "s", status, calls, mismatches: [], text: "", turns: 1, stopReason: "finished", durationMs: 1
})
const report = (cases: ReadonlyArray<EvalReport.CaseResult>) => EvalReport.make({ suite: "s", cases, durationMs: 1 })

describe("issue 39 item 4: EvalBaseline", () => {
  const before = report([result("steady", "passed"), result("regressed", "passed"), result("fixed", "failed"), result("broken", "error"), result("gone", "passed")])
  const after = report([
    // The same calls with their arguments in another order: not a change.
    result("steady", "passed", [call("f", { b: 2, a: 1 })]),
    result("regressed", "failed", [call("f", { a: 1, b: 3 }), call("g", {})]),
    result("fixed", "passed"),
    result("broken", "failed"),
    result("new", "passed")
  ])

  it("names the cases that newly fail and newly pass, whose calls changed, and those only one run has; the pass rate over the shared cases", () => {
    const comparison = EvalBaseline.compare(before, after)
    expect(comparison).toStrictEqual({
      newlyFailing: [{ id: "regressed", was: "passed", now: "failed" }],
      newlyPassing: [{ id: "fixed", was: "failed", now: "passed" }],
      changedCalls: [{ id: "regressed", was: ['f({"a":1,"b":2})'], now: ['f({"a":1,"b":3})', "g({})"] }],
      added: ["new"],
      missing: ["gone"],
      shared: 4,
      passRate: { was: 0.5, now: 0.5, delta: 0 }
    })
  })

  it("pretty is a table: the rates, then a row per changed case, then the cases only one run has", () => {
    expect(EvalBaseline.pretty(EvalBaseline.compare(before, after), "before.json").split("\n")).toStrictEqual([
      "compared with before.json: 4 cases in both runs, pass rate 50 % → 50 % (±0 points)",
      "  newly failing  regressed  passed → failed",
      "  newly passing  fixed      failed → passed",
      '  calls changed  regressed  f({"a":1,"b":2}) → f({"a":1,"b":3}), g({})',
      "  not in the baseline: new",
      "  not in this run: gone"
    ])
    const worse = EvalBaseline.compare(report([result("a", "passed"), result("b", "passed")]), report([result("a", "passed"), result("b", "error")]))
    expect(EvalBaseline.pretty(worse, "b.json").split("\n")[0]).toBe("compared with b.json: 2 cases in both runs, pass rate 100 % → 50 % (−50 points)")
    const same = EvalBaseline.compare(report([result("a", "passed")]), report([result("a", "passed")]))
    expect(EvalBaseline.pretty(same, "b.json").split("\n")).toStrictEqual(["compared with b.json: 1 case in both runs, pass rate 100 % → 100 % (±0 points)", "  no case changed status or calls"])
  })

  it.scoped("load reads a JSON report; anything else is a BaselineError naming the file", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "agentfx-baseline-" })
      const good = NodePath.join(dir, "good.json")
      yield* fs.writeFileString(good, EvalReport.json(before))
      expect(yield* EvalBaseline.load(good)).toStrictEqual(before)
      const junk = NodePath.join(dir, "junk.json")
      yield* fs.writeFileString(junk, '{"suite": 1}')
      expect((yield* Effect.flip(EvalBaseline.load(junk))).message).toMatch(new RegExp(`^${junk}: is not a JSON report of agentfx eval \\(--report-json\\): `))
      expect((yield* Effect.flip(EvalBaseline.load(NodePath.join(dir, "none.json")))).message).toContain("cannot be read")
      expect((yield* Effect.flip(EvalBaseline.load(good, 10))).message).toMatch(/more than the limit of 10 bytes$/)
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )
})
