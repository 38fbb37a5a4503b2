/**
 * A chat's first screen, shown by the executable before the chat's program is loaded: Node starts in about a third
 * of the time the program takes to load (Effect, the tools, the provider layers), so the prompt is up at once and
 * the program loads while the user types. The program then takes the screen over (`Io.layerNodeAfter`, with
 * `Takeover`): it skips what it would print again, and takes the prompt back (a new line, or the line cleared on a
 * terminal) before printing anything else. On a terminal what is typed meanwhile is kept (`TypeAhead`) for the
 * program's line editor.
 *
 * Only when nothing can come before the prompt but these lines: the offline emulator (a real provider's layer is
 * built first, and its configuration may be refused), and no option that reads files, starts servers or asks.
 */
import type * as Argv from "../Argv.js"
import * as ChatGreeting from "./chatGreeting.js"
import * as ProviderChoice from "./providerChoice.js"

/** What was printed on each stream, in order: all of stderr's, then stdout's (which ends with the prompt). */
export interface Shown {
  readonly stderr: string
  readonly stdout: string
  /** On a terminal, what is typed at the early prompt, kept for the program's line editor. */
  readonly typed?: TypeAhead | undefined
}

/**
 * The chat options that are wholly checked by the argument parser, print nothing and read nothing before the first
 * prompt. `--session`, `--scenario`, `--mcp*`, `--durable`, `--root`, `--allow-host`, `--base-url` and
 * `--log-level` are not among them: each may print, ask or fail first.
 */
const quiet: ReadonlySet<string> = new Set([
  "provider",
  "model",
  "system",
  "max-turns",
  "concurrency",
  "first-byte-timeout",
  "idle-timeout",
  "turn-timeout",
  "run-timeout",
  "max-response-bytes",
  "temperature",
  "yes",
  "verbose"
])

/**
 * The first screen of `parsed` in the environment `env`, when it has one that is known before it runs. Not with
 * OpenTelemetry's variables set: their settings are checked before the chat starts, and may be refused.
 */
export const of = (parsed: Argv.Parsed, env: Readonly<Record<string, string | undefined>>): Shown | undefined => {
  if (parsed._tag !== "Run" || parsed.spec.name !== "chat") return undefined
  if (!parsed.options.names().every((name) => quiet.has(name))) return undefined
  if (Object.keys(env).some((name) => name.startsWith("OTEL_") && env[name] !== undefined)) return undefined
  const choice = ProviderChoice.choose(parsed.options.text("provider") as ProviderChoice.Name | undefined, (variable) => env[variable])
  if (choice.name !== "emulator") return undefined
  return { stderr: `${ProviderChoice.describeEmulator(choice)}\n`, stdout: `${ChatGreeting.greeting}\n${ChatGreeting.prompt}` }
}

/**
 * The early screen as the program takes it over. Each method says what to print on stdout before what the program
 * prints next: nothing while the program prints what is shown already (which it then skips), and once anything
 * else comes, the early prompt taken back — its line cleared on a terminal, ended elsewhere — so nothing is lost
 * and nothing runs together. A program that was shown nothing is told nothing.
 */
export class Takeover {
  private stdout: string
  private stderr: string

  /** `terminal`: stdout is a terminal (a line can be cleared). */
  constructor(private readonly shown: Shown | undefined, private readonly terminal: boolean) {
    this.stdout = shown?.stdout ?? ""
    this.stderr = shown?.stderr ?? ""
  }

  /** Before `text` is printed on `stream`: `undefined` when it is shown already (skip it), else what to print first. */
  print(stream: "stdout" | "stderr", text: string): string | undefined {
    if (text === "") return ""
    if (this[stream].startsWith(text)) {
      this[stream] = this[stream].slice(text.length)
      return undefined
    }
    return this.takeBack()
  }

