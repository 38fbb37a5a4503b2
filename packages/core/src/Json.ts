/**
 * JSON values as they cross the wire, and the one test for "plain object" the toolkit uses everywhere.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * A JSON object: what `args` and `response` always are.
 *
 * @since 0.1.0
 * @category models
 */
export type JsonObject = { readonly [key: string]: unknown }

/**
 * True for `{}` literals and `Object.create(null)` objects; false for arrays, class instances, dates, null.
 * Results that are plain objects are sent to the model as they are; anything else is wrapped in `{output}`.
 *
 * @since 0.1.0
 */
export const isPlainObject = (value: unknown): value is JsonObject => {
  if (typeof value !== "object" || value === null) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * Schema of a JSON object (values are left opaque; providers decode what they need). Checked, never copied: a
 * key-by-key copy would turn an own `"__proto__"` key (which `JSON.parse` creates) into a prototype change.
 *
 * @since 0.1.0
 */
export const JsonObject: Schema.Schema<JsonObject> = Schema.declare((value: unknown): value is JsonObject => isPlainObject(value), {
  identifier: "JsonObject",
  description: "a JSON object"
})

/**
 * JSON text with object keys sorted (and `undefined` fields left out, as JSON does), so equal values have equal
 * text whatever their key order: for comparing calls and signing content.
 *
 * @since 0.1.0
 */
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
