/** A report written where its option says: `-` is stdout, anything else a file (written whole, then renamed). */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import { OutputError } from "../CliError.js"
import { Io } from "../Io.js"

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
      }).pipe(Effect.mapError((error) => new OutputError({ message: `${target} cannot be written: ${error.message}` })))
