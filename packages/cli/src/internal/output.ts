/**
 * A report written where its option says: `-` is stdout, anything else a file (written whole, then renamed). Each
 * target is checked before the command's work starts (`check`), so a path that cannot be written stops the command
 * at once (exit 2) instead of after every case has run.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { OutputError, UsageError } from "../CliError.js"
import { Io } from "../Io.js"
import * as FileProblem from "./fileProblem.js"

/** An output option and its value (`-` for stdout). */
export interface Target {
  readonly option: string
  readonly path: string
}

/**
 * Fails with a `UsageError` naming the option when `target` could not be written: a directory (or any other thing
 * than a regular file) is there, its directory does not exist or cannot be written in, or another option writes
 * the same file.
 */
export const check = (targets: ReadonlyArray<Target>): Effect.Effect<void, UsageError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const seen = new Map<string, string>()
    for (const { option, path: target } of targets) {
      if (target === "-") continue
      const refuse = (why: string) => Effect.fail(new UsageError({ message: `${option} ${target}: ${why}` }))
      const twin = seen.get(path.resolve(target))
      if (twin !== undefined) return yield* refuse(`${twin} writes the same file: give each report its own`)
      seen.set(path.resolve(target), option)
      const directory = path.dirname(target)
      const folder = yield* Effect.either(fs.stat(directory))
      if (Either.isLeft(folder)) return yield* refuse(FileProblem.isNotFound(folder.left) ? `the directory ${directory} does not exist` : FileProblem.describe(folder.left))
      if (folder.right.type !== "Directory") return yield* refuse(`${directory} is not a directory`)
      const writable = yield* Effect.either(fs.access(directory, { writable: true }))
      if (Either.isLeft(writable)) return yield* refuse(`the directory ${directory} cannot be written in (${FileProblem.describe(writable.left)})`)
      const info = yield* Effect.either(fs.stat(target))
      if (Either.isLeft(info)) {
        if (FileProblem.isNotFound(info.left)) continue
        return yield* refuse(FileProblem.describe(info.left))
      }
      if (info.right.type === "Directory") return yield* refuse("it is a directory: name a file (in it, say)")
      if (info.right.type !== "File") return yield* refuse(`it is ${FileProblem.typeName(info.right.type)}, not a regular file (- writes to stdout)`)
    }
  })

export const writeOutput = (target: string, text: string): Effect.Effect<void, OutputError, Io | FileSystem.FileSystem | Path.Path> =>
  target === "-"
    ? Effect.flatMap(Io, (io) => io.out(text.endsWith("\n") ? text : `${text}\n`))
    : Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        // A half-written report must never replace a good one: write beside it, then rename.
        const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.tmp`)
        yield* fs.writeFileString(temporary, text)
        yield* fs.rename(temporary, target)
      }).pipe(Effect.mapError((error) => new OutputError({ message: `${target} cannot be written: ${FileProblem.describe(error)}` })))
