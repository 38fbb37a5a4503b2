import * as Either from "effect/Either"
import { ArrayFormatter } from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { Json } from "@agentfx/core"

/** Untrusted text → JSON value; JSON.parse never runs without this decode behind it. */
const decodeJson = Schema.decodeUnknownEither(Schema.parseJson())

/** Parses untrusted text as JSON, or says why it is not. */
export const parse = (text: string): Either.Either<unknown, string> =>
  // Stryker disable next-line OptionalChaining,StringLiteral: a text that fails to parse gives exactly one issue; the fallback keeps the type total
  Either.mapLeft(decodeJson(text), (error) => ArrayFormatter.formatErrorSync(error)[0]?.message ?? "invalid JSON")

/** Parses untrusted text as JSON and decodes it with `schema`. */
export const parseWith = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(Schema.parseJson(schema), { onExcessProperty: "preserve" })
  return (text: string): Either.Either<A, string> => Either.mapLeft(decode(text), (error) => error.message)
}

/** Core's plain-object test and checked-not-copied JSON object Schema: one definition for the whole toolkit. */
// (Annotated with the structural type: declarations elsewhere cannot name core's internal Json module.)
export const isPlainObject: (value: unknown) => value is { readonly [key: string]: unknown } = Json.isPlainObject
export const JsonObject: Schema.Schema<{ readonly [key: string]: unknown }> = Json.JsonObject

export const canonical = Json.canonical

/** A function response is an error when it is exactly `{error: ...}` (the executor's rendering of a failure). */
export const isErrorResponse = (response: Json.JsonObject): boolean => {
  const keys = Object.keys(response)
  return keys.length === 1 && keys[0] === "error"
}
