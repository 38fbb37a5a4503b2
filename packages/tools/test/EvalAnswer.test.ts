import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Schema from "effect/Schema"
import { Scripted } from "@agentfx/core/testing"
import { EvalCase, EvalJudge, EvalReport, EvalRunner, EvalValidator, Scenario } from "@agentfx/tools"
import { checkWarrantyYaml, implementations, scenarioText } from "./support/warranty.js"

type Fields = Partial<Schema.Schema.Encoded<typeof EvalCase.CaseFields>>
const caseOf = (fields: Fields) => Either.getOrThrow(EvalCase.make({ id: "c", input: "My kettle SN-1 broke.", scenario: "s", expected_function_calls: [], ...fields }))
const answerCheck = (fields: Fields, text: string) => EvalValidator.validate(caseOf(fields), { scenario: "s", calls: [], text }).map((m) => EvalValidator.describe(m, 60))
const problems = (text: string) => EvalCase.parseEach(text, "c.yaml").problems.map((p) => p.message)

describe("issue 39 item 3: answer_contains, answer_matches, answer_equals, answer_max_chars", () => {
  it("each check passes an answer that meets it and names what a failing answer misses", () => {
    const answer = "Your kettle is under  warranty.\nTicket T-2001 is open."
    expect(answerCheck({ answer_contains: ["UNDER WARRANTY", "t-2001"], answer_matches: "/ticket T-\\d+/i", answer_equals: ` ${answer} `, answer_max_chars: 60 }, answer)).toStrictEqual([])
    expect(answerCheck({ answer_contains: "refund", answer_matches: "T-\\d{5}", answer_equals: "Done.", answer_max_chars: 10 }, answer)).toStrictEqual([
      'the answer does not contain "refund" (case-insensitive); answer: "Your kettle is under  warranty.\\nTicket T-2001 is open."',
      'the answer does not match T-\\d{5}; answer: "Your kettle is under  warranty.\\nTicket T-2001 is open."',
      'the answer is not "Done."; answer: "Your kettle is under  warranty.\\nTicket T-2001 is open."',
      'the answer has 54 characters, more than answer_max_chars 10; answer: "Your kettle is under  warranty.\\nTicket T-2001 is open."'
    ])
    // Characters, not UTF-16 units: two emoji are two characters.
    expect(answerCheck({ answer_max_chars: 2 }, "👍👍")).toStrictEqual([])
  })

  it("without a text (a case that did not finish) no answer check is made; a case without them checks nothing on the answer", () => {
    expect(EvalValidator.validate(caseOf({ answer_contains: "x" }), { scenario: "s", calls: [] })).toStrictEqual([])
    expect(answerCheck({}, "")).toStrictEqual([])
  })

  it("a pattern that does not compile, is too long or has other flags, an empty phrase or list and a bound below 1 are problems at their line", () => {
    const head = "id: c\ninput: x\nscenario: s\nexpected_function_calls: []\n"
    expect(problems(`${head}answer_matches: "(unclosed"\n`)).toStrictEqual([
      'c.yaml:5: case "c": answer_matches: the pattern does not compile: Invalid regular expression: /(unclosed/: Unterminated group'
    ])
    expect(problems(`${head}answer_matches: /x/g\n`)).toStrictEqual(['c.yaml:5: case "c": answer_matches: the flags "g" are not allowed: use i, m, s or u'])
    expect(problems(`${head}answer_matches: "${"a".repeat(1001)}"\n`)).toStrictEqual(['c.yaml:5: case "c": answer_matches: the pattern is 1001 characters long; at most 1000 are read'])
    expect(problems(`${head}answer_contains: " "\nanswer_max_chars: 0\n`)).toStrictEqual([
      'c.yaml:5: case "c": answer_contains: an empty phrase is in every answer: give the words to look for',
      'c.yaml:6: case "c": answer_max_chars: a bound of at least 1 character'
    ])
    expect(problems(`${head}answer_contains: []\njudge: []\n`)).toStrictEqual([
      'c.yaml:5: case "c": answer_contains: the list is empty: give the words to look for, or leave answer_contains out',
      'c.yaml:6: case "c": judge: the list is empty: give a rubric, or leave judge out'
    ])
    expect(problems(`${head}answer_contans: x\n`)[0]).toContain('unknown field (did you mean "answer_contains"?)')
  })
})

