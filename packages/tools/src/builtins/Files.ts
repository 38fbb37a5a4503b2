/**
 * The `read_file` and `list_dir` tools, confined to a root directory. A path must be relative to the root;
 * absolute paths, any `..` segment, and paths whose real location (symbolic links resolved) lies outside the
 * root are refused. Files larger than `maxBytes`, and files that are not UTF-8 text, are refused too.
 *
 * The tools use `@effect/platform`'s `FileSystem`: provide `NodeFileSystem.layer` (or `NodeContext.layer`).
 *
 * @example
 * const registry = Registry.unsafeMake(...Files.tools({ root: "./docs", maxBytes: 64 * 1024 }))
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type { PlatformError } from "@effect/platform/Error"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as NodePath from "node:path"
import { Tool } from "@agentfx/core"

/** The path is not one the tool may touch; `reason` says why. */
export class PathRefused extends Schema.TaggedError<PathRefused>()("PathRefused", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `path "${this.path}" refused: ${this.reason}`
  }
}

/** Nothing exists at the path (or a symbolic link there points nowhere). */
export class FileNotFound extends Schema.TaggedError<FileNotFound>()("FileNotFound", {
  path: Schema.String
}) {
  override get message(): string {
    return `"${this.path}" does not exist`
  }
}

/** A file was expected and a directory (or device, ...) found, or the other way round. */
export class WrongFileType extends Schema.TaggedError<WrongFileType>()("WrongFileType", {
  path: Schema.String,
  expected: Schema.String,
  actual: Schema.String
}) {
  override get message(): string {
    return `"${this.path}" is a ${this.actual}, not a ${this.expected}`
  }
}

/** The file is larger than the configured limit. */
export class FileTooLarge extends Schema.TaggedError<FileTooLarge>()("FileTooLarge", {
  path: Schema.String,
  size: Schema.Number,
  limit: Schema.Number
}) {
  override get message(): string {
    return `"${this.path}" is ${this.size} bytes, more than the limit of ${this.limit} bytes`
  }
}

/** The file's content is not valid UTF-8 text. */
export class NotText extends Schema.TaggedError<NotText>()("NotText", {
  path: Schema.String
}) {
  override get message(): string {
    return `"${this.path}" is not UTF-8 text`
  }
}

/** The file system refused (permissions, the root is missing, ...). */
export class FileAccessFailed extends Schema.TaggedError<FileAccessFailed>()("FileAccessFailed", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `cannot access "${this.path}": ${this.reason}`
  }
}

/** Every refusal and failure of `read_file` and `list_dir`. */
export const FilesError = Schema.Union(PathRefused, FileNotFound, WrongFileType, FileTooLarge, NotText, FileAccessFailed)
export type FilesError = typeof FilesError.Type

/** Where the tools are confined, and their limits. */
export interface Options {
  /** The directory the tools are confined to. */
  readonly root: string
  /** Largest file `read_file` returns (default 1 MiB). */
  readonly maxBytes?: number
  /** Most entries `list_dir` returns (default 1,000; the rest are counted in `truncated`). */
  readonly maxEntries?: number
}

/** `read_file`'s limit unless `maxBytes` says otherwise. */
export const defaultMaxBytes = 1024 * 1024
/** `list_dir`'s limit unless `maxEntries` says otherwise. */
export const defaultMaxEntries = 1_000

/** Checks the shape of a model-supplied path before it touches the file system. */
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
  error._tag === "SystemError" ? (error.reason === "PermissionDenied" ? "permission denied" : error.message) : error.message

/** The real location of `path` under the root, or why there is none. */
const resolve = (fs: FileSystem.FileSystem, root: string, path: string) =>
  Effect.gen(function* () {
    const refused = checkRelative(path)
    if (refused !== undefined) return yield* Effect.fail(refused)
    const realRoot = yield* Effect.mapError(
      fs.realPath(root),
      (error) => new FileAccessFailed({ path, reason: `the root directory is unavailable (${describePlatformError(error)})` })
    )
    const real = yield* Effect.mapError(fs.realPath(NodePath.join(realRoot, path)), (error) =>
      error._tag === "SystemError" && error.reason === "NotFound"
        ? new FileNotFound({ path })
        : new FileAccessFailed({ path, reason: describePlatformError(error) })
    )
    if (!isInside(realRoot, real)) return yield* Effect.fail(new PathRefused({ path, reason: "it leads outside the root through a symbolic link" }))
    return real
  })

const isInside = (root: string, real: string): boolean => real === root || real.startsWith(root.endsWith(NodePath.sep) ? root : root + NodePath.sep)

