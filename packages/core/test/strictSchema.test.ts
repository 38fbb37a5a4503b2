import { describe, expect, it } from "@effect/vitest"
import { admitsNull, restore, StrictProblem, toStrict } from "../src/internal/strictSchema.js"

const problemOf = (schema: Record<string, unknown>): string => {
  try {
    toStrict(schema)
    return "no problem"
  } catch (error) {
    if (error instanceof StrictProblem) return `${error.where}: ${error.reason}`
    throw error
  }
}
const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: "object", properties, required: Object.keys(properties), ...extra })

describe("toStrict", () => {
  it.each([
    "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveAnchor", "$recursiveRef", "additionalItems", "allOf", "contains", "contentEncoding",
    "contentMediaType", "contentSchema", "dependentRequired", "dependentSchemas", "dependencies", "else", "if", "maxContains", "maxProperties",
    "minContains", "minProperties", "not", "patternProperties", "prefixItems", "propertyNames", "then", "unevaluatedItems", "unevaluatedProperties",
    "uniqueItems"
  ])("refuses %s, which strict mode does not enforce, at its path", (keyword) => {
    expect(problemOf(object({ a: { type: "string", [keyword]: {} } }))).toBe(`properties/a: the keyword "${keyword}" is not supported in strict mode`)
  })

  it("keeps what strict mode enforces and the annotations, and walks every schema it holds", () => {
    const schema = object(
      {
        name: { type: "string", pattern: "^[a-z]+$", description: "lower case" },
        tags: { type: "array", items: object({ id: { type: "integer", minimum: 1 } }), maxItems: 3 },
        either: { anyOf: [object({ x: { type: "string" } }), { type: "null" }] },
        one: { oneOf: [object({ y: { type: "string" } }), { type: "number" }] }
      },
      { title: "T", $defs: { Node: { type: "object", properties: { next: { $ref: "#/$defs/Node" } } } } }
    )
    const closed = (properties: Record<string, unknown>) => ({ type: "object", properties, required: Object.keys(properties), additionalProperties: false })
    expect(toStrict(schema)).toEqual({
      title: "T",
      $defs: { Node: { type: "object", properties: { next: { anyOf: [{ $ref: "#/$defs/Node" }, { type: "null" }] } }, required: ["next"], additionalProperties: false } },
      ...closed({
        name: { type: "string", pattern: "^[a-z]+$", description: "lower case" },
        tags: { type: "array", items: closed({ id: { type: "integer", minimum: 1 } }), maxItems: 3 },
        either: { anyOf: [closed({ x: { type: "string" } }), { type: "null" }] },
        one: { oneOf: [closed({ y: { type: "string" } }), { type: "number" }] }
      })
    })
  })

  it("makes an optional property nullable unless it admits null already, and keeps a required one as it is", () => {
    const strict = toStrict({
      type: "object",
      properties: { a: { type: "string" }, b: { type: ["string", "null"] }, c: { type: "string" }, d: { $ref: "#/$defs/Maybe" } },
      required: ["c"],
      $defs: { Maybe: { anyOf: [{ type: "string" }, { type: "null" }] } }
    })
    expect(strict.properties).toEqual({
      a: { anyOf: [{ type: "string" }, { type: "null" }] },
      b: { type: ["string", "null"] },
      c: { type: "string" },
      d: { $ref: "#/$defs/Maybe" }
    })
    expect(strict.required).toEqual(["a", "b", "c", "d"])
  })

  it("closes an object that says nothing of other properties, and refuses one that accepts them", () => {
    expect(toStrict({ type: "object", properties: { a: { type: "string" } }, required: ["a"] }).additionalProperties).toBe(false)
    expect(toStrict(object({ o: { properties: { a: { type: "string" } }, required: ["a"] } })).properties).toEqual({
      o: { properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false }
    })
    // The root says it is an object: strict mode wants `type: "object"` there.
    expect(problemOf({ properties: { a: { type: "string" } }, required: ["a"] })).toMatch(/^<root>: the root must be an object/)
    expect(problemOf({ type: "object", properties: { a: { type: "string" } }, additionalProperties: true })).toMatch(/^<root>: an object that accepts properties beyond those it declares/)
    expect(problemOf(object({ a: { type: "object", additionalProperties: true } }))).toMatch(/^properties\/a: an object that accepts properties beyond/)
  })

  it("writes a record as {entries}, keeping its annotations, and counts its nesting", () => {
    expect(toStrict(object({ stock: { type: "object", description: "by product", additionalProperties: { type: "number" } } })).properties).toEqual({
      stock: {
        description: "by product",
        type: "object",
        properties: {
          entries: {
            type: "array",
            items: { type: "object", properties: { key: { type: "string" }, value: { type: "number" } }, required: ["key", "value"], additionalProperties: false }
          }
        },
        required: ["entries"],
        additionalProperties: false
      }
    })
    let deep: Record<string, unknown> = { type: "string" }
    for (let level = 0; level < 8; level++) deep = object({ a: deep })
    expect(problemOf(object({ r: { type: "object", additionalProperties: deep } }))).toMatch(/objects are nested more than 10 levels deep/)
    let fits: Record<string, unknown> = { type: "string" }
    for (let level = 0; level < 7; level++) fits = object({ a: fits })
    expect(problemOf(object({ r: { type: "object", additionalProperties: fits } }))).toBe("no problem")
  })

  it("refuses what is no schema object, tuple items, and a root that is no object", () => {
    expect(problemOf(object({ a: true }))).toBe("properties/a: a schema must be an object (true and false are not accepted in strict mode)")
    expect(problemOf(object({ a: { type: "array", items: [{ type: "string" }] } }))).toBe("properties/a: tuple items (a list of schemas) are not supported in strict mode: use one schema for every item")
    expect(problemOf({ type: "string" })).toMatch(/^<root>: the root must be an object/)
    expect(problemOf({ type: "object", anyOf: [object({ a: { type: "string" } })] })).toMatch(/^<root>: the root must be an object/)
    // A record at the root is fine: its strict form, {entries}, is an object.
    expect(problemOf({ type: "object", additionalProperties: { type: "string" } })).toBe("no problem")
  })

  it("counts properties over the whole schema, $defs included", () => {
    const half = Object.fromEntries(Array.from({ length: 2_500 }, (_, i) => [`p${i}`, { type: "string" }]))
    expect(problemOf({ ...object(half), $defs: { D: object(half) } })).toBe("no problem")
    expect(problemOf({ ...object(half), $defs: { D: object({ ...half, extra: { type: "string" } }) } })).toMatch(/more than 5000 properties/)
  })
})

