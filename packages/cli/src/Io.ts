/**
 * The terminal as a service: output (stdout, stderr), input lines, and Ctrl-C. Commands never touch `process`
 * directly, so every command — the chat REPL included — runs the same against a real terminal (`layerNode`) and
 * against memory (`memory`: feed lines and Ctrl-Cs, read what was printed), which is how the tests drive them.
 *
 * Ctrl-C is an input event, not a signal that kills the program: whoever waits for it (`interrupted`, or a
 * `readLine` in progress) decides what it means — cancel a chat turn, deny an approval, stop the emulator.
 *
 * @example
 * const io = yield* Io.Io
 * yield* io.out("hello\n")
 * const input = yield* io.readLine("you> ")   // Line | Interrupt | End
 *
 * @since 0.1.0
 */
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Console as NodeConsole } from "node:console"
import * as readline from "node:readline"
import { Writable } from "node:stream"
import { format } from "node:util"
import * as Color from "./internal/color.js"
import * as EarlyScreen from "./internal/earlyScreen.js"

/** What reading a line can give: a line, a Ctrl-C (with what had been typed so far), or the end of input. */
export type Input =
  | { readonly _tag: "Line"; readonly text: string }
  | { readonly _tag: "Interrupt"; readonly partial: string }
  | { readonly _tag: "End" }

export interface Service {
  /** Whether stdout is a terminal (line editing). */
  readonly isTTY: boolean
  /** Whether to paint with ANSI colours: stdout is a terminal and NO_COLOR is not set, or FORCE_COLOR is. */
  readonly color: boolean
  /** Whether stderr is a terminal, where a status line can be redrawn in place (progress, a spinner). */
  readonly interactive: boolean
  /**
   * Shows `text` as the status line on stderr, replacing the previous one; `""` clears it. Only on an
   * interactive stderr (elsewhere it does nothing: piped output gets plain lines instead). Anything written
   * through `out` or `err` clears the status line first, so it never ends up in the middle of output.
   */
  readonly status: (text: string) => Effect.Effect<void>
  /** Writes to stdout as is (no newline added). */
  readonly out: (text: string) => Effect.Effect<void>
  /** Writes to stderr as is (no newline added). */
  readonly err: (text: string) => Effect.Effect<void>
  /** Shows `prompt` and waits for the next line, Ctrl-C, or the end of input. Lines typed ahead are kept. */
  readonly readLine: (prompt: string) => Effect.Effect<Input>
  /** Completes at the next Ctrl-C. */
  readonly interrupted: Effect.Effect<void>
}

export class Io extends Context.Tag("@agentfx/cli/Io")<Io, Service>() {}

/** What a terminal shows for an input once it is read. */
const echo = (input: Input): string => (input._tag === "Line" ? `${input.text}\n` : input._tag === "Interrupt" ? "^C\n" : "\n")

/**
 * The input side shared by every implementation: a buffer of lines, an end flag, and the parties waiting for a
 * line or a Ctrl-C. Every waiter present when Ctrl-C arrives sees it; a Ctrl-C nobody waits for is dropped.
 */
class Inputs {
  private readonly lines: Array<string> = []
  private ended = false
  private readonly lineWaiters = new Set<(input: Input) => void>()
  private readonly interruptWaiters = new Set<(partial: string) => void>()

  pushLine(text: string): void {
    const [waiter] = this.lineWaiters
    if (waiter === undefined) {
      this.lines.push(text)
      return
    }
    this.lineWaiters.delete(waiter)
    waiter({ _tag: "Line", text })
  }

  end(): void {
    this.ended = true
    for (const waiter of [...this.lineWaiters]) waiter({ _tag: "End" })
    this.lineWaiters.clear()
  }

  interrupt(partial: string): void {
    const waiters = [...this.interruptWaiters]
    this.interruptWaiters.clear()
    for (const waiter of waiters) waiter(partial)
  }

  readonly next: Effect.Effect<Input> = Effect.async<Input>((resume) => {
    const line = this.lines.shift()
    if (line !== undefined) return resume(Effect.succeed({ _tag: "Line", text: line }))
    if (this.ended) return resume(Effect.succeed({ _tag: "End" }))
    const onInterrupt = (partial: string) => {
      this.lineWaiters.delete(onInput)
      resume(Effect.succeed({ _tag: "Interrupt", partial }))
    }
    const onInput = (input: Input) => {
      this.interruptWaiters.delete(onInterrupt)
      resume(Effect.succeed(input))
    }
    this.lineWaiters.add(onInput)
    this.interruptWaiters.add(onInterrupt)
    return Effect.sync(() => {
      this.lineWaiters.delete(onInput)
      this.interruptWaiters.delete(onInterrupt)
    })
  })

