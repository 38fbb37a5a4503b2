import { afterAll, describe, expect, it } from "@effect/vitest"
import { Ajv } from "ajv"
import { Arbitrary, Either, FastCheck as fc, JSONSchema, Schema } from "effect"
import { Dialect } from "../src/index.js"

// Generated parameter Schemas (structs with required and optional fields, arrays, unions, literals, records, and
// named schemas, which JSON Schema writes as $ref into $defs, one of them used twice): the Gemini dialect inlines
// every reference, and the schema it sends accepts exactly the arguments the tool accepts.

type Spec =
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
interface Field {
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

const { root: rootArb } = fc.letrec<{ spec: Spec; root: Spec }>((tie) => ({
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
const schemaOf = (root: Spec): Schema.Schema.AnyNoContext => {
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

const referencesIn = (node: unknown): ReadonlyArray<string> => {
  if (Array.isArray(node)) return node.flatMap(referencesIn)
  if (typeof node !== "object" || node === null) return []
  return Object.entries(node).flatMap(([key, value]) => [...(key === "$ref" || key === "$defs" ? [key] : []), ...referencesIn(value)])
}

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
type Path = ReadonlyArray<string | number>

const pathsIn = (value: Json, path: Path = []): ReadonlyArray<Path> => {
  if (Array.isArray(value)) return [path, ...value.flatMap((item: Json, index) => pathsIn(item, [...path, index]))]
  if (typeof value === "object" && value !== null) return [path, ...Object.entries(value).flatMap(([key, item]) => pathsIn(item, [...path, key]))]
  return [path]
}

/** `value` with what is at `path` given to `change` (which may return undefined: the entry is removed). */
const updateAt = (value: Json, path: Path, change: (node: Json) => Json | undefined): Json | undefined => {
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
const mutations: ReadonlyArray<(node: Json) => Json | undefined> = [
  (node) => (typeof node === "string" ? 7 : "seven"),
  (node) => (typeof node === "number" ? true : 2.5),
  (node) => (node === null ? {} : null),
  (node) => (Array.isArray(node) ? { 0: node[0] ?? null } : [node]),
  (node) => (typeof node === "object" && node !== null && !Array.isArray(node) ? { ...node, zz: 1 } : node),
  () => undefined,
  (node) => (Array.isArray(node) ? [...node, { zz: [] }] : 3)
]

// Effect's JSON Schemas carry titles and descriptions ajv's strict mode would question; the schemas are not checked
// against the meta-schema, nor kept: each is compiled once.
const ajv = new Ajv({ strict: false, validateSchema: false, addUsedSchema: false, code: { optimize: false } })
const met = { runs: 0, values: 0, mutants: 0, rejected: 0, references: 0 }
// Compiling a schema (ajv's code generation, Effect's parser) is most of the cost: few schemas, several values each.
const numRuns = 40

describe("the Gemini dialect of generated parameter Schemas", () => {
  it.prop(
    "has no $ref or $defs anywhere, and accepts exactly the arguments the Schema accepts",
    [rootArb, fc.gen()],
    ([spec, gen]) => {
      met.runs++
      const schema = schemaOf(spec)
      const parameters = JSONSchema.make(schema) as unknown as Record<string, unknown>
      if (referencesIn(parameters).length > 0) met.references++
      const compiled = Either.getOrThrow(Dialect.gemini({ name: "generated", description: "", parameters })).parametersJsonSchema
      expect(referencesIn(compiled)).toEqual([])
      const validate = ajv.compile(compiled)
      // As a tool decodes the model's arguments.
      const decode = Schema.decodeUnknownEither(schema, { onExcessProperty: "error" })
      const accepts = (value: Json) => Either.isRight(decode(value))

      // What the model may send is JSON: the generated values as they would arrive.
      const values = gen(() => fc.array(Arbitrary.make(schema), { minLength: 1, maxLength: 3 })).map((value) => JSON.parse(JSON.stringify(value)) as Json)
      // Collected, then asserted once: an assertion per value costs more than the check.
      const wrong: Array<{ readonly value: Json; readonly schema: boolean; readonly gemini: boolean }> = []
      for (const value of values) {
        met.values++
        if (!accepts(value) || !validate(value)) wrong.push({ value, schema: accepts(value), gemini: validate(value) })
        const paths = pathsIn(value)
        for (let i = 0; i < 4; i++) {
          const path = paths[gen(() => fc.nat({ max: paths.length - 1 }))]!
          const mutate = mutations[gen(() => fc.nat({ max: mutations.length - 1 }))]!
          // The arguments are always an object: the root itself is only changed inside.
          const mutant = updateAt(value, path, path.length === 0 ? (node) => mutate(node) ?? node : mutate)
          if (mutant === undefined || typeof mutant !== "object" || mutant === null || Array.isArray(mutant)) continue
          met.mutants++
          const accepted = accepts(mutant)
          if (!accepted) met.rejected++
          if (validate(mutant) !== accepted) wrong.push({ value: mutant, schema: accepted, gemini: !accepted })
        }
      }
      expect(wrong).toEqual([])
    },
    // No shrinking: it spends minutes on the generated values for little gain (the schemas are small already).
    { fastCheck: { numRuns, endOnFailure: true } }
  )

  afterAll(() => {
    // A property that never met its case proves nothing: most mutants are refused, and many schemas had references.
    if (met.runs < numRuns) return
    expect(met.rejected).toBeGreaterThan(met.mutants / 2)
    expect(met.references).toBeGreaterThan(numRuns / 4)
  })
})
