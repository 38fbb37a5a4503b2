/**
 * A chat's first screen, shown by the executable before the chat's program is loaded: Node starts in about a third
 * of the time the program takes to load (Effect, the tools, the provider layers), so the prompt is up at once and
 * the program loads while the user types. The program then takes the screen over (`Io.layerNode`): it skips what
 * it would print again, and takes the prompt back (a new line) before printing anything else.
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

/** The first screen of `parsed` with the environment `lookup`, when it has one that is known before it runs. */
export const of = (parsed: Argv.Parsed, lookup: ProviderChoice.Lookup): Shown | undefined => {
  if (parsed._tag !== "Run" || parsed.spec.name !== "chat") return undefined
  if (!parsed.options.names().every((name) => quiet.has(name))) return undefined
  const choice = ProviderChoice.choose(parsed.options.text("provider") as ProviderChoice.Name | undefined, lookup)
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
