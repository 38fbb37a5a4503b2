/**
 * Generated Schemas for property tests: structs with required and optional fields, arrays, unions, literals, records,
 * and named schemas (which JSON Schema writes as $ref into $defs, one of them used twice), with the values' paths and
 * ways to break a value somewhere.
 */
import { FastCheck as fc, Schema } from "effect"

export type Spec =
  | { readonly kind: "string" | "finite" | "int" | "boolean" | "null" }
  | { readonly kind: "literal"; readonly values: ReadonlyArray<string | number | boolean> }
  | { readonly kind: "array"; readonly item: Spec }
  | { readonly kind: "record"; readonly value: Spec }
  | { readonly kind: "union"; readonly members: ReadonlyArray<Spec> }
  | { readonly kind: "struct"; readonly fields: ReadonlyArray<Field> }
  /** An identified schema: a $ref to a $defs entry. */
  | { readonly kind: "named"; readonly spec: Spec }
  /** One identified schema in two places of a struct: two $refs to one entry. */
  | { readonly kind: "shared"; readonly spec: Spec }
export interface Field {
  readonly name: string
  readonly optional: boolean
  readonly spec: Spec
}

const fieldsArb = (spec: fc.Arbitrary<Spec>): fc.Arbitrary<ReadonlyArray<Field>> =>
  // At least one field: an empty Struct accepts any value but null and undefined, which JSON Schema cannot say.
  fc.uniqueArray(fc.record({ name: fc.constantFrom("a", "b", "c", "d", "e", "definitions"), optional: fc.boolean(), spec }), {
    minLength: 1,
    maxLength: 4,
    selector: (field) => field.name
  })

export const { root: rootArb } = fc.letrec<{ spec: Spec; root: Spec }>((tie) => ({
  spec: fc.oneof(
    { maxDepth: 3, depthSize: "small", withCrossShrink: true },
    fc.constantFrom<Spec>({ kind: "string" }, { kind: "finite" }, { kind: "int" }, { kind: "boolean" }, { kind: "null" }),
    fc.record({ kind: fc.constant("literal" as const), values: fc.uniqueArray(fc.oneof(fc.constantFrom("on", "off", ""), fc.integer({ min: -3, max: 3 }), fc.boolean()), { minLength: 1, maxLength: 3 }) }),
    fc.record({ kind: fc.constant("array" as const), item: tie("spec") }),
    fc.record({ kind: fc.constant("record" as const), value: tie("spec") }),
    fc.record({ kind: fc.constant("union" as const), members: fc.array(tie("spec"), { minLength: 2, maxLength: 3 }) }),
    fc.record({ kind: fc.constant("struct" as const), fields: fieldsArb(tie("spec")) }),
    fc.record({ kind: fc.constant("named" as const), spec: tie("spec") }),
    fc.record({ kind: fc.constant("shared" as const), spec: tie("spec") })
  ),
  root: fc.oneof(
    fc.record({ kind: fc.constant("struct" as const), fields: fieldsArb(tie("spec")) }),
    fc.record({ kind: fc.constant("named" as const), spec: fc.record({ kind: fc.constant("struct" as const), fields: fieldsArb(tie("spec")) }) })
  )
}))

/** The Effect Schema of a spec; each named schema gets an identifier of its own. */
export const schemaOf = (root: Spec): Schema.Schema.AnyNoContext => {
  let names = 0
  const build = (spec: Spec): Schema.Schema.AnyNoContext => {
    switch (spec.kind) {
      case "string":
        return Schema.String
      case "finite":
        return Schema.Finite
      case "int":
        return Schema.Int
      case "boolean":
        return Schema.Boolean
      case "null":
        return Schema.Null
      case "literal":
        return Schema.Literal(...spec.values)
      case "array":
        return Schema.Array(build(spec.item))
      case "record":
        return Schema.Record({ key: Schema.String, value: build(spec.value) })
      case "union":
        return Schema.Union(...spec.members.map(build))
      case "struct":
        return Schema.Struct(Object.fromEntries(spec.fields.map((field) => [field.name, field.optional ? Schema.optionalWith(build(field.spec), { exact: true }) : build(field.spec)])))
      case "named":
        return build(spec.spec).annotations({ identifier: `Named${++names}` })
      case "shared": {
        const shared = build(spec.spec).annotations({ identifier: `Shared${++names}` })
        return Schema.Struct({ one: shared, many: Schema.Array(shared) })
      }
    }
  }
  return build(root)
}

export const referencesIn = (node: unknown): ReadonlyArray<string> => {
  if (Array.isArray(node)) return node.flatMap(referencesIn)
  if (typeof node !== "object" || node === null) return []
  return Object.entries(node).flatMap(([key, value]) => [...(key === "$ref" || key === "$defs" ? [key] : []), ...referencesIn(value)])
}

export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
export type Path = ReadonlyArray<string | number>

export const pathsIn = (value: Json, path: Path = []): ReadonlyArray<Path> => {
  if (Array.isArray(value)) return [path, ...value.flatMap((item: Json, index) => pathsIn(item, [...path, index]))]
  if (typeof value === "object" && value !== null) return [path, ...Object.entries(value).flatMap(([key, item]) => pathsIn(item, [...path, key]))]
  return [path]
}

/** `value` with what is at `path` given to `change` (which may return undefined: the entry is removed). */
export const updateAt = (value: Json, path: Path, change: (node: Json) => Json | undefined): Json | undefined => {
  if (path.length === 0) return change(value)
  const [head, ...rest] = path
  if (Array.isArray(value)) {
    const items = value.map((item: Json, index) => (index === head ? updateAt(item, rest, change) : item))
    return items.filter((item): item is Json => item !== undefined)
  }
  const record = value as { readonly [key: string]: Json }
  const out: Record<string, Json> = {}
  for (const [key, item] of Object.entries(record)) {
    const next = key === head ? updateAt(item, rest, change) : item
    if (next !== undefined) out[key] = next
  }
  return out
}

/** Ways to break a value somewhere: another JSON type, an extra key, a removed entry, one more wrong item. */
export const mutations: ReadonlyArray<(node: Json) => Json | undefined> = [
  (node) => (typeof node === "string" ? 7 : "seven"),
  (node) => (typeof node === "number" ? true : 2.5),
  (node) => (node === null ? {} : null),
  (node) => (Array.isArray(node) ? { 0: node[0] ?? null } : [node]),
  (node) => (typeof node === "object" && node !== null && !Array.isArray(node) ? { ...node, zz: 1 } : node),
  () => undefined,
  (node) => (Array.isArray(node) ? [...node, { zz: [] }] : 3)
]
