/**
 * What a request asks of the final answer's form, as the emulator reads it from each wire (Gemini's
 * `responseMimeType` / `responseJsonSchema` / `responseSchema`, chat completions' `response_format`), and the offline
 * model's JSON answer: a value made from the JSON Schema, deterministically (no randomness), that fits it.
 */
import { isPlainObject } from "./json.js"

/** A request's ask of the answer's form: JSON (`json`), following `schema` when the wire carries one. */
export interface OutputRequest {
  readonly json: boolean
  /** The JSON Schema of the answer (Gemini's OpenAPI `responseSchema` too), when the request sends one. */
  readonly schema?: unknown
  /** Its name, where the wire gives one (`response_format.json_schema.name`). */
  readonly name?: string | undefined
}

/**
 * A JSON Schema written in a system instruction, on a line of its own: what a client that asks for JSON through
 * its instructions sends (agentfx's `Output.instructions` ends with the schema, on one line). The last such line.
 */
export const schemaInText = (text: string | undefined): unknown => {
  if (text === undefined) return undefined
  let found: unknown
  for (const line of text.split("\n")) {
    const trimmed = line.trim()
    // Stryker disable next-line ConditionalExpression,StringLiteral: only a line that starts with a brace parses as a JSON object; the check spares the parse
    if (!trimmed.startsWith("{")) continue
    try {
      const parsed: unknown = JSON.parse(trimmed)
      if (isPlainObject(parsed) && ("type" in parsed || "properties" in parsed || "anyOf" in parsed || "$ref" in parsed)) found = parsed
    } catch {
      // not JSON: prose that starts with a brace
    }
  }
  return found
}

const typeOf = (schema: Record<string, unknown>): string | undefined => {
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((type): type is string => typeof type === "string").map((type) => type.toLowerCase())
  return types.find((type) => type !== "null") ?? types[0]
}

const refTarget = (root: Record<string, unknown>, ref: string): unknown => {
  const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref)?.[1]?.replace(/~1/g, "/").replace(/~0/g, "~")
  const definitions = { ...(isPlainObject(root.definitions) ? root.definitions : {}), ...(isPlainObject(root.$defs) ? root.$defs : {}) }
  return name !== undefined && Object.hasOwn(definitions, name) ? definitions[name] : undefined
}

/**
 * A value that fits `schema`: every declared property, the first enum value or constant, the first branch of a
 * union that is not null, the fewest items allowed, numbers at their minimum, and `text` (cut or padded to the
 * lengths allowed) for free-form strings. References are followed 8 deep; past that, the emptiest value.
 */
export const valueOf = (root: unknown, text: string): unknown => {
  const rootObject = isPlainObject(root) ? root : {}
  const make = (node: unknown, depth: number): unknown => {
    if (!isPlainObject(node)) return null
    if (typeof node.$ref === "string") return depth >= 8 ? null : make(refTarget(rootObject, node.$ref), depth + 1)
    if ("const" in node) return node.const
    if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0]
    const branches = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined
    if (branches !== undefined && branches.length > 0) {
      const nonNull = branches.find((branch) => !(isPlainObject(branch) && typeof branch.type === "string" && branch.type.toLowerCase() === "null"))
      return make(depth >= 8 ? branches[branches.length - 1] : (nonNull ?? branches[0]), depth + 1)
    }
    const type = typeOf(node) ?? (isPlainObject(node.properties) ? "object" : node.items !== undefined ? "array" : "string")
    switch (type) {
      case "object": {
        const out: Record<string, unknown> = {}
        if (isPlainObject(node.properties)) {
          for (const [name, property] of Object.entries(node.properties)) {
            Object.defineProperty(out, name, { value: make(property, depth + 1), enumerable: true, writable: true, configurable: true })
          }
        }
        return out
      }
      case "array": {
        // Stryker disable next-line LogicalOperator: no minItems is no item either way (Number(undefined) is not finite)
        const min = typeof node.minItems === "number" ? node.minItems : Number(node.minItems ?? 0)
        return Array.from({ length: Number.isFinite(min) ? Math.min(min, 16) : 0 }, () => make(node.items, depth + 1))
      }
      case "number":
      case "integer": {
        const low = typeof node.minimum === "number" ? node.minimum : typeof node.exclusiveMinimum === "number" ? node.exclusiveMinimum + 1 : 0
        const high = typeof node.maximum === "number" ? node.maximum : typeof node.exclusiveMaximum === "number" ? node.exclusiveMaximum - 1 : Infinity
        const value = Math.min(low, high)
        return type === "integer" ? Math.ceil(value) : value
      }
      case "boolean":
        return false
      case "null":
        return null
      default: {
        if (node.format === "date") return "2026-01-01"
        if (node.format === "date-time") return "2026-01-01T00:00:00Z"
        const max = typeof node.maxLength === "number" ? node.maxLength : Infinity
        const min = typeof node.minLength === "number" ? node.minLength : 0
        const cut = text.slice(0, max)
        return cut.padEnd(min, ".")
      }
    }
  }
  return make(root, 0)
}
