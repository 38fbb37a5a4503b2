/**
 * The built `agentfx` executable as a user runs it: bundled by scripts/bundle.mjs into a temporary folder (bin.js and
 * the programs of the commands started here; `npx -y pnpm@10 build`, which CI's install check runs, builds them all),
 * spawned as a process with its stdout and stderr piped (so never a terminal), with no API key in its environment.
 * What the in-process tests check through `Cli.main` is checked here once more where it can only be seen from
 * outside: exit codes, what goes to stdout and to stderr, colours, signals, the files a build adds.
 */
import { Emulator, Policy } from "@agentfx/emulator"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Builtins from "../src/Builtins.js"
import * as CatalogueText from "../src/internal/catalogueText.js"

const cli = fileURLToPath(new URL("..", import.meta.url))
const repo = path.resolve(cli, "../..")
const work = fs.mkdtempSync(path.join(os.tmpdir(), "agentfx-exe-"))
const bin = path.join(work, "dist", "bin.js")
/** The commands these tests start; each program is a whole bundle, about 2 s of CPU to build. */
const programs = ["run", "chat", "eval", "tools", "runs"]

interface Outcome {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

interface Spawn {
  readonly env?: Readonly<Record<string, string>>
  readonly input?: string
  readonly cwd?: string
  /** Called once the process runs; may signal it. */
  readonly whileRunning?: (child: ReturnType<typeof spawn>) => void
}

/** The environment of a newcomer's shell: no key, no colour settings, nothing of the test runner's. */
const baseEnv = (): Record<string, string> => ({ PATH: process.env.PATH ?? "", HOME: os.homedir(), AGENTFX_SESSIONS_DIR: path.join(work, "sessions") })

const agentfx = (args: ReadonlyArray<string>, options: Spawn = {}): Promise<Outcome> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: options.cwd ?? repo, env: { ...baseEnv(), ...options.env }, stdio: "pipe" })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
    child.stdin.end(options.input ?? "")
    options.whileRunning?.(child)
  })

const lines = (text: string): ReadonlyArray<string> => text.split("\n").filter((line) => line !== "")
const ansi = new RegExp(String.fromCharCode(27) + "\\[")

// Not execFileSync: a bundle can take a minute on a busy machine, and a test worker that blocks that long misses
// Vitest's 60 s deadline for its own messages (an unhandled "Timeout calling onTaskUpdate" that fails the run).
beforeAll(async () => {
  // What the bundles leave outside (better-sqlite3, native) is found as from the package's own folder.
  fs.symlinkSync(path.join(cli, "node_modules"), path.join(work, "node_modules"))
  const bundler = spawn(process.execPath, [path.join(cli, "scripts", "bundle.mjs"), path.join(work, "dist"), ...programs], { stdio: "inherit" })
  const code = await new Promise<number | null>((resolve, reject) => {
    bundler.on("error", reject)
    bundler.on("exit", resolve)
  })
  if (code !== 0) throw new Error(`scripts/bundle.mjs exited with ${code}`)
}, 180_000)

afterAll(() => fs.rmSync(work, { recursive: true, force: true }))

