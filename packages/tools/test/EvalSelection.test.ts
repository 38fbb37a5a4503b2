import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as TestClock from "effect/TestClock"
import { EvalCase, EvalReport, EvalSelection } from "@agentfx/tools"
import { findAll, parseXml } from "./support/xml.js"

const make = (id: string, description = "", tags?: ReadonlyArray<string>) =>
  Either.getOrThrow(EvalCase.make({ id, description, input: "x", scenario: "s", expected_function_calls: [], ...(tags === undefined ? {} : { tags }) }))

const cases = [make("kettle", "Kettle under warranty", ["smoke", "warranty"]), make("toaster", "Toaster expired", ["warranty"]), make("no-serial", "No serial given")]
const ids = (selected: Either.Either<ReadonlyArray<EvalCase.EvalCase>, EvalSelection.SelectionError>) => Either.map(selected, (all) => all.map((c) => c.id))

describe("EvalSelection.select", () => {
  it("patterns match the id, the description or a tag, ignoring case; tags match exactly; both given, a case passes both", () => {
    expect(ids(EvalSelection.select(cases, {}))).toStrictEqual(Either.right(["kettle", "toaster", "no-serial"]))
    expect(ids(EvalSelection.select(cases, { patterns: ["TOAST"] }))).toStrictEqual(Either.right(["toaster"]))
    expect(ids(EvalSelection.select(cases, { patterns: ["serial given", "kettle"] }))).toStrictEqual(Either.right(["kettle", "no-serial"]))
    expect(ids(EvalSelection.select(cases, { patterns: ["smo"] }))).toStrictEqual(Either.right(["kettle"]))
    expect(ids(EvalSelection.select(cases, { tags: ["warranty"] }))).toStrictEqual(Either.right(["kettle", "toaster"]))
    expect(ids(EvalSelection.select(cases, { patterns: ["o"], tags: ["smoke"] }))).toStrictEqual(Either.right(["kettle"]))
  })

  it("a pattern or a tag that selects nothing is an error naming each, a tag with the one meant", () => {
    const error = Either.getOrThrowWith(Either.flip(EvalSelection.select(cases, { patterns: ["blender", "kettle"], tags: ["warrenty", "slow"] })), () => new Error("selected"))
    expect(error.problems).toStrictEqual([
      { kind: "pattern", value: "blender", reason: "no case's id, description or tag contains it" },
      { kind: "tag", value: "warrenty", reason: 'no case has it (did you mean "warranty"?); the tags: smoke, warranty' },
      { kind: "tag", value: "slow", reason: "no case has it; the tags: smoke, warranty" }
    ])
    expect(error.message).toBe(
      'pattern "blender": no case\'s id, description or tag contains it; tag "warrenty": no case has it (did you mean "warranty"?); the tags: smoke, warranty; tag "slow": no case has it; the tags: smoke, warranty'
    )
    const together = Either.getOrThrowWith(Either.flip(EvalSelection.select(cases, { patterns: ["no-serial"], tags: ["smoke"] })), () => new Error("selected"))
    expect(together.problems.map((p) => p.kind)).toStrictEqual(["together"])
  })
})

describe("EvalSelection.forEachUntil", () => {
  const run = (evalCase: EvalCase.EvalCase) => Effect.as(Effect.sleep(evalCase.id === "kettle" ? "1 second" : "3 seconds"), evalCase.id)

  it.effect("without bail, runs every case and keeps case order", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(EvalSelection.forEachUntil(cases, run, { concurrency: 2, failed: () => true }))
      yield* TestClock.adjust("10 seconds")
      const outcome = yield* fiber.await.pipe(Effect.flatten)
      expect(outcome).toStrictEqual({ results: ["kettle", "toaster", "no-serial"], notRun: [] })
    })
  )

  it.effect("with bail, starts no case once that many have failed; the ones running finish", () =>
    Effect.gen(function* () {
      // kettle fails after 1 s while toaster runs: no-serial is never started, toaster finishes.
      const fiber = yield* Effect.fork(EvalSelection.forEachUntil(cases, run, { concurrency: 2, bail: 1, failed: (id) => id === "kettle" }))
      yield* TestClock.adjust("10 seconds")
      const outcome = yield* fiber.await.pipe(Effect.flatten)
      expect(outcome.results).toStrictEqual(["kettle", "toaster"])
      expect(outcome.notRun.map((c) => c.id)).toStrictEqual(["no-serial"])
    })
  )

  it.effect("a bail that is not a whole number of at least 1 is a defect", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(EvalSelection.forEachUntil(cases, run, { concurrency: 1, bail: 0, failed: () => true }))
      expect(exit._tag).toBe("Failure")
    })
  )
})

describe("EvalReport with a run that stopped early", () => {
  const result = (id: string, status: EvalReport.Status): EvalReport.CaseResult => ({
    id, description: "", expectedScenario: "s", scenario: "s", status, calls: [], mismatches: [], text: "", turns: 1, stopReason: "finished", durationMs: 5
  })
  const stopped = EvalReport.make({ suite: "s", cases: [result("a", "passed"), result("b", "failed")], threshold: 0, durationMs: 10, stopped: { bail: 1, notRun: ["c", "d"] } })

  it("does not pass whatever its pass rate, says which cases were not run, and lists them as skipped in JUnit", () => {
    expect(stopped.summary.ok).toBe(false)
    expect(EvalReport.exitCode(stopped)).toBe(1)
    expect(EvalReport.pretty(stopped)).toContain("stopped after 1 case that did not pass: 2 not run (c, d)")
    const xml = parseXml(EvalReport.junit(stopped))
    const skipped = findAll(xml, "testcase").filter((testcase) => findAll(testcase, "skipped").length > 0)
    expect(skipped.map((testcase) => testcase.attributes.name)).toStrictEqual(["c", "d"])
    expect(findAll(xml, "testsuite")[0]!.attributes.skipped).toBe("2")
    expect(Either.getOrThrow(EvalReport.fromJson(EvalReport.json(stopped)))).toStrictEqual(stopped)
  })

  it("with nothing left out, is judged as a whole run", () => {
    const complete = EvalReport.make({ suite: "s", cases: [result("a", "passed")], durationMs: 10, stopped: { bail: 1, notRun: [] } })
    expect(complete.stopped).toBeUndefined()
    expect(complete.summary.ok).toBe(true)
  })

  it("pretty shows passing cases with their calls, on one line, or not at all", () => {
    const withCall = { ...result("a", "passed"), calls: [{ name: "f", args: {}, response: { ok: 1 }, isError: false, durationMs: 1 }] }
    const report = EvalReport.make({ suite: "s", cases: [withCall, result("b", "failed")], durationMs: 10 })
    expect(EvalReport.pretty(report)).toContain("1. f({}) → {\"ok\":1}")
    expect(EvalReport.pretty(report, { passed: "line" })).not.toContain("1. f(")
    expect(EvalReport.pretty(report, { passed: "line" })).toContain("✓ a")
    expect(EvalReport.pretty(report, { passed: "hidden" })).not.toContain("✓ a")
    expect(EvalReport.pretty(report, { passed: "hidden" })).toContain("✗ b")
  })
})
