/**
 * Inlining references, over generated schemas: which keyword wins when a `$ref` has sibling keywords and its
 * definition has the same ones (the siblings), what is kept of each, at every level of a chain of references; and
 * property and definition names that are also the names of Object's members (`__proto__`, `constructor`, `toString`).
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { Dialect, type FunctionDeclaration } from "../src/index.js"

/** Names that a plain object also answers to: a lookup or an assignment by such a name is where mistakes hide. */
const objectMembers = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"] as const

/** Keywords a schema may hold (the dropped ones among them: `$id`, `$schema`), and names that are Object's members. */
const keyword = fc.constantFrom("type", "description", "title", "minimum", "maximum", "format", "default", "pattern", "x-note", "$id", "$schema", ...objectMembers)
const value = fc.oneof(fc.string({ maxLength: 6 }), fc.integer({ min: -5, max: 5 }), fc.boolean())

/** An object with these own keys (including `__proto__`, which an assignment or a literal would not make a key). */
const objectOf = (entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> => Object.fromEntries(entries)
const keywords = fc.uniqueArray(fc.tuple(keyword, value), { selector: ([key]) => key, maxLength: 6 }).map(objectOf)

/** Dropped at every level by both dialects. */
const dropped = new Set(["$schema", "$id", "$defs", "definitions"])
const withoutDropped = (schema: Record<string, unknown>) => objectOf(Object.entries(schema).filter(([key]) => !dropped.has(key)))

const declaration = (parameters: Record<string, unknown>): FunctionDeclaration.FunctionDeclaration => ({ name: "f", description: "", parameters })
const compiled = (parameters: Record<string, unknown>) => ({
  gemini: Either.getOrThrow(Dialect.gemini(declaration(parameters))).parametersJsonSchema,
  openai: Either.getOrThrow(Dialect.openAI(declaration(parameters))).function.parameters
})

/** The keys of an object and their values, own keys only, in a form `toEqual` compares key by key. */
const entriesOf = (value: unknown): Array<readonly [string, unknown]> =>
  Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))

describe("Dialect inlining, property-based", () => {
  it.prop(
    "a $ref's sibling keywords win over its definition's; the definition's other keywords are kept; neither dialect keeps the $ref",
    [keywords, keywords, fc.constantFrom("$defs", "definitions"), fc.constantFrom("D", ...objectMembers)],
    ([definition, siblings, where, name]) => {
      const parameters = objectOf([
        ["type", "object"],
        ["properties", objectOf([["p", objectOf([["$ref", `#/${where}/${name}`], ...Object.entries(siblings)])]])],
        [where, objectOf([[name, definition]])]
      ])
      const expected = entriesOf(withoutDropped({ ...definition, ...siblings }))
      for (const [dialect, schema] of Object.entries(compiled(parameters))) {
        const property = (schema.properties as Record<string, unknown>).p
        expect(entriesOf(property), dialect).toEqual(expected)
        expect(Object.keys(schema).sort(), dialect).toEqual(["properties", "type"])
      }
    }
  )

  it.prop(
    "along a chain of references, each level's keywords win over those of the levels below it",
    [fc.array(keywords, { minLength: 2, maxLength: 5 })],
    ([levels]) => {
      // Level i is a $ref to level i + 1 with its keywords as siblings; the last level is a plain definition.
      const definitions = levels.slice(1).map((own, i) => [`L${i + 1}`, i + 2 < levels.length ? objectOf([["$ref", `#/$defs/L${i + 2}`], ...Object.entries(own)]) : own] as const)
      const parameters = objectOf([
        ["type", "object"],
        ["properties", objectOf([["p", objectOf([["$ref", "#/$defs/L1"], ...Object.entries(levels[0]!)])]])],
        ["$defs", objectOf(definitions)]
      ])
      const expected = entriesOf(withoutDropped(levels.reduceRight<Record<string, unknown>>((below, own) => ({ ...below, ...own }), {})))
      for (const [dialect, schema] of Object.entries(compiled(parameters))) expect(entriesOf((schema.properties as Record<string, unknown>).p), dialect).toEqual(expected)
    }
  )

  it.prop(
    "every property is kept under its own name, and required is unchanged, whatever the names (Object's members included)",
    [fc.uniqueArray(fc.oneof(fc.constantFrom(...objectMembers), fc.stringMatching(/^[a-z_]{1,8}$/)), { maxLength: 8 }), keywords],
    ([names, schema]) => {
      const parameters = objectOf([
        ["type", "object"],
        ["properties", objectOf(names.map((name) => [name, schema]))],
        ["required", names]
      ])
      for (const [dialect, compiledSchema] of Object.entries(compiled(parameters))) {
        expect(Object.keys(compiledSchema.properties as object).sort(), dialect).toEqual([...names].sort())
        for (const name of names) expect(Object.hasOwn(compiledSchema.properties as object, name), `${dialect}: ${name}`).toBe(true)
        expect(compiledSchema.required, dialect).toEqual(names)
      }
    }
  )

  it.prop(
    "a recursive definition kept for OpenAI is kept under its own name, Object's members included",
    [fc.constantFrom("Node", ...objectMembers)],
    ([name]) => {
      const node = objectOf([["type", "object"], ["properties", objectOf([["next", objectOf([["$ref", `#/$defs/${name}`]])]])]])
      const parameters = objectOf([["type", "object"], ["properties", objectOf([["root", objectOf([["$ref", `#/$defs/${name}`]])]])], ["$defs", objectOf([[name, node]])]])
      const openai = Either.getOrThrow(Dialect.openAI(declaration(parameters))).function.parameters
      expect(Object.keys(openai.$defs as object)).toEqual([name])
      expect(Object.hasOwn(openai.$defs as object, name)).toBe(true)
      const gemini = Dialect.gemini(declaration(parameters))
      expect(Either.isLeft(gemini) && gemini.left.reason).toBe(`the schema is recursive through "${name}", which Gemini's parametersJsonSchema cannot inline`)
    }
  )
})
