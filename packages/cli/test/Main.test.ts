/**
 * `agentfx` in process (`mainWith`) on handlers written here: what an error, a defect and Ctrl-C print and exit
 * with, what `--verbose` adds, `--log-level` reaching the handler, and the answers given without running anything.
 */
import { CliError, Io } from "@agentfx/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Argv from "../src/Argv.js"
import type { Handler } from "../src/commands/Command.js"
import { specs } from "../src/commands/specs.js"
import { answer } from "../src/internal/immediate.js"
import { mainWith, render } from "../src/internal/main.js"

interface Outcome {
  readonly code: number
  /** Every write, in order, with the stream it went to. */
  readonly writes: ReadonlyArray<readonly ["out" | "err", string]>
  /** What the handler was asked for, in order. */
  readonly loaded: ReadonlyArray<string>
  /** The log lines that passed the minimum level: level and message. */
  readonly logs: ReadonlyArray<readonly [string, unknown]>
}

/** Runs `agentfx args` with `handler` for whichever command, on a memory terminal whose writes are recorded one by one. */
const agentfx = (args: ReadonlyArray<string>, handler: Handler, options: Io.MemoryOptions = {}): Effect.Effect<Outcome> =>
  Effect.gen(function* () {
    const terminal = yield* Io.memory(options)
    const writes: Array<readonly ["out" | "err", string]> = []
    const loaded: Array<string> = []
    const logs: Array<readonly [string, unknown]> = []
    const io: Io.Service = {
      ...terminal.io,
      out: (text) => Effect.sync(() => writes.push(["out", text])),
      err: (text) => Effect.sync(() => writes.push(["err", text]))
    }
    const recorder = Logger.make(({ logLevel, message }) => logs.push([logLevel.label, message]))
    const code = yield* mainWith(args, (spec) => {
      loaded.push(spec.name)
      return Promise.resolve({ handler })
    }).pipe(
      Effect.provide(Layer.mergeAll(Layer.succeed(Io.Io, io), NodeContext.layer, Logger.add(recorder))),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map()))
    )
    return { code, writes, loaded, logs }
  })

const succeeds: Handler = () => Effect.void
const fails = (error: CliError.CliError): Handler => () => Effect.fail(error)
const runFailed = new CliError.RunFailed({ message: "the model is away", details: "first cause\nsecond cause" })
const inputError = new CliError.InputError({ message: "2 problems in cases.yaml", problems: ["line 1: no id", "line 2: no prompt"], details: "the decoder said so" })

