/**
 * OpenAI's strict Structured Outputs form of an output's JSON Schema, and the way back.
 *
 * Strict mode wants every object closed (`additionalProperties: false`) with every property listed in `required`,
 * the root an object, at most 10 levels of objects and 5,000 properties, and none of the keywords it does not
 * enforce (the openai SDK's own list, `lib/transform.ts`). So:
 * - an optional property becomes required and nullable (a union with null), unless it already admits null;
 * - a record (an object with no declared properties whose other properties follow one schema) becomes
 *   `{entries: [{key, value}, …]}`, the one form strict mode can close (an object, so that in a union it is never
 *   taken for an array);
 * - anything else strict mode cannot express (an open object with declared properties, tuple items, an unsupported
 *   keyword, a root that is no object) is a `StrictProblem` naming its path, raised before anything is sent.
 *
 * `restore` takes a value of the strict form back to the neutral form (null for an optional property that does not
 * admit null → absent; `{entries}` → the record). It reads only the neutral schema, so it is applied to every decoded
 * answer whatever the provider: a value already in the neutral form passes unchanged.
 */
import type { JsonObject } from "../Json.js"
import { isPlainObject } from "../Json.js"

/** Keywords strict Structured Outputs does not enforce and the openai SDK refuses (its `lib/transform.ts`). */
const unsupported = new Set([
  "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveAnchor", "$recursiveRef", "additionalItems", "allOf", "contains",
  "contentEncoding", "contentMediaType", "contentSchema", "dependentRequired", "dependentSchemas", "dependencies", "else",
  "if", "maxContains", "maxProperties", "minContains", "minProperties", "not", "patternProperties", "prefixItems",
  "propertyNames", "then", "unevaluatedItems", "unevaluatedProperties", "uniqueItems"
])

/** OpenAI's bounds on a strict schema. */
export const maxObjectDepth = 10
export const maxProperties = 5_000

/** Why a schema has no strict form, at a path such as `properties/serials/items` (`<root>` for the root). */
export class StrictProblem {
  constructor(
    readonly path: ReadonlyArray<string>,
    readonly reason: string
  ) {}

  get where(): string {
    return this.path.length === 0 ? "<root>" : this.path.join("/")
  }
}

const definitionsOf = (root: JsonObject): JsonObject => ({
  ...(isPlainObject(root.definitions) ? root.definitions : {}),
  ...(isPlainObject(root.$defs) ? root.$defs : {})
})

const refTarget = (definitions: JsonObject, ref: unknown): unknown => {
  if (typeof ref !== "string") return undefined
  const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref)?.[1]?.replace(/~1/g, "/").replace(/~0/g, "~")
  return name !== undefined && Object.hasOwn(definitions, name) ? definitions[name] : undefined
}

/** The schema a node stands for, its references followed (a bounded number of times: a cycle of bare aliases ends). */
const resolved = (definitions: JsonObject, node: unknown): unknown => {
  let at = node
  for (let hops = 0; hops < 32 && isPlainObject(at) && at.$ref !== undefined; hops++) at = refTarget(definitions, at.$ref) ?? {}
  return at
}

/** Whether a schema admits null (an empty schema admits anything). */
export const admitsNull = (definitions: JsonObject, node: unknown, seen: Set<unknown> = new Set()): boolean => {
  const schema = resolved(definitions, node)
  if (!isPlainObject(schema) || seen.has(schema)) return false
  seen.add(schema)
  if (schema.type === "null" || (Array.isArray(schema.type) && schema.type.includes("null"))) return true
  if ("const" in schema) return schema.const === null
  if (Array.isArray(schema.enum)) return schema.enum.includes(null)
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key]
    if (Array.isArray(branches)) return branches.some((branch) => admitsNull(definitions, branch, seen))
  }
  return schema.type === undefined && schema.properties === undefined && schema.items === undefined && schema.$ref === undefined
}

const isObjectShape = (schema: JsonObject): boolean =>
  schema.type === "object" || (Array.isArray(schema.type) && schema.type.includes("object")) || isPlainObject(schema.properties)

/** An object with no declared properties whose other properties follow one schema. */
const recordValues = (schema: JsonObject): unknown =>
  isObjectShape(schema) && Object.keys(isPlainObject(schema.properties) ? schema.properties : {}).length === 0 && isPlainObject(schema.additionalProperties)
    ? schema.additionalProperties
    : undefined

