import { Agent, LanguageModel, Output, Registry, Turn } from "@agentfx/core"
import { Io, Provider } from "@agentfx/cli"
import { Emulator, Policy } from "@agentfx/emulator"
import { Gemini } from "@agentfx/providers"
import { Cassette, EvalCase, EvalJudge, EvalReport } from "@agentfx/tools"
import { describe, expect, it } from "@effect/vitest"
import * as FileSystem from "@effect/platform/FileSystem"
import { NodeContext } from "@effect/platform-node"
import { Context, Effect, Either, Layer, Redacted } from "effect"
import { fileURLToPath } from "node:url"
import * as NodePath from "node:path"
import { tmpdir } from "node:os"
import { reportPaths } from "../src/arguments.js"
import * as ModelSource from "../src/ModelSource.js"
import { processEmail } from "../src/Pipeline.js"
import { judgeKey, Recorder, storeCassettes } from "../src/Recorder.js"
import * as Sample from "../src/Sample.js"
import * as Suite from "../src/Suite.js"
import * as Tools from "../src/tools.js"
import { TriageReport } from "../src/TriageReport.js"
import { demoWarranties, Mailer, Ticketing, WarrantyRegistry } from "../src/Warranty.js"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const directories = { scenarios: here("../scenarios"), evals: here("../evals"), samples: here("../samples") }
const offline = ModelSource.offline
const backOffice = Layer.mergeAll(NodeContext.layer, Ticketing.sequential, Mailer.inMemory, WarrantyRegistry.fromTable(demoWarranties))
const loadAll = Effect.flatMap(Registry.make(...Tools.all), (implementations) => Suite.load(directories, implementations))
/** A final answer the triage report decodes from. */
const triage = (fields: Partial<TriageReport>): string =>
  JSON.stringify({ category: "repair", serials: [], ticketIds: [], replySent: false, summary: "done", ...fields } satisfies TriageReport)

