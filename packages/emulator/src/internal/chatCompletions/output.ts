/**
 * `response_format` as the servers check it. GLM knows `text` and `json_object`. OpenAI also knows `json_schema`:
 * a name matching `^[a-zA-Z0-9_-]+$`, and, under `strict: true`, a schema within Structured Outputs' rules — the root
 * an object, every object closed (`additionalProperties: false`) with every property in `required`, none of the
 * keywords strict mode does not enforce — refused with the service's words ("Invalid schema for response_format
 * 'triage': In context=('properties', 'tags'), 'additionalProperties' is required to be supplied and to be false.").
 * `json_object` needs the word "json" somewhere in the messages.
 */
import { isPlainObject } from "../json.js"
import type { OutputRequest } from "../output.js"
import { schemaInText } from "../output.js"
import type * as Wire from "./wire.js"
import type { Flavour } from "./wire.js"

/** Keywords strict Structured Outputs does not enforce, refused under `strict: true`. */
const unsupported = [
  "allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas", "patternProperties", "propertyNames",
  "unevaluatedProperties", "unevaluatedItems", "minProperties", "maxProperties", "prefixItems", "additionalItems", "contains",
  "minContains", "maxContains", "uniqueItems"
]

/** A context as the service prints it: a Python tuple of the path's keys, `()` at the root. */
const context = (path: ReadonlyArray<string>): string =>
  path.length === 0 ? "()" : path.length === 1 ? `('${path[0]}',)` : `(${path.map((key) => `'${key}'`).join(", ")})`

/** What breaks the strict rules in a schema, first found, as the service words it. */
const strictProblem = (schema: unknown): string | undefined => {
  if (!isPlainObject(schema)) return "schema must be a JSON Schema object."
  if (schema.type !== "object" || schema.anyOf !== undefined) {
    return `schema must be a JSON Schema of 'type: "object"', got 'type: ${schema.anyOf !== undefined ? '"anyOf"' : JSON.stringify(schema.type ?? null)}'.`
  }
  const visit = (node: unknown, path: ReadonlyArray<string>): string | undefined => {
    if (!isPlainObject(node)) return `In context=${context(path)}, schema must be a JSON Schema object.`
    for (const key of unsupported) if (key in node) return `In context=${context(path)}, '${key}' is not permitted.`
    if (Array.isArray(node.items)) return `In context=${context(path)}, 'items' must be a schema, not an array.`
    const isObject = node.type === "object" || (Array.isArray(node.type) && node.type.includes("object")) || isPlainObject(node.properties)
    if (isObject) {
      if (node.additionalProperties !== false) return `In context=${context(path)}, 'additionalProperties' is required to be supplied and to be false.`
      const properties = isPlainObject(node.properties) ? Object.keys(node.properties) : []
      const required = Array.isArray(node.required) ? node.required : undefined
      const missing = properties.filter((name) => !(required ?? []).includes(name))
      if (required === undefined || missing.length > 0) {
        return `In context=${context(path)}, 'required' is required to be supplied and to be an array including every key in properties.${missing.length > 0 ? ` Missing '${missing[0]}'.` : ""}`
      }
      for (const name of properties) {
        const problem = visit((node.properties as Record<string, unknown>)[name], [...path, "properties", name])
        if (problem !== undefined) return problem
      }
    }
    if (node.items !== undefined) {
      const problem = visit(node.items, [...path, "items"])
      if (problem !== undefined) return problem
    }
    for (const key of ["anyOf"] as const) {
      const branches = node[key]
      if (!Array.isArray(branches)) continue
      for (let i = 0; i < branches.length; i++) {
        const problem = visit(branches[i], [...path, key, String(i)])
        if (problem !== undefined) return problem
      }
    }
    for (const key of ["$defs", "definitions"] as const) {
      const definitions = node[key]
      if (!isPlainObject(definitions)) continue
      for (const [name, definition] of Object.entries(definitions)) {
        const problem = visit(definition, [...path, key, name])
        if (problem !== undefined) return problem
      }
    }
    return undefined
  }
  return visit(schema, [])
}

const nameRule = /^[a-zA-Z0-9_-]{1,64}$/

const mentionsJson = (body: Wire.Request): boolean =>
  body.messages.some((message) => {
    const content = message.content
    const text = typeof content === "string" ? content : (content ?? []).map((part) => (typeof part.text === "string" ? part.text : "")).join("")
    return /json/i.test(text)
  })

/** The 400 the server answers the body's `response_format` with, if any: the message and the parameter. */
export const outputViolation = (body: Wire.Request, flavour: Flavour): { message: string; param: string | null } | undefined => {
  const format = body.response_format
  if (format === undefined || format === null) return undefined
  const fail = (message: string, param: string | null) => ({ message, param })
  if (flavour === "glm") {
    return format.type === "text" || format.type === "json_object"
      ? undefined
      : fail("response_format.type 参数非法: supported values are 'text' and 'json_object'", "response_format.type")
  }
  if (format.type === "text") return undefined
  if (format.type === "json_object") {
    return mentionsJson(body) ? undefined : fail("'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.", "messages")
  }
  if (format.type !== "json_schema") return fail(`Invalid value: '${format.type}'. Supported values are: 'text', 'json_object', and 'json_schema'.`, "response_format.type")
  const jsonSchema = format.json_schema
  if (jsonSchema === undefined) return fail("Missing required parameter: 'response_format.json_schema'.", "response_format.json_schema")
  if (!nameRule.test(jsonSchema.name)) {
    return fail("Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", "response_format.json_schema.name")
  }
  if (jsonSchema.strict !== true) return undefined
  const problem = strictProblem(jsonSchema.schema)
  return problem === undefined ? undefined : fail(`Invalid schema for response_format '${jsonSchema.name}': ${problem}`, "response_format")
}

/** What the body asks of the answer's form: JSON, following its `json_schema` (or a schema in its instructions). */
export const outputOf = (body: Wire.Request, system: string | undefined): OutputRequest | undefined => {
  const format = body.response_format
  const json = format?.type === "json_object" || format?.type === "json_schema"
  const schema = format?.type === "json_schema" ? format.json_schema?.schema : schemaInText(system)
  if (!json && schema === undefined) return undefined
  return { json, ...(schema === undefined ? {} : { schema }), ...(format?.json_schema?.name === undefined ? {} : { name: format.json_schema.name }) }
}
