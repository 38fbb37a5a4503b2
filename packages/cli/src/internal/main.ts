/**
 * `agentfx` on an argument list, with the handlers coming from `load`: `Cli.main` imports them from the sources,
 * each bundled program of the executable has its own handler built in (see scripts/bundle.mjs).
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Argv from "../Argv.js"
import * as CliError from "../CliError.js"
import type { Environment, HandlerModule } from "../commands/Command.js"
import { specs } from "../commands/specs.js"
import { Io, toConsole } from "../Io.js"
import { answer } from "./immediate.js"
import { escapeLines } from "./terminalText.js"
import { traced } from "./tracing.js"

/** `--log-level` (already checked against `Argv.logLevels`); without it, Effect's default applies. */
const withLogLevel = (level: string | undefined) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  level === undefined ? effect : Logger.withMinimumLogLevel(effect, LogLevel.fromLiteral(`${level[0]!.toUpperCase()}${level.slice(1)}` as LogLevel.Literal))

const describeDefect = (cause: Cause.Cause<unknown>): string => Cause.pretty(cause).split("\n")[0] ?? "unknown"

/** The lines an error prints: one headline, then the problems it lists, then (with --verbose) its details. */
export const render = (error: CliError.CliError, verbose: boolean): string => {
  // Messages quote names and values from files, models and servers: escaped, so none can drive the terminal.
  const lines = [`agentfx: ${escapeLines(error.message)}`]
  if (error._tag === "InputError") lines.push(...error.problems.map((problem) => `  ${escapeLines(problem)}`))
  const details = error._tag === "RunFailed" || error._tag === "InputError" ? error.details : undefined
  if (verbose && details !== undefined) lines.push(...details.split("\n").map((line) => `  ${escapeLines(line)}`))
  return `${lines.join("\n")}\n`
}

/** Runs the command line `args` with the handler `load` gives for the command; returns the exit code. Never fails. */
export const mainWith = (
  args: ReadonlyArray<string>,
  load: (spec: Argv.Spec) => Promise<HandlerModule>
): Effect.Effect<number, never, Environment> =>
  Effect.gen(function* () {
    const io = yield* Io
    const parsed = Argv.parse(specs, args)
    const immediate = answer(specs, parsed, io.color)
    if (immediate !== undefined) {
      if (immediate.stdout !== "") yield* io.out(immediate.stdout)
      if (immediate.stderr !== "") yield* io.err(immediate.stderr)
      return immediate.code
    }
    if (parsed._tag === "Completions") {
      const completions = yield* Effect.promise(() => import("./completions.js"))
      yield* io.out(yield* completions.script(specs, parsed.shell))
      return 0
    }
    if (parsed._tag !== "Run") return CliError.usage
    const verbose = parsed.verbose
    const loaded = yield* Effect.promise(() => load(parsed.spec))
    return yield* traced(loaded.handler({ options: parsed.options, args: parsed.args })).pipe(
      Effect.as(0),
      Effect.catchAll((error) =>
        // A terminal has echoed "^C" without a newline.
        Effect.as(io.err(`${error._tag === "Interrupted" && io.isTTY ? "\n" : ""}${render(error, verbose)}`), error.exitCode)
      ),
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.succeed(CliError.interrupted)
          : Effect.as(io.err(`agentfx: unexpected error: ${describeDefect(cause)}\n${verbose ? `${Cause.pretty(cause)}\n` : ""}`), CliError.failed)
      ),
      Effect.withConsole(toConsole(io)),
      withLogLevel(parsed.options.text("log-level"))
    )
  })
