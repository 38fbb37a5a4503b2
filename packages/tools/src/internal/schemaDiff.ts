import { Json } from "@agentfx/core"

type JsonObject = Json.JsonObject

const jsonTypeOf = (value: unknown): string => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value)

/**
 * The JSON types a schema admits, or `undefined` when it does not say (no `type`, `enum`, `const` or typed
 * `anyOf`/`oneOf` branches): such a schema admits anything.
 */
export const typesOf = (schema: unknown): ReadonlySet<string> | undefined => {
  if (!Json.isPlainObject(schema)) return undefined
  if (typeof schema.type === "string") return new Set([schema.type])
  if (Array.isArray(schema.type)) return new Set(schema.type.map(String))
  if ("const" in schema) return new Set([jsonTypeOf(schema.const)])
  if (Array.isArray(schema.enum)) return new Set(schema.enum.map(jsonTypeOf))
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined
  if (branches === undefined) return undefined
  const union = new Set<string>()
  for (const branch of branches) {
    const types = typesOf(branch)
    if (types === undefined) return undefined
    for (const type of types) union.add(type)
  }
  return union
}

const showTypes = (types: ReadonlySet<string> | undefined): string => (types === undefined ? "any type" : [...types].sort().join(" | "))

const sameTypes = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => a.size === b.size && [...a].every((type) => b.has(type))

const propertiesOf = (schema: JsonObject): JsonObject => (Json.isPlainObject(schema.properties) ? schema.properties : {})

// Stryker disable next-line ArrayDeclaration: only the names of declared properties are looked up in it
const requiredOf = (schema: JsonObject): ReadonlySet<string> => new Set(Array.isArray(schema.required) ? schema.required.map(String) : [])

/** An object schema with no properties that admits extra ones: an untyped function, which accepts anything. */
const isOpenObject = (schema: JsonObject): boolean =>
  Object.keys(propertiesOf(schema)).length === 0 && schema.additionalProperties !== false

const label = (path: string): string => (path === "" ? "the parameters" : `parameter "${path}"`)

/**
 * How the parameters a scenario declares differ from the implementation's: property names, required sets and
 * types, recursively through nested objects and array items. Empty when they agree. An implementation that
 * states no type for something (or is an untyped function) accepts whatever is declared there.
 */
export const diff = (declared: unknown, implemented: unknown, path = ""): ReadonlyArray<string> => {
  // Stryker disable next-line ConditionalExpression: `typesOf` says nothing of what is not an object either; this narrows the type
  if (!Json.isPlainObject(implemented)) return []
  const implementedTypes = typesOf(implemented)
  if (implementedTypes === undefined) return []
  const declaredTypes = typesOf(declared)
  if (declaredTypes === undefined || !sameTypes(declaredTypes, implementedTypes)) {
    return [`${label(path)}: declared as ${showTypes(declaredTypes)}, the implementation expects ${showTypes(implementedTypes)}`]
  }
  const decl = declared as JsonObject
  const out: Array<string> = []
  if (implementedTypes.has("object") && !isOpenObject(implemented)) {
    const declaredProps = propertiesOf(decl)
    const implementedProps = propertiesOf(implemented)
    const at = (name: string) => (path === "" ? name : `${path}.${name}`)
    for (const name of Object.keys(declaredProps)) {
      if (!Object.hasOwn(implementedProps, name)) out.push(`${label(at(name))} is declared, but the implementation has no such parameter`)
    }
    for (const name of Object.keys(implementedProps)) {
      if (!Object.hasOwn(declaredProps, name)) out.push(`${label(at(name))} of the implementation is not declared`)
    }
    const declaredRequired = requiredOf(decl)
    const implementedRequired = requiredOf(implemented)
    for (const name of Object.keys(declaredProps)) {
      if (!Object.hasOwn(implementedProps, name)) continue
      const d = declaredRequired.has(name)
      const i = implementedRequired.has(name)
      if (d !== i) out.push(`${label(at(name))} is ${d ? "required" : "optional"} in the declaration but ${i ? "required" : "optional"} in the implementation`)
      out.push(...diff(declaredProps[name], implementedProps[name], at(name)))
    }
  }
  // Stryker disable next-line ConditionalExpression: items that are not a schema give no difference all the same
  if (implementedTypes.has("array") && Json.isPlainObject(implemented.items)) {
    out.push(...diff(decl.items, implemented.items, `${path}[]`))
  }
  return out
}
