/**
 * Chat sessions on disk: `--session NAME` lives at `.agentfx/sessions/NAME.json` (the directory can be moved with
 * AGENTFX_SESSIONS_DIR), in the JSON of `Chat.export`. Files are written whole to a temporary file, flushed to disk
 * and renamed (and the directory flushed), so a Ctrl-C, a crash or a power cut mid-write never leaves half a
 * session; a failed write removes its temporary file.
 *
 * One set of `limits` holds both ways: a session is only loaded if it could be saved again, and only saved if it
 * could be loaded again — a chat never runs on a session it would lose at the next save.
 *
 * @since 0.1.0
 */
import { Chat } from "@agentfx/core"
import type { PlatformError } from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { InputError, OutputError, UsageError } from "./CliError.js"
import * as Defaults from "./Defaults.js"
import * as FileProblem from "./internal/fileProblem.js"

/** What a session file may hold. */
export interface Limits {
  readonly maxBytes: number
  readonly maxDepth: number
}

/** What a session file may hold, on load and on save alike. */
export const limits: Limits = {
  /** Bytes of the file (a long chat's history is a few MB; this leaves room and refuses /dev/zero). */
  maxBytes: 64 * 1024 * 1024,
  /** Nesting of arrays and objects. Encoding recurses, so a model's deeply nested arguments could not be saved. */
  maxDepth: 512
}

/**
 * The deepest nesting of arrays and objects in JSON `text`, read in one pass without parsing (so without
 * recursion: any depth is measured).
 */
export const depthOf = (text: string): number => {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // backslash: the next character is escaped
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 || c === 91) deepest = Math.max(deepest, ++depth)
    else if (c === 125 || c === 93) depth--
  }
  return deepest
}

/** Why a file is refused for its size, the same words on load and on save. */
const tooLarge = (bounds: Pick<Limits, "maxBytes">): string =>
  `it is larger than ${bounds.maxBytes % (1024 * 1024) === 0 ? `${bounds.maxBytes / 1024 / 1024} MiB` : `${bounds.maxBytes} bytes`}`

/** Why `text` breaks the `limits` (`bounds`), or `undefined` when it keeps them. */
export const beyondLimits = (text: string, bounds: Limits = limits): string | undefined => {
  // Bytes of its UTF-8, as a load counts them (a character count would let through text that could not be loaded).
  if (text.length > bounds.maxBytes || Buffer.byteLength(text, "utf8") > bounds.maxBytes) return tooLarge(bounds)
  const depth = depthOf(text)
  return depth > bounds.maxDepth ? `it is nested ${depth} levels deep (at most ${bounds.maxDepth})` : undefined
}

export const defaultDirectory = Defaults.sessions.value

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

/**
 * The text of `file`, or `None` when there is no such file. What is not a regular file is refused before it is
 * opened (a FIFO would block the open forever, a device such as /dev/zero never end), and so is a file larger than
 * `bounds.maxBytes`; what was opened is checked again, and at most `maxBytes` + 1 bytes are ever read (a file
 * swapped or growing since the check). Every file the CLI reads itself — sessions, their lock files — is read here.
 */
