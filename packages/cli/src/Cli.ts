/**
 * The `agentfx` command: `run`, `chat`, `live`, `eval`, `tools` and `emulator`, with `--help` on each. `main` runs it on an
 * argument list (without the executable) and returns the exit code instead of exiting, so it runs in-process in
 * tests: 0 on success, 1 when the command ran and failed, 2 for bad arguments, files or configuration (nothing
 * was run), 130 for Ctrl-C. Everything is printed through `Io`; an error is one line on stderr (an input error
 * lists its problems below it), its details only with `--verbose`.
 *
 * Arguments are read by `Argv` against each command's spec, and a command's handler is loaded only once its
 * arguments are good, so a typo costs no provider start-up.
 *
 * @example
 * const code = yield* Cli.main(["run", "what is 2 + 2?"]).pipe(Effect.provide(layers))
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as Argv from "./Argv.js"
import type { Environment, HandlerModule } from "./commands/Command.js"
import { specs } from "./commands/specs.js"
import { version as cliVersion } from "./internal/immediate.js"
import { mainWith, render as renderError } from "./internal/main.js"

export const name = "agentfx"
export const version = cliVersion

/** Every command's spec, in the order `agentfx --help` lists them. */
export const commands: ReadonlyArray<Argv.Spec> = specs

export type { Environment, Handler, HandlerModule, Input } from "./commands/Command.js"

/** How an error is printed (one headline; an input error's problems; details with --verbose). */
export const render = renderError

/** Each command's handler module, loaded when the command runs (the executable bundles each one on its own). */
const handlers: Readonly<Record<string, () => Promise<HandlerModule>>> = {
  run: () => import("./handlers/run.js"),
  chat: () => import("./handlers/chat.js"),
  live: () => import("./handlers/live.js"),
  eval: () => import("./handlers/eval.js"),
  tools: () => import("./handlers/tools.js"),
  emulator: () => import("./handlers/emulator.js"),
  runs: () => import("./handlers/runs.js")
}

/** The handler of a command. */
export const load = (spec: Argv.Spec): Promise<HandlerModule> =>
  handlers[spec.name]?.() ?? Promise.reject(new Error(`agentfx ${spec.name} has no handler (src/handlers/${spec.name}.ts, listed in Cli.ts)`))

/** Runs the command line `args` (without the executable) and returns the exit code. Never fails. */
export const main = (args: ReadonlyArray<string>): Effect.Effect<number, never, Environment> => mainWith(args, load)
