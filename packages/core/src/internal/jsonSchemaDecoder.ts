/**
 * A JSON Schema as an Effect Schema that decodes what it accepts, for outputs described by a JSON Schema file
 * (`agentfx run --output-schema`). Only keywords whose check it makes are read: a validation keyword it does not
 * check (`allOf`, `oneOf`, `not`, `if`, `uniqueItems`, …) is a `SchemaProblem` naming its path, never a check
 * silently skipped. Annotations (`title`, `description`, `format`, `default`, …) are kept by the caller's
 * declaration and not checked.
 */
import * as Schema from "effect/Schema"
import type { JsonObject } from "../Json.js"
import { isPlainObject } from "../Json.js"

/** Why a JSON Schema cannot be decoded with, at a path such as `properties/serials/items` (empty: the root). */
export class SchemaProblem {
  constructor(
    readonly path: ReadonlyArray<string>,
    readonly reason: string
  ) {}
}

const annotations = new Set([
  "$schema", "$id", "$comment", "$defs", "definitions", "title", "description", "default", "examples", "format", "readOnly",
  "writeOnly", "deprecated", "contentMediaType", "contentEncoding", "propertyOrdering"
])

const checked = new Set([
  "$ref", "type", "enum", "const", "anyOf", "properties", "required", "additionalProperties", "items", "minItems", "maxItems",
  "minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"
])

const types = new Set(["string", "number", "integer", "boolean", "null", "object", "array"])

type Any = Schema.Schema<unknown>

const isLiteral = (value: unknown): value is string | number | boolean | null =>
  value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean"

