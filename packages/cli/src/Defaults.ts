/**
 * Every default of the `agentfx` command that reaches a wire or a user — what a model is sent when nothing says
 * otherwise, how long it is waited for and how often asked again, how much is read, how many things run at once,
 * where files go, which exit codes and colours a user sees — listed once. README's "Defaults" table is this list
 * (a test keeps them the same), the options' help says each from here, and each entry names the test that reads it
 * from the wire (the emulator's record of what was sent) or from the command's output, never from a constant.
 *
 * Plain data with no imports: the command specs read it for their help before Effect is loaded.
 *
 * @example
 * const text = `(default ${Defaults.turnTimeout.value})` // "(default 10m)"
 *
 * @since 0.1.0
 */

/**
 * One default: its value as a user writes or reads it, what sets it otherwise, what it decides, and the test that
 * reads it from the wire or the output.
 *
 * @since 0.1.0
 * @category models
 */
export interface Default {
  readonly name: string
  readonly value: string
  /** The options and variables that set it otherwise (empty: nothing does). */
  readonly setBy: ReadonlyArray<string>
  readonly what: string
  /** The test that reads it: its file under packages/, and its name. */
  readonly test: { readonly file: string; readonly name: string }
}

const test = (file: string, name: string) => ({ file, name })
const defaults = "cli/test/Defaults.test.ts"
const executable = "cli/test/Executable.test.ts"

/** @since 0.1.0 */
export const maxTurns: Default = {
  name: "model turns per run",
  value: "10",
  setBy: ["--max-turns"],
  what: "model turns of a run (a chat message, an eval case) before it stops with MaxTurns",
  test: test(defaults, "a model that always calls a tool is asked 10 times, and the run stops with MaxTurns 10")
}

/** @since 0.1.0 */
export const toolConcurrency: Default = {
  name: "tool calls at once",
  value: "10",
  setBy: ["--concurrency (run, chat)"],
  what: "calls of one model turn that run at the same time",
  test: test(defaults, "10 calls of one turn run at once: the 11th starts only once one of the first 10 has answered")
}

/** @since 0.1.0 */
export const fetchTimeout: Default = {
  name: "fetch_url",
  value: "10s",
  setBy: [],
  what: "one fetch_url call, redirects and body included; past it the call fails with FetchTimeout",
  test: toolConcurrency.test
}

/** @since 0.1.0 */
export const firstByteTimeout: Default = {
  name: "first byte",
  value: "2m",
  setBy: ["--first-byte-timeout"],
  what: "the wait for the first part of a streamed answer; the attempt is then retried",
  test: test(defaults, "a streamed answer that never starts is given up after 2m, one that stops midway after 1m, and each is retried")
}

/** @since 0.1.0 */
export const idleTimeout: Default = {
  name: "idle stream",
  value: "1m",
  setBy: ["--idle-timeout"],
  what: "a pause between two parts of a streamed answer; the attempt is then retried",
  test: firstByteTimeout.test
}

/** @since 0.1.0 */
export const turnTimeout: Default = {
  name: "one answer",
  value: "10m",
  setBy: ["--turn-timeout"],
  what: "one model answer, streamed or not; the attempt is then retried",
  test: test(defaults, "an answer that never comes is given up after 10m, and the run after 15m of waiting on the model")
}

/** @since 0.1.0 */
export const runTimeout: Default = {
  name: "waiting in all",
  value: "15m",
  setBy: ["--run-timeout"],
  what: "a run's waiting on the model in all (chat: per message; eval: per case), answers and retry waits added up",
  test: turnTimeout.test
}

/** @since 0.1.0 */
export const retries: Default = {
  name: "attempts",
  value: "4 (waits of about 1 s, 2 s, 4 s; at most 30 s)",
  setBy: [],
  what: "attempts of a model request that fails with a retryable error (rate limited, overloaded, a timeout, a dropped connection); the SDKs retry nothing of their own",
  test: test(defaults, "a model that stays overloaded is asked 4 times, about 1 s, 2 s and 4 s apart, through Gemini and through OpenAI")
}

