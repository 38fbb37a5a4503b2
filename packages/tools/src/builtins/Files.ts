/**
 * The `read_file` and `list_dir` tools, confined to a root directory. A path must be relative to the root;
 * absolute paths, any `..` segment, and paths whose real location (symbolic links resolved) lies outside the
 * root are refused. Files larger than `maxBytes`, and files that are not UTF-8 text, are refused too.
 *
 * The tools use `@effect/platform`'s `FileSystem`: provide `NodeFileSystem.layer` (or `NodeContext.layer`).
 *
 * @example
 * ```ts
 * import { Registry } from "@agentfx/core"
 * import { Files } from "@agentfx/tools"
 *
 * const registry = Registry.unsafeMake(...Files.tools({ root: "./docs", maxBytes: 64 * 1024 }))
 * ```
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type { PlatformError } from "@effect/platform/Error"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Stats } from "node:fs"
import * as NodeFs from "node:fs/promises"
import * as NodePath from "node:path"
import { Tool } from "@agentfx/core"
import { isInside, type Opened, openInside } from "../internal/openInside.js"

/**
 * The path is not one the tool may touch; `reason` says why.
 *
 * @since 0.1.0
 * @category errors
 */
export class PathRefused extends Schema.TaggedError<PathRefused>()("PathRefused", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `path "${this.path}" refused: ${this.reason}`
  }
}

/**
 * Nothing exists at the path (or a symbolic link there points nowhere).
 *
 * @since 0.1.0
 * @category errors
 */
export class FileNotFound extends Schema.TaggedError<FileNotFound>()("FileNotFound", {
  path: Schema.String
}) {
  override get message(): string {
    return `"${this.path}" does not exist`
  }
}

/**
 * A file was expected and a directory (or device, ...) found, or the other way round.
 *
 * @since 0.1.0
 * @category errors
 */
export class WrongFileType extends Schema.TaggedError<WrongFileType>()("WrongFileType", {
  path: Schema.String,
  expected: Schema.String,
  actual: Schema.String
}) {
  override get message(): string {
    return `"${this.path}" is a ${this.actual}, not a ${this.expected}`
  }
}

/**
 * The file is larger than the configured limit.
 *
 * @since 0.1.0
 * @category errors
 */
export class FileTooLarge extends Schema.TaggedError<FileTooLarge>()("FileTooLarge", {
  path: Schema.String,
  size: Schema.Number,
  limit: Schema.Number
}) {
  override get message(): string {
    return `"${this.path}" is ${this.size} bytes, more than the limit of ${this.limit} bytes`
  }
}

/**
 * The file's content is not valid UTF-8 text.
 *
 * @since 0.1.0
 * @category errors
 */
export class NotText extends Schema.TaggedError<NotText>()("NotText", {
  path: Schema.String
}) {
  override get message(): string {
    return `"${this.path}" is not UTF-8 text`
  }
}

/**
 * The file system refused (permissions, the root is missing, ...).
 *
 * @since 0.1.0
 * @category errors
 */
export class FileAccessFailed extends Schema.TaggedError<FileAccessFailed>()("FileAccessFailed", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `cannot access "${this.path}": ${this.reason}`
  }
}

/**
 * Every refusal and failure of `read_file` and `list_dir`.
 *
 * @since 0.1.0
 */
export const FilesError = Schema.Union(PathRefused, FileNotFound, WrongFileType, FileTooLarge, NotText, FileAccessFailed)
/**
 * Any refusal or failure of `read_file` and `list_dir` (the type of the `FilesError` schema).
 *
 * @since 0.1.0
 * @category models
 */
export type FilesError = typeof FilesError.Type

/**
 * Where the tools are confined, and their limits.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The directory the tools are confined to. */
  readonly root: string
  /** Largest file `read_file` returns (default 1 MiB). */
  readonly maxBytes?: number
  /** Most entries `list_dir` returns (default 1,000; the rest are counted in `truncated`). */
  readonly maxEntries?: number
}

/**
 * `read_file`'s limit unless `maxBytes` says otherwise.
 *
 * @since 0.1.0
 */
export const defaultMaxBytes = 1024 * 1024
/**
 * `list_dir`'s limit unless `maxEntries` says otherwise.
 *
 * @since 0.1.0
 */
export const defaultMaxEntries = 1_000

/**
 * Checks the shape of a model-supplied path before it touches the file system.
 *
 * @since 0.1.0
 */
export const checkRelative = (path: string): PathRefused | undefined => {
  const refuse = (reason: string) => new PathRefused({ path, reason })
  if (path.includes("\u0000")) return refuse("it contains a NUL character")
  if (NodePath.posix.isAbsolute(path) || NodePath.win32.isAbsolute(path)) {
    return refuse("absolute paths are not allowed; give a path relative to the root")
  }
  // Both separators: a "..\\" segment is only harmless on POSIX, and refusing it costs nothing.
  if (path.split(/[\\/]/).includes("..")) return refuse(`".." segments are not allowed`)
  return undefined
}

