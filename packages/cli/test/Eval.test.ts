import { EvalReport } from "@agentfx/tools"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { agentfx, emulator, tempDir, viaGemini, writeFiles } from "./support/cli.js"
import { everythingBin, filesystemBin } from "./support/everything.js"

const mathScenario = `---
name: math
description: Arithmetic, and the result sent to the user
available_functions:
  - name: calculator
    description: Evaluates an arithmetic expression
    parameters:
      type: object
      properties:
        expression: { type: string, description: the expression }
      required: [expression]
  - name: notify
    description: Sends a message to the user
    parameters:
      type: object
      properties:
        message: { type: string }
      required: [message]
---
Compute with the calculator, then notify the user of the result.
`

const passing = `- id: adds
  description: Adds and notifies
  scenario: math
  input: what is 2 + 2?
  mock_function_responses:
    notify: { response: { sent: true } }
  expected_function_calls:
    - function_name: calculator
      arguments: { expression: "2 + 2" }
      result_contains: { result: 4 }
    - function_name: notify
      arguments: { message: The answer is 4 }
  x-cassette:
    - calls: [{ name: calculator, args: { expression: "2 + 2" } }]
    - calls: [{ name: notify, args: { message: The answer is 4 } }]
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

/** A suite: the math scenario and the given case files. */
const suite = (cases: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const dir = yield* tempDir
    writeFiles(dir, { "scenarios/math.md": mathScenario, "scenarios/README.md": "not a scenario", ...Object.fromEntries(Object.entries(cases).map(([name, text]) => [`cases/${name}`, text])) })
    return { dir, cases: path.join(dir, "cases"), scenarios: path.join(dir, "scenarios") }
  })

describe("agentfx eval", () => {
  it.scopedLive("offline, replays each case's x-cassette; all pass: exit 0, report printed, JSON and JUnit written", () =>
    Effect.gen(function* () {
      const { dir, cases, scenarios } = yield* suite({ "adds.yaml": passing })
      const json = path.join(dir, "report.json")
      const junit = path.join(dir, "report.xml")
      const result = yield* agentfx(["eval", cases, "--scenarios", scenarios, "--report-json", json, "--junit", junit])
      expect(result.code).toBe(0)
      expect(result.stderr).toContain("provider: emulator — replays each case's x-cassette (1 of 1 cases have one) offline through the Gemini provider")
      expect(result.stdout).toContain("✓ adds — Adds and notifies  [math]")
      // A passing case is one line on the terminal; its calls are in the reports.
      expect(result.stdout).not.toContain("calculator(")
      expect(result.stdout).toContain("1/1 passed (100 %)")
      expect(result.stdout).toContain("PASS")
      const report = Either.getOrThrow(EvalReport.fromJson(fs.readFileSync(json, "utf8")))
      expect(report.summary).toMatchObject({ total: 1, passed: 1, ok: true })
      expect(report.cases[0]!.calls.map((call) => [call.name, call.args, call.response])).toEqual([
        ["calculator", { expression: "2 + 2" }, { expression: "2 + 2", result: 4 }],
        ["notify", { message: "The answer is 4" }, { sent: true }]
      ])
      expect(fs.readFileSync(junit, "utf8")).toContain('<testcase name="adds: Adds and notifies" classname="math"')
    })
  )

  it.scopedLive("a pass rate below --threshold exits with 1; at or above it with 0", () =>
    Effect.gen(function* () {
      const { cases, scenarios } = yield* suite({ "adds.yaml": passing, "wrong.yaml": failing })
      const strict = yield* agentfx(["eval", cases, "--scenarios", scenarios])
      expect(strict.code).toBe(1)
      expect(strict.stdout).toContain("✗ multiplies-wrong")
      expect(strict.stdout).toContain("1/2 passed (50 %), 1 failed, 0 errored — threshold 99 %: FAIL")
      expect(strict.stderr).toContain("agentfx: the pass rate 50 % is below the threshold 99 %")
      const lenient = yield* agentfx(["eval", cases, "--scenarios", scenarios, "--threshold", "0.5", "--concurrency", "1"])
      expect(lenient.code).toBe(0)
      expect(lenient.stdout).toContain("threshold 50 %: PASS")
    })
  )

  it.scopedLive("--report-json and --junit paths are checked before anything runs: a directory, a missing directory, a FIFO, the same file twice; exit 2, the model never asked (issue 35, item 11)", () =>
    Effect.gen(function* () {
      const { dir, cases, scenarios } = yield* suite({ "adds.yaml": passing })
      const server = yield* emulator()
      const { env, flags } = viaGemini(server)
      const fifo = path.join(dir, "pipe.xml")
      expect(spawnSync("mkfifo", [fifo]).status).toBe(0)
      const report = path.join(dir, "report.json")
      const refusals: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["--report-json", dir], `--report-json ${dir}: it is a directory: name a file (in it, say)`],
        [["--junit", path.join(dir, "nowhere", "r.xml")], `--junit ${path.join(dir, "nowhere", "r.xml")}: the directory ${path.join(dir, "nowhere")} does not exist`],
        [["--junit", path.join(dir, "cases", "adds.yaml", "r.xml")], `--junit ${path.join(dir, "cases", "adds.yaml", "r.xml")}: ${path.join(dir, "cases", "adds.yaml")} is not a directory`],
        [["--junit", fifo], `--junit ${fifo}: it is a named pipe, not a regular file (- writes to stdout)`],
        [["--report-json", report, "--junit", report], `--junit ${report}: --report-json writes the same file: give each report its own`]
      ]
      for (const [outputs, message] of refusals) {
        const result = yield* agentfx(["eval", cases, "--scenarios", scenarios, ...flags, ...outputs], { env })
        expect(result).toEqual({ code: 2, stdout: "", stderr: `agentfx: ${message}\n` })
      }
      expect(yield* server.requests).toEqual([])
      expect(fs.existsSync(report)).toBe(false)
    })
  )

  it.scopedLive("a declared function that is not built in answers 'mock this function' when a case does not mock it", () =>
    Effect.gen(function* () {
      const { cases, scenarios } = yield* suite({
        "unmocked.yaml": `- id: unmocked-call
  scenario: math
  input: what is 1 + 1
  expected_function_calls:
    - function_name: calculator
      arguments: { expression: "1 + 1" }
  x-cassette:
    - calls: [{ name: calculator, args: { expression: "1 + 1" } }]
    - calls: [{ name: notify, args: { message: "2" } }]
    - text: "2"
