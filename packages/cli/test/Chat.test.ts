import { Repl } from "@agentfx/cli"
import { Chat, Turn } from "@agentfx/core"
import { Policy } from "@agentfx/emulator"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as path from "node:path"
import { agentfx, count, emulator, startInteractive, tempDir, typeAt as typeAtPrompt, viaGemini, writeFiles } from "./support/cli.js"
import { calculatorScenario } from "./support/scenarios.js"

const prompts = (out: string) => count(out, Repl.prompt)

/** The user messages of a saved session. */
const savedMessages = (file: string): { system: string | undefined; messages: ReadonlyArray<string> } => {
  const session = Schema.decodeUnknownSync(Schema.parseJson(Chat.Session))(fs.readFileSync(file, "utf8"))
  return {
    system: session.system,
    messages: session.transcript.filter((turn) => turn.role === "user" && Turn.responses(turn).length === 0).map(Turn.text)
  }
}

/** Starts `agentfx chat` on a fresh terminal; returns the terminal and the running command. */
const startChat = (args: ReadonlyArray<string>, env: Record<string, string>) => startInteractive("chat", args, env)

/** Types `line` once the chat shows its `n`-th prompt. */
const typeAt = typeAtPrompt(Repl.prompt)

/** The chat's first line, and the provider line of the offline emulator it runs on without a key. */
const greeting = "agentfx chat — /help for commands; Ctrl-C cancels a reply; /exit or Ctrl-D quits.\n"
const offlineProvider =
  "provider: emulator — the offline rule model, in-process on 127.0.0.1 through the Gemini provider, no network. No API key is set (GEMINI_API_KEY, GOOGLE_API_KEY, ZAI_API_KEY, OPENAI_API_KEY): set one to use a real model.\n"

