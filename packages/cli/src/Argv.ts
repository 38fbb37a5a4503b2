/**
 * The command line as data: each command is a `Spec` (its options, arguments and help text), and `parse` reads an
 * argument list against the specs. It imports nothing but `HttpUrl` and `Spelling` (which import nothing), so
 * `agentfx --help` and a mistyped flag are answered before Effect or any provider is loaded; commands load their
 * handler only once their arguments are good.
 *
 * The rules it enforces, the same for every command: an unknown option is an error with a "did you mean" when a
 * known one is close; a value that starts with `-` is taken as an option unless it follows `--`; an option given
 * twice (unless repeatable), a missing value, a missing or surplus argument are errors. Every error is one line
 * that says what to type instead, and shows a URL's user name and password as `***`.
 *
 * @example
 * const parsed = Argv.parse(specs, ["run", "--jsno", "hi"])
 * // { _tag: "Invalid", message: "unknown option --jsno for agentfx run (did you mean --json?)", command: "run" }
 *
 * @since 0.1.0
 */
import * as HttpUrl from "@agentfx/core/HttpUrl"
import { closest } from "@agentfx/core/Spelling"

/** One option of a command: `--name VALUE` (when `value` names the placeholder) or a flag. */
export interface OptionSpec {
  readonly name: string
  /** A one-letter alias, used as `-y`. */
  readonly alias?: string
  /** The value's placeholder in help (`FILE`, `N`); absent for a flag. */
  readonly value?: string
  /**
   * The value may be left out (`--bail` or `--bail 3`): the next argument is its value only when this says it is
   * meant as one (`--bail=3` always is), and is then checked; without one the option's value is `""`.
   */
  readonly optionalValue?: (next: string) => boolean
  /** The only values accepted (listed in help, offered by completions). */
  readonly choices?: ReadonlyArray<string>
  /** Whether the option may be given more than once (its values are collected). */
  readonly repeated?: boolean
  /** Whether the command cannot run without it. */
  readonly required?: boolean
  readonly description: string
  /** A problem with a value, said as the end of `--name VALUE: …`; `undefined` when the value is good. */
  readonly check?: (value: string) => string | undefined
  /** The value may hold a credential (a header, a URL): a problem with it is said as `--name: …`, never quoting it. */
  readonly sensitive?: boolean
}

/** One positional argument. */
export interface ArgSpec {
  readonly name: string
  /** Takes every remaining argument (one at least). */
  readonly variadic?: boolean
  readonly description: string
}

/** A command: its name, what it does, what it takes. */
export interface Spec {
  readonly name: string
  /** One line, for the list of commands. */
  readonly summary: string
  /** Paragraphs for `agentfx NAME --help`. */
  readonly description: ReadonlyArray<string>
  readonly options: ReadonlyArray<OptionSpec>
  readonly args: ReadonlyArray<ArgSpec>
  readonly examples?: ReadonlyArray<string>
}

/** The levels `--log-level` takes, least to most severe (Effect's own names). */
export const logLevels = ["all", "trace", "debug", "info", "warning", "error", "fatal", "none"] as const

/** The options every command accepts. */
export const globalOptions: ReadonlyArray<OptionSpec> = [
  { name: "verbose", description: "On an error, print its details (the cause, each problem) after the one-line message." },
  {
    name: "log-level",
    value: "LEVEL",
    choices: logLevels,
    description: "The least severe log messages printed on stderr (the libraries' own logging; default info)."
  },
  { name: "help", alias: "h", description: "Show this help." }
]

/** What the root accepts besides a command. */
export const rootOptions: ReadonlyArray<OptionSpec> = [
  { name: "help", alias: "h", description: "Show this help (agentfx COMMAND --help for a command's)." },
  { name: "version", description: "Print the version." },
  {
    name: "completions",
    value: "SHELL",
    description: "Print a completion script for bash, zsh, fish or sh (see the README: Shell completions).",
    choices: ["bash", "zsh", "fish", "sh"]
  }
]

