/**
 * `--output-schema FILE`: a JSON Schema file read into the output Schema of a run. Every way the file can be wrong
 * — missing, not a regular file, too large, not JSON, a schema whose checks would not all be made — is one line
 * naming the file, before anything runs (exit 2).
 */
import { Output } from "@agentfx/core"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { UsageError } from "../CliError.js"
import * as SessionFile from "../SessionFile.js"
import * as AgentOptions from "./agentOptions.js"

/** The most an output schema file may hold: 1 MiB. */
export const maxBytes = 1024 * 1024

const parseJson = Schema.decodeUnknownEither(Schema.parseJson())

/** The output Schema of the JSON Schema in `file`, or a `UsageError` saying what is wrong with the file. */
export const read = (file: string): Effect.Effect<Schema.Schema<unknown>, UsageError, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const refuse = (why: string) => new UsageError({ message: `--output-schema ${file}: ${why}` })
    yield* AgentOptions.file("--output-schema", file)
    const text = yield* SessionFile.read(file, { maxBytes }).pipe(Effect.mapError((error) => refuse(error.message.replace(`${file} `, ""))))
    if (Option.isNone(text)) return yield* Effect.fail(refuse("no such file"))
    const json = parseJson(text.value)
    if (Either.isLeft(json)) {
      return yield* Effect.fail(refuse(`not JSON (${ParseResult.ArrayFormatter.formatErrorSync(json.left)[0]?.message ?? "invalid JSON"})`))
    }
    const schema = Output.fromJsonSchema(json.right)
    if (Either.isLeft(schema)) return yield* Effect.fail(refuse(`not a JSON Schema agentfx can check answers with: ${schema.left.message}`))
    const declared = Output.declare(schema.right)
    if (Either.isLeft(declared)) return yield* Effect.fail(refuse(declared.left.reason))
    return schema.right
  })