`
      })
      const result = yield* agentfx(["eval", cases, "--scenarios", scenarios])
      expect(result.code).toBe(1)
      expect(result.stdout).toMatch(/2\. notify\(\{"message":"2"\}\) ✗ [^\n]*is not a built-in tool of the agentfx CLI, so it has no implementation here: mock this function in the eval case \(mock_function_responses\.notify\)/)
      expect(result.stdout).toContain("call 2 notify({\"message\":\"2\"}) was not expected")
    })
  )

  it.scopedLive("a case expecting a call to a function that is neither built in nor mocked is rejected before anything runs (exit 2)", () =>
    Effect.gen(function* () {
      const { cases, scenarios } = yield* suite({ "adds.yaml": passing.replace("  mock_function_responses:\n    notify: { response: { sent: true } }\n", "") })
      const result = yield* agentfx(["eval", cases, "--scenarios", scenarios])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain("agentfx: 1 problem in the eval input; nothing was run:\n")
      expect(result.stderr).toContain(`adds.yaml:9: case "adds": expects a call to notify, which scenario "math" declares but is not a built-in tool`)
      expect(result.stderr).toContain("mock it under mock_function_responses.notify")
      expect(result.stdout).toBe("")
    })
  )

  it.scopedLive("a case without a cassette is answered by the offline rule model; an invalid cassette is an error case", () =>
    Effect.gen(function* () {
      const { cases, scenarios } = yield* suite({
        "offline.yaml": `- id: rule-model
  scenario: math
  input: what is 7 * 6
  expected_function_calls:
    - function_name: calculator
      arguments: { expression: "7 * 6" }
- id: broken-cassette
  scenario: math
  input: what is 7 * 6
  expected_function_calls: []
  x-cassette: [{ nothing: here }]
