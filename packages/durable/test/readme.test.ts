/**
 * The READMEs' durable examples, run as written: the root README's "Durable runs" example and this package's own
 * (the block pack:check also runs from the tarballs). Each TypeScript block is taken from its README, saved beside
 * this package's build output (so its imports resolve as a user's would) and run in a folder of its own, offline;
 * what it prints is what its comments say.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { childTsconfig, tsxLoader } from "./support/spawn.js"

const here = path.dirname(fileURLToPath(import.meta.url))

/** The first ts block of `readme` after `from` (a heading, or the start). */
const example = (readme: string, from: string): string => {
  const text = fs.readFileSync(path.resolve(here, readme), "utf8")
  const start = text.indexOf(from)
  if (start < 0) throw new Error(`${readme}: no ${JSON.stringify(from)}`)
  const block = /```ts\n([\s\S]*?)```/.exec(text.slice(start))
  if (block === null) throw new Error(`${readme}: no ts block after ${JSON.stringify(from)}`)
  return block[1]!
}

/** Runs `code` as a file beside the build output, from a new empty folder; the folder is removed after `check`. */
const run = async (name: string, code: string, check: (ran: { code: number | null; stdout: string; stderr: string }, cwd: string) => void) => {
  const folder = path.resolve(here, "../.tsbuild/readme")
  fs.mkdirSync(folder, { recursive: true })
  const file = path.join(folder, `${name}.ts`)
  fs.writeFileSync(file, code)
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "durable-readme-"))
  try {
    // Not spawnSync: a worker blocked that long misses Vitest's deadline for its own messages.
    const ran = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        ["--import", tsxLoader, file],
        { cwd, encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", TSX_TSCONFIG_PATH: childTsconfig }, timeout: 120_000 },
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
      )
    )
    check(ran, cwd)
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true })
  }
}

describe("README: Durable runs", () => {
  it("the example runs as written: it shows the call that waits, approves it, and prints the answer", () =>
    run("example", example("../../../README.md", "\n## Durable runs\n"), (ran, cwd) => {
      expect(ran.stderr).toBe("")
      expect(ran.stdout).toBe(`[ 'create_ticket {"subject":"kettle"}' ]\nTicket T-kettle is open.\n`)
      expect(ran.code).toBe(0)
      // The store is where the example says, in the folder it ran in.
      expect(fs.existsSync(path.join(cwd, ".agentfx", "runs.db"))).toBe(true)
    }), 180_000)
})

describe("packages/durable/README.md", () => {
  it("the example runs as written: the answer and the events the run recorded, as its comment says", () =>
    run("package-example", example("../README.md", "# @agentfx/durable"), (ran, cwd) => {
      expect(ran.stderr).toBe("")
      expect(ran.stdout).toBe("Ticket T-kettle is open. TurnFinished CallStarted CallFinished TurnFinished Done\n")
      expect(ran.code).toBe(0)
      expect(fs.existsSync(path.join(cwd, ".agentfx", "runs.db"))).toBe(true)
    }), 180_000)
})