/** @since 0.1.0 */
export const retryHint: Default = {
  name: "provider's retry hint",
  value: "obeyed up to 60 s",
  setBy: [],
  what: "a wait the provider asks for (retry-after, Gemini RetryInfo); one asking for longer ends the run at once",
  test: test(defaults, "a provider's retry hint is obeyed up to 60 s; a longer one ends the run at once")
}

/** @since 0.2.0 */
export const outputCorrections: Default = {
  name: "output corrections",
  value: "2 (3 answers in all)",
  setBy: [],
  what: "with --output-schema, final answers that do not match the schema, each sent back with what failed, before the run fails (exit 1)",
  test: test(defaults, "a final answer that never matches --output-schema is sent back twice, and the run fails after the third")
}

/** @since 0.1.0 */
export const maxResponseBytes: Default = {
  name: "answer size",
  value: "32MiB",
  setBy: ["--max-response-bytes"],
  what: "what is read of one model response; a larger one fails the attempt",
  test: test(defaults, "an answer of more than 32 MiB fails the run, naming the limit")
}

/** @since 0.1.0 */
export const temperature: Default = {
  name: "temperature",
  value: "none sent",
  setBy: ["--temperature"],
  what: "the sampling temperature: without the option the request holds none, and the model's own default applies",
  test: test("cli/test/ModelRequest.test.ts", "--temperature is sent when given, and no temperature otherwise")
}

/** @since 0.1.0 */
export const models: Default = {
  name: "model",
  value: "gemini-2.5-flash, glm-4.7, gpt-4.1-mini; live: gemini-live-2.5-flash-preview",
  setBy: ["--model", "GEMINI_MODEL", "ZAI_MODEL", "OPENAI_MODEL", "GEMINI_LIVE_MODEL"],
  what: "the model each provider is asked for; --model wins over the variable",
  test: test(defaults, "each provider's own model is asked for; the variable moves it and --model wins over the variable")
}

/** @since 0.1.0 */
export const provider: Default = {
  name: "provider",
  value: "gemini, else glm, else openai, else the emulator",
  setBy: ["--provider", "GEMINI_API_KEY", "GOOGLE_API_KEY", "ZAI_API_KEY", "OPENAI_API_KEY"],
  what: "who answers: --provider, else the first of the keys set (GEMINI_API_KEY before GOOGLE_API_KEY), else the in-process emulator",
  test: test(defaults, "the key sent is GEMINI_API_KEY's when GOOGLE_API_KEY is set too, and --base-url wins over GEMINI_BASE_URL")
}

/** @since 0.1.0 */
export const evalConcurrency: Default = {
  name: "eval cases at once",
  value: "4",
  setBy: ["--concurrency (eval)"],
  what: "cases of an eval running at the same time",
  test: test(defaults, "eval runs 4 cases at once: the 5th starts only once one of the first 4 has ended")
}

/** @since 0.1.0 */
export const evalCaseLimit: Default = {
  name: "eval case",
  value: "2m (with --run-timeout: that and 2m)",
  setBy: ["--run-timeout"],
  what: "the most one eval case may take; past it the case is an error",
  test: test(defaults, "an eval case the model never answers is an error after 2m")
}

/** @since 0.1.0 */
export const threshold: Default = {
  name: "pass rate",
  value: "0.99",
  setBy: ["--threshold"],
  what: "the pass rate below which eval exits with 1",
  test: test(defaults, "eval passes at a pass rate of 0.99 and fails below it")
}

/** @since 0.1.0 */
export const mcpMaxBytes: Default = {
  name: "MCP message",
  value: "10MiB",
  setBy: ["--mcp-max-bytes"],
  what: "one message from an MCP server (a tool's result, a page of its tool list); a larger result fails its call",
  test: test(defaults, "an MCP result of more than 10 MiB fails its call, naming the server, the tool and the size")
}