`
      })
      const result = yield* agentfx(["eval", cases, "--scenarios", scenarios, "--threshold", "0.5"])
      expect(result.code).toBe(0)
      expect(result.stderr).toContain("(1 of 2 cases have one, 1 invalid: an error case each; the offline rule model answers the others)")
      expect(result.stdout).toContain("✓ rule-model")
      expect(result.stdout).toMatch(/✗ broken-cassette[^\n]*\n[^\n]*\n {4}error: .*the cassette is invalid/)
    })
  )

  it.scopedLive("runs against a real provider layer when one is chosen (here the Gemini provider on an emulator)", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      const { env, flags } = viaGemini(server)
      const { cases, scenarios } = yield* suite({ "offline.yaml": `id: via-gemini\nscenario: math\ninput: what is 9 - 4\nexpected_function_calls:\n  - function_name: calculator\n    arguments: { expression: "9 - 4" }\n` })
      const result = yield* agentfx(["eval", cases, "--scenarios", scenarios, ...flags], { env })
      expect(result.code).toBe(0)
      expect(result.stderr).toMatch(/^provider: gemini, model \S+ at http:\/\/127\.0\.0\.1:\d+ \(chosen with --provider\)/)
      expect(result.stdout).toContain("✓ via-gemini")
      expect((yield* server.requests).length).toBe(2)
    })
  )

  it.scopedLive("--temperature and the answer bounds reach every case's run", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      const { env, flags } = viaGemini(server)
      const { cases, scenarios } = yield* suite({ "offline.yaml": `id: tempered\nscenario: math\ninput: what is 9 - 4\nexpected_function_calls:\n  - function_name: calculator\n    arguments: { expression: "9 - 4" }\n` })
      const bounds = ["--temperature", "0.3", "--first-byte-timeout", "30s", "--idle-timeout", "30s", "--turn-timeout", "1m", "--max-response-bytes", "1MiB"]
      const result = yield* agentfx(["eval", cases, "--scenarios", scenarios, ...flags, ...bounds], { env })
      expect(result.code).toBe(0)
      const bodies = (yield* server.requests).map((record) => record.body as { generationConfig?: { temperature?: number } })
      expect(bodies.map((body) => body.generationConfig?.temperature)).toEqual([0.3, 0.3])
    })
  )

  it.scopedLive("bad input gives a clear message and exit code 2", () =>
    Effect.gen(function* () {
      const { dir, cases, scenarios } = yield* suite({ "adds.yaml": passing })
      const missing = yield* agentfx(["eval", path.join(dir, "nope"), "--scenarios", scenarios])
      expect(missing.code).toBe(2)
      expect(missing.stderr).toBe(`agentfx: <cases-dir> ${path.join(dir, "nope")}: no such directory\n`)
      const noScenarios = yield* agentfx(["eval", cases])
      expect(noScenarios.code).toBe(2)
      expect(noScenarios.stderr).toBe("agentfx: --scenarios DIR is required: agentfx eval --scenarios DIR [options] <cases-dir>\n")
      const absent = yield* agentfx(["eval", cases, "--scenarios", path.join(dir, "absent")])
      expect(absent.stderr).toBe(`agentfx: --scenarios ${path.join(dir, "absent")}: no such directory\n`)
      const notDir = yield* agentfx(["eval", cases, "--scenarios", path.join(scenarios, "math.md")])
      expect(notDir.code).toBe(2)
      expect(notDir.stderr).toBe(`agentfx: --scenarios ${path.join(scenarios, "math.md")}: not a directory\n`)
      const threshold = yield* agentfx(["eval", cases, "--scenarios", scenarios, "--threshold", "2"])
      expect(threshold.code).toBe(2)
      expect(threshold.stderr).toBe("agentfx: --threshold 2: a fraction between 0 and 1 is needed, e.g. 0.9\n")

      writeFiles(dir, { "empty-scenarios/notes.txt": "", "empty-cases/readme.txt": "", "bad-cases/bad.yaml": "- id: x\n  scenario: math\n  input: hi\n  expected_function_calls: []\n  typo_field: 1\n" })
      const noMd = yield* agentfx(["eval", cases, "--scenarios", path.join(dir, "empty-scenarios")])
      expect(noMd.code).toBe(2)
      expect(noMd.stderr).toContain("holds no scenario files (*.md)")
      const noCases = yield* agentfx(["eval", path.join(dir, "empty-cases"), "--scenarios", scenarios])
      expect(noCases.code).toBe(2)
      expect(noCases.stderr).toContain("holds no eval case files")
      const badCase = yield* agentfx(["eval", path.join(dir, "bad-cases"), "--scenarios", scenarios])
      expect(badCase.code).toBe(2)
      expect(badCase.stderr).toMatch(/bad\.yaml:\d+: .*typo_field/)

      writeFiles(dir, { "drift/files.md": "---\nname: files\ndescription: d\navailable_functions:\n  - name: read_file\n    description: r\n    parameters:\n      type: object\n      properties:\n        path: { type: number }\n      required: [path]\n---\nRead.\n" })
      const drift = yield* agentfx(["eval", cases, "--scenarios", path.join(dir, "drift")])
      expect(drift.code).toBe(2)
      expect(drift.stderr).toContain('the parameters of "read_file" in scenario "files" disagree with its implementation')
    })
  )
})

const echoScenario = (tools: string) => `---
name: echoer
description: Echoes through an MCP server
available_functions: []
mcp:
  - name: everything
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(everythingBin)}, stdio]
    tools: ${tools}