  readonly interrupted: Effect.Effect<void> = Effect.async<void>((resume) => {
    const onInterrupt = () => resume(Effect.void)
    this.interruptWaiters.add(onInterrupt)
    return Effect.sync(() => this.interruptWaiters.delete(onInterrupt))
  })
}

/**
 * The real terminal, after what the executable printed before this program was loaded (`shown`: a chat's first
 * screen, see `internal/earlyScreen.ts`). That text printed again is skipped, and the first prompt that is already
 * up is not shown twice; anything else printed first takes the early prompt back (clears its line on a terminal,
 * ends it elsewhere), so nothing is lost and nothing runs together.
 *
 * Ctrl-C (SIGINT, or readline's own when stdin is a terminal in raw mode) becomes an input event while this layer
 * is in scope, so the program is never killed half-way: commands decide. stdin is only opened when a line is first
 * read, so commands that never read leave it alone.
 */
export const layerNodeAfter = (shown: EarlyScreen.Shown | undefined): Layer.Layer<Io> => Layer.scoped(
  Io,
  Effect.gen(function* () {
    const inputs = new Inputs()
    const isTTY = process.stdout.isTTY === true
    const interactive = process.stdin.isTTY === true
    const stderrTTY = process.stderr.isTTY === true
    const early = new EarlyScreen.Takeover(shown, isTTY)
    let statusShown = false
    let rl: readline.Interface | undefined
    const open = (): readline.Interface => {
      if (rl !== undefined) return rl
      // What was typed at the early prompt comes first, before the line editor reads the terminal.
      const typed = shown?.typed?.take()
      if (typed !== undefined && typed.length > 0) process.stdin.unshift(typed)
      const created = readline.createInterface({
        input: process.stdin,
        ...(interactive ? { output: process.stdout, terminal: true } : { terminal: false })
      })
      created.on("line", (line) => inputs.pushLine(line))
      created.on("close", () => inputs.end())
      created.on("SIGINT", () => {
        const partial = created.line
        // Clear what was typed (like a shell), then let the waiter decide.
        if (partial !== "") created.write(null, { ctrl: true, name: "u" })
        process.stdout.write("^C\n")
        inputs.interrupt(partial)
      })
      rl = created
      return created
    }
    const onSigint = () => inputs.interrupt("")
    yield* Effect.acquireRelease(
      Effect.sync(() => process.on("SIGINT", onSigint)),
      () =>
        Effect.sync(() => {
          process.off("SIGINT", onSigint)
          rl?.close()
        })
    )
    const clearStatus = () => {
      if (!statusShown) return
      statusShown = false
      process.stderr.write("\r\u001b[2K")
    }
    const write = (stream: NodeJS.WriteStream) => (text: string) =>
      Effect.async<void>((resume) => {
        const before = early.print(stream === process.stdout ? "stdout" : "stderr", text)
        if (before === undefined) return resume(Effect.void)
        if (before !== "") process.stdout.write(before)
        clearStatus()
        stream.write(text, () => resume(Effect.void))
      })
    return {
      isTTY,
      color: Color.enabled(process.env, isTTY),
      interactive: stderrTTY,
      status: (text) =>
        Effect.sync(() => {
          if (!stderrTTY) return
          const before = text === "" ? "" : early.takeBack()
          if (before !== "") process.stdout.write(before)
          clearStatus()
          if (text === "") return
          // One line only: a wrapped status line could not be erased with \r. A terminal that reports no width (0) counts as 80.
          const columns = process.stderr.columns || 80
          process.stderr.write(text.length < columns ? text : `${text.slice(0, columns - 2)}…`)
          statusShown = true
        }),
      out: write(process.stdout),
      err: write(process.stderr),
      readLine: (prompt) =>
        Effect.suspend(() => {
          clearStatus()
          const { before, up } = early.prompt(prompt)
          if (before !== "") process.stdout.write(before)
          const line = open()
          if (interactive) {
            // The early prompt is drawn again by the line editor, on a cleared line, followed by what was typed at
            // it (kept unechoed, and handed over by `open`).
            if (up) process.stdout.write(EarlyScreen.clearLine)
            line.setPrompt(prompt)
            line.prompt()
            return inputs.next
          }
          // Piped input is not echoed by a terminal: echo it, so the output reads as a conversation.
          if (!up) process.stdout.write(prompt)
          return Effect.tap(inputs.next, (input) => Effect.sync(() => process.stdout.write(echo(input))))
        }),
      interrupted: inputs.interrupted
    }
  })
)

/** The real terminal (see `layerNodeAfter`), with nothing printed before. */
export const layerNode: Layer.Layer<Io> = layerNodeAfter(undefined)

