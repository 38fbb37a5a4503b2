/**
 * Ctrl-C stops every long-running command with exit code 130, in every stretch where the command itself gives it no
 * other meaning — here, while an MCP server starts (the MCP client waits for it up to its own timeout). Issue 35,
 * item 18; the spawned executable's side (SIGINT) is in Executable.test.ts, which does not build `live`.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import { createServer } from "node:net"
import type { AddressInfo } from "node:net"
import { startInteractive } from "./support/cli.js"
import { silent } from "./support/mcpServers.js"

/** A silent MCP server and the moment it has started (it connects back to a socket of the test's). */
const silentServer: Effect.Effect<{ readonly line: string; readonly started: Effect.Effect<void> }, never, Scope.Scope> = Effect.gen(function* () {
  const started = yield* Deferred.make<void>()
  const signal = createServer((socket) => {
    socket.destroy()
    Deferred.unsafeDone(started, Effect.void)
  })
  const port = yield* Effect.acquireRelease(
    Effect.async<number>((resume) => void signal.listen(0, "127.0.0.1", () => resume(Effect.succeed((signal.address() as AddressInfo).port)))),
    () => Effect.async<void>((resume) => void signal.close(() => resume(Effect.void)))
  )
  return { line: silent(port).line, started: Deferred.await(started) }
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