const describePlatformError = (error: PlatformError): string =>
  // Stryker disable next-line ConditionalExpression: the other error (BadArgument) has no reason, so the inner test says the same
  error._tag === "SystemError" ? (error.reason === "PermissionDenied" ? "permission denied" : error.message) : error.message

/** The real location of `path` under the root, and the root's, or why there is none. */
const resolve = (fs: FileSystem.FileSystem, root: string, path: string) =>
  Effect.gen(function* () {
    const refused = checkRelative(path)
    if (refused !== undefined) return yield* Effect.fail(refused)
    const realRoot = yield* Effect.mapError(
      fs.realPath(root),
      (error) => new FileAccessFailed({ path, reason: `the root directory is unavailable (${describePlatformError(error)})` })
    )
    const real = yield* Effect.mapError(fs.realPath(NodePath.join(realRoot, path)), (error) =>
      // Stryker disable next-line ConditionalExpression: the other error (BadArgument) has no reason, so the second test says the same
      error._tag === "SystemError" && error.reason === "NotFound"
        ? new FileNotFound({ path })
        : new FileAccessFailed({ path, reason: describePlatformError(error) })
    )
    // Stryker disable next-line ConditionalExpression: on Linux the opened descriptor's own name is checked against the root again (openInside), with the same refusal; platforms without such a name rely on this check
    if (!isInside(realRoot, real)) return yield* Effect.fail(new PathRefused({ path, reason: "it leads outside the root through a symbolic link" }))
    return { realRoot, real }
  })

const statTypeName = (stats: Stats): string => {
  if (stats.isFile()) return "file"
  if (stats.isDirectory()) return "directory"
  // Stryker disable next-line ConditionalExpression,StringLiteral: openInside refuses a link (as escaping) before it looks at a type
  if (stats.isSymbolicLink()) return "symbolic link"
  if (stats.isFIFO()) return "fifo file"
  if (stats.isSocket()) return "socket file"
  if (stats.isCharacterDevice()) return "character device file"
  if (stats.isBlockDevice()) return "block device file"
  return "unknown file"
}

/**
 * Opens the checked path once, as `kind`, closed with the scope. A symbolic link swapped in after the check
 * is refused, never followed (see `internal/openInside`).
 */
const openChecked = (realRoot: string, real: string, path: string, kind: "file" | "directory") =>
  Effect.acquireRelease(
    Effect.flatMap(Effect.promise(() => openInside(realRoot, real, kind)), (opened): Effect.Effect<Opened, FilesError> => {
      if ("handle" in opened) return Effect.succeed(opened)
      switch (opened._tag) {
        case "Escaped":
          return Effect.fail(new PathRefused({ path, reason: "it leads outside the root through a symbolic link" }))
        case "Missing":
          return Effect.fail(new FileNotFound({ path }))
        case "WrongType":
          return Effect.fail(new WrongFileType({ path, expected: kind, actual: statTypeName(opened.actual) }))
        case "Failed":
          return Effect.fail(new FileAccessFailed({ path, reason: opened.message }))
      }
    }),
    (opened) => Effect.promise(() => opened.handle.close().catch(() => undefined))
  )

const chunkSize = 64 * 1024

const readBounded = (realRoot: string, real: string, path: string, limit: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      const { handle, stats } = yield* openChecked(realRoot, real, path, "file")
      // Stryker disable next-line ConditionalExpression: a shortcut: the bounded read below refuses the same file with the same size, after reading limit + 1 bytes
      if (stats.size > limit) return yield* Effect.fail(new FileTooLarge({ path, size: stats.size, limit }))
      // Read at most limit + 1 bytes whatever the size said: the file may have grown since.
      const bytes = new Uint8Array(limit + 1)
      let total = 0
      // Stryker disable next-line EqualityOperator: `<` differs only when short reads stop exactly at the limit with more to come (each read asks for up to limit + 1 bytes in all; regular and /proc files answer in full)
      while (total <= limit) {
        const { bytesRead } = yield* Effect.tryPromise({
          try: () => handle.read(bytes, total, Math.min(chunkSize, limit + 1 - total), null),
          catch: (error) => new FileAccessFailed({ path, reason: error instanceof Error ? error.message : String(error) })
        })
        if (bytesRead === 0) break
        total += bytesRead
      }
      if (total > limit) return yield* Effect.fail(new FileTooLarge({ path, size: Math.max(total, stats.size), limit }))
      try {
        return { size: total, content: new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, total)) }
      } catch {
        return yield* Effect.fail(new NotText({ path }))
      }
    })
  )

/**
 * `read_file`'s arguments.
 *
 * @since 0.1.0
 */
export const ReadFileParameters = Schema.Struct({
  path: Schema.String.annotations({ description: "Path of the file, relative to the root directory" })
})

/**
 * What `read_file` returns.
 *
 * @since 0.1.0
 */
export const ReadFileResult = Schema.Struct({ path: Schema.String, size: Schema.Number, content: Schema.String })

/**
 * The `read_file` tool: `{path}` → `{path, size, content}` for a UTF-8 file under the root.
 *
 * @since 0.1.0
 */
