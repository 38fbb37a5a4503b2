/**
 * The README's "Durable runs" example, run as written: the TypeScript block is taken from README.md, saved beside
 * this package's build output (so its imports resolve as a user's would) and run in a folder of its own, offline.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { childTsconfig, tsxLoader } from "./support/spawn.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const readme = fs.readFileSync(path.resolve(here, "../../../README.md"), "utf8")

const example = (): string => {
  const section = readme.slice(readme.indexOf("\n## Durable runs\n"))
  const block = /```ts\n([\s\S]*?)```/.exec(section)
  if (block === null) throw new Error("README.md: no ts block under ## Durable runs")
  return block[1]!
}

describe("README: Durable runs", () => {
  it("the example runs as written: it shows the call that waits, approves it, and prints the answer", async () => {
    const folder = path.resolve(here, "../.tsbuild/readme")
    fs.mkdirSync(folder, { recursive: true })
    const file = path.join(folder, "example.ts")
    fs.writeFileSync(file, example())
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "durable-readme-"))
    // Not spawnSync: a worker blocked that long misses Vitest's deadline for its own messages.
    const ran = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        ["--import", tsxLoader, file],
        { cwd, encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", TSX_TSCONFIG_PATH: childTsconfig }, timeout: 120_000 },
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
      )
    )
    expect(ran.stderr).toBe("")
    expect(ran.stdout).toBe(`[ 'create_ticket {"subject":"kettle"}' ]\nTicket T-kettle is open.\n`)
    expect(ran.code).toBe(0)
    // The store is where the example says, in the folder it ran in.
    expect(fs.existsSync(path.join(cwd, ".agentfx", "runs.db"))).toBe(true)
    fs.rmSync(cwd, { recursive: true, force: true })
  }, 180_000)
})