---
Echo what the user says with the echo tool.
`

const echoCase = `- id: echoes
  scenario: echoer
  input: say hi
  expected_function_calls:
    - function_name: echo
      arguments: { message: hi }
  x-cassette:
    - calls: [{ name: echo, args: { message: hi } }]
    - text: It said hi.
`

describe("agentfx eval and --root, --base-url", () => {
  it.scopedLive("a --root that is not a directory is refused naming the option", () =>
    Effect.gen(function* () {
      const { dir, cases, scenarios } = yield* suite({ "adds.yaml": passing })
      const result = yield* agentfx(["eval", cases, "--scenarios", scenarios, "--root", path.join(dir, "nope")])
      expect(result).toEqual({ code: 2, stdout: "", stderr: `agentfx: --root ${path.join(dir, "nope")}: no such directory\n` })
    })
  )


  it.scopedLive("--base-url with the in-process emulator is a usage error before any case runs (exit 2)", () =>
    Effect.gen(function* () {
      const { cases, scenarios } = yield* suite({ "adds.yaml": passing })
      const result = yield* agentfx(["eval", cases, "--scenarios", scenarios, "--provider", "emulator", "--base-url", "http://127.0.0.1:1"])
      expect(result).toEqual({
        code: 2,
        stdout: "",
        stderr:
          "agentfx: --base-url does not apply to the in-process emulator; to use an emulator started with `agentfx emulator`, pass --provider gemini (or glm, openai) with its base URL and set that provider's key to the emulator's\n"
      })
    })
  )
})

describe("agentfx eval with a scenario naming an MCP server", () => {
  it.scopedLive("the server is started, its listed tool is offered and called for real through the emulator: exit 0", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "scenarios/echoer.md": echoScenario("[echo]"), "cases/echo.yaml": echoCase })
      const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), "--allow-scenario-commands", "--json"])
      expect(result.stderr).not.toContain("problem")
      expect(result.code).toBe(0)
      const report = Either.getOrThrow(EvalReport.fromJson(result.stdout))
      expect(report.cases[0]!.calls.map((call) => [call.name, call.args, call.response])).toEqual([["echo", { message: "hi" }, { output: "Echo: hi" }]])
      expect(report.summary).toMatchObject({ total: 1, passed: 1 })
    }))

  it.scopedLive("a listed tool the server does not offer stops the eval before anything runs, naming the file: exit 2", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "scenarios/echoer.md": echoScenario("[echo, ecko]"), "cases/echo.yaml": echoCase })
      const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), "--allow-scenario-commands"])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(`${path.join(dir, "scenarios", "echoer.md")}:6: MCP server everything:`)
      expect(result.stderr).toContain('offers no tool "ecko"')
    }))
})

describe("issue 35 item 5: agentfx eval and MCP tools that ask first", () => {
  it.scopedLive("server-filesystem's move_file is refused without --yes (nobody is asked in an eval) and the file stays; with --yes it moves", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const files = path.join(dir, "files")
      const move = { source: path.join(files, "a.txt"), destination: path.join(files, "b.txt") }
      writeFiles(dir, {
        "files/a.txt": "a\n",
        "scenarios/mover.md": `---\nname: mover\ndescription: Moves files\navailable_functions: []\nmcp:\n  - name: fs\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(filesystemBin)}, ${JSON.stringify(files)}]\n    tools: [move_file]\n---\nMove what you are asked to.\n`,
        "cases/move.yaml": `- id: moves\n  scenario: mover\n  input: move a to b\n  expected_function_calls:\n    - function_name: move_file\n      arguments: ${JSON.stringify(move)}\n  x-cassette:\n    - calls: [{ name: move_file, args: ${JSON.stringify(move)} }]\n    - text: Moved.\n`
      })
      const args = ["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), "--json", "--allow-scenario-commands"]
      const refused = yield* agentfx(args)
      expect(refused.code).toBe(0)
      expect(refused.stdout).toContain("agentfx eval does not ask for approval: pass --yes to allow tools that need it")
      expect(fs.readdirSync(files)).toEqual(["a.txt"])
      const approved = yield* agentfx([...args, "--yes"])
      expect(approved.code).toBe(0)
      expect(approved.stdout).not.toContain("ApprovalDenied")
      expect(fs.readdirSync(files)).toEqual(["b.txt"])
    }))
})

describe("issue 35 item 17: agentfx eval starts a scenario's programs only with --allow-scenario-commands", () => {
  it.scopedLive("without it, each program a used scenario names is a problem naming the file, line, scenario and command: exit 2, nothing started", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const marker = path.join(dir, "started")
      const program = `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "")`
      writeFiles(dir, {
        "scenarios/echoer.md": echoScenario("[echo]"),
        "scenarios/marking.md": `---\nname: marking\ndescription: d\navailable_functions: []\nmcp:\n  - name: marker\n    command: node -e '${program}'\n---\nDo nothing.\n`,
        "cases/echo.yaml": echoCase,
        "cases/mark.yaml": `- id: marks\n  scenario: marking\n  input: hi\n  expected_function_calls: []\n`
      })
      const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios")])
      expect(result.code).toBe(2)
      expect(result.stdout).toBe("")
      const scenarios = path.join(dir, "scenarios")
      expect(result.stderr).toContain(
        `${scenarios}/echoer.md:6: mcp[0].command: scenario "echoer" would start the program ${JSON.stringify(process.execPath).replace(/^"|"$/g, "")} ${everythingBin} stdio (MCP server everything): pass --allow-scenario-commands to let scenario files start programs (they run with your rights)`
      )
      expect(result.stderr).toContain(`${scenarios}/marking.md:6: mcp[0].command: scenario "marking" would start the program node -e '${program}' (MCP server marker)`)
      expect(fs.existsSync(marker)).toBe(false)
    }))
})

describe("agentfx eval starts only the servers it needs, and only once the input is sound", () => {
  /** A scenario whose server leaves `marker` behind when it is started (and then fails to start). */
  const markingScenario = (name: string, marker: string) => `---
