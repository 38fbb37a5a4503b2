/**
 * Chat sessions on disk: `--session NAME` lives at `.agentfx/sessions/NAME.json` (the directory can be moved with
 * AGENTFX_SESSIONS_DIR), in the JSON of `Chat.export`. Files are written whole to a temporary file and renamed, so
 * a Ctrl-C or a crash mid-write never leaves half a session.
 *
 * @since 0.1.0
 */
import { Chat } from "@agentfx/core"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
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

/**
 * Why `text` is not a session this version can resume, in a few words: not JSON (truncated or corrupted), JSON
 * of something else, or a session of another version. The decoder's full report is for `--verbose`.
 */
export const diagnose = (text: string): string => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return text.trim() === "" ? "the file is empty" : "the file is not valid JSON (truncated or corrupted)"
  }
  if (typeof value !== "object" || value === null || Array.isArray(value) || !("transcript" in value)) return "the file is not an agentfx session (no transcript)"
  if ("version" in value && value.version !== 1) return `the file is a session of another version (${JSON.stringify(value.version)}; this agentfx reads version 1)`
  return "the session's contents are invalid"
}

/** What to do about a session file that cannot be loaded: it is left as it is. */
export const advice = (file: string): string => `move it aside (mv ${file} ${file}.bad) or start a new session under another name`

const SessionJson = Schema.parseJson(Chat.Session)

/**
 * The text of the session in `file`, checked before anything runs: `None` when there is no such file, an
 * `InputError` of one line (the path, what is wrong, what to do) when it is not a session this version resumes.
 * The file is never touched.
 */
export const load = (file: string): Effect.Effect<Option.Option<string>, InputError, FileSystem.FileSystem> =>
  Effect.flatMap(read(file), (saved): Effect.Effect<Option.Option<string>, InputError> => {
    if (Option.isNone(saved)) return Effect.succeed(saved)
    const decoded = Schema.decodeEither(SessionJson)(saved.value)
    return Either.isRight(decoded)
      ? Effect.succeed(saved)
      : Effect.fail(
          new InputError({
            message: `${file}: ${diagnose(saved.value)} — ${advice(file)}`,
            details: ParseResult.TreeFormatter.formatErrorSync(decoded.left)
          })
        )
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