const observed = { text: "Your kettle is covered; ticket T-1.", calls: [{ name: "check_warranty", args: { serial_number: "SN-1" }, response: { valid: true }, isError: false, durationMs: 2 }] }

describe("issue 39 item 3: EvalJudge", () => {
  it("reads a verdict from the judge's answer, a fence or a sentence around it allowed; anything else says why", () => {
    expect(EvalJudge.parseVerdict('```json\n{"pass": true, "score": 0.8, "reason": "ok"}\n```')).toStrictEqual(Either.right({ pass: true, score: 0.8, reason: "ok" }))
    expect(EvalJudge.parseVerdict('Verdict: {"pass": false, "reason": "no ticket"} — done')).toStrictEqual(Either.right({ pass: false, reason: "no ticket" }))
    expect(Either.getLeft(EvalJudge.parseVerdict("It passes."))).toStrictEqual(Either.getLeft(Either.left('its answer holds no JSON object: "It passes."')))
    const wrong = Either.flip(EvalJudge.parseVerdict('{"pass": "yes", "reason": "ok", "score": 3}')).pipe(Either.getOrThrow)
    expect(wrong).toMatch(/^its answer is not a verdict \(\{"pass", "score", "reason"\}\): .*pass.*; it said: /)
  })

  it.effect("grades with the model in context: one request with the instructions, and the request, calls, answer and rubric between tags", () =>
    Effect.gen(function* () {
      const context = yield* Scripted.make([{ text: '{"pass": true, "score": 1, "reason": "It names the ticket."}' }])
      const verdict = yield* EvalJudge.grade(caseOf({}), observed, "The reply names the ticket").pipe(Effect.provide(context))
      expect(verdict).toStrictEqual({ pass: true, score: 1, reason: "It names the ticket." })
      const [request] = yield* Effect.provide(Effect.flatMap(Scripted.ScriptedModel, (model) => model.requests), context)
      expect(request!.system).toBe(EvalJudge.instructions)
      expect(request!.declarations).toStrictEqual([])
      expect(request!.transcript).toHaveLength(1)
      const text = request!.transcript[0]!.parts.map((part) => (part._tag === "Text" ? part.text : "")).join("")
      expect(text).toBe(
        '<request>\nMy kettle SN-1 broke.\n</request>\n\n<calls>\n1. check_warranty({"serial_number":"SN-1"}) → {"valid":true}\n</calls>\n\n<answer>\nYour kettle is covered; ticket T-1.\n</answer>\n\n<rubric>\nThe reply names the ticket\n</rubric>'
      )
    })
  )

  it.effect("judgeCase: every rubric graded in order, a failed verdict a mismatch; an unreadable verdict or no judge is the case's error", () =>
    Effect.gen(function* () {
      const evalCase = caseOf({ judge: ["names the ticket", "apologises"] })
      // One scripted model per rubric, so each sees a fresh conversation.
      const perRubric = (_: EvalCase.EvalCase, index: number) => Scripted.layer([[{ text: '{"pass": true, "reason": "yes"}' }, { text: '{"pass": false, "score": 0.2, "reason": "no apology"}' }][index]!])
      const graded = yield* EvalJudge.judgeCase(evalCase, observed, perRubric)
      expect(graded.verdicts).toStrictEqual([
        { rubric: "names the ticket", pass: true, reason: "yes" },
        { rubric: "apologises", pass: false, score: 0.2, reason: "no apology" }
      ])
      expect(graded.mismatches.map((m) => EvalValidator.describe(m))).toStrictEqual(['judge: the answer fails "apologises" (score 0.2): no apology'])
      expect(yield* Effect.flip(EvalJudge.judgeCase<never>(evalCase, observed, undefined))).toBe("the case has judge rubrics, and no judge model was given")
      const unreadable = yield* Effect.flip(EvalJudge.judgeCase(caseOf({ judge: "x" }), observed, Scripted.layer([{ text: "Looks fine to me." }])))
      expect(unreadable).toBe('the judge could not grade "x": its answer holds no JSON object: "Looks fine to me."')
      expect(yield* EvalJudge.judgeCase<never>(caseOf({}), observed, undefined)).toStrictEqual({ verdicts: [], mismatches: [] })
    })
  )

  it("replay: each rubric's recorded turn under its own model name; a rubric without one, or an invalid cassette, says so", () => {
    const recorded = Either.getOrThrow(
      EvalCase.make({ id: "a", input: "x", scenario: "s", judge: ["one", "two"], expected_function_calls: [] })
    )
    const withCassette = { ...recorded, extensions: { [EvalJudge.cassetteField]: [{ text: '{"pass": true, "reason": "ok"}' }] } }
    const invalid = { ...recorded, id: "b", extensions: { [EvalJudge.cassetteField]: [{ txt: "x" }] } }
    const plan = EvalJudge.replay([withCassette, invalid])
    expect([...plan.scripts.keys()]).toStrictEqual(["case-0-judge-0"])
    expect([plan.recorded, plan.total]).toStrictEqual([1, 4])
    expect(plan.modelOf(withCassette, 0)).toStrictEqual(Either.right("case-0-judge-0"))
    expect(Either.flip(plan.modelOf(withCassette, 1)).pipe(Either.getOrThrow).message).toBe(
      '<inline>: case "a": the cassette is invalid: x-judge-cassette: no recorded verdict for judge rubric 2 (it holds 1): grade it with a real model (--judge-provider) to record one'
    )
    expect(Either.flip(plan.modelOf(invalid, 0)).pipe(Either.getOrThrow).message).toMatch(/x-judge-cassette\[0\]\.txt: unknown field/)
  })
})