name: ${name}
description: Its server marks that it was started
available_functions: []
mcp:
  - name: marker
    command: ${JSON.stringify(process.execPath)}
    args: [-e, ${JSON.stringify(`require("node:fs").writeFileSync(${JSON.stringify(marker)}, ""); process.exit(3)`)}]
---
Do nothing.
`

  it.scopedLive("a scenario no case uses: its server is not started, and the eval passes", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const marker = path.join(dir, "started")
      writeFiles(dir, { "scenarios/echoer.md": echoScenario("[echo]"), "scenarios/unused.md": markingScenario("unused", marker), "cases/echo.yaml": echoCase })
      const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), "--allow-scenario-commands"])
      expect(result.stderr).not.toContain("problem")
      expect(result.code).toBe(0)
      expect(fs.existsSync(marker)).toBe(false)
    }))

  it.scopedLive("a case with a problem: exit 2 before any server is started", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const marker = path.join(dir, "started")
      const broken = `- id: lost\n  scenario: nowhere\n  input: hi\n  expected_function_calls: []\n`
      const used = `- id: uses-it\n  scenario: marking\n  input: hi\n  expected_function_calls: []\n`
      writeFiles(dir, { "scenarios/marking.md": markingScenario("marking", marker), "cases/a.yaml": used, "cases/b.yaml": broken })
      const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), "--allow-scenario-commands"])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('"nowhere" is not a scenario')
      expect(fs.existsSync(marker)).toBe(false)
    }))
})
