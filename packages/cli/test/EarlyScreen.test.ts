/**
 * A chat's first screen, shown by the executable before the chat's program loads (internal/earlyScreen.ts): when it
 * is shown, that it is exactly what the program would print first; when it is not; and how the program takes it over
 * (what it skips, and how the early prompt is taken back when something else comes first). The process as a whole,
 * on pipes and on a terminal, is in Executable.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { EventEmitter } from "node:events"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import { ModelError } from "@agentfx/core"
import * as Argv from "../src/Argv.js"
import { specs } from "../src/commands/specs.js"
import * as EarlyScreen from "../src/internal/earlyScreen.js"
import * as ProviderChoice from "../src/internal/providerChoice.js"
import * as Provider from "../src/Provider.js"
import * as Repl from "../src/Repl.js"

const parse = (...argv: ReadonlyArray<string>) => {
  const parsed = Argv.parse(specs, argv)
  // Each case below is a valid command line: a typo in a case must not pass as "no early screen".
  expect(parsed._tag).toBe("Run")
  return parsed
}

const noKeys: Record<string, string | undefined> = {}
const env = (values: Record<string, string>): ProviderChoice.Lookup => (variable) => values[variable]

const greeting = "agentfx chat — /help for commands; Ctrl-C cancels a reply; /exit or Ctrl-D quits.\n"

/** A value each option of the chat accepts, for the options that take one. */
const sample: Record<string, string> = {
  provider: "emulator",
  model: "gemini-2.5-flash",
  "base-url": "http://127.0.0.1:9",
  system: "Answer in one line.",
  "max-turns": "3",
  concurrency: "2",
  "first-byte-timeout": "5s",
  "idle-timeout": "5s",
  "turn-timeout": "5s",
  "run-timeout": "1m",
  "max-response-bytes": "1MiB",
  temperature: "0.5",
  root: ".",
  "allow-host": "example.com",
  mcp: "node server.js",
  "mcp-url": "http://127.0.0.1:9/mcp",
  "mcp-header": "Authorization: Bearer x",
  "mcp-tools": "a,b",
  "mcp-max-bytes": "1MiB",
  scenario: "scenario.md",
  session: "notes",
  store: "runs.db",
  "log-level": "info"
}

const quiet = ["provider", "model", "system", "max-turns", "concurrency", "first-byte-timeout", "idle-timeout", "turn-timeout", "run-timeout", "max-response-bytes", "temperature", "yes", "verbose"]
const chatSpec = specs.find((spec) => spec.name === "chat")!
const chatOptions = [...chatSpec.options, ...Argv.globalOptions].filter((option) => option.name !== "help")
const argsOf = (name: string): ReadonlyArray<string> => {
  const option = chatOptions.find((candidate) => candidate.name === name)!
  return option.value === undefined ? [`--${name}`] : [`--${name}`, sample[name]!]
}

