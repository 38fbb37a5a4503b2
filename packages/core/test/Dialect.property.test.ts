import { afterAll, describe, expect, it } from "@effect/vitest"
import { Ajv } from "ajv"
import { Arbitrary, Either, FastCheck as fc, JSONSchema, Schema } from "effect"
import { Dialect } from "../src/index.js"
import type { Json } from "./generatedSchemas.js"
import { mutations, pathsIn, referencesIn, rootArb, schemaOf, updateAt } from "./generatedSchemas.js"

// Generated parameter Schemas (structs with required and optional fields, arrays, unions, literals, records, and
// named schemas, which JSON Schema writes as $ref into $defs, one of them used twice): the Gemini dialect inlines
// every reference, and the schema it sends accepts exactly the arguments the tool accepts.

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
