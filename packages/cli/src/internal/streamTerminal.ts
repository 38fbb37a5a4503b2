/**
 * The real terminal over the streams it is given: stdin, stdout and stderr, the environment (for colour) and the
 * interrupt signal. `Io.layerNodeAfter` gives it the process's own; a test gives it streams in memory and drives it
 * as a person at a terminal would, in-process.
 *
 * It comes after what the executable printed before this program was loaded (`shown`: a chat's first screen, see
 * `earlyScreen.ts`). That text printed again is skipped, and the first prompt that is already up is not shown twice;
 * anything else printed first takes the early prompt back (clears its line on a terminal, ends it elsewhere), so
 * nothing is lost and nothing runs together.
 *
 * Ctrl-C (the interrupt signal, or readline's own when stdin is a terminal in raw mode) becomes an input event while
 * the terminal is in scope, so the program is never killed half-way: commands decide. stdin is only opened when a
 * line is first read, so commands that never read leave it alone.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as readline from "node:readline"
import type { Readable, Writable } from "node:stream"
import type * as Io from "../Io.js"
import * as Color from "./color.js"
import * as EarlyScreen from "./earlyScreen.js"
import { echo, Inputs } from "./inputs.js"

/** An output stream, and what a terminal tells of itself on it. */
export type Output = Writable & { readonly isTTY?: boolean | undefined; readonly columns?: number | undefined }

/** What the terminal runs over: the process's own streams, or any others (in memory, a socket's). */
export interface Streams {
  readonly stdin: Readable & { readonly isTTY?: boolean | undefined }
  readonly stdout: Output
  readonly stderr: Output
  /** The environment, for colour (NO_COLOR, FORCE_COLOR). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** Calls `listener` at each interrupt signal (SIGINT) until the returned function is called. */
  readonly onInterrupt: (listener: () => void) => () => void
}

/** The terminal over `streams`, after `shown`; the interrupt signal is an input event until the scope closes. */
export const make = (streams: Streams, shown: EarlyScreen.Shown | undefined): Effect.Effect<Io.Service, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { stdin, stdout, stderr } = streams
    const inputs = new Inputs()
    const isTTY = stdout.isTTY === true
    const interactive = stdin.isTTY === true
    const stderrTTY = stderr.isTTY === true
    const early = new EarlyScreen.Takeover(shown, isTTY)
    let statusShown = false
    let rl: readline.Interface | undefined
    const open = (): readline.Interface => {
      if (rl !== undefined) return rl
      // What was typed at the early prompt comes first, before the line editor reads the terminal.
      const typed = shown?.typed?.take()
      if (typed !== undefined && typed.length > 0) stdin.unshift(typed)
      const created = readline.createInterface({
        input: stdin,
        ...(interactive ? { output: stdout, terminal: true } : { terminal: false })
      })
      created.on("line", (line) => inputs.pushLine(line))
      created.on("close", () => inputs.end())
      created.on("SIGINT", () => {
        const partial = created.line
        // Clear what was typed (like a shell), then let the waiter decide.
        if (partial !== "") created.write(null, { ctrl: true, name: "u" })
        stdout.write("^C\n")
        inputs.interrupt(partial)
      })
      rl = created
      return created
    }
    yield* Effect.acquireRelease(
      Effect.sync(() => streams.onInterrupt(() => inputs.interrupt(""))),
      (unsubscribe) =>
        Effect.sync(() => {
          unsubscribe()
          rl?.close()
        })
    )
    const clearStatus = () => {
      if (!statusShown) return
      statusShown = false
      stderr.write("\r\u001b[2K")
    }
    const write = (stream: "stdout" | "stderr") => (text: string) =>
      Effect.async<void>((resume) => {
        const before = early.print(stream, text)
        if (before === undefined) return resume(Effect.void)
        if (before !== "") stdout.write(before)
        clearStatus()
        streams[stream].write(text, () => resume(Effect.void))
      })
    const service: Io.Service = {
      isTTY,
      color: Color.enabled(streams.env, isTTY),
      interactive: stderrTTY,
      status: (text) =>
        Effect.sync(() => {
          if (!stderrTTY) return
          const before = text === "" ? "" : early.takeBack()
          if (before !== "") stdout.write(before)
          clearStatus()
          if (text === "") return
          // One line only: a wrapped status line could not be erased with \r. A terminal that reports no width (0) counts as 80.
          const columns = stderr.columns || 80
          stderr.write(text.length < columns ? text : `${text.slice(0, columns - 2)}…`)
          statusShown = true
        }),
      out: write("stdout"),
      err: write("stderr"),
      readLine: (prompt) =>
        Effect.suspend(() => {
          clearStatus()
          const { before, up } = early.prompt(prompt)
          if (before !== "") stdout.write(before)
          const line = open()
          if (interactive) {
            // The early prompt is drawn again by the line editor, on a cleared line, followed by what was typed at
            // it (kept unechoed, and handed over by `open`).
            if (up) stdout.write(EarlyScreen.clearLine)
            line.setPrompt(prompt)
            line.prompt()
            return inputs.next
          }
          // Piped input is not echoed by a terminal: echo it, so the output reads as a conversation.
          if (!up) stdout.write(prompt)
          return Effect.tap(inputs.next, (input) => Effect.sync(() => stdout.write(echo(input))))
        }),
      interrupted: inputs.interrupted
    }
    return service
  })
