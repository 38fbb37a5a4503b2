/**
 * The demo's terminal for progress: a status line redrawn on stderr when stderr is a terminal (nothing when it
 * is piped: the demo prints plain lines anyway). It reads no input and leaves Ctrl-C to the runtime, which
 * ends the demo with exit code 130.
 */
import type { Io } from "@agentfx/cli"
import { Effect } from "effect"

const interactive = process.stderr.isTTY === true
let shown = false

const clear = () => {
  if (!shown) return
  shown = false
  process.stderr.write("\r\u001b[2K")
}

const write = (stream: NodeJS.WriteStream) => (text: string) =>
  Effect.async<void>((resume) => {
    clear()
    stream.write(text, () => resume(Effect.void))
  })

export const terminal: Io.Service = {
  isTTY: process.stdout.isTTY === true,
  color: process.stdout.isTTY === true && (process.env.NO_COLOR ?? "") === "",
  interactive,
  status: (text) =>
    Effect.sync(() => {
      if (!interactive) return
      clear()
      if (text === "") return
      const columns = process.stderr.columns ?? 80
      process.stderr.write(text.length < columns ? text : `${text.slice(0, columns - 2)}…`)
      shown = true
    }),
  out: write(process.stdout),
  err: write(process.stderr),
  readLine: () => Effect.succeed({ _tag: "End" }),
  interrupted: Effect.never
}

/** Prints a line on stdout, after clearing the status line. */
export const line = (text: string): Effect.Effect<void> => terminal.out(`${text}\n`)
