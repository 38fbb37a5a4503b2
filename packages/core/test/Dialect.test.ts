import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { Dialect, Tool } from "../src/index.js"

const Address = Schema.Struct({ street: Schema.String, city: Schema.String }).annotations({ identifier: "Address" })

const ship = Tool.make("ship_order", {
  description: "Ships an order",
  parameters: Schema.Struct({
    orderId: Schema.String.annotations({ description: "The order to ship" }),
    express: Schema.optional(Schema.Boolean),
    from: Address,
    to: Address,
    items: Schema.Array(Schema.Struct({ sku: Schema.String, quantity: Schema.Int }))
  }),
  handler: () => Effect.void
})

const noArgs = Tool.make("get_time", { description: "Current time", parameters: Schema.Struct({}), handler: () => Effect.succeed("noon") })

interface Category {
  readonly name: string
  readonly children: ReadonlyArray<Category>
}
const Category: Schema.Schema<Category> = Schema.Struct({
  name: Schema.String,
  children: Schema.Array(Schema.suspend((): Schema.Schema<Category> => Category))
}).annotations({ identifier: "Category" })
const recursive = Tool.make("save_tree", { description: "Saves a tree", parameters: Schema.Struct({ root: Category }), handler: () => Effect.void })

const addressSchema = {
  type: "object",
  required: ["street", "city"],
  properties: { street: { type: "string" }, city: { type: "string" } },
  additionalProperties: false
}

const shipParameters = {
  type: "object",
  required: ["orderId", "from", "to", "items"],
  properties: {
    orderId: { type: "string", description: "The order to ship" },
    express: { type: "boolean" },
    from: addressSchema,
    to: addressSchema,
    items: {
      type: "array",
      items: {
        type: "object",
        required: ["sku", "quantity"],
        properties: { sku: { type: "string" }, quantity: { type: "integer", description: "an integer", title: "int" } },
        additionalProperties: false
      }
    }
  },
  additionalProperties: false
}

describe("Dialect", () => {
  it("Gemini: parametersJsonSchema with every $ref inlined (golden)", () => {
    expect(Either.getOrThrow(Dialect.gemini(ship.declaration))).toEqual({
      name: "ship_order",
      description: "Ships an order",
      parametersJsonSchema: shipParameters
    })
  })

  it("OpenAI / GLM: a function tool with a plain JSON Schema object (golden)", () => {
    expect(Either.getOrThrow(Dialect.openAI(ship.declaration))).toEqual({
      type: "function",
      function: { name: "ship_order", description: "Ships an order", parameters: shipParameters }
    })
  })

  it("a tool without parameters gets a valid empty object schema in both dialects", () => {
    expect(Either.getOrThrow(Dialect.gemini(noArgs.declaration)).parametersJsonSchema).toEqual({ type: "object", properties: {} })
    expect(Either.getOrThrow(Dialect.openAI(noArgs.declaration)).function.parameters).toEqual({ type: "object", properties: {} })
  })

  it("a recursive schema is a clear DeclarationError for Gemini and keeps its $defs for OpenAI", () => {
    const gemini = Dialect.gemini(recursive.declaration)
    expect(Either.isLeft(gemini) && gemini.left.message).toBe(
      'function "save_tree" cannot be declared for Gemini: the schema is recursive through "Category", which Gemini\'s parametersJsonSchema cannot inline'
    )
    const openAI = Either.getOrThrow(Dialect.openAI(recursive.declaration)).function.parameters
    expect(openAI).toEqual({
      type: "object",
      required: ["root"],
      properties: { root: { $ref: "#/$defs/Category" } },
      additionalProperties: false,
      $defs: {
        Category: {
          type: "object",
          required: ["name", "children"],
          properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Category" } } },
          additionalProperties: false
        }
      }
    })
  })

  it("an unresolvable reference and a non-object schema are DeclarationErrors", () => {
    const dangling = Dialect.gemini({ name: "x", description: "", parameters: { type: "object", properties: { a: { $ref: "#/$defs/Missing" } } } })
    expect(Either.isLeft(dangling) && dangling.left.reason).toBe("unresolvable reference #/$defs/Missing")
    for (const member of ["constructor", "toString"]) {
      // Object's own members are not definitions.
      const inherited = Dialect.gemini({ name: "x", description: "", parameters: { type: "object", properties: { a: { $ref: `#/$defs/${member}` } } } })
      expect(Either.isLeft(inherited) && inherited.left.reason).toBe(`unresolvable reference #/$defs/${member}`)
    }
    const scalar = Dialect.openAI({ name: "x", description: "", parameters: { type: "string" } })
    expect(Either.isLeft(scalar) && scalar.left.reason).toBe('parameters must be an object schema, got "string"')
  })

  it("sibling keywords of a $ref (a description) survive inlining", () => {
    const declared = Dialect.gemini({
      name: "x",
      description: "",
      parameters: { type: "object", properties: { a: { $ref: "#/definitions/A", description: "the a" } }, definitions: { A: { type: "string" } } }
    })
    expect(Either.getOrThrow(declared).parametersJsonSchema).toEqual({ type: "object", properties: { a: { type: "string", description: "the a" } } })
  })
})