describe("a chat's early screen", () => {
  it("a plain offline chat: the emulator's line on stderr, the greeting and the prompt on stdout — what the program prints first", () => {
    const shown = EarlyScreen.of(parse("chat"), noKeys)
    const choice: Provider.Choice = { name: "emulator", reason: "no API key is set (GEMINI_API_KEY, GOOGLE_API_KEY, ZAI_API_KEY, OPENAI_API_KEY)" }
    expect(shown).toEqual({ stderr: `${Provider.describe({ choice })}\n`, stdout: `${greeting}${Repl.prompt}` })
    expect(shown?.stderr).toBe(
      "provider: emulator — the offline rule model, in-process on 127.0.0.1 through the Gemini provider, no network. No API key is set (GEMINI_API_KEY, GOOGLE_API_KEY, ZAI_API_KEY, OPENAI_API_KEY): set one to use a real model.\n"
    )
  })

  it("--provider emulator with a key set: shown, and says it was chosen with --provider", () => {
    const shown = EarlyScreen.of(parse("chat", "--provider", "emulator"), { GEMINI_API_KEY: "k" })
    expect(shown?.stderr).toBe("provider: emulator — the offline rule model, in-process on 127.0.0.1 through the Gemini provider, no network. Chosen with --provider.\n")
  })

  it("blank keys: shown, naming the blank variables as the program does", () => {
    const shown = EarlyScreen.of(parse("chat"), { OPENAI_API_KEY: " ", ZAI_API_KEY: "" })
    expect(shown?.stderr).toContain("No API key is set (ZAI_API_KEY, OPENAI_API_KEY are empty; GEMINI_API_KEY, GOOGLE_API_KEY, ZAI_API_KEY, OPENAI_API_KEY)")
  })

  it("not shown for a real provider, chosen by a key or by --provider: its layer is built first and may refuse it", () => {
    for (const variable of ProviderChoice.allKeys) expect(EarlyScreen.of(parse("chat"), { [variable]: "k" })).toBeUndefined()
    for (const name of ["gemini", "glm", "glm-coding", "openai"]) expect(EarlyScreen.of(parse("chat", "--provider", name), noKeys)).toBeUndefined()
  })

  it("each quiet option keeps it, alone and all together", () => {
    for (const name of quiet) expect(EarlyScreen.of(parse("chat", ...argsOf(name)), noKeys), name).toBeDefined()
    expect(EarlyScreen.of(parse("chat", ...quiet.flatMap(argsOf)), noKeys)).toBeDefined()
  })

  it("every other option of the chat removes it: each may print, ask, read a file or fail before the prompt", () => {
    const others = chatOptions.map((option) => option.name).filter((name) => !quiet.includes(name))
    expect(others).toEqual(expect.arrayContaining(["session", "scenario", "mcp", "mcp-url", "durable", "root", "allow-host", "base-url", "log-level"]))
    for (const name of others) expect(EarlyScreen.of(parse("chat", ...argsOf(name)), noKeys), name).toBeUndefined()
    // With quiet ones beside it, too.
    expect(EarlyScreen.of(parse("chat", "--yes", "--session", "notes", "--temperature", "0"), noKeys)).toBeUndefined()
  })

  it("not shown with OpenTelemetry's variables set: their settings are checked before the chat starts, and may be refused", () => {
    expect(EarlyScreen.of(parse("chat"), { OTEL_TRACES_EXPORTER: "zipkin" })).toBeUndefined()
    expect(EarlyScreen.of(parse("chat"), { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" })).toBeUndefined()
    expect(EarlyScreen.of(parse("chat"), { OTEL_SDK_DISABLED: "" })).toBeUndefined()
    // Another variable, or one that is not there, changes nothing.
    expect(EarlyScreen.of(parse("chat"), { NOT_OTEL_X: "1", OTEL_SERVICE_NAME: undefined })).toBeDefined()
  })

  it("no other command has one", () => {
    for (const argv of [["run", "hello"], ["tools"], ["eval", "cases"], ["live"], ["emulator"], ["runs", "list"]]) {
      const parsed = Argv.parse(specs, argv)
      expect(EarlyScreen.of(parsed, noKeys)).toBeUndefined()
    }
    expect(EarlyScreen.of(Argv.parse(specs, ["chat", "--help"]), noKeys)).toBeUndefined()
  })
})

describe("the provider rule, one for the program and the executable", () => {
  const keyValue = fc.option(fc.constantFrom("", " ", "\t", "key", " key "), { nil: undefined })
  const environment = fc.record(Object.fromEntries(ProviderChoice.allKeys.map((key) => [key, keyValue])) as Record<string, fc.Arbitrary<string | undefined>>)
  const flag = fc.option(fc.constantFrom(...Provider.names), { nil: undefined })

  it.effect("Provider.choose (through Config) and ProviderChoice.choose (plain variables) agree on every environment", () =>
    Effect.sync(() =>
      fc.assert(
        fc.property(environment, flag, (values, chosen) => {
          const present = Object.fromEntries(Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined))
          const viaConfig = Effect.runSync(Provider.choose(chosen).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(present))))))
          expect(viaConfig).toEqual(ProviderChoice.choose(chosen, env(present)))
        }),
        { numRuns: 300 }
      )
    )
  )

  it("the order: Gemini's keys, then GLM's, then OpenAI's; a blank key counts as none", () => {
    expect(ProviderChoice.choose(undefined, env({ OPENAI_API_KEY: "k", ZAI_API_KEY: "k", GOOGLE_API_KEY: "k" }))).toEqual({ name: "gemini", reason: "GOOGLE_API_KEY is set" })
    expect(ProviderChoice.choose(undefined, env({ OPENAI_API_KEY: "k", ZAI_API_KEY: "k", GEMINI_API_KEY: " " }))).toEqual({ name: "glm", reason: "ZAI_API_KEY is set" })
    expect(ProviderChoice.choose(undefined, env({ OPENAI_API_KEY: "k", ZAI_API_KEY: "" }))).toEqual({ name: "openai", reason: "OPENAI_API_KEY is set" })
    expect(ProviderChoice.choose("glm", env({ GEMINI_API_KEY: "k" }))).toEqual({ name: "glm", reason: "--provider" })
  })

  it("the emulator's line says why it is used: a flag chose it, or no key is set and how to use a real model; and what it answers with", () => {
    const where = "through the Gemini provider, no network."
    expect(ProviderChoice.describeEmulator({ name: "emulator", reason: "--provider" })).toBe(
      `provider: emulator — the offline rule model, in-process on 127.0.0.1 ${where} Chosen with --provider.`
    )
    expect(ProviderChoice.describeEmulator(ProviderChoice.choose(undefined, env({})), "each case's x-cassette")).toBe(
      `provider: emulator — replays each case's x-cassette offline ${where} No API key is set (GEMINI_API_KEY, GOOGLE_API_KEY, ZAI_API_KEY, OPENAI_API_KEY): set one to use a real model.`
    )
    expect(ProviderChoice.describeEmulator({ name: "emulator", reason: "chosen with --judge-provider" }, "each rubric's recorded verdict")).toBe(
      `provider: emulator — replays each rubric's recorded verdict offline ${where} Chosen with --judge-provider.`
    )
  })

  it("a refused key names the provider's own variables: glm-coding's is ZAI_API_KEY", () => {
    const error = new ModelError.Unauthorized({ message: "no", status: 401 })
    expect(Provider.refused({ name: "glm-coding", reason: "--provider" }, error).message).toBe(
      "glm-coding refused the API key (401): check ZAI_API_KEY, or run offline with --provider emulator"
    )
  })
})

