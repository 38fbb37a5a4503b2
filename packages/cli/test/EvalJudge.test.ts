import { Contracts } from "@agentfx/cli"
import { EvalJudge, EvalReport } from "@agentfx/tools"
import { Policy } from "@agentfx/emulator"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fs from "node:fs"
import * as path from "node:path"
import { agentfx, emulator, tempDir, writeFiles } from "./support/cli.js"
import { mathScenarioWith } from "./support/scenarios.js"

const mathScenario = mathScenarioWith("Compute with the calculator, then answer in one sentence.")

/** A case whose agent computes 2 + 2 and answers `answer`; `extra` adds fields (a rubric, a recorded verdict). */
const caseText = (id: string, answer: string, extra: string) => `- id: ${id}
  scenario: math
  input: what is 2 + 2?
  expected_function_calls:
    - function_name: calculator
      arguments: { expression: "2 + 2" }
${extra}  x-cassette:
    - calls: [{ name: calculator, args: { expression: "2 + 2" } }]
    - text: ${JSON.stringify(answer)}
`

const cases = [
  caseText("polite", "It is 4, thank you for asking.", `  answer_contains: "4"
  judge: The answer thanks the user
  x-judge-cassette:
    - text: '{"pass": true, "score": 0.9, "reason": "It thanks the user."}'
`),
  caseText("curt", "4.", `  answer_max_chars: 10
  judge: [The answer gives the result, The answer thanks the user]
  x-judge-cassette:
    - text: '{"pass": true, "score": 1, "reason": "It says 4."}'
    - text: '{"pass": false, "score": 0.1, "reason": "No thanks at all."}'
`),
  caseText("unrecorded", "It is 4.", "  judge: The answer is one sentence\n"),
  caseText("long", "It is 4, which is two plus two.", "  answer_max_chars: 10\n  answer_matches: /^It is \\d\\.$/\n")
].join("")

