/**
 * Runs the child runner (`child.ts`, bundled: support/bundle.ts) and follows its output: the test waits for a line
 * (`blocked`, `result …`, `waiting …`) with a bound, and may kill the child with SIGKILL.
 */
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { childBundle } from "./bundle.js"
import type { ChildConfig, Summary } from "./script.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const repo = path.resolve(here, "../../../..")
/** tsx's loader, by path, for TypeScript run in a folder of its own (the README's example). */
export const tsxLoader = path.join(repo, "node_modules", "tsx", "dist", "loader.mjs")
export const childTsconfig = path.join(here, "tsconfig.child.json")

export interface Child {
  /** Resolves with the first line that starts with `prefix` (its rest), or rejects when the child exits first or `within` passes. */
  readonly line: (prefix: string, within?: number) => Promise<string>
  readonly kill: () => Promise<void>
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly stderr: string }>
}

export const start = async (config: ChildConfig): Promise<Child> => {
  const child = spawn(process.execPath, [await childBundle()], {
    cwd: repo,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DURABLE_CHILD: JSON.stringify(config) },
    stdio: ["ignore", "pipe", "pipe"]
  })
  const lines: Array<string> = []
  const waiters: Array<() => void> = []
  let stderr = ""
  let buffer = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk
    const parts = buffer.split("\n")
    buffer = parts.pop() ?? ""
    lines.push(...parts)
    for (const waiter of waiters.splice(0)) waiter()
  })
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on("close", (code, signal) => {
      resolve({ code, signal, stderr })
      for (const waiter of waiters.splice(0)) waiter()
    })
  )
  let closed = false
  void exited.then(() => (closed = true))
  return {
    line: (prefix, within = 60_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "${prefix}" line within ${within} ms; stderr: ${stderr}`)), within)
        const look = () => {
          const found = lines.find((line) => line.startsWith(prefix))
          if (found !== undefined) {
            clearTimeout(timer)
            resolve(found.slice(prefix.length).trim())
          } else if (closed) {
            clearTimeout(timer)
            reject(new Error(`the child exited without a "${prefix}" line; stdout: ${lines.join(" | ")}; stderr: ${stderr}`))
          } else waiters.push(look)
        }
        look()
      }),
    kill: async () => {
      child.kill("SIGKILL")
      await exited
    },
    exited
  }
}

/** Runs a child to its `result` line. */
export const result = async (config: ChildConfig): Promise<Summary> => {
  const child = await start(config)
  const line = await child.line("result ")
  await child.exited
  return JSON.parse(line) as Summary
}