/** An in-memory terminal and the controls a test (or an embedding program) drives it with. */
export interface Memory {
  readonly io: Service
  readonly layer: Layer.Layer<Io>
  /** Lines of input, as if typed. */
  readonly feed: (...lines: ReadonlyArray<string>) => Effect.Effect<void>
  /** Ctrl-C. */
  readonly interrupt: Effect.Effect<void>
  /** The end of input (Ctrl-D). */
  readonly end: Effect.Effect<void>
  readonly stdout: Effect.Effect<string>
  readonly stderr: Effect.Effect<string>
  /** Every status line shown (an interactive terminal only; `""` is a clear). */
  readonly statuses: Effect.Effect<ReadonlyArray<string>>
  /** Waits until what was printed (stdout) satisfies `check`. */
  readonly waitForOutput: (check: (stdout: string) => boolean) => Effect.Effect<string>
}

/** How the in-memory terminal presents itself (default: piped — no colour, no status line, not a TTY). */
export interface MemoryOptions {
  readonly color?: boolean
  /** Behave like a terminal on stderr: status lines are recorded in `statuses`. */
  readonly interactive?: boolean
  /**
   * Say stdout is a terminal (`isTTY`), for what a command prints differently there (the newline after an echoed
   * `^C`). Only the flag changes: prompts and input stay those of the memory terminal.
   */
  readonly isTTY?: boolean
}

/** A terminal in memory: not a TTY unless told, prompts written to stdout, input fed by `feed`, `interrupt` and `end`. */
export const memory = (options: MemoryOptions = {}): Effect.Effect<Memory> =>
  Effect.sync(() => {
    const inputs = new Inputs()
    let stdout = ""
    let stderr = ""
    const statuses: Array<string> = []
    const watchers = new Set<() => void>()
    const notify = () => {
      for (const watcher of [...watchers]) watcher()
    }
    const interactive = options.interactive === true
    const io: Service = {
      isTTY: options.isTTY === true,
      color: options.color === true,
      interactive,
      status: (text) =>
        Effect.sync(() => {
          if (interactive) statuses.push(text)
        }),
      out: (text) =>
        Effect.sync(() => {
          stdout += text
          notify()
        }),
      err: (text) =>
        Effect.sync(() => {
          stderr += text
        }),
      // Echoed like a terminal echoes what is typed, so the transcript reads as it would on screen.
      readLine: (prompt) =>
        io.out(prompt).pipe(
          Effect.zipRight(inputs.next),
          Effect.tap((input) => io.out(echo(input)))
        ),
      interrupted: inputs.interrupted
    }
    return {
      io,
      layer: Layer.succeed(Io, io),
      feed: (...lines) => Effect.sync(() => lines.forEach((line) => inputs.pushLine(line))),
      interrupt: Effect.sync(() => inputs.interrupt("")),
      end: Effect.sync(() => inputs.end()),
      stdout: Effect.sync(() => stdout),
      stderr: Effect.sync(() => stderr),
      statuses: Effect.sync(() => [...statuses]),
      waitForOutput: (check) =>
        Effect.async<string>((resume) => {
          if (check(stdout)) return resume(Effect.succeed(stdout))
          const watcher = () => {
            if (!check(stdout)) return
            watchers.delete(watcher)
            resume(Effect.succeed(stdout))
          }
          watchers.add(watcher)
          return Effect.sync(() => watchers.delete(watcher))
        })
    }
  })

/**
 * A Node console whose every method, `log` included, writes to stderr through `io`, in order. Effect's loggers
 * print through `Console.unsafe` (`log` for every level): on stdout their lines would break `--json`.
 */
const stderrConsole = (io: Service): Console.UnsafeConsole => {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      // `err` of the real terminal starts its write at once, and the memory one completes at once: lines keep their order.
      Effect.runFork(io.err(chunk.toString("utf8")))
      done()
    }
  })
  return new NodeConsole({ stdout: stream, stderr: stream })
}

/**
 * Effect's `Console` on top of an `Io`, so what libraries print through `Console` (@effect/cli's help and its
 * validation errors) lands where the commands print: `log` / `info` on stdout, `error` / `warn` on stderr. Log
 * lines (every logger prints through `unsafe`) go to stderr whatever their level: stdout carries only the command's output.
 */
export const toConsole = (io: Service): Console.Console => {
  const line = (write: (text: string) => Effect.Effect<void>) => (...args: ReadonlyArray<unknown>) => write(`${format(...args)}\n`)
  const log = line(io.out)
  const error = line(io.err)
  const unsafe = stderrConsole(io)
  return {
    [Console.TypeId]: Console.TypeId,
    assert: (condition, ...args) => (condition ? Effect.void : error("Assertion failed:", ...args)),
    clear: Effect.void,
    count: () => Effect.void,
    countReset: () => Effect.void,
    debug: log,
    dir: (item) => log(item),
    dirxml: log,
    error,
    group: () => Effect.void,
    groupEnd: Effect.void,
    info: log,
    log,
    table: (data) => log(data),
    time: () => Effect.void,
    timeEnd: () => Effect.void,
    timeLog: () => Effect.void,
    trace: error,
    warn: error,
    unsafe
  }
}
