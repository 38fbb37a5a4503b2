/**
 * The built `agentfx` executable for tests about the process itself (its exit, its streams): bundled by
 * scripts/bundle.mjs into a temporary folder with the programs asked for, and spawned with piped streams and a
 * newcomer's environment (no key, nothing of the test runner's).
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const cli = fileURLToPath(new URL("../..", import.meta.url))
/** The repository: where the spawned command runs unless told otherwise. */
export const repo = path.resolve(cli, "../..")

export interface Outcome {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

export interface Spawn {
  readonly env?: Readonly<Record<string, string>>
  readonly cwd?: string
  /** Called once the process runs, its output streams set to text; may signal it. */
  readonly whileRunning?: (child: ChildProcessWithoutNullStreams) => void
}

export interface Executable {
  /** Where the bundle is (removed by `remove`). */
  readonly work: string
  readonly run: (args: ReadonlyArray<string>, options?: Spawn) => Promise<Outcome>
  readonly remove: () => void
}

/**
 * Bundles bin.js and `programs` into a temporary folder. Not execFileSync: a bundle can take a minute on a busy
 * machine, and a test worker that blocks that long misses Vitest's deadline for its own messages.
 */
export const build = async (programs: ReadonlyArray<string>): Promise<Executable> => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "agentfx-exe-"))
  // What the bundles leave outside (better-sqlite3, native) is found as from the package's own folder.
  fs.symlinkSync(path.join(cli, "node_modules"), path.join(work, "node_modules"))
  const bundler = spawn(process.execPath, [path.join(cli, "scripts", "bundle.mjs"), path.join(work, "dist"), ...programs], { stdio: ["ignore", "ignore", "pipe"] })
  let errors = ""
  bundler.stderr.setEncoding("utf8").on("data", (chunk: string) => (errors += chunk))
  const code = await new Promise<number | null>((resolve, reject) => {
    bundler.on("error", reject)
    bundler.on("close", resolve)
  })
  if (code !== 0) throw new Error(`scripts/bundle.mjs exited with ${code}: ${errors}`)
  const bin = path.join(work, "dist", "bin.js")
  const baseEnv = (): Record<string, string> => ({ PATH: process.env.PATH ?? "", HOME: os.homedir(), AGENTFX_SESSIONS_DIR: path.join(work, "sessions") })
  return {
    work,
    run: (args, options = {}) =>
      new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [bin, ...args], { cwd: options.cwd ?? repo, env: { ...baseEnv(), ...options.env }, stdio: "pipe" })
        let stdout = ""
        let stderr = ""
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
        child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
        child.on("error", reject)
        child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
        child.stdin.end("")
        options.whileRunning?.(child)
      }),
    remove: () => fs.rmSync(work, { recursive: true, force: true })
  }
}
