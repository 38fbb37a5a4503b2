import * as Mcp from "@agentfx/tools/mcp"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { StdioTransport } from "../src/internal/mcpStdio.js"
import { processesWith, rawServer } from "./support/mcp.js"

// A stdio server's process and everything it started, from start to close: the program runs in a process group of
// its own, and closing ends the group (stdin closed, then SIGTERM, then SIGKILL), whatever ignores what.

/** A temporary folder for the test's scope. */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "agentfx-stdio-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** A mark no other process's command line holds, found again in /proc; whatever still has it at the end is killed. */
const marked = Effect.acquireRelease(
  Effect.sync(() => `agentfx-stdio-${process.pid}-${Math.random().toString(36).slice(2)}`),
  (mark) =>
    Effect.sync(() => {
      for (const pid of processesWith(mark)) {
        try {
          process.kill(Number(pid), "SIGKILL")
        } catch {
          // gone meanwhile
        }
      }
    })
)

/** A node program, as a shell word (single-quoted; the program holds no single quote). */
const shellWord = (program: string) => {
  expect(program).not.toContain("'")
  return `'${program}'`
}

describe.concurrent("issue 35 item 15: a stdio server is ended with its whole process group", () => {
  it.scopedLive("a server started through a wrapper (bash -c) where both ignore SIGTERM and stdin's end: nothing of it runs once the scope has closed", () =>
    Effect.gen(function* () {
      const mark = yield* marked
      // The server ignores SIGTERM and keeps running after stdin ends; bash ignores SIGTERM too and waits for it, as a
      // wrapper does (`echo` after it keeps bash from replacing itself with the server).
      const server = rawServer(`{ tools: [{ name: "stay", inputSchema: { type: "object" } }] }`, "") +
        `; process.on("SIGTERM", () => {}); process.stdin.on("end", () => setInterval(() => {}, 1000)) /* ${mark} */`
      const wrapper = `trap "" TERM; ${JSON.stringify(process.execPath)} -e ${shellWord(server)}; echo done >&2`
      const scope = yield* Scope.make()
      const connection = yield* Scope.extend(Mcp.connect(Mcp.stdio("bash", { args: ["-c", wrapper], name: "wrapped" })), scope)
      expect((yield* connection.tools).map((tool) => tool.name)).toEqual(["stay"])
      // Both run: bash, and node under it.
      expect(processesWith(mark).length).toBe(2)
      yield* Scope.close(scope, Exit.void)
      expect(processesWith(mark)).toEqual([])
    }))
})

describe.concurrent("StdioTransport", () => {
  it.scopedLive("a server that leaves when stdin ends gets no signal; one that does not gets SIGTERM, sent to its group", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const mark = yield* marked
      /** Notes a SIGTERM in `file`, then leaves; `stay`: does not leave when stdin ends. */
      const program = (file: string, stay: boolean) =>
        `process.on("SIGTERM", () => { require("node:fs").writeFileSync(${JSON.stringify(file)}, "TERM"); process.exit(0) }); ` +
        `process.stdin.resume(); process.stdin.on("end", () => ${stay ? "setInterval(() => {}, 1000)" : "process.exit(0)"}); process.stderr.write("ready") /* ${mark} */`
      const polite = new StdioTransport({ command: process.execPath, args: ["-e", program(path.join(dir, "polite"), false)], grace: 10_000 })
      const stubborn = new StdioTransport({ command: process.execPath, args: ["-e", program(path.join(dir, "stubborn"), true)], grace: 50 })
      // Closed once each has set its handlers up: a SIGTERM before that would end it without a word.
      const ready = (transport: StdioTransport) => new Promise<void>((resolve) => transport.stderr.once("data", () => resolve()))
      const bothReady = Promise.all([ready(polite), ready(stubborn)])
      yield* Effect.promise(() => Promise.all([polite.start(), stubborn.start()]))
      yield* Effect.promise(() => bothReady)
      expect(processesWith(mark).length).toBe(2)
      yield* Effect.promise(() => Promise.all([polite.close(), stubborn.close()]))
      expect(processesWith(mark)).toEqual([])
      expect(fs.existsSync(path.join(dir, "polite"))).toBe(false)
      expect(fs.readFileSync(path.join(dir, "stubborn"), "utf8")).toBe("TERM")
    }))

  it.scopedLive("every close is the first one's promise; a send after it is refused", () =>
    Effect.gen(function* () {
      const mark = yield* marked
      const transport = new StdioTransport({ command: process.execPath, args: ["-e", `process.stdin.resume() /* ${mark} */`] })
      yield* Effect.promise(() => transport.start())
      expect(transport.pid).toBeGreaterThan(0)
      const first = transport.close()
      expect(transport.close()).toBe(first)
      yield* Effect.promise(() => first)
      expect(processesWith(mark)).toEqual([])
      const refused = yield* Effect.promise(() => transport.send({ jsonrpc: "2.0", method: "ping", id: 1 }).then(() => "sent", (error: Error) => error.message))
      expect(refused).toBe("Not connected")
    }))

  it.scopedLive("stop sends SIGTERM to the group at once, and does nothing before the server runs", () =>
    Effect.gen(function* () {
      const mark = yield* marked
      const transport = new StdioTransport({ command: process.execPath, args: ["-e", `setInterval(() => {}, 1000) /* ${mark} */`] })
      transport.stop()
      const closed = new Promise<void>((resolve) => (transport.onclose = resolve))
      yield* Effect.promise(() => transport.start())
      transport.stop()
      yield* Effect.promise(() => closed)
      expect(processesWith(mark)).toEqual([])
      // The group gone, a second stop throws nothing.
      expect(() => transport.stop()).not.toThrow()
    }))

  it.scopedLive("a program that cannot be started: start fails with why, and closing it is a no-op", () =>
    Effect.gen(function* () {
      const transport = new StdioTransport({ command: "/nonexistent/agentfx-server", args: [] })
      const errors: Array<string> = []
      transport.onerror = (error) => errors.push(error.message)
      const failed = yield* Effect.promise(() => transport.start().then(() => "started", (error: Error) => error.message))
      expect(failed).toContain("ENOENT")
      expect(errors).toEqual([failed])
      yield* Effect.promise(() => transport.close())
      expect(transport.pid).toBeUndefined()
    }))
})