describe("admitsNull", () => {
  const definitions = { N: { type: "null" }, S: { type: "string" }, Loop: { $ref: "#/$defs/Loop" }, Self: { anyOf: [{ $ref: "#/$defs/Self" }] }, "a/b~c": { type: "null" } }
  it.each([
    [{ type: "null" }, true],
    [{ type: ["integer", "null"] }, true],
    [{ type: "string" }, false],
    [{ type: ["integer"] }, false],
    [{ const: null }, true],
    [{ const: 0 }, false],
    [{ enum: ["a", null] }, true],
    [{ enum: ["a"] }, false],
    [{ anyOf: [{ type: "string" }, { type: "null" }] }, true],
    [{ anyOf: [{ type: "string" }] }, false],
    [{ oneOf: [{ type: "null" }] }, true],
    [{ oneOf: [{ type: "string" }] }, false],
    [{ $ref: "#/$defs/N" }, true],
    [{ $ref: "#/definitions/S" }, false],
    [{ $ref: "#/$defs/a~1b~0c" }, true],
    [{ $ref: "#/$defs/Loop" }, false],
    [{ $ref: "#/$defs/Self" }, false],
    [{}, true],
    [{ description: "anything" }, true],
    [{ properties: {} }, false],
    [{ items: {} }, false],
    [true, false]
  ] as const)("%j: %s", (schema, expected) => {
    expect(admitsNull(definitions, schema)).toBe(expected)
  })
})