/**
 * The strict form of a schema whose references are inlined (recursive ones kept in `$defs`). Throws a
 * `StrictProblem` for what strict mode cannot express.
 */
export const toStrict = (root: JsonObject): JsonObject => {
  const definitions = definitionsOf(root)
  let properties = 0
  const visit = (node: unknown, path: ReadonlyArray<string>, depth: number): JsonObject => {
    if (!isPlainObject(node)) throw new StrictProblem(path, "a schema must be an object (true and false are not accepted in strict mode)")
    if (Array.isArray(node.items)) throw new StrictProblem(path, "tuple items (a list of schemas) are not supported in strict mode: use one schema for every item")
    for (const key of Object.keys(node)) {
      if (unsupported.has(key)) throw new StrictProblem(path, `the keyword "${key}" is not supported in strict mode`)
    }
    const values = recordValues(node)
    if (values !== undefined) {
      // Entries are the one closed form of a record; `restore` turns them back into the object.
      const { additionalProperties: _a, properties: _p, required: _r, type: _t, ...annotations } = node
      if (depth + 2 > maxObjectDepth) throw new StrictProblem(path, `objects are nested more than ${maxObjectDepth} levels deep, the most strict mode accepts`)
      return {
        ...annotations,
        type: "object",
        properties: {
          entries: {
            type: "array",
            items: {
              type: "object",
              properties: { key: { type: "string" }, value: visit(values, [...path, "additionalProperties"], depth + 2) },
              required: ["key", "value"],
              additionalProperties: false
            }
          }
        },
        required: ["entries"],
        additionalProperties: false
      }
    }
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(node)) {
      if (key === "properties" || key === "required" || key === "additionalProperties") continue
      if (key === "items") out.items = visit(value, [...path, "items"], depth)
      else if ((key === "anyOf" || key === "oneOf") && Array.isArray(value)) out[key] = value.map((branch, i) => visit(branch, [...path, key, String(i)], depth))
      else if (key === "$defs" && isPlainObject(value)) {
        out.$defs = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, visit(schema, [...path, "$defs", name], depth)]))
      } else out[key] = value
    }
    if (!isObjectShape(node)) return out
    const extra = node.additionalProperties
    if (extra === true || isPlainObject(extra)) {
      throw new StrictProblem(path, "an object that accepts properties beyond those it declares cannot be strict: declare every property (additionalProperties: false)")
    }
    if (depth + 1 > maxObjectDepth) throw new StrictProblem(path, `objects are nested more than ${maxObjectDepth} levels deep, the most strict mode accepts`)
    const declared = isPlainObject(node.properties) ? node.properties : {}
    const required = new Set(Array.isArray(node.required) ? node.required : [])
    const strict: Record<string, unknown> = {}
    for (const [name, schema] of Object.entries(declared)) {
      properties++
      if (properties > maxProperties) throw new StrictProblem(path, `the schema declares more than ${maxProperties} properties, the most strict mode accepts`)
      const compiled = visit(schema, [...path, "properties", name], depth + 1)
      strict[name] = required.has(name) || admitsNull(definitions, schema) ? compiled : { anyOf: [compiled, { type: "null" }] }
    }
    out.properties = strict
    out.required = Object.keys(declared)
    out.additionalProperties = false
    return out
  }
  const strict = visit(root, [], 0)
  if (strict.type !== "object" || strict.anyOf !== undefined) {
    throw new StrictProblem([], "the root must be an object (strict mode answers with one JSON object): wrap the value in a struct")
  }
  return strict
}

/** Sets a member as `JSON.parse` does: an own property, even for the key `__proto__`. */
const define = (object: Record<string, unknown>, key: string, value: unknown): void => {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
}

const isEntry = (value: unknown): value is { readonly key: string; readonly value: unknown } =>
  isPlainObject(value) && typeof value.key === "string" && "value" in value && Object.keys(value).length === 2

/** A record as strict mode writes it: `{entries: [{key, value}, …]}`. */
const entriesOf = (value: JsonObject): ReadonlyArray<{ readonly key: string; readonly value: unknown }> | undefined => {
  const entries = value.entries
  return Object.keys(value).length === 1 && Array.isArray(entries) && entries.every(isEntry) ? entries : undefined
}