describe("the program taking the early screen over", () => {
  const shown: EarlyScreen.Shown = { stderr: "provider line\n", stdout: `${greeting}you> ` }

  it("what it prints again is skipped, in any pieces, and the prompt is up already", () => {
    const takeover = new EarlyScreen.Takeover(shown, false)
    expect(takeover.print("stderr", "provider line\n")).toBeUndefined()
    expect(takeover.print("stdout", greeting.slice(0, 10))).toBeUndefined()
    expect(takeover.print("stdout", greeting.slice(10))).toBeUndefined()
    expect(takeover.prompt("you> ")).toEqual({ up: true, before: "" })
    // Then it is over: everything is printed, and the next prompt is shown.
    expect(takeover.print("stdout", "6 * 7 = 42.\n")).toBe("")
    expect(takeover.prompt("you> ")).toEqual({ up: false, before: "" })
  })

  it("anything else first takes the prompt back — a new line on a pipe, the line cleared on a terminal — once", () => {
    const piped = new EarlyScreen.Takeover(shown, false)
    expect(piped.print("stderr", "agentfx: --root .: not a directory\n")).toBe("\n")
    expect(piped.print("stderr", "provider line\n")).toBe("")
    expect(piped.prompt("you> ")).toEqual({ up: false, before: "" })
    const terminal = new EarlyScreen.Takeover(shown, true)
    expect(terminal.print("stderr", "provider line\n")).toBeUndefined()
    expect(terminal.print("stdout", "session notes: new\n")).toBe(EarlyScreen.clearLine)
    expect(EarlyScreen.clearLine).toBe("\r\u001b[2K")
  })

  it("a prompt shown before the rest is printed again, or another prompt, takes it back", () => {
    expect(new EarlyScreen.Takeover(shown, false).prompt("you> ")).toEqual({ up: false, before: "\n" })
    const rest = new EarlyScreen.Takeover(shown, false)
    rest.print("stderr", "provider line\n")
    rest.print("stdout", greeting)
    expect(rest.prompt("live> ")).toEqual({ up: false, before: "\n" })
    const stderrOwed = new EarlyScreen.Takeover(shown, false)
    stderrOwed.print("stdout", greeting)
    expect(stderrOwed.prompt("you> ")).toEqual({ up: false, before: "\n" })
  })

  it("more than was shown, or a status line, takes it back; an empty write does not", () => {
    const more = new EarlyScreen.Takeover(shown, false)
    expect(more.print("stderr", "provider line\nand more\n")).toBe("\n")
    const empty = new EarlyScreen.Takeover(shown, true)
    expect(empty.print("stdout", "")).toBe("")
    expect(empty.print("stderr", "provider line\n")).toBeUndefined()
    expect(empty.takeBack()).toBe(EarlyScreen.clearLine)
    expect(empty.takeBack()).toBe("")
  })

  it("nothing shown: nothing skipped, nothing taken back", () => {
    const none = new EarlyScreen.Takeover(undefined, true)
    expect(none.print("stdout", "you> ")).toBe("")
    expect(none.prompt("you> ")).toEqual({ up: false, before: "" })
    expect(none.takeBack()).toBe("")
  })

  it("a screen that ends its line has no prompt to take back", () => {
    const ended = new EarlyScreen.Takeover({ stderr: "", stdout: "hello\n" }, false)
    expect(ended.print("stdout", "other\n")).toBe("")
  })
})

