import { afterAll, describe, expect, it } from "@effect/vitest"
import { Ajv } from "ajv"
import { Arbitrary, Either, FastCheck as fc, JSONSchema, Schema } from "effect"
import { Dialect, Output } from "../src/index.js"
import type { Field, Json, Spec } from "./generatedSchemas.js"
import { mutations, pathsIn, rootArb, schemaOf, updateAt } from "./generatedSchemas.js"

// Generated output Schemas (structs with required and optional fields, arrays, unions, literals, records, named
// and shared schemas, nested): their OpenAI strict form keeps OpenAI's rules, and loses no value of the Schema.

/** Keywords OpenAI's strict mode refuses (the openai SDK's list). */
const refused = [
  "allOf", "not", "if", "then", "else", "patternProperties", "propertyNames", "unevaluatedProperties", "minProperties", "maxProperties",
  "prefixItems", "contains", "uniqueItems", "additionalItems", "dependentRequired", "dependentSchemas"
]

/** Where a schema breaks OpenAI's strict rules: every object closed, every property required, no refused keyword. */
const openAIRuleBreaks = (root: unknown): ReadonlyArray<string> => {
  const breaks: Array<string> = []
  const visit = (node: unknown, path: string): void => {
    if (typeof node !== "object" || node === null || Array.isArray(node)) {
      breaks.push(`${path}: not a schema object`)
      return
    }
    const schema = node as Record<string, unknown>
    for (const key of refused) if (key in schema) breaks.push(`${path}: ${key}`)
    if (Array.isArray(schema.items)) breaks.push(`${path}: tuple items`)
    if (schema.type === "object" || schema.properties !== undefined) {
      const properties = Object.keys((schema.properties ?? {}) as object)
      if (schema.additionalProperties !== false) breaks.push(`${path}: additionalProperties is not false`)
      if (JSON.stringify(schema.required) !== JSON.stringify(properties)) breaks.push(`${path}: required is not every property`)
      for (const name of properties) visit((schema.properties as Record<string, unknown>)[name], `${path}/properties/${name}`)
    }
    if (schema.items !== undefined && !Array.isArray(schema.items)) visit(schema.items, `${path}/items`)
    for (const key of ["anyOf", "oneOf"]) if (Array.isArray(schema[key])) (schema[key] as Array<unknown>).forEach((branch, i) => visit(branch, `${path}/${key}/${i}`))
    if (typeof schema.$defs === "object" && schema.$defs !== null) for (const [name, def] of Object.entries(schema.$defs)) visit(def, `${path}/$defs/${name}`)
  }
  visit(root, "")
  const top = root as Record<string, unknown>
  if (top.type !== "object" || top.anyOf !== undefined) breaks.push("the root is not an object")
  return breaks
}

const admitsNull = (spec: Spec): boolean =>
  spec.kind === "null" || (spec.kind === "union" && spec.members.some(admitsNull)) || (spec.kind === "named" && admitsNull(spec.spec))

/**
 * The spec with every optional field that admits null made required: strict mode writes an absent optional field as
 * null, so for a field that admits null an absent value and null are one (see the unit test of that case).
 */
const strictable = (spec: Spec): Spec => {
  switch (spec.kind) {
    case "array":
      return { ...spec, item: strictable(spec.item) }
    case "record":
      return { ...spec, value: strictable(spec.value) }
    case "union":
      return { ...spec, members: spec.members.map(strictable) }
    case "struct":
      return { ...spec, fields: spec.fields.map((field): Field => ({ ...field, optional: field.optional && !admitsNull(field.spec), spec: strictable(field.spec) })) }
    case "named":
    case "shared":
      return { ...spec, spec: strictable(spec.spec) }
    default:
      return spec
  }
}

const accepts = (spec: Spec, value: unknown): boolean => Either.isRight(Schema.decodeUnknownEither(schemaOf(spec), { onExcessProperty: "error" })(value))