describe("agentfx chat", () => {
  it.scopedLive("several messages with streamed replies and visible tool calls, /system, /tools, /save, /exit", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const server = yield* emulator()
      const { env, flags } = viaGemini(server)
      const saved = path.join(dir, "saved.json")
      const { terminal, fiber } = yield* startChat(flags, env)
      yield* typeAt(terminal, 1, "hello there")
      yield* typeAt(terminal, 2, "what is 12 * 12")
      yield* typeAt(terminal, 3, "/system Answer in one line.")
      yield* typeAt(terminal, 4, "/tools")
      yield* typeAt(terminal, 5, "what time is it in Europe/Oslo")
      yield* typeAt(terminal, 6, `/save ${saved}`)
      yield* typeAt(terminal, 7, "/exit")
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(0)
      expect(result.stdout).toContain("you> hello there\nI am the agentfx emulator")
      expect(result.stdout).toContain('you> what is 12 * 12\n→ calculator({"expression":"12 * 12"})\n← calculator: {"expression":"12 * 12","result":144}')
      expect(result.stdout).toContain("system instruction set")
      expect(result.stdout).toMatch(/ {2}read_file — Reads a UTF-8 text file/)
      expect(result.stdout).toContain('→ clock({"time_zone":"Europe/Oslo"})')
      expect(result.stdout).toContain(`saved to ${saved}`)
      expect(savedMessages(saved)).toEqual({
        system: "Answer in one line.",
        messages: ["hello there", "what is 12 * 12", "what time is it in Europe/Oslo"]
      })
      // Each message went out with the whole conversation before it, and the system set in between.
      const requests = (yield* server.requests).flatMap((r) => (r.request === undefined ? [] : [r.request]))
      const last = requests[requests.length - 1]!
      expect(last.system).toBe("Answer in one line.")
      expect(last.transcript.map(Turn.text).filter((text) => text !== "")[0]).toBe("hello there")
    })
  )

  it.scopedLive("--session saves after every message and resumes where it stopped", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const server = yield* emulator()
      const { env: keyEnv, flags } = viaGemini(server)
      const env = { ...keyEnv, AGENTFX_SESSIONS_DIR: path.join(dir, "sessions") }
      const file = path.join(dir, "sessions", "work.json")

      const first = yield* startChat([...flags, "--session", "work", "--system", "Be terse."], env)
      yield* typeAt(first.terminal, 1, "first message")
      yield* first.terminal.waitForOutput((out) => prompts(out) >= 2)
      expect(savedMessages(file).messages).toEqual(["first message"])
      yield* typeAt(first.terminal, 2, "what is 1 + 1")
      yield* first.terminal.waitForOutput((out) => prompts(out) >= 3)
      expect(savedMessages(file).messages).toEqual(["first message", "what is 1 + 1"])
      yield* first.terminal.end
      const ended = yield* Fiber.join(first.fiber)
      expect(ended.code).toBe(0)
      expect(ended.stdout).toContain(`session work: new, saved to ${file} after every message`)

      const second = yield* startChat([...flags, "--session", "work"], env)
      yield* typeAt(second.terminal, 1, "third message")
      yield* typeAt(second.terminal, 2, "/exit")
      const resumed = yield* Fiber.join(second.fiber)
      expect(resumed.code).toBe(0)
      expect(resumed.stdout).toContain(`session work: resumed from ${file} (2 messages)`)
      expect(savedMessages(file)).toEqual({ system: "Be terse.", messages: ["first message", "what is 1 + 1", "third message"] })
      const requests = yield* server.requests
      const last = requests[requests.length - 1]!.request!
      expect(last.system).toBe("Be terse.")
      expect(last.transcript.filter((turn) => turn.role === "user").map(Turn.text)[0]).toBe("first message")
    })
  )

  it.scopedLive("Ctrl-C cancels the turn in flight; the session keeps everything before it and goes on", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const server = yield* emulator({
        policy: Policy.fromFunction((request) => {
          const last = request.transcript[request.transcript.length - 1]
          return last !== undefined && Turn.text(last).includes("slow") ? Effect.never : Policy.offline.reply(request)
        })
      })
      const { env: keyEnv, flags } = viaGemini(server)
      const env = { ...keyEnv, AGENTFX_SESSIONS_DIR: dir }
      const { terminal, fiber } = yield* startChat([...flags, "--session", "s1"], env)
      yield* typeAt(terminal, 1, "hello")
      yield* typeAt(terminal, 2, "a slow question")
      yield* server.awaitRequests(2)
      yield* terminal.interrupt
      yield* terminal.waitForOutput((out) => out.includes("(cancelled"))
      expect(yield* server.awaitOutcome(1)).toBe("aborted")
      yield* typeAt(terminal, 3, "what is 5 + 5")
      yield* typeAt(terminal, 4, "/exit")
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(0)
      expect(result.stdout).toContain("(cancelled — the session keeps everything before this message)")
      // The cancelled message left no trace: the next one follows the last answered one.
      expect(result.stdout).toContain('← calculator: {"expression":"5 + 5","result":10}')
      expect(savedMessages(path.join(dir, "s1.json")).messages).toEqual(["hello", "what is 5 + 5"])
    })
  )

  it.scopedLive("Ctrl-C at an empty prompt warns once; a second one quits; a message in between resets it", () =>
    Effect.gen(function* () {
      const { terminal, fiber } = yield* startChat([], {})
      yield* terminal.waitForOutput((out) => prompts(out) >= 1)
      yield* terminal.interrupt
      yield* typeAt(terminal, 2, "/help")
      yield* terminal.waitForOutput((out) => prompts(out) >= 3)
      yield* terminal.interrupt
      yield* terminal.waitForOutput((out) => prompts(out) >= 4)
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      yield* terminal.interrupt
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(0)
      expect(count(result.stdout, "(press Ctrl-C again to quit, or type /exit)")).toBe(2)
      expect(result.stdout).toContain("/save FILE")
    })
  )

  for (const [answer, outcome] of [
    ["y", '← fetch_url: {"url":'],
    ["n", '← fetch_url failed: "fetch_url" was not approved: the user refused it in the terminal']
  ] as const) {
    it.scopedLive(`the approval prompt runs fetch_url on "${answer}" and refuses it otherwise`, () =>
      Effect.gen(function* () {
        const server = yield* emulator()
        const { env, flags } = viaGemini(server)
        const url = `${server.url}/status`
        const { terminal, fiber } = yield* startChat([...flags, "--allow-host", "127.0.0.1"], env)
        yield* typeAt(terminal, 1, `fetch ${url}`)
        yield* terminal.waitForOutput((out) => out.includes("— allow? [y/N] "))
        expect(yield* terminal.stdout).not.toContain("← fetch_url")
        yield* terminal.feed(answer)
        yield* typeAt(terminal, 2, "/exit")
        const result = yield* Fiber.join(fiber)
        expect(result.code).toBe(0)
        expect(result.stdout).toContain(`→ fetch_url({"url":"${url}"}) — allow? [y/N] ${answer}\n${outcome}`)
        const requests = yield* server.requests
        const fetched = requests.filter((r) => r.path === "/status")
        expect(fetched).toHaveLength(answer === "y" ? 1 : 0)
        // The model was told the outcome.
        const last = requests.filter((r) => r.request !== undefined).at(-1)!.request!
        const response = Turn.responses(last.transcript.at(-1)!)[0]!
        expect(response.isError).toBe(answer === "n")
      })
    )
  }

  it.scopedLive("--yes runs fetch_url without asking", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      const { env, flags } = viaGemini(server)
      const { terminal, fiber } = yield* startChat([...flags, "--allow-host", "127.0.0.1", "--yes"], env)
      yield* typeAt(terminal, 1, `fetch ${server.url}/x`)
      yield* typeAt(terminal, 2, "/exit")
      const result = yield* Fiber.join(fiber)
      expect(result.stdout).not.toContain("allow?")
      expect(result.stdout).toContain(`→ fetch_url({"url":"${server.url}/x"})\n← fetch_url: `)
    })
  )

  it.scopedLive("/load continues a saved session; bad files and commands are reported without ending the chat", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const server = yield* emulator()
      const { env, flags } = viaGemini(server)
      const saved = path.join(dir, "a.json")
      writeFiles(dir, { "broken.json": "{ not json" })
      fs.writeFileSync(
        saved,
        Schema.encodeSync(Schema.parseJson(Chat.Session))({ version: 1, system: "From the file.", transcript: [Turn.user("loaded question"), Turn.model("loaded answer")] })
      )
      const { terminal, fiber } = yield* startChat(flags, env)
      yield* typeAt(terminal, 1, `/load ${path.join(dir, "broken.json")}`)
      yield* typeAt(terminal, 2, `/load ${path.join(dir, "missing.json")}`)
      yield* typeAt(terminal, 3, "/frobnicate")
      yield* typeAt(terminal, 4, "/save")
      yield* typeAt(terminal, 5, `/load ${saved}`)
      yield* typeAt(terminal, 6, "/system")
      yield* typeAt(terminal, 7, "and now?")
      yield* typeAt(terminal, 8, "/exit")
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(0)
      expect(result.stderr).toContain("broken.json: the file is not valid JSON (truncated or corrupted); the session goes on as it was")
      expect(result.stderr).toContain("missing.json does not exist")
      expect(result.stderr).toContain("unknown command /frobnicate")
      expect(result.stderr).toContain("usage: /save FILE")
      expect(result.stdout).toContain(`loaded ${saved} (1 message)`)
      expect(result.stdout).toContain("system: From the file.")
      const last = (yield* server.requests).at(-1)!.request!
      expect(last.system).toBe("From the file.")
      expect(last.transcript.map(Turn.text)).toEqual(["loaded question", "loaded answer", "and now?"])
    })
  )

  it.scopedLive("a bad --session name or a corrupt session file is an input error (exit 2)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "bad.json": '{"version":2}' })
      const name = yield* agentfx(["chat", "--session", "../escape"], { env: { AGENTFX_SESSIONS_DIR: dir } })
      expect(name.code).toBe(2)
      expect(name.stderr).toBe("agentfx: --session ../escape: a session name holds letters, digits, '.', '_' and '-', and starts with a letter or digit\n")
      const corrupt = yield* agentfx(["chat", "--session", "bad"], { env: { AGENTFX_SESSIONS_DIR: dir } })
      expect(corrupt.code).toBe(2)
      const file = path.join(dir, "bad.json")
      expect(corrupt.stderr).toBe(`agentfx: ${file}: the file is not an agentfx session (no transcript) — move it aside (mv ${file} ${file}.bad) or start a new session under another name\n`)
    })
  )

  it.scopedLive("a truncated, foreign or other-version session file: one line with the path and what to do; the file is left as it was", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const good = Schema.encodeSync(Schema.parseJson(Chat.Session))({ version: 1, system: undefined, transcript: [Turn.user("q"), Turn.model("a")] })
      const files = { "cut.json": good.slice(0, 20), "foreign.json": '{"name":"package"}', "later.json": '{"version":7,"transcript":[]}', "empty.json": "" }
      writeFiles(dir, files)
      const reasons = {
        "cut.json": "the file is not valid JSON (truncated or corrupted)",
        "foreign.json": "the file is not an agentfx session (no transcript)",
        "later.json": "the file is a session of another version (7; this agentfx reads version 1)",
        "empty.json": "the file is empty"
      }
      for (const [name, reason] of Object.entries(reasons)) {
        const result = yield* agentfx(["chat", "--session", name.replace(".json", "")], { env: { AGENTFX_SESSIONS_DIR: dir } })
        expect(result.code).toBe(2)
        expect(result.stderr.split("\n").filter((line) => line !== "")).toHaveLength(1)
        expect(result.stderr).toContain(`${path.join(dir, name)}: ${reason} — move it aside`)
        expect(fs.readFileSync(path.join(dir, name), "utf8")).toBe(files[name as keyof typeof files])
      }
      const verbose = yield* agentfx(["chat", "--session", "later", "--verbose"], { env: { AGENTFX_SESSIONS_DIR: dir } })
      expect(verbose.stderr.split("\n").length).toBeGreaterThan(2)
    })
  )
})