/** @since 0.1.0 */
export const connectTimeout: Default & { readonly millis: number } = {
  millis: 15_000,
  name: "live connection",
  value: "15s",
  setBy: ["--connect-timeout"],
  what: "setting up live's first connection, retries included",
  test: test(defaults, "live gives up connecting after 15s, naming connectTimeout")
}

/** @since 0.1.0 */
export const emulatorPort: Default & { readonly port: number } = {
  port: 0,
  name: "emulator port",
  value: "0 (any free port)",
  setBy: ["--port"],
  what: "where agentfx emulator listens on 127.0.0.1; its key is agentfx-emulator-key",
  test: test(defaults, "agentfx emulator listens on a free port of 127.0.0.1 and takes the key agentfx-emulator-key")
}

/** @since 0.1.0 */
export const store: Default = {
  name: "durable runs",
  value: ".agentfx/runs.db",
  setBy: ["--store"],
  what: "the SQLite file of durable runs, under the current directory",
  test: test(executable, "where files go by default: durable runs in .agentfx/runs.db, sessions in .agentfx/sessions, under the current directory")
}

/** @since 0.1.0 */
export const sessions: Default = {
  name: "sessions",
  value: ".agentfx/sessions",
  setBy: ["AGENTFX_SESSIONS_DIR"],
  what: "the folder of chat --session files, under the current directory",
  test: store.test
}

/** @since 0.1.0 */
export const traceTimeout: Default & { readonly millis: number } = {
  millis: 2000,
  name: "trace export",
  value: "2000 ms",
  setBy: ["OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"],
  what: "each export of traces, and the longest wait for the last one at exit",
  test: test("cli/test/Tracing.test.ts", "a collector that never answers, no timeout set: the wait at exit ends after 2s, and the line says so")
}

/** @since 0.1.0 */
export const colour: Default = {
  name: "colour",
  value: "when stdout is a terminal",
  setBy: ["FORCE_COLOR", "NO_COLOR"],
  what: "ANSI colours: FORCE_COLOR (not 0) paints even when NO_COLOR is set too; NO_COLOR (not empty) turns it off",
  test: test(executable, "FORCE_COLOR wins over NO_COLOR, which wins over a terminal")
}

/** @since 0.1.0 */
export const exitCodes: Default = {
  name: "exit code",
  value: "0, 1, 2, 130, 141",
  setBy: [],
  what: "success; failed; bad arguments, files or configuration (nothing run); Ctrl-C; the reader of the output went away",
  test: test(executable, "the exit codes: 0 done, 1 failed, 2 nothing run, 130 Ctrl-C, 141 the reader went away")
}

/**
 * Every default, in the order README's table lists them.
 *
 * @since 0.1.0
 */
export const all: ReadonlyArray<Default> = [
  maxTurns,
  toolConcurrency,
  fetchTimeout,
  firstByteTimeout,
  idleTimeout,
  turnTimeout,
  runTimeout,
  retries,
  retryHint,
  outputCorrections,
  maxResponseBytes,
  temperature,
  models,
  provider,
  evalConcurrency,
  evalCaseLimit,
  threshold,
  mcpMaxBytes,
  connectTimeout,
  emulatorPort,
  store,
  sessions,
  traceTimeout,
  colour,
  exitCodes
]

/**
 * README's table of the defaults, as Markdown.
 *
 * @since 0.1.0
 */
export const markdown = (): string =>
  [
    "| default | value | set by | what it decides |",
    "| --- | --- | --- | --- |",
    ...all.map((entry) => `| ${entry.name} | ${entry.value} | ${entry.setBy.length === 0 ? "—" : entry.setBy.map((name) => `\`${name}\``).join(", ")} | ${entry.what} |`)
  ].join("\n")
