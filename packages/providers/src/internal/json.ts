import * as Either from "effect/Either"
import { ArrayFormatter } from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { Json } from "@agentfx/core"

/** Untrusted text → JSON value; JSON.parse never runs without this decode behind it. */
const decodeJson = Schema.decodeUnknownEither(Schema.parseJson())

/** Parses untrusted text as JSON, or says why it is not. */
export const parse = (text: string): Either.Either<unknown, string> =>
  Either.mapLeft(decodeJson(text), (error) => ArrayFormatter.formatErrorSync(error)[0]?.message ?? "invalid JSON")

/** Parses untrusted text as JSON and decodes it with `schema`. */
export const parseWith = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(Schema.parseJson(schema), { onExcessProperty: "preserve" })
  return (text: string): Either.Either<A, string> => Either.mapLeft(decode(text), (error) => error.message)
}

/** True for `{}` literals and null-prototype objects (arrays, class instances and null are not). */
export const isPlainObject = (value: unknown): value is Json.JsonObject => {
  if (typeof value !== "object" || value === null) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * A JSON object, checked but not rebuilt. `Schema.Record` copies an object key by key, and copying an own
 * `"__proto__"` key (which JSON.parse creates) sets the copy's prototype instead: a model could then smuggle
 * inherited properties past the executor's checks. Keeping the parsed object lets the executor see and refuse it.
 */
export const JsonObject: Schema.Schema<{ readonly [key: string]: unknown }> = Schema.declare(
  (input: unknown): input is { readonly [key: string]: unknown } => isPlainObject(input),
  { identifier: "JsonObject" }
)

/** JSON with object keys sorted, so equal values have equal text whatever their key order. */
export const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>
    return `{${Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonical(record[key])}`)
      .join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

/** A function response is an error when it is exactly `{error: ...}` (the executor's rendering of a failure). */
export const isErrorResponse = (response: Json.JsonObject): boolean => {
  const keys = Object.keys(response)
  return keys.length === 1 && keys[0] === "error"
}
