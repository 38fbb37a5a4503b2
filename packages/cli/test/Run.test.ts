import { Io } from "@agentfx/cli"
import { Policy } from "@agentfx/emulator"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { spawnSync } from "node:child_process"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
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