/** The branches of a union, those of a union inside it included (bounded, as unions nest only so deep). */
const flatten = (definitions: JsonObject, branches: ReadonlyArray<unknown>, depth = 0): ReadonlyArray<unknown> =>
  branches.flatMap((branch) => {
    const schema = resolved(definitions, branch)
    const inner = isPlainObject(schema) ? (Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined) : undefined
    return inner !== undefined && depth < 16 ? flatten(definitions, inner, depth + 1) : [branch]
  })

const jsonType = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "array" : typeof value === "number" ? (Number.isInteger(value) ? "integer" : "number") : typeof value

/**
 * Whether a value has the shape a schema describes: types, enums and constants, required and declared properties,
 * items and record values. Enough to tell which branch of a union a value was written for; the Schema decodes it.
 */
const fits = (definitions: JsonObject, node: unknown, value: unknown, depth = 0): boolean => {
  const schema = resolved(definitions, node)
  if (depth > 64 || !isPlainObject(schema)) return true
  const union = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined
  if (union !== undefined && !union.some((branch) => fits(definitions, branch, value, depth + 1))) return false
  if (Array.isArray(schema.enum) && !schema.enum.some((item) => JSON.stringify(item) === JSON.stringify(value))) return false
  if ("const" in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) return false
  const types = schema.type === undefined ? undefined : Array.isArray(schema.type) ? schema.type : [schema.type]
  const type = jsonType(value)
  if (types !== undefined && !types.includes(type) && !(type === "integer" && types.includes("number"))) return false
  if (Array.isArray(value)) return !isPlainObject(schema.items) || value.every((item) => fits(definitions, schema.items, item, depth + 1))
  if (!isPlainObject(value)) return true
  const values = recordValues(schema)
  if (values !== undefined) return Object.keys(value).every((key) => fits(definitions, values, value[key], depth + 1))
  const declared = isPlainObject(schema.properties) ? schema.properties : undefined
  if (declared === undefined) return true
  const required = Array.isArray(schema.required) ? schema.required : []
  if (!required.every((key) => typeof key === "string" && Object.hasOwn(value, key))) return false
  return Object.keys(value).every((key) =>
    Object.hasOwn(declared, key) ? fits(definitions, declared[key], value[key], depth + 1) : schema.additionalProperties !== false
  )
}

/** A value of the strict form in the neutral schema's form (see the module's header); other values pass unchanged. */
export const restore = (root: JsonObject, value: unknown): unknown => {
  const definitions = definitionsOf(root)
  const walk = (node: unknown, value: unknown, depth: number): unknown => {
    const schema = resolved(definitions, node)
    if (depth > 64 || !isPlainObject(schema) || (typeof value !== "object" || value === null)) return value
    const union = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined
    if (union !== undefined) {
      // The branch the value was written for is the first one it fits once taken back to that branch's form.
      for (const branch of flatten(definitions, union)) {
        const restored = walk(branch, value, depth + 1)
        if (fits(definitions, branch, restored)) return restored
      }
      return value
    }
    if (Array.isArray(value)) return isPlainObject(schema.items) ? value.map((item) => walk(schema.items, item, depth + 1)) : value
    if (!isPlainObject(value)) return value
    const values = recordValues(schema)
    if (values !== undefined) {
      const record: Record<string, unknown> = {}
      const entries = entriesOf(value)
      if (entries !== undefined) for (const entry of entries) define(record, entry.key, walk(values, entry.value, depth + 1))
      else for (const key of Object.keys(value)) define(record, key, walk(values, value[key], depth + 1))
      return record
    }
    if (!isPlainObject(schema.properties)) return value
    const declared = schema.properties
    const required = new Set(Array.isArray(schema.required) ? schema.required : [])
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value)) {
      const property = Object.hasOwn(declared, key) ? declared[key] : undefined
      const item = value[key]
      if (property !== undefined && item === null && !required.has(key) && !admitsNull(definitions, property)) continue
      define(out, key, property === undefined ? item : walk(property, item, depth + 1))
    }
    return out
  }
  return walk(root, value, 0)
}
