/**
 * What a command's handler is: the work `agentfx NAME` does once its arguments were read against its
 * `Argv.Spec` (see specs.ts for where each lives).
 */
import type * as Effect from "effect/Effect"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import type * as Argv from "../Argv.js"
import type * as CliError from "../CliError.js"
import type * as Io from "../Io.js"

/** What a handler is given: the checked options and arguments. */
export interface Input {
  readonly options: Argv.Values
  readonly args: ReadonlyArray<string>
}

/** The environment every handler runs in: the terminal and the file system. */
export type Environment = Io.Io | FileSystem.FileSystem | Path.Path

/** A command's work; its typed errors carry their exit codes. */
export type Handler = (input: Input) => Effect.Effect<void, CliError.CliError, Environment>

/** A handler module, as `import("../handlers/NAME.js")` gives it. */
export interface HandlerModule {
  readonly handler: Handler
}
