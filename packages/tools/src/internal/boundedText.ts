/**
 * Reading an input file (a case file, a scenario) with a size limit, refusing what is not a regular file before
 * opening it: a FIFO blocks the open forever, `/dev/zero` (or a link to it) never ends, a directory is no text.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** Input files larger than this are refused unless told otherwise: 4 MiB. */
export const defaultMaxBytes = 4 * 1024 * 1024

/** What a refusal calls each type ("is a named pipe, not a regular file"). */
const typeNames: Record<FileSystem.File.Type, string> = {
  File: "a regular file",
  Directory: "a directory",
  SymbolicLink: "a symbolic link",
  BlockDevice: "a device",
  CharacterDevice: "a device",
  FIFO: "a named pipe",
  Socket: "a socket",
  Unknown: "of an unknown type"
}
const typeName = (type: FileSystem.File.Type): string => typeNames[type]

/** The UTF-8 text of `file`, or why it was refused (a sentence to put after the file's name). */
export const read = (file: string, limit: number): Effect.Effect<string, string, FileSystem.FileSystem> =>
  Effect.scoped(
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const unreadable = (error: { readonly message: string }) => `cannot be read: ${error.message}`
      const refuse = (type: FileSystem.File.Type) => `is ${typeName(type)}, not a regular file (refused before reading)`
      const before = yield* Effect.mapError(fs.stat(file), unreadable)
      if (before.type !== "File") return yield* Effect.fail(refuse(before.type))
      if (Number(before.size) > limit) return yield* Effect.fail(`is ${before.size} bytes, more than the limit of ${limit} bytes`)
      // Stryker disable next-line ObjectLiteral: the file system opens for reading when given no flag; "r" says so plainly
      const handle = yield* Effect.mapError(fs.open(file, { flag: "r" }), unreadable)
      const after = yield* Effect.mapError(handle.stat, unreadable)
      if (after.type !== "File") return yield* Effect.fail(refuse(after.type))
      // At most limit + 1 bytes, whatever the size said: the file may be growing.
      const chunks: Array<Uint8Array> = []
      let total = 0
      while (total <= limit) {
        const chunk = yield* Effect.mapError(handle.readAlloc(Math.min(64 * 1024, limit + 1 - total)), unreadable)
        if (Option.isNone(chunk)) break
        chunks.push(chunk.value)
        total += chunk.value.length
      }
      if (total > limit) return yield* Effect.fail(`is more than the limit of ${limit} bytes`)
      return Buffer.concat(chunks).toString("utf8")
    })
  )