/** A command's options as read: each option's value(s), by name. */
export class Values {
  constructor(private readonly values: ReadonlyMap<string, ReadonlyArray<string>>) {}
  /** Whether a flag (or any option) was given. */
  has(name: string): boolean {
    return this.values.has(name)
  }
  /** The names of the options given, in the order first given. */
  names(): ReadonlyArray<string> {
    return [...this.values.keys()]
  }
  /** The value of a single option, or `undefined`. */
  text(name: string): string | undefined {
    return this.values.get(name)?.[0]
  }
  /** Every value of a repeatable option, in order. */
  list(name: string): ReadonlyArray<string> {
    return this.values.get(name) ?? []
  }
  /** A single option's value as a number (its `check` has made sure it is one), or `undefined`. */
  number(name: string): number | undefined {
    const text = this.text(name)
    return text === undefined ? undefined : Number(text)
  }
  /** A duration option's value in milliseconds (checked by `duration`), or `undefined`. */
  millis(name: string): number | undefined {
    const text = this.text(name)
    return text === undefined ? undefined : parseDuration(text)
  }
  /** A size option's value in bytes (checked by `bytes`), or `undefined`. */
  bytes(name: string): number | undefined {
    const text = this.text(name)
    return text === undefined ? undefined : parseBytes(text)
  }
}

/** The outcome of reading an argument list. */
export type Parsed =
  | { readonly _tag: "Run"; readonly spec: Spec; readonly options: Values; readonly args: ReadonlyArray<string>; readonly verbose: boolean }
  | { readonly _tag: "Help"; readonly spec: Spec | undefined }
  | { readonly _tag: "Version" }
  | { readonly _tag: "Completions"; readonly shell: string }
  | { readonly _tag: "Invalid"; readonly message: string; readonly spec: Spec | undefined; readonly verbose: boolean }

const flagText = (option: OptionSpec): string =>
  `--${option.name}${option.value === undefined ? "" : option.optionalValue !== undefined ? ` [${option.value}]` : ` ${option.value}`}`

/** An option as a message names what it was given: an empty value said so, a secret one left out. */
const givenText = (option: OptionSpec, value: string): string =>
  value === "" ? `--${option.name} is empty` : option.sensitive === true ? `--${option.name}` : `--${option.name} ${value}`

const usageOf = (spec: Spec): string => {
  const args = spec.args.map((arg) => (arg.variadic ? `<${arg.name}>...` : `<${arg.name}>`))
  const required = spec.options.filter((option) => option.required === true).map(flagText)
  return ["agentfx", spec.name, ...required, "[options]", ...(spec.args.some((arg) => arg.variadic) ? ["[--]"] : []), ...args].join(" ")
}

/** The one-line usage of a command: `agentfx eval --scenarios DIR [options] <cases-dir>`. */
export const usage = (spec: Spec): string => usageOf(spec)

/**
 * `message` with every URL of `argv` that holds a user name or password shown without them: an error quotes what
 * it was given (a value, the rest of the line), and a password must never be printed.
 */
const conceal = (message: string, argv: ReadonlyArray<string>): string => {
  let text = message
  for (const token of argv) {
    // The token itself, and the value of `--name=VALUE`.
    for (const candidate of [token, token.slice(token.indexOf("=") + 1)]) {
      // Stryker disable next-line ConditionalExpression: redact gives a URL without credentials back as it is
      if (HttpUrl.holdsCredentials(candidate)) text = text.split(candidate).join(HttpUrl.redact(candidate))
    }
  }
  return text
}

/** Reads `argv` (without the executable) against `specs`. Never throws; an error never quotes a password. */
export const parse = (specs: ReadonlyArray<Spec>, argv: ReadonlyArray<string>): Parsed => {
  const parsed = parseArgs(specs, argv)
  return parsed._tag === "Invalid" ? { ...parsed, message: conceal(parsed.message, argv) } : parsed
}