export const read = (file: string, bounds: Pick<Limits, "maxBytes"> = limits): Effect.Effect<Option.Option<string>, InputError, FileSystem.FileSystem> =>
  Effect.scoped(
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const unreadable = (why: string) => new InputError({ message: `${file} cannot be read: ${why}` })
      const failed = (error: PlatformError) => unreadable(FileProblem.describe(error))
      const notRegular = (type: FileSystem.File.Type) => unreadable(`it is ${FileProblem.typeName(type)}, not a regular file`)
      const info = yield* Effect.either(fs.stat(file))
      if (Either.isLeft(info)) return FileProblem.isNotFound(info.left) ? Option.none() : yield* Effect.fail(failed(info.left))
      if (info.right.type !== "File") return yield* Effect.fail(notRegular(info.right.type))
      if (Number(info.right.size) > bounds.maxBytes) return yield* Effect.fail(unreadable(tooLarge(bounds)))
      const handle = yield* Effect.mapError(fs.open(file, { flag: "r" }), failed)
      const opened = yield* Effect.mapError(handle.stat, failed)
      if (opened.type !== "File") return yield* Effect.fail(notRegular(opened.type))
      const chunks: Array<Uint8Array> = []
      let total = 0
      while (total <= bounds.maxBytes) {
        const chunk = yield* Effect.mapError(handle.readAlloc(Math.min(64 * 1024, bounds.maxBytes + 1 - total)), failed)
        if (Option.isNone(chunk)) break
        chunks.push(chunk.value)
        total += chunk.value.length
      }
      if (total > bounds.maxBytes) return yield* Effect.fail(unreadable(tooLarge(bounds)))
      return Option.some(Buffer.concat(chunks).toString("utf8"))
    })
  )

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
export const load = (file: string, bounds: Limits = limits): Effect.Effect<Option.Option<string>, InputError, FileSystem.FileSystem> =>
  Effect.flatMap(read(file, bounds), (saved): Effect.Effect<Option.Option<string>, InputError> => {
    if (Option.isNone(saved)) return Effect.succeed(saved)
    const beyond = beyondLimits(saved.value, bounds)
    if (beyond !== undefined) {
      return Effect.fail(new InputError({ message: `${file}: ${beyond}, so it could not be saved again — ${advice(file)}` }))
    }
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

/**
 * Writes `text` to `file` atomically, creating its directory: a temporary file beside it, flushed (fsync) before
 * the rename so the new name never points at data still in the cache, then the directory flushed so the rename
 * itself survives a power cut. On any failure the temporary file is removed and `file` is left as it was.
 */
export const write = (file: string, text: string): Effect.Effect<void, OutputError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const temporary = `${file}.${process.pid}.tmp`
    const fail = (error: PlatformError) => new OutputError({ message: `${file} cannot be written: ${FileProblem.describe(error)}` })
    yield* Effect.mapError(fs.makeDirectory(path.dirname(file), { recursive: true }), fail)
    yield* Effect.scoped(
      Effect.gen(function* () {
        const handle = yield* fs.open(temporary, { flag: "w" })
        yield* handle.writeAll(new TextEncoder().encode(text))
        yield* handle.sync
      })
    ).pipe(
      Effect.zipRight(fs.rename(temporary, file)),
      Effect.mapError(fail),
      // On a failure or an interruption (Ctrl-C mid-save) alike. Only a file is removed: a directory someone put at
      // the temporary name stays.
      Effect.onError(() => Effect.ignore(fs.remove(temporary)))
    )
    // Not every system can flush a directory (some refuse to open one for it); the file itself is safe by now.
    yield* Effect.ignore(Effect.scoped(Effect.flatMap(fs.open(path.dirname(file), { flag: "r" }), (directory) => directory.sync)))
  })

/**
 * Saves a chat's session to `file`, within the `limits` (so it loads again): `export` is the chat's encoding,
 * which may fail on what it cannot encode. The error says the session was not saved; nothing else is lost.
 */
export const save = (file: string, exported: Effect.Effect<string>, bounds: Limits = limits): Effect.Effect<void, OutputError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const notSaved = (why: string) => new OutputError({ message: `the session was not saved to ${file}: ${why}` })
    const text = yield* Effect.catchAllDefect(exported, (defect) =>
      Effect.fail(notSaved(`it cannot be encoded (${defect instanceof Error ? defect.message : String(defect)})`))
    )
    const beyond = beyondLimits(text, bounds)
    if (beyond !== undefined) return yield* Effect.fail(notSaved(beyond))
    yield* Effect.mapError(write(file, text), (error) => notSaved(error.message.replace(`${file} cannot be written: `, "")))
  })