describe("agentfx in process (mainWith)", () => {
  it.effect("a handler that succeeds exits 0 and prints nothing; the handler is loaded for the command named", () =>
    Effect.gen(function* () {
      expect(yield* agentfx(["tools"], succeeds)).toStrictEqual({ code: 0, writes: [], loaded: ["tools"], logs: [] })
    }))

  it.effect("an error prints its message on stderr and exits with its code; details only with --verbose (RunFailed, InputError with its problems)", () =>
    Effect.gen(function* () {
      expect(yield* agentfx(["tools"], fails(runFailed))).toStrictEqual({ code: 1, writes: [["err", "agentfx: the model is away\n"]], loaded: ["tools"], logs: [] })
      expect((yield* agentfx(["tools", "--verbose"], fails(runFailed))).writes).toStrictEqual([["err", "agentfx: the model is away\n  first cause\n  second cause\n"]])
      const input = yield* agentfx(["tools"], fails(inputError))
      expect([input.code, input.writes]).toStrictEqual([2, [["err", "agentfx: 2 problems in cases.yaml\n  line 1: no id\n  line 2: no prompt\n"]]])
      expect((yield* agentfx(["tools", "--verbose"], fails(inputError))).writes).toStrictEqual([
        ["err", "agentfx: 2 problems in cases.yaml\n  line 1: no id\n  line 2: no prompt\n  the decoder said so\n"]
      ])
      const usage = yield* agentfx(["tools", "--verbose"], fails(new CliError.UsageError({ message: "no such scenario" })))
      expect([usage.code, usage.writes]).toStrictEqual([2, [["err", "agentfx: no such scenario\n"]]])
    }))

  it.effect("Ctrl-C's error exits 130 with a newline first on a terminal (after its echoed ^C) and none elsewhere; another error gets none on a terminal", () =>
    Effect.gen(function* () {
      const interrupted = fails(new CliError.Interrupted())
      expect(yield* agentfx(["tools"], interrupted, { isTTY: true })).toStrictEqual({ code: 130, writes: [["err", "\nagentfx: interrupted\n"]], loaded: ["tools"], logs: [] })
      expect(yield* agentfx(["tools"], interrupted)).toStrictEqual({ code: 130, writes: [["err", "agentfx: interrupted\n"]], loaded: ["tools"], logs: [] })
      expect((yield* agentfx(["tools"], fails(runFailed), { isTTY: true })).writes).toStrictEqual([["err", "agentfx: the model is away\n"]])
    }))

  it.effect("a cause that is only an interruption exits 130 and prints nothing", () =>
    Effect.gen(function* () {
      expect(yield* agentfx(["tools"], () => Effect.interrupt)).toStrictEqual({ code: CliError.interrupted, writes: [], loaded: ["tools"], logs: [] })
    }))

  it.effect("a defect exits 1 naming the first line of its cause; --verbose adds the whole cause", () =>
    Effect.gen(function* () {
      const error = new Error("boom\nsecond line")
      const dies: Handler = () => Effect.die(error)
      expect(yield* agentfx(["tools"], dies)).toStrictEqual({ code: 1, writes: [["err", "agentfx: unexpected error: Error: boom\n"]], loaded: ["tools"], logs: [] })
      const verbose = yield* agentfx(["tools", "--verbose"], dies)
      expect([verbose.code, verbose.writes]).toStrictEqual([1, [["err", `agentfx: unexpected error: Error: boom\n${Cause.pretty(Cause.die(error))}\n`]]])
      expect((yield* agentfx(["tools"], () => Effect.die("plain"))).writes).toStrictEqual([["err", "agentfx: unexpected error: Error: plain\n"]])
    }))

  it.effect("--log-level reaches the handler: without it Effect's default (info) applies, with it its level", () =>
    Effect.gen(function* () {
      const logs: Handler = () => Effect.zipRight(Effect.logDebug("deep"), Effect.logInfo("shallow"))
      expect((yield* agentfx(["tools"], logs)).logs).toStrictEqual([["INFO", ["shallow"]]])
      expect((yield* agentfx(["tools", "--log-level", "debug"], logs)).logs).toStrictEqual([["DEBUG", ["deep"]], ["INFO", ["shallow"]]])
      expect((yield* agentfx(["tools", "--log-level", "warning"], logs)).logs).toStrictEqual([])
    }))

  it.effect("--help and --version answer on stdout alone, a usage error on stderr alone, without loading a handler", () =>
    Effect.gen(function* () {
      const help = answer(specs, Argv.parse(specs, ["--help"]), false)!.stdout
      expect(yield* agentfx(["--help"], succeeds)).toStrictEqual({ code: 0, writes: [["out", help]], loaded: [], logs: [] })
      expect(yield* agentfx(["--version"], succeeds)).toStrictEqual({ code: 0, writes: [["out", "agentfx 0.1.0\n"]], loaded: [], logs: [] })
      expect(yield* agentfx(["tools", "--bogus"], succeeds)).toStrictEqual({ code: 2, writes: [["err", "agentfx: unknown option --bogus for agentfx tools\n"]], loaded: [], logs: [] })
    }))
})

describe("render", () => {
  it("one headline, the problems an input error lists, then with verbose the details of a failed run or an input error, each line escaped", () => {
    expect(render(runFailed, false)).toBe("agentfx: the model is away\n")
    expect(render(runFailed, true)).toBe("agentfx: the model is away\n  first cause\n  second cause\n")
    expect(render(new CliError.RunFailed({ message: "no details" }), true)).toBe("agentfx: no details\n")
    expect(render(inputError, false)).toBe("agentfx: 2 problems in cases.yaml\n  line 1: no id\n  line 2: no prompt\n")
    expect(render(inputError, true)).toBe("agentfx: 2 problems in cases.yaml\n  line 1: no id\n  line 2: no prompt\n  the decoder said so\n")
    expect(render(new CliError.InputError({ message: "bad\u001b[2J", problems: ["a\u0007"], details: "b\u001b]0;x" }), true)).toBe(
      "agentfx: bad\\u001b[2J\n  a\\u0007\n  b\\u001b]0;x\n"
    )
    expect(render(new CliError.ProviderError({ provider: "gemini", message: "no key" }), true)).toBe("agentfx: no key\n")
    expect(render(new CliError.Interrupted(), true)).toBe("agentfx: interrupted\n")
  })
})
