/**
 * `--help` as plain text, from the same `Argv.Spec` the parser reads, so the help and the parser never disagree.
 * Headings are bold only when colour is on (a terminal, or FORCE_COLOR); lines are wrapped to `width`.
 *
 * @since 0.1.0
 */
import type * as Argv from "./Argv.js"

export interface Options {
  /** ANSI bold headings. */
  readonly color: boolean
  /** Columns to wrap at (default 100). */
  readonly width?: number
}

/**
 * `text` wrapped so that no line passes column `width`: every line after the first is indented by `indent` spaces,
 * and the first starts at column `first` (after a term printed beside it).
 */
export const wrap = (text: string, width: number, indent = 0, first = 0): string => {
  const words = text.match(/\S+/g) ?? []
  const lines: Array<string> = []
  let line = ""
  for (const word of words) {
    const room = width - (lines.length === 0 ? first : indent)
    if (line !== "" && line.length + 1 + word.length > room) {
      lines.push(line)
      line = word
    } else {
      line = line === "" ? word : `${line} ${word}`
    }
  }
  // With no words, one empty line: "".
  lines.push(line)
  return lines.join(`\n${" ".repeat(indent)}`)
}

const heading = (options: Options) => (text: string) => (options.color ? `\u001b[1m${text}\u001b[0m` : text)

/** Two columns: a term, and its description wrapped beside it (or below it when the term is long), within `width`. */
const table = (rows: ReadonlyArray<readonly [string, string]>, width: number): Array<string> => {
  const column = Math.min(Math.max(...rows.map(([term]) => term.length)) + 4, 28)
  // Every line of a description starts at `column`, the first after the term and the others after their indent.
  return rows.map(([term, description]) =>
    term.length + 2 <= column - 2
      ? `  ${term.padEnd(column - 2)}${wrap(description, width, column, column)}`
      : `  ${term}\n${" ".repeat(column)}${wrap(description, width, column, column)}`
  )
}

const optionTerm = (option: Argv.OptionSpec): string =>
  `${option.alias === undefined ? "" : `-${option.alias}, `}--${option.name}${option.value === undefined ? "" : option.optionalValue !== undefined ? ` [${option.value}]` : ` ${option.value}`}${option.repeated === true ? " (repeatable)" : ""}`

/** The help of one command. */
export const command = (spec: Argv.Spec, globals: ReadonlyArray<Argv.OptionSpec>, usage: string, options: Options): string => {
  const width = options.width ?? 100
  const h = heading(options)
  const lines = [`agentfx ${spec.name} — ${spec.summary}`, "", `${h("Usage:")} ${usage}`, ""]
  for (const paragraph of spec.description) lines.push(wrap(paragraph, width), "")
  if (spec.args.length > 0) {
    lines.push(h("Arguments:"), ...table(spec.args.map((arg) => [arg.variadic ? `<${arg.name}>...` : `<${arg.name}>`, arg.description]), width), "")
  }
  lines.push(h("Options:"), ...table([...spec.options, ...globals].map((option) => [optionTerm(option), option.description]), width), "")
  if (spec.examples !== undefined && spec.examples.length > 0) lines.push(h("Examples:"), ...spec.examples.map((example) => `  ${example}`), "")
  return lines.join("\n")
}

/** The help of `agentfx` itself: what it is, its commands, the root options, exit codes. */
export const root = (specs: ReadonlyArray<Argv.Spec>, rootOptions: ReadonlyArray<Argv.OptionSpec>, options: Options): string => {
  const width = options.width ?? 100
  const h = heading(options)
  return [
    "agentfx — function-calling LLM agents from the terminal",
    "",
    `${h("Usage:")} agentfx COMMAND [options]`,
    "",
    wrap(
      "With no API key set, every command runs offline against the built-in emulator and says so. GEMINI_API_KEY (or GOOGLE_API_KEY), ZAI_API_KEY or OPENAI_API_KEY choose a real provider; --provider overrides.",
      width
    ),
    "",
    h("Commands:"),
    ...table(specs.map((spec) => [spec.name, spec.summary]), width),
    "",
    h("Options:"),
    ...table(rootOptions.map((option) => [optionTerm(option), option.description]), width),
    "",
    h("Exit codes:"),
    ...table(
      [
        ["0", "success"],
        ["1", "the command ran and failed (a model error, an eval below its threshold)"],
        ["2", "bad arguments, files or configuration: nothing was run"],
        ["130", "stopped with Ctrl-C"],
        ["141", "the reader of its output went away (| head): stopped quietly"]
      ],
      width
    ),
    "",
    "agentfx COMMAND --help describes a command.",
    ""
  ].join("\n")
}