describe.concurrent("the agentfx executable", () => {
  it("is executable as built, and so is the launcher npm links as the bin", () => {
    expect(fs.statSync(bin).mode & 0o111).not.toBe(0)
    expect(fs.statSync(path.join(cli, "bin", "agentfx.js")).mode & 0o111).not.toBe(0)
    const manifest = JSON.parse(fs.readFileSync(path.join(cli, "package.json"), "utf8")) as { bin: Record<string, string>; files: Array<string> }
    expect(manifest.bin.agentfx).toBe("./bin/agentfx.js")
    expect(manifest.files).toEqual(expect.arrayContaining(["bin", "dist"]))
  })

  it("--help: usage lines that read agentfx COMMAND on stdout, exit 0, nothing on stderr, no colour when piped", async () => {
    const help = await agentfx(["--help"])
    expect(help.code).toBe(0)
    expect(help.stderr).toBe("")
    expect(help.stdout).toContain("Usage: agentfx")
    for (const command of ["run", "chat", "eval", "tools", "emulator"]) expect(help.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, "m"))
    expect(help.stdout).not.toMatch(ansi)
    const run = await agentfx(["run", "--help"])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain("Usage: agentfx run")
    expect((await agentfx(["--version"])).stdout).toBe("agentfx 0.1.0\n")
  })

  it("FORCE_COLOR paints even when piped; NO_COLOR and a pipe do not", async () => {
    expect((await agentfx(["--help"], { env: { FORCE_COLOR: "1" } })).stdout).toMatch(ansi)
    expect((await agentfx(["--help"], { env: { NO_COLOR: "1" } })).stdout).not.toMatch(ansi)
    expect((await agentfx(["--help"], { env: { FORCE_COLOR: "0" } })).stdout).not.toMatch(ansi)
  })

  it("an unknown command or option is one line on stderr with a suggestion, exit 2, nothing on stdout", async () => {
    const command = await agentfx(["rnu", "hi"])
    expect(command.code).toBe(2)
    expect(command.stdout).toBe("")
    expect(lines(command.stderr)).toHaveLength(1)
    expect(command.stderr).toContain("did you mean 'run'?")
    const option = await agentfx(["run", "--jsno", "what is 2 + 2?"])
    expect(option.code).toBe(2)
    expect(option.stdout).toBe("")
    expect(option.stderr).toBe("agentfx: unknown option --jsno for agentfx run (did you mean --json?)\n")
    const missing = await agentfx(["run"])
    expect(missing.code).toBe(2)
    expect(lines(missing.stderr)).toHaveLength(1)
  })

  it("run, offline: the provider line on stderr, tool calls and the answer as a sentence on stdout, exit 0", async () => {
    const result = await agentfx(["run", "what is 2 + 3 * 4?"])
    expect(result.code).toBe(0)
    expect(lines(result.stderr)).toEqual([expect.stringMatching(/^provider: emulator — .*No API key is set/)])
    expect(result.stdout).toContain('→ calculator({"expression":"2 + 3 * 4"})')
    expect(result.stdout).toMatch(/2 \+ 3 \* 4 = 14\.\n$/)
    expect(result.stdout + result.stderr).not.toMatch(ansi)
  })

  it("run --json: one JSON document on stdout and nothing else", async () => {
    const result = await agentfx(["run", "--json", "what is 2 + 3?"])
    expect(result.code).toBe(0)
    const parsed = JSON.parse(result.stdout) as { text: string; calls: Array<{ name: string }> }
    expect(parsed.text).toBe("2 + 3 = 5.")
    expect(parsed.calls.map((call) => call.name)).toEqual(["calculator"])
  })

  it("tools prints the catalogue the build computed, the same as the sources give", async () => {
    const pretty = await agentfx(["tools"])
    expect(pretty.code).toBe(0)
    expect(pretty.stdout).toBe(CatalogueText.render(Builtins.catalogue, false))
    const json = await agentfx(["tools", "--json"])
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(JSON.stringify(Builtins.catalogue)))
    expect(json.stderr).toBe("")
  })

  it("chat with piped input: plain lines, each message answered, exit 0 at the end of input", async () => {
    const result = await agentfx(["chat"], { input: "what is 6 * 7?\nlist the files in packages\n" })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("6 * 7 = 42.")
    expect(result.stdout).toMatch(/packages holds \d+ entries: .*cli\//)
    expect(result.stdout + result.stderr).not.toMatch(ansi)
  })

  it("chat into a reader that stops early (| head): exit 141 quietly, no EPIPE stack", async () => {
    const child = spawn(process.execPath, [bin, "chat"], { cwd: repo, env: baseEnv(), stdio: "pipe" })
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
    // The reader takes the first answer, then goes away; the chat still has questions to answer.
    child.stdout.once("data", () => child.stdout.destroy())
    child.stdin.end("what is 6 * 7?\n".repeat(200))
    expect(await exited).toBe(141)
    expect(stderr).not.toMatch(/EPIPE|\n\s+at /)
  })

  it("chat --session on a corrupted file: one line with the path and what to do, exit 2, the file untouched", async () => {
    const dir = fs.mkdtempSync(path.join(work, "sessions-"))
    const file = path.join(dir, "notes.json")
    fs.writeFileSync(file, '{"version":1,"transcript":[{"role":')
    const result = await agentfx(["chat", "--session", "notes"], { env: { AGENTFX_SESSIONS_DIR: dir }, input: "hello\n" })
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(`agentfx: ${file}: the file is not valid JSON (truncated or corrupted) — move it aside (mv ${file} ${file}.bad) or start a new session under another name\n`)
    expect(fs.readFileSync(file, "utf8")).toBe('{"version":1,"transcript":[{"role":')
  })

  it("chat --session in two processes: the second is refused (exit 2, the first's pid named); a killed holder's lock is taken over", async () => {
    const dir = fs.mkdtempSync(path.join(work, "sessions-"))
    const file = path.join(dir, "shared.json")
    const env = { ...baseEnv(), AGENTFX_SESSIONS_DIR: dir }
    const first = spawn(process.execPath, [bin, "chat", "--session", "shared"], { cwd: repo, env, stdio: "pipe" })
    let out = ""
    const exited = new Promise<number | null>((resolve) => first.on("close", (code) => resolve(code)))
    const waiters: Array<() => void> = []
    first.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk
      for (const waiter of [...waiters]) waiter()
    })
    // Waits on what the first chat prints (its prompts), never on time.
    const prompts = (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (out.split("you> ").length - 1 >= n ? resolve() : undefined)
        waiters.push(check)
        check()
      })
    await prompts(1)

    const second = await agentfx(["chat", "--session", "shared"], { env: { AGENTFX_SESSIONS_DIR: dir }, input: "lost?\n" })
    expect(second.code).toBe(2)
    expect(second.stderr).toMatch(new RegExp(`^agentfx: session shared is in use by pid ${first.pid} on .+; quit that chat first`))
    expect(second.stdout).toBe("")

    first.stdin.write("kept\n")
    await prompts(2)
    first.kill("SIGKILL")
    await exited
    expect(fs.existsSync(`${file}.lock`)).toBe(true)

    const third = await agentfx(["chat", "--session", "shared"], { env: { AGENTFX_SESSIONS_DIR: dir }, input: "after\n" })
    expect(third.code).toBe(0)
    expect(third.stderr).toContain(`session shared: took over the lock left by pid ${first.pid}`)
    expect(third.stdout).toContain("resumed from")
    expect(fs.readdirSync(dir)).toEqual(["shared.json"])
    expect(fs.readFileSync(file, "utf8")).toContain('"text":"kept"')
    expect(fs.readFileSync(file, "utf8")).toContain('"text":"after"')
  })

  it("eval piped: plain progress lines on stderr, the JSON report on stdout with --json, exit 0", async () => {
    const result = await agentfx(["eval", "apps/demo/evals", "--scenarios", "apps/demo/scenarios", "--json"])
    expect(result.code).toBe(0)
    const report = JSON.parse(result.stdout) as { summary: { total: number; passed: number } }
    expect(report.summary.passed).toBe(report.summary.total)
    const progress = lines(result.stderr).filter((line) => line.startsWith("eval: "))
    expect(progress).toHaveLength(report.summary.total)
    expect(progress.at(-1)).toMatch(new RegExp(`^eval: ${report.summary.total}/${report.summary.total} done`))
    expect(result.stderr).not.toMatch(ansi)
  })

  it('eval on a scenarios folder that does not exist says so (not "expected to find option --scenarios"), exit 2', async () => {
    const result = await agentfx(["eval", "apps/demo/evals", "--scenarios", "no/such/folder"])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe("")
    expect(result.stderr).toBe("agentfx: --scenarios no/such/folder: no such directory\n")
  })

  it("eval input is checked before anything runs: every problem of every file listed with file and line, exit 2", async () => {
    const dir = fs.mkdtempSync(path.join(work, "eval-"))
    fs.mkdirSync(path.join(dir, "cases"))
    fs.writeFileSync(
      path.join(dir, "cases", "a.yaml"),
      ["- id: one", "  scenario: nosuch", "  input: hi", "  expected_function_calls: []", "- id: two", "  scenario: valid-warranty", "  input: my kettle", "  expected_function_calls:", "    - function_name: launch_rocket", ""].join("\n")
    )
    fs.writeFileSync(path.join(dir, "cases", "b.yaml"), ["- id: three", "  scenario: valid-warranty", "  input: [1]", ""].join("\n"))
    const result = await agentfx(["eval", path.join(dir, "cases"), "--scenarios", "apps/demo/scenarios"])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe("")
    const [headline, ...problems] = lines(result.stderr)
    expect(headline).toBe("agentfx: 3 problems in the eval input; nothing was run:")
    expect(problems).toEqual([
      expect.stringMatching(/b\.yaml:1: /),
      expect.stringMatching(/a\.yaml:1: case "one": scenario: "nosuch" is not a scenario of --scenarios/),
      expect.stringMatching(/a\.yaml:5: case "two": .*"launch_rocket" is not declared by scenario "valid-warranty"/)
    ])
  })

  it("a key the provider refuses stops an eval at once: one line naming the variable and offline mode, exit 1", () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* Emulator.make({ policy: Policy.offline })
          const env = { GEMINI_API_KEY: "not-the-key", GEMINI_BASE_URL: server.geminiBaseUrl }
          const result = yield* Effect.promise(() => agentfx(["eval", "apps/demo/evals", "--scenarios", "apps/demo/scenarios"], { env }))
          expect(result.code).toBe(1)
          expect(result.stdout).toBe("")
          const errors = lines(result.stderr).filter((line) => line.startsWith("agentfx:"))
          expect(errors).toEqual(["agentfx: gemini refused the API key (400): check GEMINI_API_KEY, or run offline with --provider emulator"])
          expect(lines(result.stderr).filter((line) => line.startsWith("eval: "))).toHaveLength(0)
          expect(result.stderr).not.toContain("not-the-key")
        })
      )
    ))

  it("a base URL that is not http(s): exit 2 at once with one line naming the variable; the key never printed", async () => {
    const result = await agentfx(["run", "hello"], { env: { GEMINI_API_KEY: "AIza-SENTINEL-exe", GEMINI_BASE_URL: "ftp://127.0.0.1/" } })
    expect(result.code).toBe(2)
    expect(result.stdout).toBe("")
    expect(lines(result.stderr)).toEqual(["agentfx: gemini is not configured correctly: GEMINI_BASE_URL must be an http:// or https:// URL"])
    expect(result.stderr).not.toContain("SENTINEL")
  })

  it("a stream that stalls is cut by --idle-timeout; the printed part is marked discarded and the retried answer follows, exit 0", async () => {
    let requests = 0
    const server = createServer((request, response) => {
      request.resume()
      const frame = (text: string, finish: boolean) =>
        `data: ${JSON.stringify({ candidates: [{ content: { role: "model", parts: [{ text }] }, ...(finish ? { finishReason: "STOP" } : {}) }] })}\n\n`
      response.writeHead(200, { "content-type": "text/event-stream" })
      // The first answer stops after its first words and never ends; the second is whole.
      if (requests++ === 0) response.write(frame("Half an ", false))
      else response.end(frame("A whole answer.", true))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as AddressInfo).port
    try {
      const result = await agentfx(["run", "--idle-timeout", "300ms", "hello"], {
        env: { GEMINI_API_KEY: "AIza-SENTINEL-exe", GEMINI_BASE_URL: `http://127.0.0.1:${port}` }
      })
      expect(result.code).toBe(0)
      expect(result.stdout).toBe("Half an \n[retrying — the partial answer above is discarded]\nA whole answer.\n")
      expect(result.stderr).toContain("ModelTimeout: the model's stream stalled: nothing for 300ms (idleTimeout)")
      expect(result.stdout + result.stderr).not.toContain("SENTINEL")
      expect(requests).toBe(2)
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })

  it("run --durable parks a call that needs approval and exits; runs approve, another process, runs the rest", async () => {
    const store = path.join(work, "durable", "runs.db")
    const parked = await agentfx(["run", "--durable", "--run-id", "web-1", "--store", store, "--allow-host", "127.0.0.1", "fetch http://127.0.0.1:9/x"])
    expect([parked.code, parked.stderr]).toEqual([0, expect.stringContaining("waits for approval") as unknown as string])
    const call = /agentfx runs approve web-1 (\S+)/.exec(parked.stderr)?.[1]
    expect(call).toBeDefined()
    const listed = await agentfx(["runs", "list", "--store", store])
    expect(listed.stdout).toMatch(/^web-1\tWaiting\tagentfx\t/)
    const approved = await agentfx(["runs", "approve", "web-1", call!, "--store", store, "--allow-host", "127.0.0.1"])
    expect(approved.code).toBe(0)
    // Approved, fetch_url ran (nothing listens on port 9: its error is the call's answer), and the run ended.
    expect(approved.stdout).toContain("← fetch_url failed:")
    expect(approved.stdout).not.toContain("ApprovalDenied")
    expect((await agentfx(["runs", "list", "--store", store])).stdout).toMatch(/^web-1\tFinished\t/)
  })

  it("Ctrl-C (SIGINT) while waiting for the model ends the run with exit code 130", async () => {
    let answered: () => void = () => {}
    const asked = new Promise<void>((resolve) => (answered = resolve))
    // A model that never answers: the run is waiting when the signal comes.
    const server = createServer(() => answered())
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as AddressInfo).port
    try {
      const result = await agentfx(["run", "hello"], {
        env: { GEMINI_API_KEY: "k", GEMINI_BASE_URL: `http://127.0.0.1:${port}` },
        whileRunning: (child) => void asked.then(() => child.kill("SIGINT"))
      })
      expect(result.code).toBe(130)
      expect(result.stdout).toBe("")
      expect(lines(result.stderr).at(-1)).toMatch(/^agentfx: .*interrupted|^agentfx: .*Ctrl-C|cancel/i)
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })
})
