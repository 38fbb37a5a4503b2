import { Io } from "@agentfx/cli"
import { Policy } from "@agentfx/emulator"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { withoutCallTimes } from "./support/callTimes.js"
import { agentfx, emulator, tempDir, untilEnd, viaGemini, writeFiles } from "./support/cli.js"

describe("agentfx run", () => {
  it.scopedLive("shows each tool call as it starts and finishes, then streams the answer", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(["run", "what", "is", "2 + 3 * 4?"])
      expect(result.code).toBe(0)
      const started = result.stdout.indexOf('→ calculator({"expression":"2 + 3 * 4"})')
      const finished = result.stdout.indexOf('← calculator: {"expression":"2 + 3 * 4","result":14}')
      const answer = result.stdout.lastIndexOf("calculator: ")
      expect(started).toBeGreaterThanOrEqual(0)
      expect(finished).toBeGreaterThan(started)
      expect(answer).toBeGreaterThan(finished)
    })
  )

  it.scopedLive("read_file and list_dir are confined to --root", () =>
    Effect.gen(function* () {
      const root = yield* tempDir
      writeFiles(root, { "notes.txt": "the launch code is 0000\n", "sub/deep.md": "# deep\n" })
      const listed = yield* agentfx(["run", "list the files in this folder", "--root", root])
      expect(listed.code).toBe(0)
      expect(listed.stdout).toContain('→ list_dir({"path":"."})')
      expect(listed.stdout).toMatch(/← list_dir: .*"notes\.txt".*"sub"/)
      const read = yield* agentfx(["run", "read notes.txt please", "--root", root])
      expect(read.stdout).toContain("the launch code is 0000")
      const escaped = yield* agentfx(["run", "read ../../etc/passwd.txt please", "--root", root])
      expect(escaped.code).toBe(0)
      expect(escaped.stdout).toContain("← read_file failed:")
      expect(escaped.stdout).toContain('".." segments are not allowed')
    })
  )

  it.scopedLive("--json prints the result as JSON and nothing else on stdout", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(["run", "--json", "what is 6 * 7"])
      expect(result.code).toBe(0)
      const json = JSON.parse(result.stdout) as {
        provider: string
        text: string
        stopReason: { _tag: string }
        calls: Array<{ name: string; args: unknown; isError: boolean; response: unknown }>
        transcript: Array<{ role: string }>
      }
      expect(json.provider).toBe("emulator")
      expect(json.stopReason._tag).toBe("Finished")
      expect(json.calls).toEqual([expect.objectContaining({ name: "calculator", args: { expression: "6 * 7" }, isError: false, response: { expression: "6 * 7", result: 42 } })])
      expect(json.text).toContain("42")
      expect(json.transcript.map((turn) => turn.role)).toEqual(["user", "model", "user", "model"])
      expect(result.stderr).toContain("provider: emulator")
    })
  )

  it.scopedLive("fetch_url is only offered with --allow-host; --json refuses it unless --yes", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      const { env, flags } = viaGemini(server)
      const url = `${server.url}/ping`
      const without = yield* agentfx(["run", ...flags, `fetch ${url}`], { env })
      expect(without.stdout).not.toContain("fetch_url")
      const declared = (yield* server.requests)[0]?.request?.declarations.map((d) => d.name)
      expect(declared).toEqual(["clock", "calculator", "read_file", "list_dir"])

      const refused = yield* agentfx(["run", ...flags, "--json", "--allow-host", "127.0.0.1", `fetch ${url}`], { env })
      expect(refused.code).toBe(0)
      const calls = (JSON.parse(refused.stdout) as { calls: Array<{ name: string; response: { error?: { type: string; reason: string } } }> }).calls
      expect(calls.map((call) => [call.name, call.response.error?.type])).toEqual([["fetch_url", "ApprovalDenied"]])
      expect(calls[0]?.response.error?.reason).toContain("pass --yes")
      expect((yield* server.requests).filter((r) => r.path === "/ping")).toHaveLength(0)

      const approved = yield* agentfx(["run", ...flags, "--json", "--yes", "--allow-host", "127.0.0.1", `fetch ${url}`], { env })
      const fetched = (JSON.parse(approved.stdout) as { calls: Array<{ response: { status?: number; url?: string } }> }).calls
      expect(fetched.map((call) => call.response)).toEqual([expect.objectContaining({ url, status: 404 })])
    })
  )

  it.scopedLive("--allow-host that could never match (empty, blank, a URL, a misplaced wildcard) stops run, chat, eval and live before anything runs: exit 2 (issue 35, item 12)", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      const { env, flags } = viaGemini(server)
      const refusals: ReadonlyArray<readonly [string, string]> = [
        ["", "it is empty"],
        ["  ", "it is empty"],
        ["https://example.com/", "give a host with an optional :port, not a URL"],
        ["example.*.com", "only a leading *. is allowed"]
      ]
      const dir = yield* tempDir
      writeFiles(dir, { "cases/a.yaml": "- id: a\n  scenario: s\n  input: hi\n  expected_function_calls: []\n", "s/s.md": "---\nname: s\ndescription: d\navailable_functions: []\n---\nBe brief.\n" })
      for (const command of [["run", "fetch https://example.com"], ["chat"], ["eval", `${dir}/cases`, "--scenarios", `${dir}/s`], ["live"]]) {
        for (const [host, why] of refusals) {
          const result = yield* agentfx([...command, ...(command[0] === "live" ? [] : flags), "--allow-host", "example.com", "--allow-host", host], { env })
          expect(result).toEqual({
            code: 2,
            stdout: "",
            stderr: `agentfx: --allow-host ${JSON.stringify(host)}: ${why} (e.g. example.com, *.example.com, 127.0.0.1:8080)\n`
          })
        }
      }
      expect(yield* server.requests).toEqual([])
    })
  )

  it.scopedLive("--scenario that is missing, a directory or a FIFO, and --root through a file: one line in words on run and chat, exit 2 (issue 35, item 18)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const fifo = `${dir}/pipe.md`
      expect(spawnSync("mkfifo", [fifo]).status).toBe(0)
      writeFiles(dir, { "plain.txt": "" })
      const refusals: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["--scenario", "nope.md"], "--scenario nope.md: no such file"],
        [["--scenario", dir], `--scenario ${dir}: it is a directory, not a file`],
        [["--scenario", fifo], `--scenario ${fifo}: it is a named pipe, not a file`],
        [["--root", `${dir}/plain.txt/sub`], `--root ${dir}/plain.txt/sub: not a directory`]
      ]
      for (const command of [["run", "hi"], ["chat"]]) {
        for (const [flags, message] of refusals) {
          const result = yield* agentfx([...command, ...flags])
          expect(result).toEqual({ code: 2, stdout: "", stderr: `agentfx: ${message}\n` })
        }
      }
    })
  )

  it.scopedLive("asks in the terminal before fetch_url runs", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      const { env, flags } = viaGemini(server)
      const terminal = yield* Io.memory()
      const url = `${server.url}/ping`
      const run = yield* Effect.fork(agentfx(["run", ...flags, "--allow-host", "127.0.0.1", `please fetch ${url}`], { env, terminal }))
      yield* terminal.waitForOutput((out) => out.includes("— allow? [y/N] "))
      yield* terminal.feed("y")
      const result = yield* Fiber.join(run)
      expect(result.code).toBe(0)
      expect(result.stdout).toContain(`→ fetch_url({"url":"${url}"}) — allow? [y/N] y\n← fetch_url: {"url":"${url}","status":404`)
      expect(result.stdout.match(/→ fetch_url/g)).toHaveLength(1)
    })
  )

  it.scopedLive("Ctrl-C stops a run with exit code 130", () =>
    Effect.gen(function* () {
      const server = yield* emulator({ policy: Policy.fromFunction(() => Effect.never) })
      const { env, flags } = viaGemini(server)
      const terminal = yield* Io.memory()
      const run = yield* Effect.fork(agentfx(["run", ...flags, "hello"], { env, terminal }))
      yield* server.awaitRequests(1)
      yield* terminal.interrupt
      const result = yield* Fiber.join(run)
      expect(result.code).toBe(130)
      expect(result.stderr).toContain("agentfx: interrupted")
      expect(yield* server.awaitOutcome(0)).toBe("aborted")
    })
  )

  it.scoped("an answer of the wrong shape is one line naming the field, exit 1; --verbose adds every problem with the value found", () =>
    Effect.gen(function* () {
      // Every request (and every retry) is answered with text that is a number.
      const wrong = { candidates: [{ content: { role: "model", parts: [{ text: 5 }] }, finishReason: "STOP" }] }
      const server = createServer((request, response) => {
        request.resume()
        const stream = request.url?.includes("stream") === true
        response.writeHead(200, { "content-type": stream ? "text/event-stream" : "application/json" })
        response.end(stream ? `data: ${JSON.stringify(wrong)}\n\n` : JSON.stringify(wrong))
      })
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
        () => Effect.sync(() => (server.closeAllConnections(), server.close()))
      )
      const env = { GEMINI_API_KEY: "AIza-wrong-shape", GEMINI_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
      const headline = "agentfx: MalformedResponse: unexpected response shape: candidates[0].content.parts[0].text should be a string, got 5"
      const plain = yield* untilEnd(yield* Effect.fork(agentfx(["run", "hello"], { env })))
      expect(plain.code).toBe(1)
      expect(plain.stderr.split("\n").filter((line) => line.startsWith("agentfx:"))).toEqual([headline])
      const verbose = yield* untilEnd(yield* Effect.fork(agentfx(["--verbose", "run", "--json", "hello"], { env })))
      expect(verbose.code).toBe(1)
      expect(verbose.stderr).toContain(`${headline}\n  candidates[0].content.parts[0].text should be a string, got 5\n`)
    })
  )

  it.scopedLive("bad input gives one clear line on stderr and exit code 2, and nothing runs", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["run"], "agentfx: <prompt> is missing: agentfx run [options] [--] <prompt>..."],
        [["run", "hi", "--root", "/nonexistent/agentfx"], "agentfx: --root /nonexistent/agentfx: no such directory"],
        [["run", "hi", "--max-turns", "0"], "agentfx: --max-turns 0: a whole number of at least 1 is needed"],
        [["run", " "], "agentfx: the prompt is empty"],
        [["run", "--jsno", "what is 2 + 2"], "agentfx: unknown option --jsno for agentfx run (did you mean --json?)"],
        [["run", "-5", "plus", "3"], 'agentfx: unknown option -5 for agentfx run; an argument that starts with - goes after --: agentfx run -- "-5 plus 3"'],
        [["run", "--model", "a", "--model", "b", "hi"], "agentfx: --model is given twice (a and b); give it once"],
        [["run", "--provider", "gemni", "hi"], "agentfx: --provider gemni: the choices are emulator, gemini, glm, glm-coding, openai (did you mean gemini?)"],
        [["run", "--model"], "agentfx: --model needs a value: --model NAME"],
        [["run", "--yes=1", "hi"], "agentfx: --yes is a flag and takes no value (got --yes=1)"],
        [["walk"], "agentfx: unknown command 'walk'; the commands are run, chat, live, eval, tools, emulator, runs"],
        [["tool"], "agentfx: unknown command 'tool' (did you mean 'tools'?); the commands are run, chat, live, eval, tools, emulator, runs"],
        [["tools", "--jsn"], "agentfx: unknown option --jsn for agentfx tools (did you mean --json?)"],
        [["tools", "extra"], "agentfx: unexpected argument 'extra' for agentfx tools, which takes none: agentfx tools [options]"],
        [[], "agentfx: a command is needed: run, chat, live, eval, tools, emulator, runs (agentfx --help describes them)"]
      ]
      for (const [args, message] of cases) {
        const result = yield* agentfx(args)
        expect({ args, code: result.code, stderr: result.stderr, stdout: result.stdout }).toEqual({ args, code: 2, stderr: `${message}\n`, stdout: "" })
      }
    })
  )

  it.scopedLive("a prompt that starts with - runs after --", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(["run", "--", "-5", "+", "3"])
      expect(result.code).toBe(0)
      expect(result.stdout).toContain('→ calculator({"expression":"-5 + 3"})')
    })
  )

  it.scopedLive("--help describes every command with usage lines that read agentfx COMMAND, and exits with 0", () =>
    Effect.gen(function* () {
      for (const command of ["run", "chat", "eval", "tools", "emulator"]) {
        const result = yield* agentfx([command, "--help"])
        expect(result.code).toBe(0)
        expect(result.stdout).toContain(`Usage: agentfx ${command} `)
        expect(result.stdout).toContain("Options:")
        expect(result.stdout).not.toContain("$ ")
        expect(result.stderr).toBe("")
      }
      const root = yield* agentfx(["--help"])
      expect(root.stdout).toMatch(/Commands:\n {2}run {7}one agent run/)
      expect(root.stdout).toContain("130  stopped with Ctrl-C")
      expect(root.stdout).toContain("141  the reader of its output went away (| head): stopped quietly")
      expect((yield* agentfx(["help", "eval"])).stdout).toContain("Usage: agentfx eval --scenarios DIR [options] <cases-dir>")
      expect((yield* agentfx(["--version"])).stdout).toBe("agentfx 0.1.0\n")
    })
  )

  it.scopedLive("--completions prints @effect/cli's completion script for the commands and their options", () =>
    Effect.gen(function* () {
      const bash = yield* agentfx(["--completions", "bash"])
      expect(bash.code).toBe(0)
      expect(bash.stdout).toContain("complete -F _agentfx_bash_completions")
      expect(bash.stdout).toMatch(/complete -F _agentfx_bash_completions.* agentfx$/m)
      expect(bash.stdout).toContain("--report-json")
      const fish = yield* agentfx(["--completions", "fish"])
      expect(fish.stdout).toContain("complete -c agentfx")
      const bad = yield* agentfx(["--completions", "tcsh"])
      expect(bad.code).toBe(2)
      expect(bad.stderr).toBe("agentfx: --completions tcsh: the choices are bash, zsh, fish, sh\n")
    })
  )
})

