import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { Dialect, Tool } from "../src/index.js"

const Address = Schema.Struct({ street: Schema.String, city: Schema.String }).annotations({ identifier: "Address" })

// Tools are built in the tests, not at import: a compiler that fails then fails a test, not the whole file's import
// (which a mutation run counts as a surviving mutant).
const ship = (() => Tool.make("ship_order", {
  description: "Ships an order",
  parameters: Schema.Struct({
    orderId: Schema.String.annotations({ description: "The order to ship" }),
    express: Schema.optional(Schema.Boolean),
    from: Address,
    to: Address,
    items: Schema.Array(Schema.Struct({ sku: Schema.String, quantity: Schema.Int }))
  }),
  handler: () => Effect.void
}))

const noArgs = (() => Tool.make("get_time", { description: "Current time", parameters: Schema.Struct({}), handler: () => Effect.succeed("noon") }))

interface Category {
  readonly name: string
  readonly children: ReadonlyArray<Category>
}
const Category: Schema.Schema<Category> = Schema.Struct({
  name: Schema.String,
  children: Schema.Array(Schema.suspend((): Schema.Schema<Category> => Category))
}).annotations({ identifier: "Category" })
const recursive = (() => Tool.make("save_tree", { description: "Saves a tree", parameters: Schema.Struct({ root: Category }), handler: () => Effect.void }))

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
    expect(Either.getOrThrow(Dialect.gemini(ship().declaration))).toEqual({
      name: "ship_order",
      description: "Ships an order",
      parametersJsonSchema: shipParameters
    })
  })

  it("OpenAI / GLM: a function tool with a plain JSON Schema object (golden)", () => {
    expect(Either.getOrThrow(Dialect.openAI(ship().declaration))).toEqual({
      type: "function",
      function: { name: "ship_order", description: "Ships an order", parameters: shipParameters }
    })
  })

  it("a tool without parameters gets a valid empty object schema in both dialects", () => {
    expect(Either.getOrThrow(Dialect.gemini(noArgs().declaration)).parametersJsonSchema).toEqual({ type: "object", properties: {} })
    expect(Either.getOrThrow(Dialect.openAI(noArgs().declaration)).function.parameters).toEqual({ type: "object", properties: {} })
  })

  it("a recursive schema is a clear DeclarationError for Gemini and keeps its $defs for OpenAI", () => {
    const gemini = Dialect.gemini(recursive().declaration)
    expect(Either.isLeft(gemini) && gemini.left.message).toBe(
      'function "save_tree" cannot be declared for Gemini: the schema is recursive through "Category", which Gemini\'s parametersJsonSchema cannot inline'
    )
    const openAI = Either.getOrThrow(Dialect.openAI(recursive().declaration)).function.parameters
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
      const result = yield* typed.handler({ n: 21 }, Tool.context("c", "double"))
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

describe("Dialect: references and keywords", () => {
  const declare = (parameters: Record<string, unknown>) => ({ name: "x", description: "", parameters })
  const gemini = (parameters: Record<string, unknown>) => Either.getOrThrow(Dialect.gemini(declare(parameters))).parametersJsonSchema
  const openAI = (parameters: Record<string, unknown>) => Either.getOrThrow(Dialect.openAI(declare(parameters))).function.parameters
  const reasonOf = (either: Either.Either<unknown, Dialect.DeclarationError>) => Either.isLeft(either) ? either.left.reason : "no error"

  it("a $ref inside anyOf and inside items is inlined in both dialects", () => {
    const parameters = {
      type: "object",
      properties: {
        maybe: { anyOf: [{ $ref: "#/$defs/A" }, { type: "null" }] },
        many: { type: "array", items: { $ref: "#/$defs/A" } }
      },
      $defs: { A: { type: "string", minLength: 1 } }
    }
    const expected = {
      type: "object",
      properties: {
        maybe: { anyOf: [{ type: "string", minLength: 1 }, { type: "null" }] },
        many: { type: "array", items: { type: "string", minLength: 1 } }
      }
    }
    expect(gemini(parameters)).toEqual(expected)
    expect(openAI(parameters)).toEqual(expected)
  })

  it("a chain of non-recursive references (A → B → C) is inlined, not refused as recursive", () => {
    const parameters = {
      type: "object",
      properties: { a: { $ref: "#/$defs/A" }, c: { $ref: "#/$defs/C" } },
      $defs: {
        A: { type: "object", properties: { b: { $ref: "#/$defs/B" } } },
        B: { type: "array", items: { $ref: "#/$defs/C" } },
        C: { type: "integer" }
      }
    }
    const expected = {
      type: "object",
      properties: {
        a: { type: "object", properties: { b: { type: "array", items: { type: "integer" } } } },
        c: { type: "integer" }
      }
    }
    expect(gemini(parameters)).toEqual(expected)
    expect(openAI(parameters)).toEqual(expected)
  })

  it("{type: \"object\"} without properties gets an empty properties map; other keywords stay", () => {
    expect(gemini({ type: "object" })).toEqual({ type: "object", properties: {} })
    expect(openAI({ type: "object", description: "d", additionalProperties: false })).toEqual({
      type: "object",
      description: "d",
      additionalProperties: false,
      properties: {}
    })
    expect(gemini({})).toEqual({ type: "object", properties: {} })
  })

  it("an empty Struct's anyOf [object, array] becomes an empty object schema; a real two-member anyOf does not", () => {
    expect(gemini({ anyOf: [{ type: "object" }, { type: "array" }] })).toEqual({ type: "object", properties: {} })
    const union = Dialect.gemini(declare({ anyOf: [{ type: "object", required: [] }, { type: "array" }] }))
    expect(reasonOf(union)).toBe("parameters must be an object schema, got undefined")
    const three = Dialect.gemini(declare({ anyOf: [{ type: "object" }, { type: "array" }, { type: "object" }] }))
    expect(reasonOf(three)).toBe("parameters must be an object schema, got undefined")
    const strings = Dialect.gemini(declare({ anyOf: [{ type: "string" }, { type: "array" }] }))
    expect(reasonOf(strings)).toBe("parameters must be an object schema, got undefined")
  })

  it("$schema and $id are dropped at every level, and from inlined definitions", () => {
    const parameters = {
      $schema: "http://json-schema.org/draft-07/schema#",
      $id: "https://example.com/x",
      type: "object",
      properties: { a: { $id: "inner", type: "string" }, b: { $ref: "#/definitions/B" } },
      definitions: { B: { $id: "b", $schema: "s", type: "number" } }
    }
    const expected = { type: "object", properties: { a: { type: "string" }, b: { type: "number" } } }
    expect(gemini(parameters)).toEqual(expected)
    expect(openAI(parameters)).toEqual(expected)
  })

  it("~1 and ~0 in a reference are decoded to / and ~ (in that order)", () => {
    const parameters = {
      type: "object",
      properties: { a: { $ref: "#/$defs/a~1b~0c" }, b: { $ref: "#/$defs/x~01" } },
      $defs: { "a/b~c": { type: "boolean" }, "x~1": { type: "null" }, "x/": { type: "string" } }
    }
    expect(gemini(parameters)).toEqual({ type: "object", properties: { a: { type: "boolean" }, b: { type: "null" } } })
  })

  it("a reference that does not point into $defs or definitions is unresolvable", () => {
    for (const ref of ["#/properties/a", "https://example.com/#/$defs/A", "#/$defs/", "x#/$defs/A"]) {
      // A definition called "undefined" is not what an unreadable reference names.
      const declared = Dialect.gemini(declare({ type: "object", properties: { a: { $ref: ref } }, $defs: { A: { type: "string" }, undefined: { type: "null" } } }))
      expect(reasonOf(declared)).toBe(`unresolvable reference ${ref}`)
    }
    // Nor is a definition left undefined, in a schema built in code.
    const undefinedTarget = Dialect.gemini(declare({ type: "object", properties: { a: { $ref: "#/$defs/U" } }, $defs: { U: undefined } }))
    expect(reasonOf(undefinedTarget)).toBe("unresolvable reference #/$defs/U")
  })

  it("a value that is not JSON (a BigInt, in a schema built in code) is a DeclarationError saying so, not a defect", () => {
    expect(reasonOf(Dialect.openAI(declare({ type: "object", properties: { n: { type: "integer", maximum: 10n } } })))).toBe(
      "TypeError: Do not know how to serialize a BigInt"
    )
  })

  it("$defs win over definitions of the same name; both are read", () => {
    const parameters = {
      type: "object",
      properties: { a: { $ref: "#/definitions/A" }, b: { $ref: "#/$defs/B" } },
      definitions: { A: { type: "string" }, B: { type: "string" } },
      $defs: { A: { type: "number" }, B: { type: "boolean" } }
    }
    expect(gemini(parameters)).toEqual({ type: "object", properties: { a: { type: "number" }, b: { type: "boolean" } } })
  })

  it("patternProperties is a map of patterns: a pattern called definitions stays, its $ref is inlined", () => {
    const parameters = {
      type: "object",
      properties: {},
      patternProperties: { "^definitions$": { $ref: "#/$defs/A" }, "^\\$defs$": { type: "string" }, definitions: { type: "null" } },
      $defs: { A: { type: "integer" } }
    }
    expect(gemini(parameters)).toEqual({
      type: "object",
      properties: {},
      patternProperties: { "^definitions$": { type: "integer" }, "^\\$defs$": { type: "string" }, definitions: { type: "null" } }
    })
  })

  it("a definition that is not an object (a boolean schema) is inlined as it is", () => {
    const parameters = { type: "object", properties: { a: { $ref: "#/$defs/T", description: "dropped" } }, $defs: { T: true } }
    expect(gemini(parameters)).toEqual({ type: "object", properties: { a: true } })
  })

  it("mutually recursive definitions reached through a non-recursive one: Gemini refuses, OpenAI keeps exactly the recursive $defs", () => {
    const parameters = {
      type: "object",
      properties: { doc: { $ref: "#/$defs/Doc" } },
      $defs: {
        Doc: { type: "object", properties: { root: { $ref: "#/$defs/Node" } } },
        Node: { type: "object", properties: { items: { type: "array", items: { $ref: "#/$defs/Item" } } } },
        Item: { anyOf: [{ type: "string" }, { $ref: "#/$defs/Node" }] },
        Unused: { type: "string" }
      }
    }
    const refused = Dialect.gemini(declare(parameters))
    expect(reasonOf(refused)).toMatch(/^the schema is recursive through "(Node|Item)"/)
    expect(openAI(parameters)).toEqual({
      type: "object",
      properties: { doc: { type: "object", properties: { root: { $ref: "#/$defs/Node" } } } },
      $defs: {
        Node: { type: "object", properties: { items: { type: "array", items: { $ref: "#/$defs/Item" } } } },
        Item: { anyOf: [{ type: "string" }, { $ref: "#/$defs/Node" }] }
      }
    })
  })

  it("a self-referencing definition reached only from another recursive one is emitted too", () => {
    const parameters = {
      type: "object",
      properties: { a: { $ref: "#/$defs/A" } },
      $defs: {
        A: { type: "object", properties: { self: { $ref: "#/$defs/A" }, b: { $ref: "#/$defs/B" } } },
        B: { type: "object", properties: { self: { $ref: "#/$defs/B" } } }
      }
    }
    const compiled = openAI(parameters)
    expect(compiled.properties).toEqual({ a: { $ref: "#/$defs/A" } })
    expect(compiled.$defs).toEqual({
      A: { type: "object", properties: { self: { $ref: "#/$defs/A" }, b: { $ref: "#/$defs/B" } } },
      B: { type: "object", properties: { self: { $ref: "#/$defs/B" } } }
    })
  })

  it("a compiled declaration is kept per declaration object", () => {
    const declaration = declare({ type: "object", properties: { a: { type: "string" } } })
    expect(Dialect.gemini(declaration)).toBe(Dialect.gemini(declaration))
    expect(Dialect.openAI(declaration)).toBe(Dialect.openAI(declaration))
    expect(Dialect.gemini(declare(declaration.parameters))).not.toBe(Dialect.gemini(declaration))
  })

  it("normalise is the OpenAI form of the parameters, with recursive $defs kept", () => {
    expect(Either.getOrThrow(Dialect.normalise(recursive().declaration))).toEqual(Either.getOrThrow(Dialect.openAI(recursive().declaration)).function.parameters)
  })

  it("a DeclarationError names the function and the dialect", () => {
    const openAIError = Dialect.openAI(declare({ type: "array" }))
    expect(Either.isLeft(openAIError) && openAIError.left.message).toBe('function "x" cannot be declared for OpenAI: parameters must be an object schema, got "array"')
    const geminiError = Dialect.gemini(declare({ type: "array" }))
    expect(Either.isLeft(geminiError) && geminiError.left.dialect).toBe("Gemini")
  })

  it("a DeclarationError is a tagged, serialisable error", () => {
    const refused = Dialect.openAI(declare({ type: "string" }))
    if (Either.isRight(refused)) throw new Error("expected a DeclarationError")
    expect(refused.left._tag).toBe("DeclarationError")
    const encoded = Schema.encodeSync(Dialect.DeclarationError)(refused.left)
    expect(encoded).toEqual({ _tag: "DeclarationError", name: "x", dialect: "OpenAI", reason: 'parameters must be an object schema, got "string"' })
    expect(Either.isLeft(Schema.decodeUnknownEither(Dialect.DeclarationError)({ _tag: "DeclarationError", name: "x", dialect: "OpenAI" }))).toBe(true)
  })

  it("a recursive reference kept for OpenAI points into $defs (even from definitions) and keeps its sibling keywords", () => {
    const parameters = {
      type: "object",
      properties: { tree: { $ref: "#/definitions/Tree", description: "the root", $id: "dropped" } },
      definitions: { Tree: { type: "array", items: { $ref: "#/definitions/Tree" } } }
    }
    expect(openAI(parameters)).toEqual({
      type: "object",
      properties: { tree: { $ref: "#/$defs/Tree", description: "the root" } },
      $defs: { Tree: { type: "array", items: { $ref: "#/$defs/Tree" } } }
    })
    expect(reasonOf(Dialect.gemini(declare(parameters)))).toBe(
      'the schema is recursive through "Tree", which Gemini\'s parametersJsonSchema cannot inline'
    )
  })

  it("definitions or $defs that are not maps are ignored, not spread", () => {
    const parameters = { type: "object", properties: { a: { $ref: "#/definitions/0" } }, definitions: "ab", $defs: ["x"] }
    expect(reasonOf(Dialect.gemini(declare(parameters)))).toBe("unresolvable reference #/definitions/0")
  })

  it("a $ref that is not a string is an ordinary keyword", () => {
    expect(gemini({ type: "object", properties: { a: { $ref: 7 } } })).toEqual({ type: "object", properties: { a: { $ref: 7 } } })
  })
})