export const readFile = (options: Options) => {
  const limit = options.maxBytes ?? defaultMaxBytes
  return Tool.make("read_file", {
    description: `Reads a UTF-8 text file (at most ${limit} bytes) under the root directory; the path is relative to the root.`,
    parameters: ReadFileParameters,
    success: ReadFileResult,
    failure: FilesError,
    handler: ({ path }) =>
      Effect.gen(function* () {
        if (path.trim() === "") return yield* Effect.fail(new PathRefused({ path, reason: "the path is empty" }))
        const fs = yield* FileSystem.FileSystem
        const { realRoot, real } = yield* resolve(fs, options.root, path)
        const { size, content } = yield* readBounded(realRoot, real, path, limit)
        return { path, size, content }
      })
  })
}

/**
 * One `list_dir` entry; `size` for files only.
 *
 * @since 0.1.0
 */
export const Entry = Schema.Struct({
  name: Schema.String,
  type: Schema.Literal("file", "directory", "other"),
  size: Schema.optional(Schema.Number)
})
/**
 * One `list_dir` entry (the type of the `Entry` schema).
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry extends Schema.Schema.Type<typeof Entry> {}

/**
 * `list_dir`'s arguments.
 *
 * @since 0.1.0
 */
export const ListDirParameters = Schema.Struct({
  path: Schema.optional(Schema.String.annotations({ description: "Directory relative to the root (default: the root itself)" }))
})

/**
 * What `list_dir` returns.
 *
 * @since 0.1.0
 */
export const ListDirResult = Schema.Struct({
  path: Schema.String,
  entries: Schema.Array(Entry),
  /** Names not examined because `maxEntries` entries were already listed. */
  truncated: Schema.Number
})

/**
 * The `list_dir` tool: `{path?}` → the directory's entries, sorted by name. Entries whose real location is
 * outside the root (symbolic links leading out) and dangling links are left out: listing them would disclose
 * what lies outside.
 *
 * @since 0.1.0
 */
export const listDir = (options: Options) => {
  const limit = options.maxEntries ?? defaultMaxEntries
  return Tool.make("list_dir", {
    description: "Lists a directory under the root directory (names, types and file sizes); the path is relative to the root.",
    parameters: ListDirParameters,
    success: ListDirResult,
    failure: FilesError,
    handler: ({ path: given }) =>
      Effect.gen(function* () {
        const path = given === undefined || given.trim() === "" ? "." : given
        const fs = yield* FileSystem.FileSystem
        const { realRoot, real } = yield* resolve(fs, options.root, path)
        return yield* Effect.scoped(
          Effect.gen(function* () {
            // Listed through the opened directory itself: a directory swapped for a link after the check is not read.
            const { self } = yield* openChecked(realRoot, real, path, "directory")
            const access = (error: unknown) => new FileAccessFailed({ path, reason: error instanceof Error ? error.message : String(error) })
            // Stryker disable next-line MethodExpression: libuv already sorts a Unix listing by byte order; other platforms' listings are not
            const names = [...(yield* Effect.tryPromise({ try: () => NodeFs.readdir(self), catch: access }))].sort()
            const entries: Array<Entry> = []
            let examined = 0
            for (const name of names) {
              if (entries.length === limit) break
              examined++
              const entry = yield* Effect.promise(() => describeEntry(realRoot, NodePath.join(self, name)))
              if (entry === undefined) continue
              entries.push(entry.type === "file" ? { name, type: entry.type, size: entry.size } : { name, type: entry.type })
            }
            return { path, entries, truncated: names.length - examined }
          })
        )
      })
  })
}

/**
 * An entry's type and size, never following a link out: an entry that is a link is described by its target
 * only when the target is under the root and is not itself swapped for a link in between. An entry that goes
 * away or cannot be looked at while the directory is listed is left out.
 */
const describeEntry = (realRoot: string, entryPath: string): Promise<{ type: Entry["type"]; size: number } | undefined> =>
  entryOf(realRoot, entryPath).catch(() => undefined)

const entryOf = async (realRoot: string, entryPath: string): Promise<{ type: Entry["type"]; size: number } | undefined> => {
  const of = (stats: Stats) => ({ type: stats.isFile() ? "file" as const : stats.isDirectory() ? "directory" as const : "other" as const, size: stats.size })
  const own = await NodeFs.lstat(entryPath)
  // Stryker disable next-line ConditionalExpression: a shortcut: a non-link's real path is itself, and the checks below describe it the same way
  if (!own.isSymbolicLink()) return of(own)
  const target = await NodeFs.realpath(entryPath)
  if (!isInside(realRoot, target)) return undefined
  const [followed, unfollowed] = await Promise.all([NodeFs.stat(target), NodeFs.lstat(target)])
  // Stryker disable next-line ConditionalExpression,LogicalOperator: the two differ only when the target is swapped for a link between the calls (the race tests provoke it, not every run)
  return followed.dev === unfollowed.dev && followed.ino === unfollowed.ino ? of(unfollowed) : undefined
}

/**
 * Both tools with the same options.
 *
 * @since 0.1.0
 */
export const tools = (options: Options) => [readFile(options), listDir(options)] as const
