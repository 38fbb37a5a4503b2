/**
 * The `--json` contracts (`Contracts`, src/contracts/): each command's real output, from the spawned executable, read
 * against its schema exactly — a key the schema does not list fails, and so does one it lists that is missing — for
 * a success and for each way the command fails. A command that fails before it has a document prints nothing on
 * stdout. The JSON Schemas the build writes are the contracts' own, and the package publishes each of them.
 */
import { Contracts } from "@agentfx/cli"
import { Scripted } from "@agentfx/core/testing"
import { DurableAgent } from "@agentfx/durable"
import { Emulator, Fault, Policy } from "@agentfx/emulator"
import { EvalCase, EvalReport, EvalValidator } from "@agentfx/tools"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as fs from "node:fs"
import { createServer } from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Builtins from "../src/Builtins.js"
import * as Executable from "./support/executable.js"
import { repeating } from "./support/mcpServers.js"
import { mathScenario } from "./support/scenarios.js"

let exe: Executable.Executable
// Not execFileSync: bundling can take a minute on a busy machine (see support/executable.ts).
beforeAll(async () => {
  exe = await Executable.build(["run", "eval", "tools", "emulator", "runs"])
}, 180_000)
afterAll(() => exe.remove())

const lines = (text: string): ReadonlyArray<string> => text.split("\n").filter((line) => line !== "")
const quiet = ["--log-level", "error"]

/** A folder of its own under the bundle's (removed with it). */
const folder = (name: string): string => fs.mkdtempSync(path.join(exe.work, `${name}-`))

/** A failure before any document: the exit code, the error on stderr, nothing on stdout. */
const expectNoDocument = (outcome: Executable.Outcome, code: number) => {
  expect([outcome.code, outcome.stdout]).toEqual([code, ""])
  expect(outcome.stderr).toMatch(/^agentfx: /m)
}

/** The durable tests spawn the durable engine several times: seconds each on a loaded machine. */
const durableTimeout = 120_000

