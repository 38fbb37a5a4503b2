/**
 * The terminal in memory (`Io.memory`) as tests and embedding programs see it, and `Io.toConsole`: where each of
 * Effect's `Console` methods prints through an `Io`, and which print nothing.
 */
import { Io } from "@agentfx/cli"
import { describe, expect, it } from "@effect/vitest"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"

const printed = (terminal: Io.Memory) => Effect.all({ stdout: terminal.stdout, stderr: terminal.stderr })

describe("Io.memory", () => {
  it.effect("is piped unless told: no TTY, no colour, no status line (status records nothing); the tag's key names the package", () =>
    Effect.gen(function* () {
      const terminal = yield* Io.memory()
      expect([terminal.io.isTTY, terminal.io.color, terminal.io.interactive]).toStrictEqual([false, false, false])
      yield* terminal.io.status("working…")
      expect(yield* terminal.statuses).toStrictEqual([])
      expect(yield* printed(terminal)).toStrictEqual({ stdout: "", stderr: "" })
      expect(Io.Io.key).toBe("@agentfx/cli/Io")
    }))

  it.effect("told so, it is a TTY, in colour, interactive; an interactive one records each status, \"\" included, in order", () =>
    Effect.gen(function* () {
      const terminal = yield* Io.memory({ isTTY: true, color: true, interactive: true })
      expect([terminal.io.isTTY, terminal.io.color, terminal.io.interactive]).toStrictEqual([true, true, true])
      expect(yield* terminal.statuses).toStrictEqual([])
      yield* terminal.io.status("a")
      yield* terminal.io.status("")
      yield* terminal.io.status("b")
      expect(yield* terminal.statuses).toStrictEqual(["a", "", "b"])
      expect(yield* printed(terminal)).toStrictEqual({ stdout: "", stderr: "" })
    }))

  it.effect("waitForOutput completes once stdout satisfies the check; a wait given up stops checking", () =>
    Effect.gen(function* () {
      const terminal = yield* Io.memory()
      const seen: Array<string> = []
      const waiting = yield* Effect.fork(terminal.waitForOutput((stdout) => {
        seen.push(stdout)
        return stdout.includes("done")
      }))
      yield* Effect.yieldNow()
      yield* terminal.io.out("working ")
      yield* terminal.io.out("done")
      expect(yield* Fiber.join(waiting)).toBe("working done")
      expect(seen).toStrictEqual(["", "working ", "working done"])

      const checks: Array<string> = []
      const abandoned = yield* Effect.fork(terminal.waitForOutput((stdout) => {
        checks.push(stdout)
        return false
      }))
      yield* Effect.yieldNow()
      yield* terminal.io.out("!")
      yield* Fiber.interrupt(abandoned)
      yield* terminal.io.out("?")
      expect(checks).toStrictEqual(["working done", "working done!"])
    }))
})

describe("Io.toConsole", () => {
  it.effect("log, info, debug, dir, dirxml and table print a formatted line on stdout; error, warn and trace on stderr", () =>
    Effect.gen(function* () {
      const terminal = yield* Io.memory()
      const console = Io.toConsole(terminal.io)
      yield* console.log("a %d", 1)
      yield* console.info("b")
      yield* console.debug("c")
      yield* console.dir({ d: 1 })
      yield* console.dirxml("e")
      yield* console.table(["f"])
      yield* console.error("g")
      yield* console.warn("h")
      yield* console.trace("i")
      expect(yield* printed(terminal)).toStrictEqual({ stdout: "a 1\nb\nc\n{ d: 1 }\ne\n[ 'f' ]\n", stderr: "g\nh\ni\n" })
    }))

  it.effect("assert prints \"Assertion failed:\" and its arguments on stderr when the condition is false, nothing when true", () =>
    Effect.gen(function* () {
      const terminal = yield* Io.memory()
      const console = Io.toConsole(terminal.io)
      yield* console.assert(true, "never")
      yield* console.assert(false, "the", 2, "counts")
      expect(yield* printed(terminal)).toStrictEqual({ stdout: "", stderr: "Assertion failed: the 2 counts\n" })
    }))

  it.effect("clear, count, countReset, group, groupEnd, time, timeEnd and timeLog are effects that print nothing", () =>
    Effect.gen(function* () {
      const terminal = yield* Io.memory()
      const console = Io.toConsole(terminal.io)
      yield* Effect.all([
        console.clear,
        console.count("n"),
        console.countReset("n"),
        console.group({ label: "g" }),
        console.groupEnd,
        console.time("t"),
        console.timeEnd("t"),
        console.timeLog("t", "x")
      ])
      expect(yield* printed(terminal)).toStrictEqual({ stdout: "", stderr: "" })
      expect(console[Console.TypeId]).toBe(Console.TypeId)
    }))

  it.effect("the unsafe console (where Effect's loggers print) writes every method, log included, to stderr, in order", () =>
    Effect.gen(function* () {
      const terminal = yield* Io.memory()
      const { unsafe } = Io.toConsole(terminal.io)
      unsafe.log("one")
      unsafe.error("two")
      unsafe.info("three")
      yield* Effect.yieldNow()
      expect(yield* printed(terminal)).toStrictEqual({ stdout: "", stderr: "one\ntwo\nthree\n" })
    }))
})
