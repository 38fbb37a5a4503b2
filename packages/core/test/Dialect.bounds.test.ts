import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { Dialect } from "../src/index.js"

// Schemas from files and MCP servers are inlined: Dialect.bounds keeps a few kilobytes of definitions from expanding to
// gigabytes, counting what inlining produces as it goes.

const declare = (parameters: Record<string, unknown>) => ({ name: "fan_out", description: "", parameters })
const reasonOf = (either: Either.Either<unknown, Dialect.DeclarationError>) => (Either.isLeft(either) ? either.left.reason : "no error")
const tooLarge = "with its references inlined the schema takes more than 2097152 characters of JSON (2 MiB), the most one declaration may take"
const tooDeep = "with its references inlined the schema nests objects and arrays more than 64 levels deep, the most one declaration may take"

/** `levels` definitions, each using the next twice: a few kilobytes that inline to 2^levels copies of the last. */
const fanOut = (levels: number, last: unknown = { type: "string" }): Record<string, unknown> => {
  const $defs: Record<string, unknown> = { [`L${levels}`]: last }
  for (let level = 0; level < levels; level++) {
    $defs[`L${level}`] = { type: "object", properties: { a: { $ref: `#/$defs/L${level + 1}` }, b: { $ref: `#/$defs/L${level + 1}` } } }
  }
  return { type: "object", properties: { root: { $ref: "#/$defs/L0" } }, $defs }
}

/** Levels of objects and arrays, as the depth bound counts them. */
const depthOf = (value: unknown): number =>
  typeof value === "object" && value !== null ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0

/** A root object whose property `a` is `levels - 3` arrays of arrays around a string schema: `levels` deep in all. */
const nested = (levels: number): Record<string, unknown> => {
  let schema: Record<string, unknown> = { type: "string" }
  for (let level = 3; level < levels; level++) schema = { type: "array", items: schema }
  return { type: "object", properties: { a: schema } }
}

const printed = (schema: unknown) => JSON.stringify(schema, null, 2).length

describe("Dialect: bounds on inlining", () => {
  it("a $ref fan-out of 24 levels (2.3 KB, 2^24 copies) is a DeclarationError naming the function and the 2 MiB bound, in both dialects", () => {
    const parameters = fanOut(24)
    expect(JSON.stringify(parameters).length).toBeLessThan(2400)
    const gemini = Dialect.gemini(declare(parameters))
    expect(Either.isLeft(gemini) && gemini.left.message).toBe(`function "fan_out" cannot be declared for Gemini: ${tooLarge}`)
    const openAI = Dialect.openAI(declare(parameters))
    expect(Either.isLeft(openAI) && openAI.left.message).toBe(`function "fan_out" cannot be declared for OpenAI: ${tooLarge}`)
    expect(reasonOf(Dialect.normalise(declare(parameters)))).toBe(tooLarge)
  })

  /** `parameters` with a root description long enough that, compiled, they print exactly `characters` long. */
  const padded = (parameters: Record<string, unknown>, characters: number) => {
    const unpadded = Either.getOrThrow(Dialect.normalise(declare({ ...parameters, description: "" })))
    const room = characters - printed(unpadded)
    expect(room).toBeGreaterThan(0)
    return { ...parameters, description: "x".repeat(room) }
  }

  it("the bound is the JSON as printed with two-space indentation: exactly 2 MiB of it compiles, one character more is refused", () => {
    // Every kind of JSON value, inside definitions that are copied 2^10 times: each copy is counted as printed.
    const leaf = { type: "string", enum: ["on", "é\"\n\u0001", 1.5, -2, true, null], default: {}, examples: [[], [1, [false]]] }
    const atTheBound = padded(fanOut(10, leaf), Dialect.bounds.characters)
    expect(Either.map(Dialect.normalise(declare(atTheBound)), printed)).toEqual(Either.right(Dialect.bounds.characters))
    expect(reasonOf(Dialect.normalise(declare(padded(fanOut(10, leaf), Dialect.bounds.characters + 1))))).toBe(tooLarge)
  })

  it("recursive definitions kept for OpenAI are counted as printed too, in the $defs emitted", () => {
    const $defs = { A: { type: "object", properties: { b: { $ref: "#/$defs/B" }, n: { type: "integer" } } }, B: { type: "array", items: { $ref: "#/$defs/A" } } }
    const parameters = { type: "object", properties: { a: { $ref: "#/$defs/A" } }, $defs }
    const atTheBound = Dialect.normalise(declare(padded(parameters, Dialect.bounds.characters)))
    expect(Either.map(atTheBound, (compiled) => [printed(compiled), Object.keys(compiled.$defs as object)])).toEqual(Either.right([Dialect.bounds.characters, ["A", "B"]]))
    expect(reasonOf(Dialect.normalise(declare(padded(parameters, Dialect.bounds.characters + 1))))).toBe(tooLarge)
  })

  it("a value JSON leaves out (undefined, in a schema built in code) is kept as it is, not a defect", () => {
    const compiled = Dialect.normalise(declare({ type: "object", properties: { a: { type: "string", description: undefined } } }))
    expect(Either.map(compiled, (schema) => Object.hasOwn((schema.properties as Record<string, object>).a!, "description"))).toEqual(Either.right(true))
  })

  it("64 levels of objects and arrays compile; 65 are refused, also when references make them", () => {
    expect(depthOf(nested(64))).toBe(64)
    expect(Either.map(Dialect.gemini(declare(nested(64))), (declared) => depthOf(declared.parametersJsonSchema))).toEqual(Either.right(64))
    expect(reasonOf(Dialect.gemini(declare(nested(65))))).toBe(tooDeep)
    // Each definition is an array of the next: shallow as written, 65 levels once inlined.
    const $defs: Record<string, unknown> = { D62: { type: "string" } }
    for (let level = 0; level < 62; level++) $defs[`D${level}`] = { type: "array", items: { $ref: `#/$defs/D${level + 1}` } }
    const chained = { type: "object", properties: { a: { $ref: "#/$defs/D0" } }, $defs }
    expect(depthOf(chained)).toBeLessThan(8)
    expect(reasonOf(Dialect.openAI(declare(chained)))).toBe(tooDeep)
  })

  it("a schema nested 10,000 levels deep is refused at the depth bound, not by overflowing the stack", () => {
    expect(reasonOf(Dialect.normalise(declare(nested(10_000))))).toBe(tooDeep)
  })

  it("kept definitions count toward the bound", () => {
    // 20,000 recursive definitions, each small, past 2 MiB together only once emitted in $defs.
    const $defs: Record<string, unknown> = {}
    for (let i = 0; i < 20_000; i++) $defs[`C${i}`] = { type: "array", description: "a link", items: { $ref: `#/$defs/C${(i + 1) % 20_000}` } }
    expect(printed($defs)).toBeGreaterThan(Dialect.bounds.characters)
    expect(reasonOf(Dialect.openAI(declare({ type: "object", properties: { a: { $ref: "#/$defs/C0" } }, $defs })))).toBe(tooLarge)
  })

  it("a run's output schema past the bound is refused with the bound's reason in both output forms, never '[object Object]'", () => {
    const schema = fanOut(24)
    expect(reasonOf(Dialect.geminiOutput({ name: "triage", schema }))).toBe(tooLarge)
    expect(reasonOf(Dialect.openAIOutput({ name: "triage", schema }))).toBe(tooLarge)
  })
})