describe("agentfx run, what the run is given (in process, exact)", () => {
  const typedScenario = `---\nname: s\ndescription: d\navailable_functions: [{ name: calculator, description: Calculates, parameters: { type: object, properties: { expression: { type: string } }, required: [expression] } }]\noutput_schema: { type: object, properties: { result: { type: string } }, required: [result], additionalProperties: false }\n---\nCalculate.\n`

  it.scopedLive("--json with a scenario: its functions alone, its instructions as the system unless --system, its output_schema's output; with none, no output", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "s.md": typedScenario })
      const server = yield* emulator()
      const via = viaGemini(server)
      const typed = yield* agentfx(["run", "--json", ...via.flags, "--scenario", path.join(dir, "s.md"), "what is 6 * 7"], { env: via.env })
      const told = yield* agentfx(["run", "--json", ...via.flags, "--scenario", path.join(dir, "s.md"), "--system", "Be brief.", "what is 6 * 7"], { env: via.env })
      const plain = yield* agentfx(["run", "--json", ...via.flags, "what is 6 * 7"], { env: via.env })
      expect([typed.code, told.code, plain.code]).toStrictEqual([0, 0, 0])
      expect((JSON.parse(typed.stdout) as { output: unknown }).output).toStrictEqual({ result: "6 * 7 = 42." })
      expect(Object.keys(JSON.parse(plain.stdout) as object)).toStrictEqual(["provider", "model", "text", "turns", "stopReason", "usage", "calls", "transcript"])
      const requests = (yield* server.requests).map((recorded) => recorded.request)
      // Each run's requests (two: the call, then the answer) say the same.
      const given = [...new Set(requests.map((request) => JSON.stringify([request?.system ?? null, request?.declarations.map((declaration) => declaration.name)])))]
      const schemaNote =
        '\n\nWhen you give your final answer (the turn in which you call no function), answer with one JSON value and nothing else — no prose around it, no code fences — that matches this JSON Schema (named "output"):\n{"type":"object","properties":{"result":{"type":"string"}},"required":["result"],"additionalProperties":false}'
      expect(given.map((entry) => JSON.parse(entry) as unknown)).toStrictEqual([
        [`Calculate.${schemaNote}`, ["calculator"]],
        [`Be brief.${schemaNote}`, ["calculator"]],
        [null, ["clock", "calculator", "read_file", "list_dir"]]
      ])
    })
  )

  it.scopedLive("--json with a scenario that starts a program asks nobody: refused naming it, exit 2, nothing on stdout", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "tools.md")
      writeFiles(dir, { "tools.md": "---\nname: tools\ndescription: d\navailable_functions: []\nmcp:\n  - name: notes\n    command: notes-server --stdio\n---\nHi.\n" })
      const result = yield* agentfx(["run", "--json", "--scenario", file, "hi"])
      expect(result).toStrictEqual({
        code: 2,
        stdout: "",
        stderr: `agentfx: scenario "tools" would start a program as an MCP server (notes: notes-server --stdio, at ${file}:6): nobody is asked here; pass --allow-scenario-commands to let scenario files start programs (they run with your rights)\n`
      })
    })
  )

  it.scopedLive("--json with a key the provider refuses: the announcement and the refusal alone on stderr (the failed attempt, not retried, says nothing)", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      const result = yield* agentfx(["run", "--json", "--provider", "gemini", "--base-url", server.geminiBaseUrl, "hi"], { env: { GEMINI_API_KEY: "wrong" } })
      expect(result).toStrictEqual({
        code: 1,
        stdout: "",
        stderr: `provider: gemini, model gemini-2.5-flash at ${server.geminiBaseUrl} (chosen with --provider)\nagentfx: gemini refused the API key (400): check GEMINI_API_KEY or GOOGLE_API_KEY, or run offline with --provider emulator\n`
      })
    })
  )

  it.scopedLive("--durable takes neither --mcp-url, --scenario nor --output-schema: one usage line each, exit 2, no store made", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const store = path.join(dir, "runs.db")
      writeFiles(dir, { "s.md": typedScenario, "answer.json": JSON.stringify({ type: "object", properties: { sum: { type: "number" } }, required: ["sum"] }) })
      const tools = "agentfx: --durable runs take the built-in tools only: not with --mcp, --mcp-url or --scenario\n"
      const outcomes = []
      for (const flags of [["--mcp-url", "http://127.0.0.1:9/mcp"], ["--scenario", path.join(dir, "s.md")], ["--output-schema", path.join(dir, "answer.json")]]) {
        outcomes.push(yield* agentfx(["run", "--durable", "--store", store, ...flags, "hi"]))
      }
      expect(outcomes).toStrictEqual([
        { code: 2, stdout: "", stderr: tools },
        { code: 2, stdout: "", stderr: tools },
        { code: 2, stdout: "", stderr: "agentfx: --durable runs give a text answer: not with --output-schema\n" }
      ])
      expect(fs.existsSync(store)).toBe(false)
    })
  )

  it.scopedLive("--durable without --run-id names its run run-TIME-RAND, with it as given, in the store given", () =>
    Effect.gen(function* () {
      const store = path.join(yield* tempDir, "runs.db")
      const result = yield* agentfx(["--log-level", "error", "run", "--durable", "--store", store, "what is 2 + 3?"])
      expect(result.code).toBe(0)
      expect(result.stderr).toMatch(new RegExp(`^provider: emulator .*\\nrun run-[0-9a-z]+-[0-9a-z]{4} in ${store.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`))
      const named = yield* agentfx(["--log-level", "error", "run", "--durable", "--run-id", "mine", "--store", store, "what is 2 + 3?"])
      expect([named.code, named.stderr.split("\n").filter((line) => line.startsWith("run "))]).toStrictEqual([0, [`run mine in ${store}`]])
    })
  )

  it.scopedLive("--max-turns bounds the run: one turn, the calculator called, stopped at the bound", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(["run", "--json", "--max-turns", "1", "what is 2 + 3?"])
      const json = JSON.parse(result.stdout) as { turns: number; stopReason: unknown; calls: Array<{ name: string }> }
      expect([result.code, json.turns, json.stopReason, json.calls.map((call) => call.name)]).toStrictEqual([0, 1, { _tag: "MaxTurns", maxTurns: 1 }, ["calculator"]])
    })
  )

  it.scopedLive("--root naming a file is one usage line (not a directory), exit 2", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "plain.txt": "text\n" })
      const result = yield* agentfx(["run", "--root", path.join(dir, "plain.txt"), "hi"])
      expect(result).toStrictEqual({ code: 2, stdout: "", stderr: `agentfx: --root ${path.join(dir, "plain.txt")}: not a directory\n` })
    })
  )

  it.scopedLive("--concurrency 1 runs a turn's calls one after the other: each finishes before the next starts", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "a.txt": "a\n", "b.txt": "b\n" })
      const server = yield* emulator({ policy: Policy.script([{ calls: [{ name: "read_file", args: { path: "a.txt" } }, { name: "read_file", args: { path: "b.txt" } }] }, { text: "done" }]) })
      const via = viaGemini(server)
      const result = yield* agentfx(["run", ...via.flags, "--root", dir, "--concurrency", "1", "read both"], { env: via.env })
      expect([result.code, withoutCallTimes(result.stdout, "(TIME)")]).toStrictEqual([
        0,
        '→ read_file({"path":"a.txt"})\n← read_file: {"path":"a.txt","size":2,"content":"a\\n"} (TIME)\n→ read_file({"path":"b.txt"})\n← read_file: {"path":"b.txt","size":2,"content":"b\\n"} (TIME)\ndone\n'
      ])
    })
  )
})

