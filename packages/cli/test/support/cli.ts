import { Cli, Io } from "@agentfx/cli"
import { Emulator, Policy } from "@agentfx/emulator"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export interface Outcome {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

export interface RunOptions {
  /** The whole environment the command sees (nothing of the real one leaks in). */
  readonly env?: Readonly<Record<string, string>>
  /** A terminal to drive; a fresh one otherwise (no input: reading gives the end of input). */
  readonly terminal?: Io.Memory
}

/** Runs `agentfx args` in-process and returns its exit code and output. */
export const agentfx = (args: ReadonlyArray<string>, options: RunOptions = {}): Effect.Effect<Outcome> =>
  Effect.gen(function* () {
    const terminal = options.terminal ?? (yield* endedTerminal)
    const code = yield* Cli.main(args).pipe(
      Effect.provide(Layer.merge(terminal.layer, NodeContext.layer)),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(options.env ?? {}))))
    )
    return { code, stdout: yield* terminal.stdout, stderr: yield* terminal.stderr }
  })

const endedTerminal = Effect.tap(Io.memory(), (terminal) => terminal.end)

/** A directory removed with the scope. */
export const tempDir: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "agentfx-cli-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** Writes files (relative path → text) under `dir`. */
export const writeFiles = (dir: string, files: Readonly<Record<string, string>>): void => {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    fs.writeFileSync(path.join(dir, name), text)
  }
}

/** An emulator on 127.0.0.1 for the test's scope. */
export const emulator = (options: Emulator.Options = {}): Effect.Effect<Emulator.Service, never, Scope.Scope> =>
  Emulator.make({ policy: Policy.offline, ...options })

/** The environment and flags that point the CLI's Gemini provider at `emulator`. */
export const viaGemini = (emulator: Emulator.Service) => ({
  env: { GEMINI_API_KEY: emulator.apiKey },
  flags: ["--provider", "gemini", "--base-url", emulator.geminiBaseUrl]
})

/** How many times `part` occurs in `text`. */
export const count = (text: string, part: string): number => text.split(part).length - 1

/** Starts `agentfx <command> args` on a fresh terminal; returns the terminal and the running command. */
export const startInteractive = (command: string, args: ReadonlyArray<string>, env: Record<string, string>) =>
  Effect.gen(function* () {
    const terminal = yield* Io.memory()
    const fiber = yield* Effect.fork(agentfx([command, ...args], { env, terminal }))
    return { terminal, fiber }
  })

/** Types `line` once the terminal shows its `n`-th `prompt`. */
export const typeAt = (prompt: string) => (terminal: Io.Memory, n: number, line: string) =>
  Effect.zipRight(terminal.waitForOutput((out) => count(out, prompt) >= n), terminal.feed(line))

/**
 * Waits for a command running on the TestClock, moving the clock a second at a time and letting I/O happen in
 * between, so retries' waits pass without real sleeps.
 */
export const untilEnd = (fiber: Fiber.RuntimeFiber<Outcome>): Effect.Effect<Outcome> =>
  Effect.gen(function* () {
    for (let step = 0; step < 10_000; step++) {
      const done = fiber.unsafePoll()
      if (done !== null) return yield* done
      yield* TestClock.adjust("1 second")
      yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
    }
    return yield* Effect.dieMessage("the command did not end")
  })