describe("what is typed at the early prompt on a terminal", () => {
  /** A terminal's input in memory: its raw mode, its listeners, whether it was paused. */
  const terminal = () => {
    const input = new EventEmitter() as EventEmitter & { raw: Array<boolean>; paused: boolean }
    input.raw = []
    input.paused = false
    const stream: EarlyScreen.Terminal = {
      setRawMode: (mode) => input.raw.push(mode),
      on: (event, listener) => input.on(event, listener),
      off: (event, listener) => input.off(event, listener),
      pause: () => (input.paused = true)
    }
    return { input, stream }
  }
  const start = () => {
    const { input, stream } = terminal()
    const echoed: Array<string> = []
    const raised: Array<NodeJS.Signals> = []
    const typed = EarlyScreen.TypeAhead.start(stream, (text) => void echoed.push(text), (signal) => void raised.push(signal))
    return { input, typed, echoed, raised }
  }

  it("is read in raw mode and kept, in order, until the program takes it; then it is no longer read", () => {
    const { input, typed, raised } = start()
    expect(input.raw).toEqual([true])
    input.emit("data", Buffer.from("what is "))
    input.emit("data", Buffer.from("6 * 7\r"))
    expect(typed.take().toString()).toBe("what is 6 * 7\r")
    expect(input.paused).toBe(true)
    expect(input.listenerCount("data")).toBe(0)
    // Raw mode stays: the line editor reads in it from now on.
    expect(input.raw).toEqual([true])
    expect(typed.take().toString()).toBe("")
    expect(raised).toEqual([])
  })

  it("dropped when the program will not read it: forgotten, and the terminal back in its own mode", () => {
    const { input, typed } = start()
    input.emit("data", Buffer.from("echo typed-ahead\r"))
    typed.drop()
    expect(input.raw).toEqual([true, false])
    expect(input.paused).toBe(true)
    expect(input.listenerCount("data")).toBe(0)
    expect(typed.take().toString()).toBe("")
  })

  it("Ctrl-C: the terminal back in its own mode, ^C shown, reading stopped, SIGINT raised", () => {
    const { input, typed, echoed, raised } = start()
    input.emit("data", Buffer.from("hel\u0003lo"))
    expect(input.raw).toEqual([true, false])
    expect(echoed).toEqual(["^C\n"])
    expect(raised).toEqual(["SIGINT"])
    expect(input.listenerCount("data")).toBe(0)
    expect(typed.take().toString()).toBe("hello")
  })

  it("Ctrl-\\: ^\\ shown and SIGQUIT raised, reading stopped", () => {
    const { input, echoed, raised } = start()
    input.emit("data", Buffer.from("\u001c"))
    expect(echoed).toEqual(["^\\\n"])
    expect(raised).toEqual(["SIGQUIT"])
    expect(input.listenerCount("data")).toBe(0)
  })

  it("Ctrl-Z: the terminal in its own mode while suspended, raw again when continued, and reading goes on", () => {
    const { input, typed, echoed, raised } = start()
    input.emit("data", Buffer.from("what\u001a"))
    expect(raised).toEqual(["SIGTSTP"])
    expect(echoed).toEqual([])
    expect(input.raw).toEqual([true, false])
    process.emit("SIGCONT", "SIGCONT")
    expect(input.raw).toEqual([true, false, true])
    input.emit("data", Buffer.from(" is 2 + 3"))
    expect(typed.take().toString()).toBe("what is 2 + 3")
    // Continued after the program took over: the terminal is the line editor's, left as it is.
    const late = start()
    late.input.emit("data", Buffer.from("\u001a"))
    late.typed.take()
    process.emit("SIGCONT", "SIGCONT")
    expect(late.input.raw).toEqual([true, false])
  })
})