describe("restore", () => {
  const root = (schema: Record<string, unknown>) => schema

  it("drops null for an optional property that does not admit null; keeps it where the schema allows it", () => {
    const schema = root({ type: "object", properties: { a: { type: "string" }, b: { type: ["string", "null"] }, c: { type: "string" } }, required: ["c"] })
    expect(restore(schema, { a: null, b: null, c: null, other: null })).toEqual({ b: null, c: null, other: null })
    expect(restore(schema, { a: "x" })).toEqual({ a: "x" })
  })

  it("takes {entries} back to the record, and walks a record's values either way", () => {
    const schema = root({ type: "object", additionalProperties: { type: "object", properties: { n: { type: "number" } } } })
    expect(restore(schema, { entries: [{ key: "k", value: { n: null } }, { key: "__proto__", value: {} }] })).toStrictEqual(
      JSON.parse('{"k": {}, "__proto__": {}}')
    )
    expect(restore(schema, { k: { n: null } })).toEqual({ k: {} })
    expect(restore(schema, { entries: [{ key: "k" }] })).toEqual({ entries: [{ key: "k" }] })
    expect(restore(schema, { entries: [{ key: "k", value: 1, more: 2 }] })).toEqual({ entries: [{ key: "k", value: 1, more: 2 }] })
  })

  it("walks items, references and the branch of a union a value fits", () => {
    const schema = root({
      $defs: { Item: { type: "object", properties: { note: { type: "string" }, id: { type: "integer" } }, required: ["id"] } },
      type: "object",
      properties: {
        items: { type: "array", items: { $ref: "#/$defs/Item" } },
        pick: { anyOf: [{ type: "object", properties: { kind: { const: "a" }, x: { type: "string" } }, required: ["kind"] }, { type: "object", properties: { kind: { const: "b" }, y: { type: "string" } }, required: ["kind"] }] },
        num: { anyOf: [{ type: "object", properties: { v: { type: "integer" }, o: { type: "string" } }, required: ["v"], additionalProperties: false }, { type: "object", properties: { v: { type: "number" }, p: { type: "string" } }, required: ["v"] }] },
        tag: { oneOf: [{ type: "object", properties: { t: { enum: ["x"] }, o: { type: "string" } }, required: ["t"] }, { type: "object", properties: { t: { enum: ["y"] }, q: { type: "string" } }, required: ["t"] }] }
      }
    })
    expect(restore(schema, { items: [{ id: 1, note: null }], pick: { kind: "b", y: null }, num: { v: 1.5, p: null }, tag: { t: "y", q: null } })).toEqual({
      items: [{ id: 1 }],
      pick: { kind: "b" },
      num: { v: 1.5 },
      tag: { t: "y" }
    })
    // An extra property rules out a closed branch; a missing required one rules out any.
    expect(restore(schema, { num: { v: 1, p: null } })).toEqual({ num: { v: 1 } })
    expect(restore(schema, { num: { v: 1, o: null } })).toEqual({ num: { v: 1 } })
    expect(restore(schema, { pick: { x: null } })).toEqual({ pick: { x: null } })
  })

  it("a union of records and arrays: entries go to the record, a plain array to the array", () => {
    const schema = root({
      type: "object",
      properties: {
        u: { anyOf: [{ type: "array", items: { type: "object", properties: { a: { type: "string" } } } }, { type: "object", additionalProperties: { type: "number" } }] }
      }
    })
    expect(restore(schema, { u: { entries: [{ key: "k", value: 1 }] } })).toEqual({ u: { k: 1 } })
    expect(restore(schema, { u: [{ a: null }] })).toEqual({ u: [{}] })
    expect(restore(schema, { u: [1] })).toEqual({ u: [1] })
  })

  it("leaves scalars, values past 64 levels, and values of schemas it cannot read as they are", () => {
    expect(restore({ type: "string" }, "x")).toBe("x")
    expect(restore({ type: "object", properties: {} }, null)).toBe(null)
    let schema: Record<string, unknown> = { type: "object", properties: { a: { type: "string" } } }
    let value: Record<string, unknown> = { a: null }
    for (let level = 0; level < 70; level++) {
      schema = { type: "object", properties: { n: schema }, required: ["n"] }
      value = { n: value }
    }
    let deepest: unknown = restore(schema, value)
    for (let level = 0; level < 70; level++) deepest = (deepest as Record<string, unknown>).n
    expect(deepest).toEqual({ a: null })
    expect(restore({ $ref: "#/$defs/Missing" }, { a: null })).toEqual({ a: null })
  })
})