  /** Before `prompt` is shown: whether it is up already (all else shown was printed again), else what to print first. */
  prompt(prompt: string): { readonly up: boolean; readonly before: string } {
    if (this.stdout === prompt && this.stderr === "") {
      this.stdout = ""
      return { up: true, before: "" }
    }
    return { up: false, before: this.takeBack() }
  }

  /** Ends the early screen: its prompt, if it is still up, taken back. */
  takeBack(): string {
    if (this.stdout === "" && this.stderr === "") return ""
    this.stdout = ""
    this.stderr = ""
    return this.shown === undefined || this.shown.stdout.endsWith("\n") ? "" : this.terminal ? clearLine : "\n"
  }
}

/** Back to the start of the line, and the line cleared. */
export const clearLine = "\r\u001b[2K"

/** What `TypeAhead` uses of a terminal's input stream. */
export interface Terminal {
  setRawMode(mode: boolean): unknown
  on(event: "data", listener: (chunk: Buffer) => void): unknown
  off(event: "data", listener: (chunk: Buffer) => void): unknown
  pause(): unknown
}

/** The terminal's keys that signal: Ctrl-C, Ctrl-\\ and Ctrl-Z, raw mode reads them as bytes. */
const signals: ReadonlyMap<number, NodeJS.Signals> = new Map([
  [0x03, "SIGINT"],
  [0x1c, "SIGQUIT"],
  [0x1a, "SIGTSTP"]
])

/**
 * What is typed at the early prompt on a terminal while the program loads: read at once in raw mode (so the terminal
 * does not echo it — the program's line editor shows it, once — and a line finished with Enter does not reach the
 * shell if the program never reads it), and kept until the program `take`s it. A key that signals does what it does
 * in the terminal's own mode: Ctrl-C stops the command (exit 130), as before any prompt; Ctrl-\\ quits; Ctrl-Z
 * suspends it until `fg`.
 */
export class TypeAhead {
  private readonly chunks: Array<Buffer> = []
  private reading = true

  private constructor(private readonly input: Terminal, private readonly echo: (text: string) => void, private readonly raise: (signal: NodeJS.Signals) => void) {
    input.setRawMode(true)
    input.on("data", this.onData)
  }

  /**
   * Starts keeping what is typed on `input`, a terminal; `echo` shows the key that stopped it (`^C`) and `raise`
   * sends a signal to this process (their defaults: stdout, and `process.kill`).
   */
  static start(
    input: Terminal,
    echo: (text: string) => void = (text) => void process.stdout.write(text),
    raise: (signal: NodeJS.Signals) => void = (signal) => void process.kill(process.pid, signal)
  ): TypeAhead {
    return new TypeAhead(input, echo, raise)
  }

  private readonly onData = (chunk: Buffer): void => {
    const at = chunk.findIndex((byte) => signals.has(byte))
    if (at === -1) return void this.chunks.push(chunk)
    this.chunks.push(chunk.subarray(0, at))
    const signal = signals.get(chunk[at]!)!
    // The terminal in its own mode again, so the signal does there what it does in any program.
    this.input.setRawMode(false)
    if (signal === "SIGTSTP") {
      process.once("SIGCONT", () => {
        if (this.reading) this.input.setRawMode(true)
      })
    } else {
      this.stop()
      this.echo(signal === "SIGINT" ? "^C\n" : "^\\\n")
    }
    this.raise(signal)
    this.chunks.push(chunk.subarray(at + 1))
  }

  private stop(): void {
    this.reading = false
    this.input.off("data", this.onData)
    this.input.pause()
  }

  /** What was typed, for the program's line editor (which reads the terminal from now on, in its own raw mode). */
  take(): Buffer {
    this.stop()
    return Buffer.concat(this.chunks.splice(0))
  }

  /** Forgets what was typed and gives the terminal back in its own mode (the program will not read it). */
  drop(): void {
    this.stop()
    this.chunks.length = 0
    this.input.setRawMode(false)
  }
}
