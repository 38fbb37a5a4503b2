import type { Registry } from "@agentfx/core"
import { ScriptedLive, Scripted } from "@agentfx/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import type * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import { EvalCase, EvalRunner, Scenario } from "../src/index.js"
import { checkWarrantyYaml, createTicketYaml, implementations, scenarioText } from "./support/warranty.js"

// Eval cases run as Live sessions (`mode: live`) on a scripted live model: what the model asked for is checked as
// for a REST case.

const slowYaml = `  - name: slow
    description: Takes two seconds
    parameters: { type: object, properties: {} }`

const scenario = (name: string, mode?: "live" | "rest", registry: Registry.Registry<never> = implementations) => {
  const text = scenarioText(name, [checkWarrantyYaml, createTicketYaml, slowYaml], `Rules for ${name}.`)
  const withMode = mode === undefined ? text : text.replace("available_functions:", `mode: ${mode}\navailable_functions:`)
  return Either.getOrThrow(Either.flatMap(Scenario.parse(withMode, `${name}.md`), (d) => Scenario.resolve(d, registry)))
}

const caseOf = (fields: Partial<Schema.Schema.Encoded<typeof EvalCase.CaseFields>> & { readonly id: string }) =>
  Either.getOrThrow(EvalCase.make({ input: `message of ${fields.id}`, scenario: "warranty", mode: "live", expected_function_calls: [], ...fields }))

/** The model: a check for the first message, a ticket for the second, each answered once its calls are. */
const twoMessages = ScriptedLive.conversation([
  { calls: [{ name: "check_warranty", args: { serial_number: "SN-1" } }], text: "It is covered." },
  { calls: [{ name: "create_ticket", args: { serial_number: "SN-1", summary: "kettle" } }, { name: "check_warranty", args: { serial_number: "SN-2" } }], text: "Ticket opened." }
])

const expected = [
  { function_name: "check_warranty", arguments: { serial_number: "SN-1" }, result_contains: { valid: true } },
  { function_name: "create_ticket", arguments_contain: { serial_number: "SN-1" }, result_contains: { ticket_id: "T-9" } },
  { function_name: "check_warranty", arguments: { serial_number: "SN-2" } }
]

const noRest = Scripted.layer([])

