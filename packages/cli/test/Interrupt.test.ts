/**
 * Ctrl-C works in every state of every command. The states where a command waits on something outside it before
 * its own loop listens — MCP servers starting (run, chat, live, tools; eval's scenarios), over Streamable HTTP and over
 * stdio — are checked here against servers that never answer: Ctrl-C ends the command with 130. The states inside the
 * commands' loops (a turn, an approval, the prompt, the emulator running, a live connection being set up) are
 * checked in each command's own tests; the spawned executable's side (SIGINT) is in Executable.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { createServer as createTcpServer } from "node:net"
import * as path from "node:path"
import { startInteractive, tempDir, writeFiles } from "./support/cli.js"
import { silent as silentStdio } from "./support/mcpServers.js"

/** An HTTP server that takes every request and never answers; `asked` completes at the first one. */
const silent = Effect.gen(function* () {
  const asked = yield* Deferred.make<void>()
  const server = createServer(() => Deferred.unsafeDone(asked, Effect.void))
  yield* Effect.acquireRelease(
    Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
    () => Effect.sync(() => (server.closeAllConnections(), server.close()))
  )
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, asked: Deferred.await(asked) }
})

/** Starts `agentfx command args`, presses Ctrl-C once `server` was asked, and returns how the command ended. */
const stoppedWhileStarting = (command: string, args: (url: string) => ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const server = yield* silent
    const { terminal, fiber } = yield* startInteractive(command, args(server.url), {})
    yield* server.asked
    yield* terminal.interrupt
    return yield* Fiber.join(fiber)
  })

describe("Ctrl-C while a command starts stops it (exit 130)", () => {
  for (const [command, args] of [
    ["run", (url: string) => ["--mcp-url", url, "hello"]],
    ["chat", (url: string) => ["--mcp-url", url]],
    ["live", (url: string) => ["--mcp-url", url]],
    ["tools", (url: string) => ["--mcp-url", url]]
  ] as const) {
    it.scopedLive(`${command}: while an MCP server named with --mcp-url never answers its start`, () =>
      Effect.gen(function* () {
        const result = yield* stoppedWhileStarting(command, args)
        expect(result.code).toBe(130)
        expect(result.stderr).toContain("agentfx: interrupted\n")
        expect(result.stdout).not.toContain("you> ")
      }))
  }

  it.scopedLive("eval: while a scenario's MCP server never answers its start", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const result = yield* stoppedWhileStarting("eval", (url) => {
        writeFiles(dir, {
          "scenarios/silent.md": `---\nname: silent\ndescription: Its server never answers\navailable_functions: []\nmcp:\n  - name: silent\n    url: ${url}\n---\nDo nothing.\n`,
          "cases/one.yaml": "- id: one\n  scenario: silent\n  input: hi\n  expected_function_calls: []\n"
        })
        return [path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios")]
      })
      expect(result.code).toBe(130)
      expect(result.stderr).toContain("agentfx: interrupted\n")
    }))
})

/** A silent MCP server over stdio and the moment it has started (it connects back to a socket of the test's). */
const silentServer: Effect.Effect<{ readonly line: string; readonly started: Effect.Effect<void> }, never, Scope.Scope> = Effect.gen(function* () {
  const started = yield* Deferred.make<void>()
  const signal = createTcpServer((socket) => {
    socket.destroy()
    Deferred.unsafeDone(started, Effect.void)
  })
  const port = yield* Effect.acquireRelease(
    Effect.async<number>((resume) => void signal.listen(0, "127.0.0.1", () => resume(Effect.succeed((signal.address() as AddressInfo).port)))),
    () => Effect.async<void>((resume) => void signal.close(() => resume(Effect.void)))
  )
  return { line: silentStdio(port).line, started: Deferred.await(started) }
})

describe("Ctrl-C while an MCP server starts (issue 35, item 18)", () => {
  for (const [command, ...rest] of [["tools"], ["run", "hello"], ["chat"], ["live"]] as const) {
    it.scopedLive(`${command}: exit 130, "interrupted" on stderr, nothing on stdout`, () =>
      Effect.gen(function* () {
        const server = yield* silentServer
        const { terminal, fiber } = yield* startInteractive(command, ["--mcp", server.line, ...rest], {})
        yield* server.started
        yield* terminal.interrupt
        const result = yield* Fiber.join(fiber)
        expect(result.code).toBe(130)
        expect(result.stderr.split("\n").filter((line) => line !== "").at(-1)).toBe("agentfx: interrupted")
        expect(result.stdout).toBe("")
      }))
  }
})