describe("the --json contracts, read exactly from the spawned agentfx", () => {
  it("run --json: calls and their answers, a failed call, a run stopped by --max-turns; a key dropped or added fails the contract", async () => {
    const cwd = folder("run")
    const answered = await exe.run(["run", "--json", "what is 2 + 3?"], { cwd })
    expect(answered.code).toBe(0)
    const run = Contracts.decode(Contracts.Run.Run)(answered.stdout)
    expect([run.provider, run.text, run.stopReason, run.calls.map((call) => [call.name, call.args, call.isError, call.turn])]).toEqual([
      "emulator",
      "2 + 3 = 5.",
      { _tag: "Finished" },
      [["calculator", { expression: "2 + 3" }, false, 1]]
    ])
    expect(run.transcript.map((turn) => turn.role)).toEqual(["user", "model", "user", "model"])

    const failedCall = Contracts.decode(Contracts.Run.Run)((await exe.run(["run", "--json", "read the file missing.txt"], { cwd })).stdout)
    expect(failedCall.calls.map((call) => [call.name, call.isError, Object.keys(call.response)])).toEqual([["read_file", true, ["error"]]])

    const capped = Contracts.decode(Contracts.Run.Run)((await exe.run(["run", "--json", "--max-turns", "1", "what is 2 + 3?"], { cwd })).stdout)
    expect([capped.turns, capped.stopReason]).toEqual([1, { _tag: "MaxTurns", maxTurns: 1 }])

    fs.writeFileSync(path.join(cwd, "answer.json"), JSON.stringify({ type: "object", properties: { sum: { type: "number" } }, required: ["sum"] }))
    const typed = Contracts.decode(Contracts.Run.Run)((await exe.run(["run", "--json", "--output-schema", "answer.json", "what is 2 + 3?"], { cwd })).stdout)
    expect(typed.output).toEqual({ sum: expect.any(Number) })
    expect("output" in run).toBe(false)

    // Exact both ways: each key the document has is one the contract needs, and one more anywhere is refused.
    const document = JSON.parse(answered.stdout) as Record<string, unknown> & { calls: Array<Record<string, unknown>>; usage: Record<string, unknown> }
    for (const key of Object.keys(document)) {
      const { [key]: _dropped, ...rest } = document
      expect(() => Contracts.decode(Contracts.Run.Run)(JSON.stringify(rest)), key).toThrow(/is missing/)
    }
    for (const key of Object.keys(document.calls[0]!)) {
      const { [key]: _dropped, ...call } = document.calls[0]!
      expect(() => Contracts.decode(Contracts.Run.Run)(JSON.stringify({ ...document, calls: [call] })), `calls[0].${key}`).toThrow(/is missing/)
    }
    for (const extended of [{ ...document, extra: 1 }, { ...document, calls: [{ ...document.calls[0], extra: 1 }] }, { ...document, usage: { ...document.usage, extra: 1 } }]) {
      expect(() => Contracts.decode(Contracts.Run.Run)(JSON.stringify(extended))).toThrow(/\["extra"\]\n\s+└─ is unexpected/)
    }
  })

  it.scopedLive("run --json that fails prints no document: a model error (exit 1), bad arguments (exit 2)", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.offline })
      yield* emulator.inject(Fault.status(400, { message: "refused for the test" }), { times: 10 })
      const refused = yield* Effect.promise(() =>
        exe.run([...quiet, "run", "--json", "--provider", "gemini", "--base-url", emulator.geminiBaseUrl, "what is 2 + 3?"], { env: { GEMINI_API_KEY: emulator.apiKey } })
      )
      expectNoDocument(refused, 1)
      expect(refused.stderr).toContain("refused for the test")
      expectNoDocument(yield* Effect.promise(() => exe.run(["run", "--json", "--max-turns", "0", "hi"])), 2)
    })
  )

  it("eval --json: a suite that passes; one below its threshold, with a failed and an errored case (exit 1); an input error prints no document (exit 2)", async () => {
    const dir = folder("eval")
    const write = (files: Record<string, string>) => {
      for (const [name, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
        fs.writeFileSync(path.join(dir, name), text)
      }
    }
    write({ "scenarios/math.md": mathScenario, "passing/adds.yaml": passing, "failing/cases.yaml": `${passing}${failing}${broken}`, "bad/case.yaml": "- id: [not, a, string]\n" })
    const scenarios = ["--scenarios", path.join(dir, "scenarios")]

    const passed = await exe.run(["eval", path.join(dir, "passing"), ...scenarios, "--json"])
    expect(passed.code).toBe(0)
    const report = Contracts.decode(Contracts.Eval.Report)(passed.stdout)
    expect([report.suite, report.summary.ok, report.cases.map((result) => result.status)]).toEqual(["passing", true, ["passed"]])

    const below = await exe.run(["eval", path.join(dir, "failing"), ...scenarios, "--json"])
    expect(below.code).toBe(1)
    const failedReport = Contracts.decode(Contracts.Eval.Report)(below.stdout)
    expect(failedReport.cases.map((result) => [result.id, result.status, result.mismatches.map((mismatch) => mismatch._tag)])).toEqual([
      ["adds", "passed", []],
      ["multiplies-wrong", "failed", ["ArgumentMismatch"]],
      ["broken-cassette", "error", []]
    ])
    expect(failedReport.summary).toEqual({ total: 3, passed: 1, failed: 1, errored: 1, passRate: 1 / 3, threshold: 0.99, ok: false })

    expectNoDocument(await exe.run(["eval", path.join(dir, "bad"), ...scenarios, "--json"]), 2)
  })

  it("tools --json: the built-in tools, and with --mcp a server's too; a server that cannot start prints no document (exit 2)", async () => {
    const builtins = await exe.run(["tools", "--json"])
    expect(builtins.code).toBe(0)
    expect(Contracts.decode(Contracts.Tools.Tools)(builtins.stdout).map((tool) => tool.name)).toEqual(["clock", "calculator", "read_file", "list_dir", "fetch_url"])
    const withMcp = await exe.run([...quiet, "tools", "--json", "--mcp", repeating.line])
    expect(withMcp.code).toBe(0)
    expect(Contracts.decode(Contracts.Tools.Tools)(withMcp.stdout).map((tool) => tool.name)).toEqual(["clock", "calculator", "read_file", "list_dir", "fetch_url", "shout"])
    expectNoDocument(await exe.run(["tools", "--json", "--mcp", path.join(exe.work, "no-such-server")]), 2)
  })

  it("emulator --json: one line once it listens, then nothing until Ctrl-C; a port in use prints no document (exit 1)", async () => {
    let first = ""
    const listening = await exe.run(["emulator", "--json"], {
      whileRunning: (child) =>
        child.stdout.on("data", (chunk: string) => {
          first += chunk
          if (first.includes("\n")) child.kill("SIGINT")
        })
    })
    expect([listening.code, lines(listening.stdout).length]).toEqual([130, 1])
    const banner = Contracts.decode(Contracts.Emulator.Emulator)(listening.stdout)
    expect(banner.gemini).toBe(banner.url)

    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    try {
      const port = (taken.address() as { port: number }).port
      expectNoDocument(await exe.run(["emulator", "--json", "--port", String(port)]), 1)
    } finally {
      taken.close()
    }
  })

  it("run --durable --json and runs --json: an empty store listed; a run finished, listed and shown", async () => {
    const store = path.join(folder("runs"), "runs.db")
    const runs = (...args: ReadonlyArray<string>) => exe.run([...quiet, ...args, "--store", store])
    expect(Contracts.decode(Contracts.Runs.List)((await runs("runs", "list", "--json")).stdout)).toEqual([])
    const finished = await runs("run", "--durable", "--json", "--run-id", "sum", "what is 2 + 3?")
    expect(finished.code).toBe(0)
    const outcome = Contracts.decode(Contracts.Runs.Outcome)(finished.stdout)
    expect(outcome.state === "Finished" ? outcome.calls.map((call) => call.name) : outcome).toEqual(["calculator"])
    const listed = Contracts.decode(Contracts.Runs.List)((await runs("runs", "list", "--json")).stdout)
    expect(listed.map((run) => [run.runId, run.state])).toEqual([["sum", "Finished"]])
    const shown = Contracts.decode(Contracts.Runs.Show)((await runs("runs", "show", "sum", "--json")).stdout)
    expect(shown.events.map(({ event }) => event._tag)).toEqual(["TurnFinished", "CallStarted", "CallFinished", "TurnFinished", "Done"])
  }, durableTimeout)

  it("run --durable --json and runs --json: a run waiting for a call, shown", async () => {
    const store = path.join(folder("runs"), "runs.db")
    const runs = (...args: ReadonlyArray<string>) => exe.run([...quiet, ...args, "--store", store])
    const waiting = await runs("run", "--durable", "--json", "--run-id", "web", "--allow-host", "127.0.0.1", "fetch http://127.0.0.1:9/x")
    expect(waiting.code).toBe(0)
    const parked = Contracts.decode(Contracts.Runs.Outcome)(waiting.stdout)
    expect(parked.state === "Waiting" ? parked.pending.map((call) => [call.name, call.deadline]) : parked).toEqual([["fetch_url", null]])
    const shown = Contracts.decode(Contracts.Runs.Show)((await runs("runs", "show", "web", "--json")).stdout)
    expect([shown.state, shown.events.map(({ event }) => event._tag)]).toEqual(["Waiting", ["TurnFinished", "ApprovalRequested"]])
  }, durableTimeout)

  it.live("runs show --json and runs resume --json of a cancelled run: Cancelled, and resume exits 1", () =>
    Effect.gen(function* () {
      // Cancelled here, by the process that runs it: `agentfx runs cancel` of a waiting run does not return (see the
      // note in the report of issue 42), so the command is not what cancels it.
      const store = path.join(folder("cancelled"), "runs.db")
      const agent = DurableAgent.make("agentfx", { registry: Builtins.registry({ root: ".", allowHosts: ["127.0.0.1"] }) })
      yield* Effect.gen(function* () {
        yield* agent.start({ runId: "web", prompt: "fetch http://127.0.0.1:9/x" })
        while ((yield* DurableAgent.status("web"))._tag !== "Waiting") yield* Effect.sleep("20 millis")
        yield* DurableAgent.cancel("web")
      }).pipe(
        Effect.provide(
          agent.layer.pipe(
            Layer.provideMerge(DurableAgent.layerSqlite({ filename: store })),
            Layer.provideMerge(Scripted.layer([Scripted.call("fetch_url", { url: "http://127.0.0.1:9/x" }), Scripted.text("never")])),
            Layer.provide(NodeContext.layer),
            // @effect/cluster warns of "no healthy runners" when a runner closes at once; tests print nothing.
            Layer.provide(Logger.minimumLogLevel(LogLevel.Error))
          )
        )
      )
      const runs = (...args: ReadonlyArray<string>) => Effect.promise(() => exe.run([...quiet, ...args, "--store", store]))
      const shown = Contracts.decode(Contracts.Runs.Show)((yield* runs("runs", "show", "web", "--json")).stdout)
      expect([shown.state, shown.events.at(-1)?.event]).toEqual(["Cancelled", { _tag: "Done", outcome: "cancelled", text: null }])
      const resumed = yield* runs("runs", "resume", "web", "--json")
      expect(resumed.code).toBe(1)
      expect(Contracts.decode(Contracts.Runs.Outcome)(resumed.stdout).state).toBe("Cancelled")
    }),
    durableTimeout
  )

  it.scopedLive("run --durable --json of a run the model fails: the Failed outcome, exit 1", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.offline })
      yield* emulator.inject(Fault.status(400, { message: "refused for the test" }), { times: 10 })
      const store = path.join(folder("failed"), "runs.db")
      const failed = yield* Effect.promise(() =>
        exe.run([...quiet, "run", "--durable", "--json", "--run-id", "doomed", "--store", store, "--provider", "gemini", "--base-url", emulator.geminiBaseUrl, "hi"], {
          env: { GEMINI_API_KEY: emulator.apiKey }
        })
      )
      expect(failed.code).toBe(1)
      const outcome = Contracts.decode(Contracts.Runs.Outcome)(failed.stdout)
      expect(outcome.state === "Failed" ? [outcome.runId, outcome.error.type] : outcome).toEqual(["doomed", "InvalidRequest"])
    }),
    durableTimeout
  )

  it("the build writes each contract's JSON Schema; the package publishes each of them, and nothing else under contracts/", () => {
    const written = fs.readdirSync(path.join(exe.work, "dist", "contracts")).sort()
    const names = Object.keys(Contracts.documents).sort()
    expect(written).toEqual(names.map((name) => `${name}.schema.json`))
    const schemas = Contracts.jsonSchemas()
    for (const name of names) {
      expect(JSON.parse(fs.readFileSync(path.join(exe.work, "dist", "contracts", `${name}.schema.json`), "utf8")), name).toEqual(JSON.parse(JSON.stringify(schemas[name as Contracts.Name])))
    }
    const manifest = JSON.parse(fs.readFileSync(fileURLToPath(new URL("../package.json", import.meta.url)), "utf8")) as {
      files: Array<string>
      publishConfig: { exports: Record<string, unknown> }
    }
    const published = Object.fromEntries(names.map((name) => [`./contracts/${name}.schema.json`, `./dist/contracts/${name}.schema.json`]))
    expect(manifest.publishConfig.exports).toEqual({ "./package.json": "./package.json", ...published })
    expect(manifest.files).toContain("dist/contracts/*.schema.json")
  })
})