/** The Effect Schema of a JSON Schema; throws a `SchemaProblem`. */
export const toSchema = (root: JsonObject): Any => {
  const definitions: JsonObject = {
    ...(isPlainObject(root.definitions) ? root.definitions : {}),
    ...(isPlainObject(root.$defs) ? root.$defs : {})
  }
  const done = new Map<string, Any>()
  const visiting = new Set<string>()

  const convert = (node: unknown, path: ReadonlyArray<string>): Any => {
    if (node === true) return Schema.Unknown
    if (node === false) return Schema.Never as unknown as Any
    if (!isPlainObject(node)) throw new SchemaProblem(path, "a schema must be an object or a boolean")
    for (const key of Object.keys(node)) {
      if (!annotations.has(key) && !checked.has(key)) throw new SchemaProblem(path, `the keyword "${key}" is not supported (it would not be checked)`)
    }
    const number = (key: string): number | undefined => {
      const value = node[key]
      if (value === undefined) return undefined
      if (typeof value !== "number" || !Number.isFinite(value)) throw new SchemaProblem(path, `"${key}" must be a number`)
      return value
    }
    const count = (key: string): number | undefined => {
      const value = number(key)
      if (value !== undefined && (!Number.isInteger(value) || value < 0)) throw new SchemaProblem(path, `"${key}" must be an integer ≥ 0`)
      return value
    }

    if (node.$ref !== undefined) {
      const extra = Object.keys(node).filter((key) => key !== "$ref" && checked.has(key))
      if (extra.length > 0) throw new SchemaProblem(path, `"$ref" beside "${extra[0]}" is not supported`)
      const ref = node.$ref
      const name = typeof ref === "string" ? /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref)?.[1]?.replace(/~1/g, "/").replace(/~0/g, "~") : undefined
      if (name === undefined || !Object.hasOwn(definitions, name)) throw new SchemaProblem(path, `the reference ${JSON.stringify(ref)} resolves to no definition`)
      const known = done.get(name)
      if (known !== undefined) return known
      // A recursive definition refers to itself while it is being built: through a suspended Schema.
      if (visiting.has(name)) return Schema.suspend((): Any => done.get(name)!)
      visiting.add(name)
      const built = convert(definitions[name], ["$defs", name])
      visiting.delete(name)
      done.set(name, built)
      return built
    }

    if (Array.isArray(node.enum)) {
      if (node.enum.length === 0 || !node.enum.every(isLiteral)) throw new SchemaProblem(path, "\"enum\" must list strings, numbers, booleans or null")
      return Schema.Literal(...(node.enum as Array<string | number | boolean | null>)) as Any
    }
    if ("const" in node) {
      if (!isLiteral(node.const)) throw new SchemaProblem(path, "\"const\" must be a string, a number, a boolean or null")
      return Schema.Literal(node.const) as Any
    }
    if (node.anyOf !== undefined) {
      if (!Array.isArray(node.anyOf) || node.anyOf.length === 0) throw new SchemaProblem(path, "\"anyOf\" must list schemas")
      if (node.type !== undefined) throw new SchemaProblem(path, "\"anyOf\" beside \"type\" is not supported: give the type in each branch")
      return Schema.Union(...node.anyOf.map((branch, i) => convert(branch, [...path, "anyOf", String(i)]))) as Any
    }

    const declared = node.type === undefined ? [] : Array.isArray(node.type) ? node.type : [node.type]
    for (const type of declared) if (typeof type !== "string" || !types.has(type)) throw new SchemaProblem(path, `unknown type ${JSON.stringify(type)}`)
    const kinds: Array<string> = declared.length > 0 ? (declared as Array<string>) : isPlainObject(node.properties) || node.additionalProperties !== undefined ? ["object"] : node.items !== undefined ? ["array"] : []
    if (kinds.length === 0) return Schema.Unknown

    const typed = kinds.map((kind): Any => {
      switch (kind) {
        case "string": {
          let schema: Schema.Schema<string> = Schema.String
          const min = count("minLength")
          const max = count("maxLength")
          if (min !== undefined) schema = schema.pipe(Schema.minLength(min))
          if (max !== undefined) schema = schema.pipe(Schema.maxLength(max))
          if (node.pattern !== undefined) {
            let pattern: RegExp
            try {
              pattern = new RegExp(String(node.pattern), "u")
            } catch {
              throw new SchemaProblem(path, `"pattern" is not a valid regular expression: ${JSON.stringify(node.pattern)}`)
            }
            schema = schema.pipe(Schema.pattern(pattern))
          }
          return schema as Any
        }
        case "number":
        case "integer": {
          let schema: Schema.Schema<number> = kind === "integer" ? Schema.Int : Schema.Number
          const [min, max, above, below, step] = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"].map(number)
          if (min !== undefined) schema = schema.pipe(Schema.greaterThanOrEqualTo(min))
          if (max !== undefined) schema = schema.pipe(Schema.lessThanOrEqualTo(max))
          if (above !== undefined) schema = schema.pipe(Schema.greaterThan(above))
          if (below !== undefined) schema = schema.pipe(Schema.lessThan(below))
          if (step !== undefined) schema = schema.pipe(Schema.multipleOf(step))
          return schema as Any
        }
        case "boolean":
          return Schema.Boolean as Any
        case "null":
          return Schema.Null as Any
        case "array": {
          if (Array.isArray(node.items)) throw new SchemaProblem(path, "tuple items (a list of schemas) are not supported: give one schema for every item")
          let schema: Schema.Schema<ReadonlyArray<unknown>> = Schema.Array(node.items === undefined ? Schema.Unknown : convert(node.items, [...path, "items"]))
          const min = count("minItems")
          const max = count("maxItems")
          if (min !== undefined) schema = schema.pipe(Schema.minItems(min))
          if (max !== undefined) schema = schema.pipe(Schema.maxItems(max))
          return schema as Any
        }
        default:
          return objectSchema(node, path)
      }
    })
    return typed.length === 1 ? typed[0]! : (Schema.Union(...typed) as Any)
  }

  const objectSchema = (node: JsonObject, path: ReadonlyArray<string>): Any => {
    const properties = node.properties === undefined ? {} : node.properties
    if (!isPlainObject(properties)) throw new SchemaProblem(path, "\"properties\" must map names to schemas")
    const required = node.required === undefined ? [] : node.required
    if (!Array.isArray(required) || !required.every((name) => typeof name === "string")) throw new SchemaProblem(path, "\"required\" must list property names")
    const extra = node.additionalProperties
    const names = Object.keys(properties)
    if (isPlainObject(extra) || extra === false || extra === true || extra === undefined) {
      if (names.length === 0 && isPlainObject(extra)) {
        return Schema.Record({ key: Schema.String, value: convert(extra, [...path, "additionalProperties"]) }) as Any
      }
      if (names.length > 0 && isPlainObject(extra)) {
        throw new SchemaProblem(path, "declared properties beside an \"additionalProperties\" schema are not supported")
      }
    } else throw new SchemaProblem(path, "\"additionalProperties\" must be a boolean or a schema")
    const fields: Record<string, Schema.Schema.All | Schema.PropertySignature.All> = {}
    for (const name of names) {
      const schema = convert(properties[name], [...path, "properties", name])
      fields[name] = required.includes(name) ? schema : Schema.optionalWith(schema, { exact: true })
    }
    for (const name of required) if (!names.includes(name as string)) throw new SchemaProblem(path, `"${String(name)}" is required but not declared in "properties"`)
    // Without `additionalProperties: false`, JSON Schema lets other properties through: so does the decoder.
    return (extra === false ? Schema.Struct(fields) : Schema.Struct(fields, Schema.Record({ key: Schema.String, value: Schema.Unknown }))) as unknown as Any
  }

  return convert(root, [])
}
