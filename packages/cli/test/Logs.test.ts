/**
 * Log lines go to stderr, always: stdout carries only the command's output, so `--json` parses whatever
 * `--log-level` says. Issue 35, item 3; the spawned executable's side is in Executable.test.ts.
 */
import { Io } from "@agentfx/cli"
import { describe, expect, it } from "@effect/vitest"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { agentfx } from "./support/cli.js"
import { repeating } from "./support/mcpServers.js"

describe("log lines go to stderr (issue 35, item 3)", () => {
  it.live("tools --json --mcp: the MCP layer's WARN line is on stderr, and stdout is the JSON alone", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(["tools", "--json", "--mcp", repeating.line])
      expect(result.code).toBe(0)
      expect(() => JSON.parse(result.stdout) as unknown).not.toThrow()
      expect(result.stderr).toMatch(/level=WARN .*lists \\"shout\\" more than once/)
    }))

  it.live("run --json --log-level all --mcp: stdout is the JSON alone, every log line is on stderr", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(["run", "--json", "--log-level", "all", "--mcp", repeating.line, "what is 2 + 3?"])
      expect(result.code).toBe(0)
      expect((JSON.parse(result.stdout) as { text: string }).text).toBe("2 + 3 = 5.")
      expect(result.stdout).not.toContain("level=")
      expect(result.stderr).toContain("level=WARN")
    }))

  it.live("every logger and every level of Console.unsafe write to stderr through Io; Console.log stays on stdout", () =>
    Effect.gen(function* () {
      const terminal = yield* Io.memory()
      const program = Effect.gen(function* () {
        yield* Effect.logDebug("a debug line")
        yield* Effect.logInfo("an info line")
        yield* Effect.logError("an error line")
        yield* Console.log("the output")
      }).pipe(Logger.withMinimumLogLevel(LogLevel.All))
      yield* program.pipe(Effect.withConsole(Io.toConsole(terminal.io)))
      yield* program.pipe(Effect.provide(Logger.pretty), Effect.withConsole(Io.toConsole(terminal.io)))
      expect(yield* terminal.stdout).toBe("the output\nthe output\n")
      const stderr = yield* terminal.stderr
      for (const line of ["a debug line", "an info line", "an error line"]) expect(stderr.split(line).length - 1).toBe(2)
      expect(stderr).toMatch(/level=DEBUG fiber=#\d+ message="a debug line"\n/)
    }))
})
