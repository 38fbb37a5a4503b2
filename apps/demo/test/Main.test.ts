/**
 * The demo as a process: src/main.ts bundled from the sources (esbuild, next to src/ so that it finds the
 * scenarios, samples and evals folders as the built demo does), spawned with its output piped.
 */
import { Emulator, Policy } from "@agentfx/emulator"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { build, type PluginBuild } from "esbuild"
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { sourcesPlugin } from "../../../scripts/agentfxSources.mjs"

const demo = fileURLToPath(new URL("..", import.meta.url))
const packages = path.resolve(demo, "../../packages")
// A folder beside src/ (main.ts finds its data as ../scenarios and so on), removed afterwards.
const out = fs.mkdtempSync(path.join(demo, ".main-test-"))
const main = path.join(out, "main.js")
const sqlite = createRequire(createRequire(path.join(packages, "durable", "package.json")).resolve("@effect/sql-sqlite-node/package.json")).resolve("better-sqlite3")

beforeAll(async () => {
  await build({
    entryPoints: [path.join(demo, "src", "main.ts")],
    outfile: main,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20.19",
    logLevel: "warning",
    banner: { js: 'import { createRequire as __demoRequire } from "node:module"; const require = __demoRequire(import.meta.url);' },
    plugins: [
      sourcesPlugin(packages),
      // better-sqlite3 (the durable runs' store) is native: loaded from where @effect/sql-sqlite-node finds it.
      { name: "native", setup: (b: PluginBuild) => void b.onResolve({ filter: /^better-sqlite3$/ }, () => ({ path: sqlite, external: true })) }
    ]
  })
}, 120_000)

afterAll(() => fs.rmSync(out, { recursive: true, force: true }))

interface Outcome {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const runDemo = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<Outcome> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main, ...args], { env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

describe("the demo as a process", () => {
  it("--durable: the ticket's run parks for approval, a new runner approves it, and the run resumes to the reply", async () => {
    const run = await runDemo(["--durable", "--offline"])
    expect(run.code).toBe(0)
    expect(run.stderr).toBe("")
    const first = run.stdout.slice(run.stdout.indexOf("e-mail 1 of 4"), run.stdout.indexOf("e-mail 2 of 4"))
    const parked = first.indexOf("⏸ create_ticket")
    const approved = first.indexOf("▶ a new runner on the store approves create_ticket")
    expect(parked).toBeGreaterThan(0)
    expect(approved).toBeGreaterThan(parked)
    // The resumed run went on from where it stopped: each call once, the ticket opened, the reply sent.
    expect(first.match(/^ {2}\d\. \w+ /gm)).toEqual(["  1. check_warranty ", "  2. create_ticket ", "  3. send_email "])
    expect(first).toContain('→ {"ticket_id":"T-1001"')
    expect(first).toContain("reply to ada@example.com — Re: Kettle stopped heating")
    expect(run.stdout.match(/reply to /g)).toHaveLength(4)
  }, 120_000)

  it("--help: usage with npx -y pnpm@10, exit 0; an unknown option: one line, exit 2", async () => {
    const help = await runDemo(["--help"])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("Usage: npx -y pnpm@10 demo")
    expect(help.stderr).toBe("")
    const bad = await runDemo(["--recrod"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toBe("agentfx demo: unknown option --recrod; options: --offline, --record, --json FILE, --junit FILE, --executor-tour, --durable, --help (--help says more)\n")
  })

  it("offline: every e-mail numbered, eval progress as plain lines on stderr, the summary once, the HTML report beside the JSON and where it is, exit 0", async () => {
    const json = path.join(out, "reports", "warranty.json")
    fs.mkdirSync(path.dirname(json))
    const result = await runDemo(["--json", json])
    expect(result.code).toBe(0)
    const html = path.join(out, "reports", "warranty.html")
    expect(result.stdout).toContain(`\neval report: ${html} (open it in a browser; the JSON beside it: ${json})\n`)
    expect(fs.readFileSync(html, "utf8")).toMatch(/^<!doctype html>[\s\S]*<h1>warranty<\/h1>/)
    expect(JSON.parse(fs.readFileSync(json, "utf8"))).toMatchObject({ suite: "warranty", summary: { ok: true } })
    expect(result.stdout.match(/━━ e-mail \d of 4: /g)).toHaveLength(4)
    expect(result.stdout.match(/passed \(100 %\)/g)).toHaveLength(1)
    expect(result.stdout).not.toContain("pass rate")
    const progress = result.stderr.split("\n").filter((line) => line.startsWith("demo eval suite: "))
    expect(progress.at(-1)).toMatch(/^demo eval suite: (\d+)\/\1 done, \1 passing/)
  })

  it("into a reader that stops early (| head): exit 141 quietly, no EPIPE stack", async () => {
    const child = spawn(process.execPath, [main, "--executor-tour"], { env: { PATH: process.env.PATH ?? "" }, stdio: ["ignore", "pipe", "pipe"] })
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
    child.stdout.once("data", () => child.stdout.destroy())
    expect(await exited).toBe(141)
    expect(stderr).not.toMatch(/EPIPE|\n\s+at /)
  })

  it("a key the provider refuses stops the demo at the first e-mail: one line naming the variable and --offline, exit 1", () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* Emulator.make({ policy: Policy.offline })
          const result = yield* Effect.promise(() => runDemo([], { GEMINI_API_KEY: "not-the-key", GEMINI_BASE_URL: server.geminiBaseUrl }))
          expect(result.code).toBe(1)
          expect(result.stdout).toContain(`provider: gemini, model gemini-2.5-flash at ${server.geminiBaseUrl} (GEMINI_API_KEY is set)`)
          expect(result.stdout.match(/━━ e-mail/g)).toHaveLength(1)
          expect(result.stderr).toBe("agentfx demo: gemini refused the API key (400): check GEMINI_API_KEY, or run offline with --offline\n")
        })
      )
    ))
})