/** A value of the spec as strict mode writes it: every field present (null when absent), records as `{entries}`. */
const strictValueOf = (spec: Spec, value: Json): Json => {
  switch (spec.kind) {
    case "array":
      return (value as ReadonlyArray<Json>).map((item) => strictValueOf(spec.item, item))
    case "record":
      return { entries: Object.entries(value as Record<string, Json>).map(([key, item]) => ({ key, value: strictValueOf(spec.value, item) })) }
    case "union": {
      const member = spec.members.find((candidate) => accepts(candidate, value))!
      return strictValueOf(member, value)
    }
    case "struct":
      return Object.fromEntries(
        spec.fields.map((field) => {
          const record = value as Record<string, Json>
          return [field.name, Object.hasOwn(record, field.name) ? strictValueOf(field.spec, record[field.name]!) : null]
        })
      )
    case "named":
      return strictValueOf(spec.spec, value)
    case "shared": {
      const record = value as { one: Json; many: ReadonlyArray<Json> }
      return { one: strictValueOf(spec.spec, record.one), many: record.many.map((item) => strictValueOf(spec.spec, item)) }
    }
    default:
      return value
  }
}

const hasUnsafeInteger = (value: Json): boolean =>
  typeof value === "number" ? Number.isInteger(value) && !Number.isSafeInteger(value) : typeof value === "object" && value !== null && Object.values(value).some(hasUnsafeInteger)

const ajv = new Ajv({ strict: false, validateSchema: false, addUsedSchema: false, code: { optimize: false } })
const met = { runs: 0, values: 0, mutants: 0, accepted: 0, records: 0, optional: 0 }
const numRuns = 40

describe("the OpenAI strict form of generated output Schemas", () => {
  it.prop(
    "keeps OpenAI's rules; every value of the Schema, written as strict mode writes it, is accepted and decodes back to itself; what the strict form accepts decodes",
    [rootArb.map(strictable), fc.gen()],
    ([spec, gen]) => {
      met.runs++
      const schema = schemaOf(spec)
      const declaration = Either.getOrThrow(Output.declare(schema))
      const strict = Either.getOrThrow(Dialect.openAIOutput(declaration)).json_schema.schema
      expect(openAIRuleBreaks(strict)).toEqual([])
      if (JSON.stringify(strict).includes('"key"')) met.records++
      if (JSON.stringify(strict).includes('{"type":"null"}')) met.optional++
      const validate = ajv.compile(strict)
      const decode = Schema.decodeUnknownEither(schema, { onExcessProperty: "error" })
      const wrong: Array<unknown> = []
      const values = gen(() => fc.array(Arbitrary.make(schema), { minLength: 1, maxLength: 3 })).map((value) => JSON.parse(JSON.stringify(value)) as Json)
      for (const value of values) {
        met.values++
        const written = strictValueOf(spec, value)
        const decoded = Output.decode(schema, declaration, JSON.stringify(written))
        if (!validate(written)) wrong.push({ refusedByStrict: written })
        if (Either.isLeft(decoded) || JSON.stringify(decoded.right) !== JSON.stringify(Either.getOrThrow(decode(value)))) wrong.push({ value, written, decoded })
        // Whatever the strict form lets through (the model's answers) decodes with the Schema.
        const paths = pathsIn(written)
        for (let i = 0; i < 4; i++) {
          const path = paths[gen(() => fc.nat({ max: paths.length - 1 }))]!
          const mutate = mutations[gen(() => fc.nat({ max: mutations.length - 1 }))]!
          const mutant = updateAt(written, path, path.length === 0 ? (node) => mutate(node) ?? node : mutate)
          if (mutant === undefined) continue
          met.mutants++
          // JSON Schema's "integer" takes 1e300, effect's Int only safe integers: a gap of the JSON Schema effect writes.
          if (!validate(mutant) || hasUnsafeInteger(mutant)) continue
          met.accepted++
          if (Either.isLeft(Output.decode(schema, declaration, JSON.stringify(mutant)))) wrong.push({ acceptedByStrictOnly: mutant })
        }
      }
      expect(wrong).toEqual([])
    },
    { fastCheck: { numRuns, endOnFailure: true } }
  )

  afterAll(() => {
    // A property that never met its case proves nothing: records, optional fields and accepted mutants must occur.
    if (met.runs < numRuns) return
    expect(met.records).toBeGreaterThan(0)
    expect(met.optional).toBeGreaterThan(0)
    expect(met.accepted).toBeGreaterThan(0)
  })
})

describe("JSONSchema of a generated Schema", () => {
  it("is what declare sends, without $schema", () => {
    const schema = Schema.Struct({ a: Schema.String })
    const declaration = Either.getOrThrow(Output.declare(schema))
    const { $schema: _, ...expected } = JSONSchema.make(schema) as unknown as Record<string, unknown>
    expect(declaration.schema).toEqual(expected)
  })
})