describe("issue 39 item 3: the runner checks the answer and asks the judge", () => {
  const scenario = Either.getOrThrow(Either.flatMap(Scenario.parse(scenarioText("s", [checkWarrantyYaml]), "s.md"), (d) => Scenario.resolve(d, implementations)))
  const agent = Scripted.layer([Scripted.call("check_warranty", { serial_number: "SN-1" }), { text: "Covered until 2026; ticket T-1." }])

  it.effect("answer checks and verdicts land in the result: failed ones as mismatches, the verdicts recorded; no judge for a case with rubrics: an error", () =>
    Effect.gen(function* () {
      const passing = caseOf({ answer_contains: "T-1", judge: "names the ticket", expected_function_calls: [{ function_name: "check_warranty" }] })
      const failing = { ...caseOf({ answer_contains: "refund", judge: "apologises", expected_function_calls: [{ function_name: "check_warranty" }] }), id: "f" }
      const judge = (evalCase: EvalCase.EvalCase) =>
        Scripted.layer([{ text: evalCase.id === "f" ? '{"pass": false, "score": 0, "reason": "no apology"}' : '{"pass": true, "score": 1, "reason": "T-1 is named"}' }])
      const report = yield* EvalRunner.run([passing, failing], { scenarios: [scenario], model: () => agent, judge })
      expect(report.cases.map((c) => c.status)).toStrictEqual(["passed", "failed"])
      expect(report.cases[0]!.verdicts).toStrictEqual([{ rubric: "names the ticket", pass: true, score: 1, reason: "T-1 is named" }])
      expect(report.cases[1]!.mismatches.map((m) => m._tag)).toStrictEqual(["AnswerMismatch", "JudgeMismatch"])
      // The report round-trips through JSON, verdicts and the new mismatches included.
      expect(Either.getOrThrow(EvalReport.fromJson(EvalReport.json(report)))).toStrictEqual(report)
      const unjudged = yield* EvalRunner.run([passing], { scenarios: [scenario], model: () => agent })
      expect(unjudged.cases[0]).toMatchObject({ status: "error", error: "the case has a judge rubric, and no judge model was given" })
    })
  )
})
