/**
 * Chat sessions on disk: `--session NAME` lives at `.agentfx/sessions/NAME.json` (the directory can be moved with
 * AGENTFX_SESSIONS_DIR), in the JSON of `Chat.export`. Files are written whole to a temporary file and renamed, so
 * a Ctrl-C or a crash mid-write never leaves half a session.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { InputError, OutputError, UsageError } from "./CliError.js"

export const defaultDirectory = ".agentfx/sessions"

/** Where named sessions live: AGENTFX_SESSIONS_DIR, else `.agentfx/sessions` under the current directory. */
export const directory: Config.Config<string> = Config.withDefault(Config.string("AGENTFX_SESSIONS_DIR"), defaultDirectory)

const namePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/

/** The file of the session called `name`; a name that is not a plain file name is a `UsageError`. */
export const pathOf = (name: string): Effect.Effect<string, UsageError, Path.Path> =>
  Effect.gen(function* () {
    if (!namePattern.test(name) || name.includes("..")) {
      return yield* Effect.fail(
        new UsageError({ message: `--session "${name}": a session name holds letters, digits, '.', '_' and '-', and starts with a letter or digit` })
      )
    }
    const path = yield* Path.Path
    const dir = yield* Effect.orElseSucceed(directory, () => defaultDirectory)
    return path.join(dir, `${name}.json`)
  })

/** The text of `file`, or `None` when there is no such file. */
export const read = (file: string): Effect.Effect<Option.Option<string>, InputError, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const exists = yield* Effect.orElseSucceed(fs.exists(file), () => false)
    if (!exists) return Option.none()
    return Option.some(yield* Effect.mapError(fs.readFileString(file), (error) => new InputError({ message: `${file} cannot be read: ${error.message}` })))
  })

/** Writes `text` to `file` atomically, creating its directory. */
export const write = (file: string, text: string): Effect.Effect<void, OutputError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const temporary = `${file}.${process.pid}.tmp`
    yield* fs.makeDirectory(path.dirname(file), { recursive: true })
    yield* fs.writeFileString(temporary, text)
    yield* fs.rename(temporary, file)
  }).pipe(Effect.mapError((error) => new OutputError({ message: `${file} cannot be written: ${error.message}` })))
