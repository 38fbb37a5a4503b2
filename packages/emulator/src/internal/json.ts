/**
 * JSON as the emulator reads it off the wire: untrusted text is parsed through a Schema decode, never with a bare
 * `JSON.parse`; core's plain-object test and canonical form are the toolkit's one definition of each.
 */
import { Json } from "@agentfx/core"
import * as Either from "effect/Either"
import { ArrayFormatter } from "effect/ParseResult"
import * as Schema from "effect/Schema"

const decodeJson = Schema.decodeUnknownEither(Schema.parseJson())

/** Parses untrusted text as JSON, or says why it is not JSON. */
export const parse = (text: string): Either.Either<unknown, string> =>
  // Stryker disable next-line OptionalChaining,StringLiteral: a ParseError lists one issue at least, so the first one is always there
  Either.mapLeft(decodeJson(text), (error) => ArrayFormatter.formatErrorSync(error)[0]?.message ?? "invalid JSON")

export const isPlainObject: (value: unknown) => value is Json.JsonObject = Json.isPlainObject

export const canonical = Json.canonical

/** A function response is an error when it is exactly `{error: ...}` (the toolkit's rendering of a failure). */
export const isErrorResponse = (response: Json.JsonObject): boolean => {
  const keys = Object.keys(response)
  return keys.length === 1 && keys[0] === "error"
}

/** A JSON value's type in words, for error messages ("a string", "an array", "null"). */
export const kindOf = (value: unknown): string => {
  if (value === null) return "null"
  if (Array.isArray(value)) return "an array"
  if (typeof value === "object") return "an object"
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a number"
  return `a ${typeof value}`
}