const parseArgs = (specs: ReadonlyArray<Spec>, argv: ReadonlyArray<string>): Parsed => {
  // Stryker disable next-line EqualityOperator: --verbose and -- are never the same word (< and <= agree)
  const verbose = argv.includes("--verbose") && (argv.indexOf("--") === -1 || argv.indexOf("--verbose") < argv.indexOf("--"))
  const [first, ...rest] = argv
  const names = specs.map((spec) => spec.name)
  const invalid = (message: string, spec?: Spec): Parsed => ({ _tag: "Invalid", message, spec, verbose })
  if (first === undefined) return invalid(`a command is needed: ${names.join(", ")} (agentfx --help describes them)`)
  if (first === "--help" || first === "-h" || first === "help") {
    const topic = first === "help" ? rest[0] : undefined
    if (topic === undefined) return { _tag: "Help", spec: undefined }
    const spec = specs.find((candidate) => candidate.name === topic)
    if (spec !== undefined) return { _tag: "Help", spec }
    const near = closest(topic, names)
    return invalid(`unknown command '${topic}'${near === undefined ? "" : ` (did you mean '${near}'?)`}; the commands are ${names.join(", ")}`)
  }
  if (first === "--version") return rest.length === 0 ? { _tag: "Version" } : invalid(`--version takes nothing after it`)
  if (first === "--completions" || first.startsWith("--completions=")) {
    const shell = first.includes("=") ? first.slice(first.indexOf("=") + 1) : rest[0]
    const option = rootOptions.find((o) => o.name === "completions")!
    if (shell === undefined) return invalid("--completions needs a shell: bash, zsh, fish or sh")
    const problem = checkValue(option, shell)
    return problem === undefined ? { _tag: "Completions", shell } : invalid(`${givenText(option, shell)}: ${problem}`)
  }
  // Options every command takes may come before it too (as @effect/cli allowed): they are read as the command's,
  // right after its name (at the end, after a `--`, they would be read as part of the prompt).
  if (first === "--verbose" || first === "--log-level" || first.startsWith("--log-level=")) {
    let at = 0
    // --log-level LEVEL is two words.
    while (at < argv.length && (argv[at] === "--verbose" || argv[at] === "--log-level" || argv[at]!.startsWith("--log-level="))) at += argv[at] === "--log-level" ? 2 : 1
    const command = argv[at]
    // Stryker disable next-line ConditionalExpression: without it, the call below reads no command and says the same
    if (command === undefined) return invalid(`a command is needed: ${names.join(", ")} (agentfx --help describes them)`)
    return parseArgs(specs, [command, ...argv.slice(0, at), ...argv.slice(at + 1)])
  }
  if (first.startsWith("-")) {
    // Stryker disable next-line Regex: first starts with -, so its first run of dashes is the leading one
    const near = closest(first.replace(/^-+/, "").split("=")[0]!, rootOptions.map((o) => o.name))
    return invalid(`unknown option ${first} for agentfx${near === undefined ? "" : ` (did you mean --${near}?)`}; the command comes first: agentfx COMMAND [options]`)
  }
  const spec = specs.find((candidate) => candidate.name === first)
  if (spec === undefined) {
    const near = closest(first, names)
    return invalid(`unknown command '${first}'${near === undefined ? "" : ` (did you mean '${near}'?)`}; the commands are ${names.join(", ")}`)
  }
  return parseCommand(spec, rest, verbose)
}

const parseCommand = (spec: Spec, argv: ReadonlyArray<string>, verbose: boolean): Parsed => {
  const invalid = (message: string): Parsed => ({ _tag: "Invalid", message, spec, verbose })
  const all = [...spec.options, ...globalOptions]
  const values = new Map<string, Array<string>>()
  const positionals: Array<string> = []
  let onlyPositionals = false
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!
    if (onlyPositionals || token === "-" || !token.startsWith("-")) {
      positionals.push(token)
      continue
    }
    if (token === "--") {
      onlyPositionals = true
      continue
    }
    const long = token.startsWith("--")
    const [rawName, inline] = long ? splitOnce(token.slice(2)) : [token.slice(1), undefined]
    const option = long ? all.find((o) => o.name === rawName) : all.find((o) => o.alias === rawName)
    if (option === undefined) {
      const near = long ? closest(rawName, all.map((o) => o.name)) : undefined
      const hint = near !== undefined
        ? ` (did you mean --${near}?)`
        : spec.args.length > 0
          ? `; an argument that starts with - goes after --: agentfx ${spec.name} -- "${[token, ...argv.slice(i + 1)].join(" ")}"`
          : ""
      return invalid(`unknown option ${long ? `--${rawName}` : token} for agentfx ${spec.name}${hint}`)
    }
    if (option.name === "help") return { _tag: "Help", spec }
    let value: string
    if (option.value === undefined) {
      if (inline !== undefined) return invalid(`--${option.name} is a flag and takes no value (got --${option.name}=${inline})`)
      value = ""
    } else if (inline !== undefined) {
      value = inline
    } else if (option.optionalValue !== undefined) {
      const next = argv[i + 1]
      const taken = next !== undefined && option.optionalValue(next)
      value = taken ? next : ""
      if (taken) i++
    } else {
      const next = argv[i + 1]
      if (next === undefined) return invalid(`--${option.name} needs a value: ${flagText(option)}`)
      value = next
      i++
    }
    // Stryker disable next-line ConditionalExpression: a flag has no choices and no check, so checkValue finds nothing wrong with it either
    const problem = option.value === undefined || (option.optionalValue !== undefined && inline === undefined && value === "") ? undefined : checkValue(option, value)
    if (problem !== undefined) return invalid(`${givenText(option, value)}: ${problem}`)
    const previous = values.get(option.name)
    if (previous !== undefined && option.repeated !== true && option.value !== undefined) {
      return invalid(`--${option.name} is given twice (${previous[0]} and ${value}); give it once`)
    }
    values.set(option.name, [...(previous ?? []), value])
  }
  for (const option of spec.options) {
    if (option.required === true && !values.has(option.name)) {
      return invalid(`${flagText(option)} is required: ${usageOf(spec)}`)
    }
  }
  const args: Array<string> = []
  for (const arg of spec.args) {
    if (positionals.length === 0) return invalid(`<${arg.name}> is missing: ${usageOf(spec)}`)
    // Not `push(...all)`: a long prompt is one argument per word, and spreading 100,000 of them overflows the stack.
    if (arg.variadic) for (const word of positionals.splice(0)) args.push(word)
    else args.push(positionals.shift()!)
  }
  if (positionals.length > 0) {
    return invalid(`unexpected argument '${positionals[0]}' for agentfx ${spec.name}${spec.args.length === 0 ? ", which takes none" : ""}: ${usageOf(spec)}`)
  }
  return { _tag: "Run", spec, options: new Values(values), args, verbose }
}

