/**
 * The `agentfx` command: `run`, `chat`, `eval`, `tools` and `emulator`, with `--help` on each. `main` runs it on an
 * argument list (without the executable) and returns the exit code instead of exiting, so it runs in-process in
 * tests: 0 on success, 1 when the command ran and failed, 2 for bad arguments, files or configuration, 130 for
 * Ctrl-C. Everything is printed through `Io` (@effect/cli's help and errors included).
 *
 * @example
 * const code = yield* Cli.main(["run", "what is 2 + 2?"]).pipe(Effect.provide(layers))
 *
 * @since 0.1.0
 */
import { Command, ValidationError } from "@effect/cli"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import type * as Terminal from "@effect/platform/Terminal"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as CliError from "./CliError.js"
import * as Io from "./Io.js"
import * as chat from "./commands/chat.js"
import * as emulator from "./commands/emulator.js"
import * as evals from "./commands/eval.js"
import * as run from "./commands/run.js"
import * as tools from "./commands/tools.js"

export const name = "agentfx"
export const version = "0.1.0"

/** The root command and its subcommands. */
export const command = Command.make(name, {}, () =>
  Effect.fail(new CliError.UsageError({ message: "a command is needed: run, chat, eval, tools or emulator (agentfx --help describes them)" }))
).pipe(
  Command.withDescription(
    "Function-calling LLM agents from the terminal: one run, an interactive chat, evals, the built-in tools, and a local provider emulator. With no API key set, everything runs offline against the emulator."
  ),
  Command.withSubcommands([run.command, chat.command, evals.command, tools.command, emulator.command])
)

const cli = Command.run(command, { name, version })

/** The environment `main` needs: the terminal (`Io`) and @effect/cli's platform services. */
export type Environment = Io.Io | FileSystem.FileSystem | Path.Path | Terminal.Terminal

const describeDefect = (cause: Cause.Cause<unknown>): string => Cause.pretty(cause).split("\n")[0] ?? "unknown"

/** Runs the command line `args` (without the executable) and returns the exit code. Never fails. */
export const main = (args: ReadonlyArray<string>): Effect.Effect<number, never, Environment> =>
  Effect.gen(function* () {
    const io = yield* Io.Io
    return yield* cli([name, name, ...args]).pipe(
      Effect.as(0),
      Effect.catchAll((error: unknown) => {
        // @effect/cli has printed its own message (usage errors, unknown options, missing arguments).
        if (ValidationError.isValidationError(error)) return Effect.succeed(CliError.usage)
        // A terminal has echoed "^C" without a newline.
        if (CliError.isCliError(error)) return Effect.as(io.err(`${error._tag === "Interrupted" && io.isTTY ? "\n" : ""}agentfx: ${error.message}\n`), error.exitCode)
        return Effect.as(io.err(`agentfx: ${error instanceof Error ? error.message : String(error)}\n`), CliError.failed)
      }),
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.succeed(CliError.interrupted)
          : Effect.as(io.err(`agentfx: unexpected error: ${describeDefect(cause)}\n`), CliError.failed)
      ),
      Effect.withConsole(Io.toConsole(io))
    )
  })