const typeName = (type: FileSystem.File.Type): string =>
  type === "File" ? "file" : type === "Directory" ? "directory" : type === "SymbolicLink" ? "symbolic link" : `${type.toLowerCase()} file`

const chunkSize = 64 * 1024

const readBounded = (fs: FileSystem.FileSystem, real: string, path: string, limit: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      const access = (error: PlatformError) => new FileAccessFailed({ path, reason: describePlatformError(error) })
      // Stat the path first: opening a named pipe or a device can block forever.
      const before = yield* Effect.mapError(fs.stat(real), access)
      if (before.type !== "File") return yield* Effect.fail(new WrongFileType({ path, expected: "file", actual: typeName(before.type) }))
      const file = yield* Effect.mapError(fs.open(real, { flag: "r" }), access)
      // And the open descriptor: it is the file we are about to read, whatever the path pointed at before.
      const info = yield* Effect.mapError(file.stat, access)
      if (info.type !== "File") return yield* Effect.fail(new WrongFileType({ path, expected: "file", actual: typeName(info.type) }))
      if (Number(info.size) > limit) return yield* Effect.fail(new FileTooLarge({ path, size: Number(info.size), limit }))
      // Read at most limit + 1 bytes whatever the size said: the file may have grown since.
      const chunks: Array<Uint8Array> = []
      let total = 0
      while (total <= limit) {
        const chunk = yield* Effect.mapError(file.readAlloc(Math.min(chunkSize, limit + 1 - total)), access)
        if (Option.isNone(chunk)) break
        chunks.push(chunk.value)
        total += chunk.value.length
      }
      if (total > limit) return yield* Effect.fail(new FileTooLarge({ path, size: Math.max(total, Number(info.size)), limit }))
      const bytes = new Uint8Array(total)
      let offset = 0
      for (const chunk of chunks) {
        bytes.set(chunk, offset)
        offset += chunk.length
      }
      try {
        return { size: total, content: new TextDecoder("utf-8", { fatal: true }).decode(bytes) }
      } catch {
        return yield* Effect.fail(new NotText({ path }))
      }
    })
  )

/** `read_file`'s arguments. */
export const ReadFileParameters = Schema.Struct({
  path: Schema.String.annotations({ description: "Path of the file, relative to the root directory" })
})

/** What `read_file` returns. */
export const ReadFileResult = Schema.Struct({ path: Schema.String, size: Schema.Number, content: Schema.String })

/** The `read_file` tool: `{path}` → `{path, size, content}` for a UTF-8 file under the root. */
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
        const real = yield* resolve(fs, options.root, path)
        const { size, content } = yield* readBounded(fs, real, path, limit)
        return { path, size, content }
      })
  })
}

/** One `list_dir` entry; `size` for files only. */
export const Entry = Schema.Struct({
  name: Schema.String,
  type: Schema.Literal("file", "directory", "other"),
  size: Schema.optional(Schema.Number)
})
export interface Entry extends Schema.Schema.Type<typeof Entry> {}

/** `list_dir`'s arguments. */
export const ListDirParameters = Schema.Struct({
  path: Schema.optional(Schema.String.annotations({ description: "Directory relative to the root (default: the root itself)" }))
})

/** What `list_dir` returns. */
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
        const access = (error: PlatformError) => new FileAccessFailed({ path, reason: describePlatformError(error) })
        const real = yield* resolve(fs, options.root, path)
        const info = yield* Effect.mapError(fs.stat(real), access)
        if (info.type !== "Directory") return yield* Effect.fail(new WrongFileType({ path, expected: "directory", actual: typeName(info.type) }))
        const realRoot = yield* Effect.mapError(fs.realPath(options.root), access)
        const names = [...(yield* Effect.mapError(fs.readDirectory(real), access))].sort()
        const entries: Array<Entry> = []
        let examined = 0
        for (const name of names) {
          if (entries.length === limit) break
          examined++
          const target = yield* Effect.option(fs.realPath(NodePath.join(real, name)))
          if (Option.isNone(target) || !isInside(realRoot, target.value)) continue
          const stat = yield* Effect.option(fs.stat(target.value))
          if (Option.isNone(stat)) continue
          const type = stat.value.type === "File" ? "file" : stat.value.type === "Directory" ? "directory" : "other"
          entries.push(type === "file" ? { name, type, size: Number(stat.value.size) } : { name, type })
        }
        return { path, entries, truncated: names.length - examined }
      })
  })
}

/** Both tools with the same options. */
export const tools = (options: Options) => [readFile(options), listDir(options)] as const