const checkValue = (option: OptionSpec, value: string): string | undefined =>
  option.choices !== undefined ? oneOf(option.choices)(value) : option.check?.(value)

const splitOnce = (text: string): [string, string | undefined] => {
  const at = text.indexOf("=")
  return at === -1 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)]
}

/** A check for whole numbers in a range. */
export const integer = (min: number, max = Number.MAX_SAFE_INTEGER) => (value: string): string | undefined =>
  /^-?\d+$/.test(value) && Number(value) >= min && Number(value) <= max
    ? undefined
    : max === Number.MAX_SAFE_INTEGER
      ? `a whole number of at least ${min} is needed`
      : `a whole number from ${min} to ${max} is needed`

/** A check for one of a few words. */
export const oneOf = (choices: ReadonlyArray<string>) => (value: string): string | undefined => {
  if (choices.includes(value)) return undefined
  const near = closest(value, choices)
  return `the choices are ${choices.join(", ")}${near === undefined ? "" : ` (did you mean ${near}?)`}`
}

const durationUnits: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

/** Timers cannot hold a longer delay (about 24.8 days); nobody means a bound beyond it. */
const longestDuration = 2 ** 31 - 1

/** `30s`, `500ms`, `2m`, `1h`, `1.5s` (or a bare number of seconds) in milliseconds; `undefined` when unreadable. */
export const parseDuration = (value: string): number | undefined => {
  const match = /^(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h)?$/i.exec(value.trim())
  if (match === null) return undefined
  const millis = Math.round(Number(match[1]) * durationUnits[(match[2] ?? "s").toLowerCase()]!)
  return Number.isFinite(millis) ? millis : undefined
}

/** A check for a duration longer than zero. */
export const duration = (value: string): string | undefined => {
  const millis = parseDuration(value)
  if (millis === undefined) return "a duration is needed: a number with ms, s, m or h, e.g. 30s, 500ms, 2m"
  if (millis <= 0) return "the duration must be longer than 0"
  if (millis > longestDuration) return "the duration must be at most 24 days"
  return undefined
}

const byteUnits: Record<string, number> = { "": 1, b: 1, k: 1024, kb: 1000, kib: 1024, m: 1024 ** 2, mb: 1000 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gb: 1000 ** 3, gib: 1024 ** 3 }

/** `32MiB`, `512KiB`, `1GB`, `1048576` (K, M, G alone are binary) in bytes; `undefined` when unreadable. */
export const parseBytes = (value: string): number | undefined => {
  const match = /^(\d+(?:\.\d+)?)\s*([kmg]i?b?|b)?$/i.exec(value.trim())
  if (match === null) return undefined
  const bytes = Math.floor(Number(match[1]) * byteUnits[(match[2] ?? "").toLowerCase()]!)
  return Number.isSafeInteger(bytes) ? bytes : undefined
}

/** A check for a size of at least one byte. */
export const bytes = (value: string): string | undefined => {
  const size = parseBytes(value)
  if (size === undefined) return "a size is needed: a number of bytes, or with KiB, MiB, GiB (or KB, MB, GB), e.g. 32MiB"
  return size < 1 ? "the size must be at least 1 byte" : undefined
}

/** A check for a number in a range. */
export const decimal = (min: number, max: number) => (value: string): string | undefined =>
  /^-?(\d+(\.\d*)?|\.\d+)$/.test(value.trim()) && Number(value) >= min && Number(value) <= max ? undefined : `a number from ${min} to ${max} is needed`
