import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { Scripted } from "@agentfx/core/testing"
import { EvalCase, EvalReport, EvalRunner, EvalValidator, Scenario } from "@agentfx/tools"
import { implementations, scenarioText, sendEmailYaml } from "./support/warranty.js"

const Triage = Schema.Struct({ category: Schema.String, ticketIds: Schema.Array(Schema.String), replySent: Schema.Boolean })

const scenarios = [Either.getOrThrow(Either.flatMap(Scenario.parse(scenarioText("missing-info", [sendEmailYaml], "Ask."), "missing-info.md"), (d) => Scenario.resolve(d, implementations)))]

const caseOf = (expected_output: unknown) =>
  Either.getOrThrow(EvalCase.make({ id: "c", input: "hello", scenario: "missing-info", expected_function_calls: [], expected_output }))

const describeAll = (evalCase: EvalCase.EvalCase, output: unknown) =>
  EvalValidator.validate(evalCase, { scenario: "missing-info", calls: [], output }).map((mismatch) => EvalValidator.describe(mismatch))

describe("expected_output", () => {
  it("is read from a case file, partial like arguments_contain", () => {
    const [parsed] = Either.getOrThrow(
      EvalCase.parse("id: c\ninput: hi\nscenario: s\nexpected_function_calls: []\nexpected_output:\n  category: repair\n  ticketIds: [T-1]\n", "c.yaml")
    )
    expect(parsed!.expected_output).toEqual({ category: "repair", ticketIds: ["T-1"] })
  })

  it("an empty object, which every output contains, is refused with its line", () => {
    const error = Either.flip(EvalCase.parse("id: c\ninput: hi\nscenario: s\nexpected_function_calls: []\nexpected_output: {}\n", "c.yaml"))
    expect(Either.getOrThrow(error).message).toBe("c.yaml:5: case \"c\": expected_output: an empty object is in every output: name the fields to check, or leave expected_output out")
  })

  it("each field that differs is one mismatch, with its path; fields not named are not checked", () => {
    const evalCase = caseOf({ category: "repair", ticketIds: ["T-1", "T-2"], replySent: true })
    expect(describeAll(evalCase, { category: "repair", ticketIds: ["T-1", "T-2"], replySent: true, extra: 1 })).toEqual([])
    expect(describeAll(evalCase, { category: "refund", ticketIds: ["T-1", "T-9"] })).toEqual([
      'output.category: expected "repair", got "refund"',
      'output.ticketIds[1]: expected "T-2", got "T-9"',
      "output.replySent: expected true, but it is absent"
    ])
  })

  it("a run that gave no decoded output fails the case, saying so", () => {
    expect(describeAll(caseOf({ category: "repair" }), undefined)).toEqual([
      'output: expected {"category":"repair"}, but the run gave no decoded output (is the agent given an output Schema?)'
    ])
    // Without expected_output, the output is not checked.
    expect(EvalValidator.validate(Either.getOrThrow(EvalCase.make({ id: "c", input: "hi", scenario: "missing-info", expected_function_calls: [] })), { scenario: "missing-info", calls: [] })).toEqual([])
  })

  it.effect("the runner gives the agent's output Schema to each case, and reports the decoded output per case", () =>
    Effect.gen(function* () {
      const passing = EvalCase.make({ id: "passes", input: "hi", scenario: "missing-info", expected_function_calls: [], expected_output: { category: "question", replySent: false } })
      const failing = EvalCase.make({ id: "fails", input: "hi", scenario: "missing-info", expected_function_calls: [], expected_output: { category: "repair" } })
      const answer = { text: '{"category": "question", "ticketIds": [], "replySent": false}' }
      const report = yield* EvalRunner.run([Either.getOrThrow(passing), Either.getOrThrow(failing)], {
        scenarios,
        model: Scripted.layer([answer]),
        agent: { output: Triage }
      })
      expect(report.cases.map((result) => [result.id, result.status, result.output])).toEqual([
        ["passes", "passed", { category: "question", ticketIds: [], replySent: false }],
        ["fails", "failed", { category: "question", ticketIds: [], replySent: false }]
      ])
      expect(report.cases[1]!.mismatches).toEqual([{ _tag: "OutputMismatch", path: "category", problem: "different", expected: "repair", actual: "question" }])
      expect(EvalReport.pretty(report)).toContain('    output: {"category":"question","ticketIds":[],"replySent":false}')
      expect(EvalReport.pretty(report)).toContain('output.category: expected "repair", got "question"')
      expect(Either.getOrThrow(EvalReport.fromJson(EvalReport.json(report)))).toEqual(report)
    }))
})

describe("a scenario's output_schema", () => {
  const withOutput = (schema: string) =>
    `---\nname: s\ndescription: d\navailable_functions: []\noutput_schema: ${schema}\n---\nAnswer.\n`

  it.effect("is read as the Schema of the final answer, which the scenario's runs (and eval cases) give decoded", () =>
    Effect.gen(function* () {
      const definition = Either.getOrThrow(Scenario.parse(withOutput("{ type: object, properties: { category: { type: string } }, required: [category] }"), "s.md"))
      expect(Either.isRight(Schema.decodeUnknownEither(definition.output!)({ category: "repair" }))).toBe(true)
      const scenario = Either.getOrThrow(Scenario.resolve(definition, implementations))
      const evalCase = Either.getOrThrow(EvalCase.make({ id: "c", input: "hi", scenario: "s", expected_function_calls: [], expected_output: { category: "repair" } }))
      const report = yield* EvalRunner.run([evalCase], { scenarios: [scenario], model: Scripted.layer([{ text: '{"category": "repair"}' }]) })
      expect(report.cases[0]).toMatchObject({ status: "passed", output: { category: "repair" } })
    }))

  it("a JSON Schema that cannot be used is a ScenarioFileError naming the line, the field and the path", () => {
    const error = Either.getOrThrow(Either.flip(Scenario.parse(withOutput("{ type: object, properties: { a: { not: { type: string } } } }"), "s.md")))
    expect(error.message).toBe('s.md:5: output_schema: at properties/a: the keyword "not" is not supported (it would not be checked)')
  })
})