describe("agentfx chat: what it prepares, its tools and its commands", () => {
  it.scopedLive("--scenario: the chat's tools are the scenario's alone, and /tools lists them", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "math.md": calculatorScenario({ instructions: "Compute." }) })
      const { terminal, fiber } = yield* startChat(["--scenario", path.join(dir, "math.md")], {})
      yield* typeAt(terminal, 1, "/tools")
      yield* typeAt(terminal, 2, "/exit")
      const result = yield* Fiber.join(fiber)
      expect(result).toStrictEqual({
        code: 0,
        stdout: `${greeting}you> /tools\n  calculator — Evaluates an arithmetic expression\nyou> /exit\n`,
        stderr: offlineProvider
      })
    })
  )

  it.scopedLive("a blank line is skipped, and a command is read without the spaces around it", () =>
    Effect.gen(function* () {
      const { terminal, fiber } = yield* startChat([], {})
      yield* typeAt(terminal, 1, "   ")
      yield* typeAt(terminal, 2, "  /exit  ")
      expect(yield* Fiber.join(fiber)).toStrictEqual({
        code: 0,
        stdout: `${greeting}you>    \nyou>   /exit  \n`,
        stderr: offlineProvider
      })
    })
  )

  it.scopedLive("/tools says which tools ask for approval, and none do with --yes", () =>
    Effect.gen(function* () {
      const listed: Array<string> = []
      for (const flags of [["--allow-host", "127.0.0.1"], ["--allow-host", "127.0.0.1", "--yes"]]) {
        const { terminal, fiber } = yield* startChat(flags, {})
        yield* typeAt(terminal, 1, "/tools")
        yield* typeAt(terminal, 2, "/exit")
        listed.push((yield* Fiber.join(fiber)).stdout.split("\n").filter((line) => line.startsWith("  ")).join("\n"))
      }
      const builtins =
        "  clock — Current date and time in an IANA time zone (default UTC).\n  calculator — Evaluates an arithmetic expression exactly as written: + - * / ^ (power), parentheses, decimals and unary minus.\n  read_file — Reads a UTF-8 text file (at most 1048576 bytes) under the root directory; the path is relative to the root.\n  list_dir — Lists a directory under the root directory (names, types and file sizes); the path is relative to the root.\n  fetch_url — Fetches a web page or API response with an HTTP GET (hosts: 127.0.0.1). Returns status, content type and body text."
      expect(listed).toStrictEqual([`${builtins} (asks for approval)`, builtins])
    })
  )

  it.scopedLive("/load without a file says what it takes, /system without text shows the instruction, and /quit quits", () =>
    Effect.gen(function* () {
      const { terminal, fiber } = yield* startChat(["--system", "Be terse."], {})
      yield* typeAt(terminal, 1, "/load")
      yield* typeAt(terminal, 2, "/system")
      yield* typeAt(terminal, 3, "/quit")
      expect(yield* Fiber.join(fiber)).toStrictEqual({
        code: 0,
        stdout: `${greeting}you> /load\nyou> /system\nsystem: Be terse.\nyou> /quit\n`,
        stderr: `${offlineProvider}usage: /load FILE\n`
      })
    })
  )

  it.scopedLive("a scenario with output_schema is refused by agentfx chat, which gives text answers: exit 2", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "typed.md")
      writeFiles(dir, { "typed.md": "---\nname: typed\ndescription: d\navailable_functions: []\noutput_schema: { type: object, properties: { a: { type: string } } }\n---\nAnswer.\n" })
      expect(yield* agentfx(["chat", "--scenario", file])).toStrictEqual({
        code: 2,
        stdout: "",
        stderr: `agentfx: ${file}: output_schema: scenario "typed" says what its final answer is, and agentfx chat gives text answers: use the scenario with agentfx run (--json prints the decoded answer)\n`
      })
    })
  )

  it.scopedLive("without --session the chat takes no lock and loads or saves no session: nothing is written in the working directory", () =>
    Effect.gen(function* () {
      const { terminal, fiber } = yield* startChat([], {})
      yield* typeAt(terminal, 1, "hello")
      yield* terminal.waitForOutput((out) => prompts(out) >= 2)
      expect([fs.existsSync("undefined.lock"), fs.existsSync("undefined")]).toStrictEqual([false, false])
      yield* typeAt(terminal, 2, "/exit")
      expect((yield* Fiber.join(fiber)).code).toBe(0)
      expect([fs.existsSync("undefined.lock"), fs.existsSync("undefined")]).toStrictEqual([false, false])
    })
  )
})
