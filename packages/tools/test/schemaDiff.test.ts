import { describe, expect, it } from "@effect/vitest"
import { diff, typesOf } from "../src/internal/schemaDiff.js"

// How the parameters a scenario declares differ from an implementation's: what a scenario file is told when its
// declaration of a built-in or MCP tool does not match what will run.

describe("typesOf", () => {
  it("reads type (one or several), const, enum and typed anyOf / oneOf branches", () => {
    expect(typesOf({ type: "string" })).toEqual(new Set(["string"]))
    expect(typesOf({ type: ["string", "null"] })).toEqual(new Set(["string", "null"]))
    expect(typesOf({ const: 3 })).toEqual(new Set(["number"]))
    expect(typesOf({ const: null })).toEqual(new Set(["null"]))
    expect(typesOf({ enum: ["a", 1, [1], { a: 1 }, true] })).toEqual(new Set(["string", "number", "array", "object", "boolean"]))
    expect(typesOf({ anyOf: [{ type: "string" }, { const: 1 }] })).toEqual(new Set(["string", "number"]))
    expect(typesOf({ oneOf: [{ type: "boolean" }] })).toEqual(new Set(["boolean"]))
  })

  it("does not say for anything else: not an object, no type, or an untyped branch", () => {
    expect(typesOf(undefined)).toBeUndefined()
    expect(typesOf([{ type: "string" }])).toBeUndefined()
    expect(typesOf({ description: "x" })).toBeUndefined()
    expect(typesOf({ anyOf: [{ type: "string" }, {}] })).toBeUndefined()
    expect(typesOf({ anyOf: "no" })).toBeUndefined()
  })
})

describe("diff", () => {
  const object = (properties: Record<string, unknown>, required: ReadonlyArray<string> = [], extra: Record<string, unknown> = {}) => ({ type: "object", properties, required, ...extra })

  it("agreeing schemas have no differences, whatever the order of types", () => {
    const schema = object({ city: { type: "string" }, days: { type: ["number", "null"] } }, ["city"])
    expect(diff(schema, schema)).toEqual([])
    expect(diff({ type: ["null", "string"] }, { type: ["string", "null"] })).toEqual([])
    // `items` counts for an array only.
    expect(diff({ type: "object", items: { type: "number" } }, { type: "object", items: { type: "string" } })).toEqual([])
    // As many types, not the same ones.
    expect(diff({ type: ["string", "null"] }, { type: ["string", "number"] })).toEqual([
      "the parameters: declared as null | string, the implementation expects number | string"
    ])
  })

  it("an implementation that states no type, or is an untyped function, accepts whatever is declared", () => {
    expect(diff({ type: "string" }, { description: "anything" })).toEqual([])
    expect(diff(object({ a: { type: "string" } }), { type: "object" })).toEqual([])
    expect(diff(object({ a: { type: "string" } }), object({}))).toEqual([])
    expect(diff(object({ a: { type: "string" } }), "not a schema")).toEqual([])
  })

  it("a closed object without properties is not untyped: its missing parameters are named", () => {
    expect(diff(object({ a: { type: "string" } }), object({}, [], { additionalProperties: false }))).toEqual([
      'parameter "a" is declared, but the implementation has no such parameter'
    ])
  })

  it("names type differences, with the declared side's types (or any type) first", () => {
    expect(diff({ type: "string" }, { type: "number" })).toEqual(["the parameters: declared as string, the implementation expects number"])
    expect(diff({}, { type: ["string", "number"] })).toEqual(["the parameters: declared as any type, the implementation expects number | string"])
    expect(diff({ type: "string" }, { type: ["string", "null"] })).toEqual(["the parameters: declared as string, the implementation expects null | string"])
  })

  it("names parameters declared but missing, missing from the declaration, and required on one side only", () => {
    const declared = object({ a: { type: "string" }, b: { type: "number" }, c: { type: "boolean" } }, ["a"])
    const implemented = object({ a: { type: "string" }, b: { type: "number" }, d: { type: "string" } }, ["b"])
    expect(diff(declared, implemented)).toEqual([
      'parameter "c" is declared, but the implementation has no such parameter',
      'parameter "d" of the implementation is not declared',
      'parameter "a" is required in the declaration but optional in the implementation',
      'parameter "b" is optional in the declaration but required in the implementation'
    ])
  })

  it("goes through nested objects and array items, naming the path", () => {
    const declared = object({ trip: object({ stops: { type: "array", items: object({ city: { type: "string" } }) } }) })
    const implemented = object({ trip: object({ stops: { type: "array", items: object({ city: { type: "number" } }) } }) })
    expect(diff(declared, implemented)).toEqual(['parameter "trip.stops[].city": declared as string, the implementation expects number'])
    expect(diff({ type: "array", items: { type: "string" } }, { type: "array", items: { type: "number" } })).toEqual([
      'parameter "[]": declared as string, the implementation expects number'
    ])
    expect(diff({ type: "array" }, { type: "array", items: { type: "number" } })).toEqual(['parameter "[]": declared as any type, the implementation expects number'])
    expect(diff({ type: "array", items: { type: "number" } }, { type: "array" })).toEqual([])
  })

  it("properties or required that are not what they should be count as none", () => {
    expect(diff({ type: "object", properties: [], required: "a" }, object({ a: { type: "string" } }, ["a"]))).toEqual(['parameter "a" of the implementation is not declared'])
  })
})
