/** Sample e-mails for the demo run: the e-mail, the state of the warranty service, and a cassette. */
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Either, Schema } from "effect"
import * as NodePath from "node:path"
import { parse as parseYaml } from "yaml"
import { Cassette } from "@agentfx/tools"

const SampleFile = Schema.Struct({
  email: Schema.String,
  warranty_service: Schema.optionalWith(Schema.Literal("up", "down"), { default: () => "up" as const }),
  cassette: Cassette.Cassette
})

export interface Sample {
  readonly file: string
  readonly email: string
  readonly warranty_service: "up" | "down"
  readonly cassette: Cassette.Cassette
}

export class SampleError extends Schema.TaggedError<SampleError>()("SampleError", { file: Schema.String, reason: Schema.String }) {
  override get message(): string {
    return `${this.file}: ${this.reason}`
  }
}

/** Every `*.yaml` sample of a directory, by file name. */
export const loadDirectory = (directory: string): Effect.Effect<ReadonlyArray<Sample>, SampleError, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const names = yield* Effect.mapError(fs.readDirectory(directory), (error) => new SampleError({ file: directory, reason: error.message }))
    const samples: Array<Sample> = []
    for (const name of names.filter((n) => n.endsWith(".yaml")).sort()) {
      const file = NodePath.join(directory, name)
      const text = yield* Effect.mapError(fs.readFileString(file), (error) => new SampleError({ file, reason: error.message }))
      const value = yield* Effect.try({ try: () => parseYaml(text) as unknown, catch: (error) => new SampleError({ file, reason: `not valid YAML: ${String(error)}` }) })
      const sample = yield* Either.mapLeft(Schema.decodeUnknownEither(SampleFile)(value, { errors: "all", onExcessProperty: "error" }), (error) => new SampleError({ file, reason: error.message }))
      samples.push({ ...sample, file })
    }
    return samples
  })