const suite = Effect.gen(function* () {
  const dir = yield* tempDir
  writeFiles(dir, { "scenarios/math.md": mathScenario, "cases/judged.yaml": cases })
  return { dir, args: ["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), "--threshold", "0", "--json"] }
})

const withoutTimes = (report: EvalReport.Report) => ({ ...report, durationMs: 0, cases: report.cases.map((c) => ({ ...c, durationMs: 0, calls: c.calls.map((call) => ({ ...call, durationMs: 0 })) })) })

describe("issue 39 item 3: agentfx eval with answer checks and judge: rubrics", () => {
  it.scopedLive("offline, each rubric's recorded verdict is replayed through the provider code: the same report every run; a failed verdict or answer check fails the case, a rubric with no recorded verdict is an error", () =>
    Effect.gen(function* () {
      const { args } = yield* suite
      const first = yield* agentfx(args)
      expect(first.code).toBe(0)
      expect(first.stderr).toContain(
        "judge: emulator — replays each rubric's recorded verdict in x-judge-cassette (3 of 4 rubrics have one; a case with a rubric that has none is an error) offline through the Gemini provider"
      )
      const report = Either.getOrThrow(EvalReport.fromJson(first.stdout))
      expect(report.cases.map((c) => [c.id, c.status])).toEqual([
        ["polite", "passed"],
        ["curt", "failed"],
        ["unrecorded", "error"],
        ["long", "failed"]
      ])
      expect(report.cases[0]!.verdicts).toEqual([{ rubric: "The answer thanks the user", pass: true, score: 0.9, reason: "It thanks the user." }])
      expect(report.cases[1]!.mismatches).toEqual([{ _tag: "JudgeMismatch", rubric: "The answer thanks the user", reason: "No thanks at all.", score: 0.1 }])
      expect(report.cases[2]!.error).toContain("no recorded verdict for judge rubric 1 (the case has none)")
      expect(report.cases[3]!.mismatches.map((m) => (m._tag === "AnswerMismatch" ? m.rule : m._tag))).toEqual(["answer_matches", "answer_max_chars"])
      const again = yield* agentfx(args)
      expect(withoutTimes(Either.getOrThrow(EvalReport.fromJson(again.stdout)))).toEqual(withoutTimes(report))
    })
  )

  it.scopedLive("the printed report names a failed verdict and a missed answer check", () =>
    Effect.gen(function* () {
      const { args } = yield* suite
      const printed = yield* agentfx(args.filter((arg) => arg !== "--json"))
      expect(printed.stdout).toContain('      - judge: the answer fails "The answer thanks the user" (score 0.1): No thanks at all.')
      expect(printed.stdout).toContain('      - the answer has 31 characters, more than answer_max_chars 10; answer: "It is 4, which is two plus two."')
    })
  )

  it.scopedLive("--judge-provider gemini grades with the real Gemini provider (here on an emulator): the judge's instructions, the rubric, and its verdict in the report", () =>
    Effect.gen(function* () {
      const { args } = yield* suite
      const verdict = '{"pass": true, "score": 0.7, "reason": "graded live"}'
      const server = yield* emulator({ policy: Policy.byModel(new Map([["grader", [{ text: verdict }]]])) })
      const env = { GEMINI_API_KEY: server.apiKey, GEMINI_BASE_URL: server.geminiBaseUrl }
      const result = yield* agentfx([...args, "-t", "polite", "--provider", "emulator", "--judge-provider", "gemini", "--judge-model", "grader"], { env })
      expect(result.code).toBe(0)
      expect(result.stderr).toMatch(/^judge: gemini, model grader at http:\/\/127\.0\.0\.1:\d+ \(chosen with --judge-provider\)$/m)
      const report = Either.getOrThrow(EvalReport.fromJson(result.stdout))
      expect(report.cases[0]!.verdicts).toEqual([{ rubric: "The answer thanks the user", pass: true, score: 0.7, reason: "graded live" }])
      const requests = yield* server.requests
      expect(requests).toHaveLength(1)
      const body = requests[0]!.body as { systemInstruction?: { parts: ReadonlyArray<{ text: string }> }; contents: ReadonlyArray<{ parts: ReadonlyArray<{ text: string }> }> }
      expect(body.systemInstruction?.parts[0]?.text).toBe(EvalJudge.instructions)
      expect(body.contents[0]!.parts[0]!.text).toContain("<answer>\nIt is 4, thank you for asking.\n</answer>")
      expect(body.contents[0]!.parts[0]!.text).toContain("<rubric>\nThe answer thanks the user\n</rubric>")
    })
  )
})

describe("agentfx eval: which model judges", () => {
  const verdict = '{"pass": true, "score": 0.8, "reason": "It thanks the user."}'
  /** The agent's turns of case "polite" (the calculator, then the answer), then the judge's verdict. */
  /** What stderr says before the cases run: the selection, the provider and the judge. */
  const preamble = (stderr: string) => stderr.split("\n").filter((line) => /^(eval: \d+ of |provider: |judge: )/.test(line))
  const politeTurns = [{ calls: [{ name: "calculator", args: { expression: "2 + 2" } }] }, { text: "It is 4, thank you for asking." }]

  it.scopedLive("--judge-provider naming the eval's own provider takes its --model and --base-url", () =>
    Effect.gen(function* () {
      const { args } = yield* suite
      const server = yield* emulator({ policy: Policy.script([...politeTurns, { text: verdict }]) })
      const result = yield* agentfx([...args, "-t", "polite", "--provider", "gemini", "--base-url", server.geminiBaseUrl, "--model", "agent-model", "--judge-provider", "gemini"], {
        env: { GEMINI_API_KEY: server.apiKey }
      })
      expect(result.code).toBe(0)
      const at = server.geminiBaseUrl.replace(/\/+$/, "")
      expect(preamble(result.stderr)).toEqual([
        "eval: 1 of 4 cases selected",
        `provider: gemini, model agent-model at ${at} (chosen with --provider)`,
        `judge: gemini, model agent-model at ${at} (chosen with --judge-provider)`
      ])
      expect((yield* server.requests).map((request) => request.model)).toEqual(["agent-model", "agent-model", "agent-model"])
    })
  )

  it.scopedLive("without --judge-provider the eval's own provider judges, with its --model and --base-url", () =>
    Effect.gen(function* () {
      const { args } = yield* suite
      const server = yield* emulator({ policy: Policy.script([...politeTurns, { text: verdict }]) })
      const result = yield* agentfx([...args, "-t", "polite", "--provider", "gemini", "--base-url", server.geminiBaseUrl, "--model", "agent-model"], {
        env: { GEMINI_API_KEY: server.apiKey }
      })
      expect(result.code).toBe(0)
      expect(preamble(result.stderr).at(-1)).toBe(`judge: gemini, model agent-model at ${server.geminiBaseUrl.replace(/\/+$/, "")} (chosen with --provider)`)
      expect((yield* server.requests).map((request) => request.model)).toEqual(["agent-model", "agent-model", "agent-model"])
    })
  )

  it.scopedLive("--judge-provider naming another provider takes that provider's own model and base URL, not the eval's", () =>
    Effect.gen(function* () {
      const { args } = yield* suite
      const agent = yield* emulator({ policy: Policy.script(politeTurns) })
      const judge = yield* emulator({ policy: Policy.script([{ text: verdict }]) })
      const result = yield* agentfx([...args, "-t", "polite", "--provider", "gemini", "--base-url", agent.geminiBaseUrl, "--model", "agent-model", "--judge-provider", "openai"], {
        env: { GEMINI_API_KEY: agent.apiKey, OPENAI_API_KEY: judge.apiKey, OPENAI_BASE_URL: judge.openAIBaseUrl() }
      })
      expect(result.code).toBe(0)
      expect(preamble(result.stderr).at(-1)).toBe(`judge: openai, model gpt-4.1-mini at ${judge.openAIBaseUrl()} (chosen with --judge-provider)`)
      expect((yield* judge.requests).map((request) => request.model)).toEqual(["gpt-4.1-mini"])
      expect(Either.getOrThrow(EvalReport.fromJson(result.stdout)).cases[0]!.verdicts).toEqual([{ rubric: "The answer thanks the user", pass: true, score: 0.8, reason: "It thanks the user." }])
    })
  )

  it.scopedLive("--judge-provider emulator with a real provider for the agent: the rubrics' recorded verdicts are replayed, the agent's turns asked of its provider; the judge's line says the flag chose it (it said \"chosen with --judge-provider: set one to use a real model\")", () =>
    Effect.gen(function* () {
      const { args } = yield* suite
      const agent = yield* emulator({ policy: Policy.script(politeTurns) })
      const result = yield* agentfx([...args, "-t", "polite", "--provider", "gemini", "--base-url", agent.geminiBaseUrl, "--judge-provider", "emulator"], {
        env: { GEMINI_API_KEY: agent.apiKey }
      })
      expect(result.code).toBe(0)
      expect(preamble(result.stderr)).toEqual([
        "eval: 1 of 4 cases selected",
        `provider: gemini, model gemini-2.5-flash at ${agent.geminiBaseUrl} (chosen with --provider)`,
        "judge: emulator — replays each rubric's recorded verdict in x-judge-cassette (1 of 1 rubrics have one) offline through the Gemini provider, no network. Chosen with --judge-provider."
      ])
      expect((yield* agent.requests).map((request) => request.model)).toEqual(["gemini-2.5-flash", "gemini-2.5-flash"])
      // The recorded verdict, not one of the agent's server.
      expect(Either.getOrThrow(EvalReport.fromJson(result.stdout)).cases[0]!.verdicts).toEqual([{ rubric: "The answer thanks the user", pass: true, score: 0.9, reason: "It thanks the user." }])
    })
  )

  it.scopedLive("no case with a rubric: no judge is named, even with --judge-provider", () =>
    Effect.gen(function* () {
      const { args } = yield* suite
      const result = yield* agentfx([...args, "-t", "long", "--judge-provider", "gemini", "--judge-model", "grader"])
      expect(result.code).toBe(0)
      expect(preamble(result.stderr)).toEqual(["eval: 1 of 4 cases selected", expect.stringMatching(/^provider: emulator — /)])
    })
  )
})

const typedScenario = mathScenario.replace(
  "---\nCompute",
  "output_schema: { type: object, properties: { result: { type: number }, words: { type: string } }, required: [result, words] }\n---\nCompute"
)

/** A case of the typed scenario whose agent answers `answer` (JSON), with a judged rubric and an expected output. */
const typedCase = (id: string, answer: object, verdict: boolean) => `- id: ${id}
  scenario: math
  input: what is 2 + 2?
  expected_function_calls:
    - function_name: calculator
  expected_output: { result: 4 }
  judge: The answer says the result in words
  x-judge-cassette:
    - text: '${JSON.stringify({ pass: verdict, score: verdict ? 1 : 0, reason: verdict ? "It says four." : "No words." })}'
  x-cassette:
    - calls: [{ name: calculator, args: { expression: "2 + 2" } }]
    - text: '${JSON.stringify(answer)}'
`

describe("agentfx eval: typed output, judges and --bail together", () => {
  it.scopedLive("offline: the decoded output and the verdicts are checked; --json decodes with the eval contract exactly, the HTML report shows both, and --baseline compares with a report that had neither", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, {
        "scenarios/math.md": typedScenario,
        "cases/typed.yaml": [
          typedCase("right", { result: 4, words: "four" }, true),
          typedCase("wrong", { result: 5, words: "five" }, false),
          typedCase("after", { result: 4, words: "four" }, true)
        ].join("")
      })
      const args = ["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), "--concurrency", "1"]
      const html = path.join(dir, "report.html")
      const bailed = yield* agentfx([...args, "--json", "--bail", "--report-html", html])
      expect(bailed.code).toBe(1)
      const report = Contracts.decode(Contracts.Eval.Report)(bailed.stdout)
      expect(report.cases.map((c) => [c.id, c.status, c.output, c.verdicts?.map((v) => v.pass)])).toEqual([
        ["right", "passed", { result: 4, words: "four" }, [true]],
        ["wrong", "failed", { result: 5, words: "five" }, [false]]
      ])
      expect(report.cases[1]!.mismatches.map((m) => m._tag)).toEqual(["OutputMismatch", "JudgeMismatch"])
      expect(report.stopped).toEqual({ bail: 1, notRun: ["after"] })
      const page = fs.readFileSync(html, "utf8")
      expect(page).toContain("output.result: expected 4, got 5")
      expect(page).toContain("judge: the answer fails &quot;The answer says the result in words&quot; (score 0): No words.")
      expect(page).toContain("<td>No words.</td>")

      // The baseline: the same cases before the scenario had an output Schema or the cases a rubric.
      writeFiles(dir, { "earlier/typed.yaml": ["right", "wrong", "after"].map((id) => `- id: ${id}\n  scenario: math\n  input: what is 2 + 2?\n  expected_function_calls: [{ function_name: calculator }]\n  x-cassette:\n    - calls: [{ name: calculator, args: { expression: "2 + 2" } }]\n    - text: four\n`).join(""), "plain/math.md": mathScenario })
      const earlier = path.join(dir, "earlier.json")
      const before = yield* agentfx(["eval", path.join(dir, "earlier"), "--scenarios", path.join(dir, "plain"), "--report-json", earlier])
      expect(before.code).toBe(0)
      const compared = yield* agentfx([...args, "--threshold", "0", "--baseline", earlier, "--json"])
      expect(compared.code).toBe(0)
      expect(Contracts.decode(Contracts.Eval.Report)(compared.stdout).cases.map((c) => c.status)).toEqual(["passed", "failed", "passed"])
      expect(compared.stderr).toContain("  newly failing  wrong  passed → failed")
    }))
})