describe("warranty demo", () => {
  it.live("the eval suite passes offline: every case, through the emulator and the real Gemini layer", () =>
    Effect.gen(function* () {
      const { scenarios, cases } = yield* loadAll
      expect(cases.length).toBeGreaterThanOrEqual(16)
      expect(new Set(cases.map((c) => c.scenario))).toEqual(new Set(["valid-warranty", "invalid-warranty", "missing-info", "degradation"]))
      const report = yield* Suite.run({ scenarios, cases, source: offline })
      const failures = report.cases.filter((c) => c.status !== "passed").map((c) => `${c.id}: ${JSON.stringify(c)}`)
      expect(failures).toEqual([])
      expect(report.summary).toMatchObject({ total: cases.length, passed: cases.length, ok: true })
    }).pipe(Effect.provide(backOffice)))

  it.effect("every scenario's output_schema is the TriageReport Schema's JSON Schema, so the CLI's evals check what the demo decodes", () =>
    Effect.gen(function* () {
      const { scenarios } = yield* loadAll
      const expected = Either.getOrThrow(Output.declare(TriageReport)).schema
      for (const scenario of scenarios) expect(Either.getOrThrow(Output.declare(scenario.output!)).schema).toEqual(expected)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.live("a case whose cassette calls the wrong function fails with a precise mismatch", () =>
    Effect.gen(function* () {
      const { scenarios, cases } = yield* loadAll
      const original = cases.find((c) => c.id === "vw-kettle")!
      // The judge's recorded verdict stays: only the agent's cassette is tampered with.
      const judged = { "x-judge-cassette": original.extensions["x-judge-cassette"] }
      const tampered: EvalCase.EvalCase = {
        ...original,
        extensions: { ...judged, "x-cassette": [{ calls: [{ name: "send_email", args: { to: "ada@example.com", subject: "Re: x", body: "no ticket" } }] }, { text: triage({ replySent: true }) }] }
      }
      const report = yield* Suite.run({ scenarios, cases: [tampered], source: offline })
      expect(report.cases[0]!.status).toBe("failed")
      expect(EvalReport.pretty(report)).toContain("check_warranty")
      // The one replay rule: a case without a cassette is answered by the offline rule model (which cannot do
      // this job); a case whose cassette is invalid is an error case, with the reason.
      const unrecorded = yield* Suite.run({ scenarios, cases: [{ ...original, extensions: judged }], source: offline })
      expect(unrecorded.cases[0]!.status).toBe("failed")
      const broken = yield* Suite.run({ scenarios, cases: [{ ...original, extensions: { ...judged, "x-cassette": [{ nothing: "here" }] } }], source: offline })
      expect(broken.cases[0]!.status).toBe("error")
      expect(EvalReport.pretty(broken)).toContain("the cassette is invalid")
    }).pipe(Effect.provide(backOffice)))

  it.live("triage mocks that cannot answer make the case an error that says so, not a case routed to the outage scenario", () =>
    Effect.gen(function* () {
      const { scenarios, cases } = yield* loadAll
      const original = cases.find((c) => c.id === "vw-kettle")!
      const withWarrantyMock = (check_warranty: ReadonlyArray<EvalCase.MockResponse>): EvalCase.EvalCase => ({
        ...original,
        mock_function_responses: { ...original.mock_function_responses, check_warranty: check_warranty as EvalCase.EvalCase["mock_function_responses"][string] }
      })
      const report = yield* Suite.run({
        scenarios,
        cases: [
          withWarrantyMock([{ when: { serial_number: "SN-OTHER01" }, response: { serial_number: "SN-OTHER01", status: "active" } }]),
          withWarrantyMock([{ response: { serial_number: "SN-KT2024A", status: "Active" } }])
        ],
        source: offline
      })
      expect(report.cases.map((c) => [c.status, c.scenario])).toEqual([["error", undefined], ["error", undefined]])
      expect(report.cases[0]!.error).toBe("the scenario could not be chosen: the case's check_warranty mocks answer nothing for SN-KT2024A, a serial number its e-mail mentions")
      expect(report.cases[1]!.error).toMatch(/^the scenario could not be chosen: the case's check_warranty mock for SN-KT2024A is not a warranty record: /)
      // An `error:` entry is what stands for an outage: that case goes to the degradation scenario.
      const outage = yield* Suite.run({ scenarios, cases: [withWarrantyMock([{ error: "the warranty service is down" }])], source: offline })
      expect(outage.cases[0]!.scenario).not.toBe("valid-warranty")
      expect(outage.cases[0]!.mismatches).toContainEqual(expect.objectContaining({ _tag: "ScenarioMismatch", expected: "valid-warranty" }))
    }).pipe(Effect.provide(backOffice)))

  it.live("every sample is processed and answered by its scenario, with its typed triage report", () =>
    Effect.gen(function* () {
      const { scenarios } = yield* loadAll
      const samples = yield* Sample.loadDirectory(directories.samples)
      const seen: Array<string> = []
      const reports: Array<TriageReport> = []
      for (const sample of samples) {
        const warranties = sample.warranty_service === "down" ? WarrantyRegistry.down : WarrantyRegistry.fromTable(demoWarranties)
        const processed = yield* processEmail(sample.email, scenarios).pipe(Effect.provide(Layer.merge(ModelSource.layer(offline, sample.cassette), warranties)))
        seen.push(processed.scenario)
        reports.push(processed.triage)
        expect(processed.reply.to).toBe(processed.email.address)
      }
      expect(seen).toEqual(["valid-warranty", "invalid-warranty", "missing-info", "degradation"])
      expect(reports.map((report) => [report.category, report.ticketIds, report.replySent])).toEqual([
        ["repair", ["T-1001"], true],
        ["not-covered", [], true],
        ["needs-info", [], true],
        ["follow-up", [], true]
      ])
      const outbox = yield* Effect.flatMap(Mailer, (mailer) => mailer.outbox)
      expect(outbox).toHaveLength(4)
    }).pipe(Effect.provide(backOffice)))

  it.live("no reply sent is a ProcessingError naming the scenario; a malformed e-mail is an EmailParseError", () =>
    Effect.gen(function* () {
      const { scenarios } = yield* loadAll
      const email = "From: a@example.com\nSubject: Kettle\n\nMy kettle SN-KT2024A is broken."
      const silent = yield* Effect.flip(
        processEmail(email, scenarios).pipe(Effect.provide(ModelSource.layer(offline, [{ text: triage({ summary: "I will not reply." }) }])))
      )
      expect(silent).toMatchObject({ _tag: "ProcessingError", scenario: "valid-warranty", reason: "the agent finished without sending a reply" })
      const malformed = yield* Effect.flip(processEmail("no headers at all", scenarios).pipe(Effect.provide(ModelSource.layer(offline, [{ text: "x" }]))))
      expect(malformed._tag).toBe("EmailParseError")
    }).pipe(Effect.provide(backOffice)))

  it.effect("--record stores each case's model turns as its x-cassette, and the file still loads", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ directory: tmpdir() })
      const file = NodePath.join(dir, "cases.yaml")
      yield* fs.writeFileString(file, "# kept comment\n- id: a\n  scenario: missing-info\n  input: hi\n  expected_function_calls: []\n- id: b\n  scenario: missing-info\n  input: yo\n  expected_function_calls: []\n")
      const recorder = new Recorder()
      const turns: ReadonlyArray<Turn.Turn> = [
        { role: "model", parts: [{ _tag: "FunctionCall", id: "1", name: "send_email", args: { to: "x@example.com", subject: "s", body: "b" } }] },
        Turn.model("sent")
      ]
      for (const turn of turns) recorder.record("a", turn)
      expect(yield* storeCassettes(file, recorder, [{ id: "a", status: "passed" }, { id: "b", status: "passed" }])).toEqual({
        stored: ["a"],
        notStored: [{ id: "b", reason: "the model produced no turns for it" }]
      })
      const text = yield* fs.readFileString(file)
      expect(text).toContain("# kept comment")
      const [a, b] = yield* EvalCase.load(file)
      expect(a!.extensions["x-cassette"]).toEqual([{ calls: [{ name: "send_email", args: { to: "x@example.com", subject: "s", body: "b" } }] }, { text: "sent" }])
      expect(b!.extensions["x-cassette"]).toBeUndefined()
      expect(Either.isRight(Cassette.decode(a!.extensions["x-cassette"], "a"))).toBe(true)
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)))

  it.effect("--record stores only the cases whose run completed: one that ended in an error keeps its cassette, and is named with the reason", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ directory: tmpdir() })
      const file = NodePath.join(dir, "cases.yaml")
      const good = "  x-cassette:\n    - calls: [{ name: send_email, args: { to: a@example.com, subject: s, body: good } }]\n    - text: sent\n"
      const one = (id: string) => `- id: ${id}\n  scenario: missing-info\n  input: hi\n  expected_function_calls: []\n`
      yield* fs.writeFileString(file, `${one("cut")}${good}${one("wrong")}${one("right")}`)
      const recorder = new Recorder()
      // The run of "cut" stopped after its first turn (the provider failed): that turn alone is not the conversation.
      recorder.record("cut", { role: "model", parts: [{ _tag: "FunctionCall", id: "1", name: "send_email", args: { to: "a@example.com", subject: "s", body: "half" } }] })
      recorder.record("wrong", Turn.model("I will not reply."))
      recorder.record("right", Turn.model("done"))
      const results = [
        { id: "cut", status: "error" as const, error: "bad key" },
        { id: "wrong", status: "failed" as const },
        { id: "right", status: "passed" as const }
      ]
      const outcome = yield* storeCassettes(file, recorder, results)
      expect(outcome).toEqual({ stored: ["wrong", "right"], notStored: [{ id: "cut", reason: "the run ended in an error (bad key); its cassette is left as it was" }] })
      const [cut, wrong, right] = yield* EvalCase.load(file)
      expect(cut!.extensions["x-cassette"]).toEqual([{ calls: [{ name: "send_email", args: { to: "a@example.com", subject: "s", body: "good" } }] }, { text: "sent" }])
      expect(wrong!.extensions["x-cassette"]).toEqual([{ text: "I will not reply." }])
      expect(right!.extensions["x-cassette"]).toEqual([{ text: "done" }])
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)))

  it.effect("every case and sample of the demo loads, and every cassette decodes under the strict rules", () =>
    Effect.gen(function* () {
      const { cases } = yield* loadAll
      const problems = cases.flatMap((c) => {
        const cassette = Cassette.ofCase(c)
        return cassette !== undefined && Either.isLeft(cassette) ? [cassette.left.message] : []
      })
      expect(problems).toEqual([])
      expect(cases.filter((c) => Cassette.ofCase(c) !== undefined).length).toBeGreaterThanOrEqual(16)
      expect((yield* Sample.loadDirectory(directories.samples)).length).toBe(4)
    }).pipe(Effect.provide(backOffice)))
})

