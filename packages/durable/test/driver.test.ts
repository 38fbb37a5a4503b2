/**
 * A SQLite store whose native driver is installed but does not load: its native part never built (install scripts
 * off, a build that failed) or built for another Node.js. The driver's module imports, and fails only when the first
 * database is opened; the store says so in one line, naming the driver and how to rebuild it. Each case runs in a
 * process of its own, where a resolve hook stands a driver in for better-sqlite3 that throws as the real one does.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { childTsconfig, tsxLoader } from "./support/spawn.js"

const here = path.dirname(fileURLToPath(import.meta.url))

/** The program: the store's layer built, its error's message printed. */
const program = `
import { register } from "node:module"
register("data:text/javascript," + encodeURIComponent(process.env.DRIVER_HOOK ?? ""))
const { DurableAgent } = await import("@agentfx/durable")
const { Effect, Layer } = await import("effect")
const error = await Effect.runPromise(Effect.flip(Effect.scoped(Layer.build(DurableAgent.layerSqlite({ filename: process.argv[2] })))))
process.stdout.write(error._tag + ": " + error.message)
`

/** A resolve hook that hands `better-sqlite3` a driver whose constructor throws `error`. */
const hook = (error: { readonly message: string; readonly code?: string }) => {
  const driver = `export default class Database { constructor() { throw Object.assign(new Error(${JSON.stringify(error.message)}), ${JSON.stringify(error.code === undefined ? {} : { code: error.code })}) } }`
  return `export async function resolve(specifier, context, next) {
    return specifier === "better-sqlite3" ? { url: "data:text/javascript," + encodeURIComponent(${JSON.stringify(driver)}), shortCircuit: true } : next(specifier, context)
  }`
}

const open = async (error: { readonly message: string; readonly code?: string }) => {
  const folder = path.resolve(here, "../.tsbuild/driver")
  fs.mkdirSync(folder, { recursive: true })
  const file = path.join(folder, "open.ts")
  fs.writeFileSync(file, program)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "durable-driver-"))
  try {
    return await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        ["--import", tsxLoader, file, path.join(dir, "runs.db")],
        { encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", TSX_TSCONFIG_PATH: childTsconfig, DRIVER_HOOK: hook(error) }, timeout: 60_000 },
        (failure, stdout, stderr) => resolve({ code: failure === null ? 0 : typeof failure.code === "number" ? failure.code : 1, stdout, stderr })
      )
    )
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

describe("a SQLite driver that is installed but does not load", () => {
  it("never built: StoreUnavailable in one line, naming the driver and how to rebuild it", async () => {
    const ran = await open({ message: "Could not locate the bindings file. Tried:\n → /app/node_modules/better-sqlite3/build/better_sqlite3.node\n → /app/node_modules/better-sqlite3/build/Release/better_sqlite3.node" })
    expect(ran.stderr).toBe("")
    expect(ran.stdout).toMatch(
      /^StoreUnavailable: the run store .*runs\.db cannot be used: the SQLite driver \(better-sqlite3, a native module\) cannot be loaded: its native part was never built \(no better_sqlite3\.node\); rebuild it where it is installed \(npm rebuild better-sqlite3\) or use a postgres:\/\/ store$/
    )
  }, 90_000)

  it("built for another Node.js: StoreUnavailable in one line, with what Node.js said", async () => {
    const ran = await open({
      message: "The module '/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 127. This version of Node.js requires\nNODE_MODULE_VERSION 115.",
      code: "ERR_DLOPEN_FAILED"
    })
    expect(ran.stderr).toBe("")
    expect(ran.stdout).toMatch(
      /^StoreUnavailable: the run store .*runs\.db cannot be used: the SQLite driver \(better-sqlite3, a native module\) cannot be loaded: The module '.*better_sqlite3\.node' was compiled against a different Node\.js version using NODE_MODULE_VERSION 127\. This version of Node\.js requires NODE_MODULE_VERSION 115\.; rebuild it where it is installed \(npm rebuild better-sqlite3\) or use a postgres:\/\/ store$/
    )
  }, 90_000)

  it("any other failure to open the file is still one line", async () => {
    const ran = await open({ message: "unable to open database file\n(the disk went away)" })
    expect(ran.stdout).toMatch(/^StoreUnavailable: the run store .*runs\.db cannot be used: unable to open database file \(the disk went away\)$/)
  }, 90_000)
})