describe("Tool.make", () => {
  it.each(["", "1abc", "has space", "dot.name", "x".repeat(65), "ümlaut"])("refuses the name %j", (name) => {
    expect(() =>
      Tool.make(name, { description: "", parameters: Schema.Struct({}), handler: () => Effect.void })
    ).toThrow(/a name starts with a letter or _/)
  })

  it.each(["a", "_private", "get-weather", "x".repeat(64), "A1_b-2"])("accepts the name %j", (name) => {
    expect(Tool.make(name, { description: "", parameters: Schema.Struct({}), handler: () => Effect.void }).name).toBe(name)
  })

  it("refuses parameters that are not an object schema", () => {
    expect(() => Tool.make("t", { description: "", parameters: Schema.String, handler: () => Effect.void })).toThrow(
      'tool "t": parameters must be an object schema, got "string"'
    )
  })

  it("refuses parameters that have no JSON Schema form", () => {
    expect(() =>
      Tool.make("t", { description: "", parameters: Schema.Struct({ d: Schema.DateFromSelf }), handler: () => Effect.void })
    ).toThrow(/tool "t": its parameters Schema has no JSON Schema form/)
  })

  it.effect("the handler's types come from the Schemas", () =>
    Effect.gen(function* () {
      const typed = Tool.make("double", {
        description: "",
        parameters: Schema.Struct({ n: Schema.NumberFromString }),
        success: Schema.Struct({ doubled: Schema.Number }),
        handler: ({ n }) => Effect.succeed({ doubled: n * 2 })
      })
      const result = yield* typed.handler({ n: 21 }, { callId: "c", name: "double" })
      expect(result.doubled).toBe(42)
      expect(typed.declaration.parameters).toEqual({ type: "object", required: ["n"], properties: { n: { type: "string", description: "a string to be decoded into a number" } }, additionalProperties: false })
    }))
})

describe("parameter names that are JSON Schema keywords", () => {
  it("a parameter called definitions, $defs, $id or $schema stays a parameter", () => {
    const odd = Tool.make("odd", {
      description: "",
      parameters: Schema.Struct({ definitions: Schema.String, $defs: Schema.Number, $id: Schema.String, $schema: Schema.Boolean }),
      handler: () => Effect.void
    })
    const parameters = Either.getOrThrow(Dialect.gemini(odd.declaration)).parametersJsonSchema
    expect(Object.keys(parameters.properties as object)).toEqual(["definitions", "$defs", "$id", "$schema"])
    expect(parameters.required).toEqual(["definitions", "$defs", "$id", "$schema"])
  })
})