describe("the eval contract holds every kind of mismatch the validator reports", () => {
  it("each of the twelve kinds, in a report as --json prints it, with a case's verdicts, output and expected calls and a bailed run's cases not run", () => {
    const evalCase = Either.getOrThrow(
      EvalCase.make({
        id: "all-kinds",
        scenario: "mail",
        input: "hi",
        answer_contains: ["ticket"],
        expected_output: { category: "repair" },
        expected_function_calls: [
          { function_name: "lookup", arguments: { id: 1 }, result_contains: { found: true } },
          { function_name: "send_email", body_contains: ["thanks"] },
          { function_name: "send_email", body_contains: ["warranty"] },
          { function_name: "close" },
          { function_name: "archive" },
          { function_name: "notify" }
        ]
      })
    )
    const call = (name: string, args: Record<string, unknown>, turn: number) => ({ name, args, response: { error: { message: "no" } }, isError: true, durationMs: 1, turn })
    const validated = EvalValidator.validate(evalCase, {
      scenario: "other",
      calls: [call("archive", {}, 1), call("lookup", { id: 2 }, 2), call("send_email", { to: "a" }, 3), call("send_email", { body: "hello" }, 4), call("ping", {}, 5), call("close", {}, 6), call("ping", {}, 7)],
      text: "done",
      output: { category: "refund" }
    })
    const mismatches = [...validated, EvalValidator.JudgeMismatch.make({ rubric: "names the ticket", reason: "it names none", score: 0.1 })]
    expect([...new Set(mismatches.map((mismatch) => mismatch._tag))].sort()).toEqual([
      "AnswerMismatch",
      "ArgumentMismatch",
      "BodyMissing",
      "BodyPhraseMissing",
      "CallCountMismatch",
      "JudgeMismatch",
      "MissingCall",
      "OutOfOrder",
      "OutputMismatch",
      "ResultMismatch",
      "ScenarioMismatch",
      "UnexpectedCall"
    ])
    const report = EvalReport.make({
      suite: "kinds",
      durationMs: 3,
      cases: [
        {
          id: "all-kinds",
          description: "",
          expectedScenario: "mail",
          expectedCalls: evalCase.expected_function_calls,
          status: "failed",
          calls: [],
          mismatches,
          text: "done",
          verdicts: [{ rubric: "names the ticket", pass: false, reason: "it names none", score: 0.1 }],
          output: { category: "refund" },
          turns: 6,
          stopReason: "Finished",
          durationMs: 2
        }
      ]
    })
    const decoded = Contracts.decode(Contracts.Eval.Report)(EvalReport.json({ ...report, stopped: { bail: 1, notRun: ["next"] } }))
    expect(decoded.cases[0]!.mismatches).toHaveLength(mismatches.length)
    expect([decoded.cases[0]!.verdicts, decoded.cases[0]!.output, decoded.cases[0]!.expectedCalls?.length, decoded.stopped]).toEqual([
      [{ rubric: "names the ticket", pass: false, reason: "it names none", score: 0.1 }],
      { category: "refund" },
      6,
      { bail: 1, notRun: ["next"] }
    ])
  })
})

const passing = `- id: adds
  scenario: math
  input: what is 2 + 2?
  expected_function_calls:
    - function_name: calculator
      arguments: { expression: "2 + 2" }
  x-cassette:
    - calls: [{ name: calculator, args: { expression: "2 + 2" } }]
    - text: It is 4.
`

const failing = `- id: multiplies-wrong
  scenario: math
  input: what is 3 * 3?
  expected_function_calls:
    - function_name: calculator
      arguments: { expression: "3 * 3" }
  x-cassette:
    - calls: [{ name: calculator, args: { expression: "3 + 3" } }]
    - text: "6"
`

const broken = `- id: broken-cassette
  scenario: math
  input: what is 7 * 6
  expected_function_calls: []
  x-cassette: [{ nothing: here }]
`