describe("EvalRunner, Live cases", () => {
  it.effect("a Live case sends its input, then each follow_up, on a session of the live model: its calls are checked in the order asked, with its mocks, and its answers are its text", () =>
    Effect.gen(function* () {
      const evalCase = caseOf({
        id: "dialogue",
        follow_up: ["Open a ticket."],
        mock_function_responses: { create_ticket: { response: { ticket_id: "T-9" } } },
        expected_function_calls: expected
      })
      const report = yield* EvalRunner.run([evalCase], { scenarios: [scenario("warranty")], model: noRest, live: { model: ScriptedLive.layer(twoMessages) } })
      const [result] = report.cases
      expect(result).toMatchObject({ status: "passed", text: "It is covered.\nTicket opened.", turns: 2, stopReason: "finished", mismatches: [] })
      expect(result!.calls.map((call) => [call.name, call.args, call.response, call.turn])).toEqual([
        ["check_warranty", { serial_number: "SN-1" }, { valid: true, expires: "2026-01-01" }, 1],
        ["create_ticket", { serial_number: "SN-1", summary: "kettle" }, { ticket_id: "T-9" }, 2],
        ["check_warranty", { serial_number: "SN-2" }, { valid: true, expires: "2026-01-01" }, 2]
      ])
    }))

  it.effect("a wrong expected call fails the case, naming it", () =>
    Effect.gen(function* () {
      const evalCase = caseOf({
        id: "wrong",
        follow_up: ["Open a ticket."],
        mock_function_responses: { create_ticket: { response: { ticket_id: "T-9" } } },
        expected_function_calls: [{ ...expected[0]!, arguments: { serial_number: "SN-7" } }, ...expected.slice(1)]
      })
      const report = yield* EvalRunner.run([evalCase], { scenarios: [scenario("warranty")], model: noRest, live: { model: ScriptedLive.layer(twoMessages) } })
      expect(report.cases[0]).toMatchObject({ status: "failed", mismatches: [{ _tag: "ArgumentMismatch" }] })
      expect([report.summary.passRate, report.summary.ok]).toEqual([0, false])
    }))

  it.effect("a scenario with mode: live makes its cases Live; a case's own mode: rest wins", () =>
    Effect.gen(function* () {
      const live = Either.getOrThrow(EvalCase.make({ id: "live", input: "hi", scenario: "warranty", expected_function_calls: [{ function_name: "check_warranty" }] }))
      const rest = Either.getOrThrow(EvalCase.make({ id: "rest", input: "hi", scenario: "warranty", mode: "rest", expected_function_calls: [] }))
      const report = yield* EvalRunner.run([live, rest], {
        scenarios: [scenario("warranty", "live")],
        model: Scripted.layer([{ text: "a REST answer" }]),
        live: { model: ScriptedLive.layer(ScriptedLive.conversation([{ calls: [{ name: "check_warranty", args: { serial_number: "SN-1" } }], text: "a Live answer" }])) }
      })
      expect(report.cases.map((result) => [result.id, result.status, result.text])).toEqual([
        ["live", "passed", "a Live answer"],
        ["rest", "passed", "a REST answer"]
      ])
    }))

  it.effect("a call the server cancelled is one the model asked for, read as an error response of type Cancelled", () =>
    Effect.gen(function* () {
      const evalCase = caseOf({
        id: "cancelled",
        expected_function_calls: [{ function_name: "slow", result_contains: { error: { type: "Cancelled" } } }]
      })
      const script = ScriptedLive.conversation([{ calls: [{ name: "slow", id: "s" }], then: [{ cancel: ["s"], after: "100 millis" }], text: "Stopped." }])
      const fiber = yield* Effect.fork(EvalRunner.run([evalCase], { scenarios: [scenario("warranty")], model: noRest, live: { model: ScriptedLive.layer(script) } }))
      yield* TestClock.adjust("100 millis")
      const report = yield* Fiber.join(fiber)
      expect(report.cases[0]).toMatchObject({ status: "passed", text: "Stopped." })
      expect(report.cases[0]!.calls[0]).toMatchObject({ name: "slow", isError: true, response: { error: { type: "Cancelled" } } })
    }))

  it("a case's mode is rest or live; follow_up is a list of messages", () => {
    const made = (fields: Record<string, unknown>) => EvalCase.make({ id: "m", input: "hi", scenario: "warranty", expected_function_calls: [], ...fields } as never)
    expect(Either.getOrThrow(made({ mode: "live", follow_up: ["and?"] }))).toMatchObject({ mode: "live", follow_up: ["and?"] })
    expect(Either.flip(made({ mode: "audio" }))).toMatchObject(Either.right({ _tag: "EvalCaseError", field: "mode" }))
    expect(Either.flip(made({ follow_up: "and?" }))).toMatchObject(Either.right({ _tag: "EvalCaseError", field: "follow_up" }))
  })

  it.effect("a Live case without a live model, and a REST case with follow_up, are errors saying so", () =>
    Effect.gen(function* () {
      const report = yield* EvalRunner.run(
        [caseOf({ id: "no-live" }), caseOf({ id: "rest-follow-up", mode: "rest", follow_up: ["and?"] })],
        { scenarios: [scenario("warranty")], model: noRest }
      )
      expect(report.cases.map((result) => [result.id, result.status, result.error])).toEqual([
        ["no-live", "error", "the case runs as a Live session (mode: live), and the runner was given no live model (`live`)"],
        ["rest-follow-up", "error", "follow_up is sent only in a Live session: give the case (or its scenario) mode: live"]
      ])
    }))

  it.effect("a Live case's answer checks and judge rubrics are checked on its answers' text, as a REST case's are: failed ones are mismatches, the verdicts recorded", () =>
    Effect.gen(function* () {
      const fields = { follow_up: ["Open a ticket."], mock_function_responses: { create_ticket: { response: { ticket_id: "T-9" } } }, expected_function_calls: expected }
      const passing = caseOf({ ...fields, id: "passing", answer_contains: ["covered", "ticket opened"], judge: "says it is covered" })
      const failing = caseOf({ ...fields, id: "failing", answer_contains: "refund", answer_max_chars: 10, judge: "apologises" })
      const judge = (evalCase: EvalCase.EvalCase) =>
        Scripted.layer([{ text: evalCase.id === "failing" ? '{"pass": false, "score": 0, "reason": "no apology"}' : '{"pass": true, "score": 1, "reason": "covered"}' }])
      const live = { model: () => ScriptedLive.layer(twoMessages) }
      const report = yield* EvalRunner.run([passing, failing], { scenarios: [scenario("warranty")], model: noRest, judge, live })
      expect(report.cases.map((result) => result.status)).toEqual(["passed", "failed"])
      expect(report.cases[0]!.verdicts).toEqual([{ rubric: "says it is covered", pass: true, score: 1, reason: "covered" }])
      expect(report.cases[1]!.mismatches.map((mismatch) => [mismatch._tag, "rule" in mismatch ? mismatch.rule : undefined])).toEqual([
        ["AnswerMismatch", "answer_contains"],
        ["AnswerMismatch", "answer_max_chars"],
        ["JudgeMismatch", undefined]
      ])
      const unjudged = yield* EvalRunner.run([passing], { scenarios: [scenario("warranty")], model: noRest, live })
      expect(unjudged.cases[0]).toMatchObject({ status: "error", error: "the case has a judge rubric, and no judge model was given" })
    }))

  it.effect("expected_output on a Live case is refused: by the case file when the case says mode: live, else by the runner before the session starts", () =>
    Effect.gen(function* () {
      const own = EvalCase.parse("id: typed\ninput: hi\nscenario: warranty\nmode: live\nexpected_output: { category: repair }\nexpected_function_calls: []\n", "typed.yaml")
      expect(Either.flip(own).pipe(Either.getOrThrow).message).toBe(
        'typed.yaml:5: case "typed": expected_output: a Live session gives text, not a typed answer: check its text with answer_* or judge instead'
      )
      const ofScenario = Either.getOrThrow(EvalCase.make({ id: "typed", input: "hi", scenario: "warranty", expected_output: { category: "repair" }, expected_function_calls: [] }))
      const report = yield* EvalRunner.run([ofScenario], { scenarios: [scenario("warranty", "live")], model: noRest, live: { model: ScriptedLive.layer(twoMessages) } })
      expect(report.cases[0]).toMatchObject({
        status: "error",
        calls: [],
        error: 'expected_output: the case runs as a Live session (mode: live of scenario "warranty"), which gives text, not a typed answer: check its text with answer_* or judge instead'
      })
    }))

  it.effect("a session that fails is the case's error, with the calls made so far", () =>
    Effect.gen(function* () {
      const script: ScriptedLive.Script = {
        onText: () => [{ calls: [{ name: "check_warranty", args: { serial_number: "SN-1" } }] }],
        onToolResponses: () => [{ drop: 1008, reason: "policy" }]
      }
      const report = yield* EvalRunner.run([caseOf({ id: "ended" })], { scenarios: [scenario("warranty")], model: noRest, live: { model: ScriptedLive.layer(script) } })
      expect(report.cases[0]).toMatchObject({ status: "error", error: "LiveClosed: the live session was closed with code 1008: policy" })
      expect(report.cases[0]!.calls.map((call) => call.name)).toEqual(["check_warranty"])
    }))

  it.effect("a Live case that runs past its timeout is an error with the calls made so far", () =>
    Effect.gen(function* () {
      const script: ScriptedLive.Script = { onText: () => [{ calls: [{ name: "check_warranty", args: { serial_number: "SN-1" } }] }] }
      const fiber = yield* Effect.fork(
        EvalRunner.run([caseOf({ id: "slow" })], { scenarios: [scenario("warranty")], model: noRest, timeout: "5 seconds", live: { model: ScriptedLive.layer(script) } })
      )
      yield* TestClock.adjust("5 seconds")
      const report = yield* Fiber.join(fiber)
      expect(report.cases[0]).toMatchObject({ status: "error", error: "the case timed out after 5s" })
      expect(report.cases[0]!.calls.map((call) => [call.name, call.response])).toEqual([["check_warranty", { valid: true, expires: "2026-01-01" }]])
    }))
})