describe("issue 39 item 3: the demo's judge: rubrics and answer checks", () => {
  it.live("offline, the recorded verdicts are replayed through the real Gemini layer: every rubric graded, the same verdicts every run", () =>
    Effect.gen(function* () {
      const { scenarios, cases } = yield* loadAll
      const judged = cases.filter((c) => (c.judge?.length ?? 0) > 0)
      expect(judged.map((c) => c.id)).toEqual(["dg-service-down", "iw-expired-blender", "vw-kettle"])
      const first = yield* Suite.run({ scenarios, cases: judged, source: offline })
      const second = yield* Suite.run({ scenarios, cases: judged, source: offline })
      expect(first.cases.map((c) => c.status)).toEqual(["passed", "passed", "passed"])
      expect(first.cases.map((c) => c.verdicts?.map((v) => [v.pass, v.score]))).toEqual([[[true, 0.9]], [[true, 1], [true, 0.9]], [[true, 0.95]]])
      expect(second.cases.map((c) => c.verdicts)).toEqual(first.cases.map((c) => c.verdicts))
      // Every recorded verdict decodes, one per rubric.
      for (const evalCase of judged) {
        const recorded = EvalJudge.cassetteOf(evalCase)
        expect(recorded !== undefined && Either.isRight(recorded) ? recorded.right.length : -1).toBe(evalCase.judge!.length)
      }
    }).pipe(Effect.provide(backOffice)))

  it.effect("--record stores the judge's turn on each rubric as the case's x-judge-cassette, once every rubric was graded", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ directory: tmpdir() })
      const file = NodePath.join(dir, "cases.yaml")
      const head = (id: string, judge: string) => `- id: ${id}\n  scenario: missing-info\n  input: hi\n  judge: ${judge}\n  expected_function_calls: []\n`
      yield* fs.writeFileString(file, head("a", "[polite, short]") + head("b", "polite"))
      const recorder = new Recorder()
      for (const id of ["a", "b"]) recorder.record(id, Turn.model("sent"))
      recorder.record(judgeKey("a", 0), Turn.model('{"pass": true, "reason": "polite"}'))
      recorder.record(judgeKey("a", 1), Turn.model('{"pass": false, "reason": "long"}'))
      // b's one rubric was not graded (the judge failed): b keeps no judge cassette rather than a partial one.
      yield* storeCassettes(file, recorder, [{ id: "a", status: "failed" }, { id: "b", status: "passed" }])
      const [a, b] = yield* EvalCase.load(file)
      expect(a!.extensions["x-judge-cassette"]).toEqual([{ text: '{"pass": true, "reason": "polite"}' }, { text: '{"pass": false, "reason": "long"}' }])
      expect(b!.extensions["x-judge-cassette"]).toBeUndefined()
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)))
})

describe("issue 39 item 6: where the demo writes its reports", () => {
  it("the JSON at --json, else eval-report.json in the demo's reports folder, and the HTML page beside it", () => {
    expect(reportPaths(undefined, "/demo/reports")).toEqual({ json: "/demo/reports/eval-report.json", html: "/demo/reports/eval-report.html", chosen: false })
    expect(reportPaths("out/run.json", "/demo/reports")).toEqual({ json: "out/run.json", html: "out/run.html", chosen: true })
    expect(reportPaths("out/run", "/demo/reports")).toEqual({ json: "out/run", html: "out/run.html", chosen: true })
  })
})

describe("Recorder.wrap", () => {
  it.live("records every turn the wrapped model produces, generated or streamed", () =>
    Effect.gen(function* () {
      const recorder = new Recorder()
      const cassette: Cassette.Cassette = [{ calls: [{ name: "send_email", args: { to: "a@example.com", subject: "s", body: "b" } }] }, { text: "done" }]
      const { scenarios } = yield* loadAll
      const missingInfo = scenarios.find((s) => s.name === "missing-info")!
      yield* Agent.run({ registry: missingInfo.registry, prompt: "hi", streaming: true }).pipe(
        Effect.provide(recorder.wrap("case", ModelSource.layer(offline, cassette)))
      )
      expect(recorder.cassette("case")).toEqual(cassette)
    }).pipe(Effect.provide(backOffice)))
})

describe("warranty demo against a provider that refuses the key", () => {
  it.scopedLive("the eval suite stops at the first refusal with one error naming the variable and --offline; no case goes on", () =>
    Effect.gen(function* () {
      const { scenarios, cases } = yield* loadAll
      const server = yield* Emulator.make({ policy: Policy.offline })
      const model = yield* Effect.map(Layer.build(Gemini.layer({ apiKey: Redacted.make("not-the-key"), baseUrl: server.geminiBaseUrl })), (context) =>
        Context.get(context, LanguageModel.LanguageModel)
      )
      const source: ModelSource.ModelSource = { _tag: "Online", choice: { name: "gemini", reason: "GEMINI_API_KEY is set" }, model, baseUrl: server.geminiBaseUrl }
      const terminal = yield* Io.memory()
      const io = yield* Effect.provide(Io.Io, terminal.layer)
      const error = yield* Effect.flip(
        Suite.runWithProgress({ scenarios, cases, source, concurrency: 2 }, { io, label: "demo eval suite", onRefusal: (e) => Provider.refused(source.choice, e, "--offline") })
      )
      expect(error.message).toBe("gemini refused the API key (400): check GEMINI_API_KEY, or run offline with --offline")
      expect(error.exitCode).toBe(1)
      expect(yield* terminal.stderr).toBe("")
      expect(ModelSource.describe(source)).toContain(`at ${server.geminiBaseUrl}`)
    }).pipe(Effect.provide(backOffice)))
})
