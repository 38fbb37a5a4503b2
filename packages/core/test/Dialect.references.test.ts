import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { Dialect } from "../src/index.js"

// The reference graph of a schema's definitions, as inlining reads it: in time linear in its size (a schema from a
// file or an MCP server may hold a great many definitions), and each reference kept or inlined as it should be.

const declare = (parameters: Record<string, unknown>) => ({ name: "graph", description: "", parameters })
const reasonOf = (either: Either.Either<unknown, Dialect.DeclarationError>) => (Either.isLeft(either) ? either.left.reason : "no error")

describe("Dialect: the reference graph", () => {
  it("50,000 definitions in a chain are read in linear time: unused, they leave the schema as it is", () => {
    const $defs: Record<string, unknown> = {}
    for (let i = 0; i < 50_000; i++) $defs[`D${i}`] = { type: "array", items: { $ref: `#/$defs/D${i + 1}` } }
    $defs.D50000 = { type: "string" }
    const compiled = Dialect.openAI(declare({ type: "object", properties: { a: { type: "string" } }, $defs }))
    expect(Either.map(compiled, (tool) => tool.function.parameters)).toEqual(Either.right({ type: "object", properties: { a: { type: "string" } } }))
  })

  it("a cycle of 10,000 definitions is kept whole for OpenAI, in the order they are reached, and refused by Gemini", () => {
    const $defs: Record<string, unknown> = {}
    for (let i = 0; i < 10_000; i++) $defs[`C${i}`] = { type: "array", items: { $ref: `#/$defs/C${(i + 1) % 10_000}` } }
    const parameters = { type: "object", properties: { a: { $ref: "#/$defs/C0" } }, $defs }
    const compiled = Either.getOrThrow(Dialect.openAI(declare(parameters))).function.parameters
    expect(compiled.properties).toEqual({ a: { $ref: "#/$defs/C0" } })
    expect(Object.keys(compiled.$defs as object)).toEqual(Object.keys($defs))
    expect(reasonOf(Dialect.gemini(declare(parameters)))).toBe(
      'the schema is recursive through "C0", which Gemini\'s parametersJsonSchema cannot inline'
    )
  })
})

describe("Dialect: which definitions are recursive", () => {
  it("only a string $ref names a definition: a description or a $ref list that reads like one makes nothing recursive", () => {
    const $defs = { A: { type: "array", description: "#/$defs/A", $ref: ["#/$defs/A"] } }
    const compiled = Dialect.gemini(declare({ type: "object", properties: { a: { $ref: "#/$defs/A" } }, $defs }))
    expect(Either.map(compiled, (declared) => declared.parametersJsonSchema)).toEqual(
      Either.right({ type: "object", properties: { a: { type: "array", description: "#/$defs/A", $ref: ["#/$defs/A"] } } })
    )
  })

  it("a definition referring to one that does not exist is an unresolvable reference, not a defect", () => {
    const $defs = { A: { type: "array", items: { $ref: "#/$defs/Missing" } } }
    expect(reasonOf(Dialect.openAI(declare({ type: "object", properties: { a: { $ref: "#/$defs/A" } }, $defs })))).toBe("unresolvable reference #/$defs/Missing")
  })

  it("a definition a recursive one uses, searched before the recursion closes, is inlined, not kept", () => {
    // A's references are followed in the order found: Leaf first, then A itself.
    const $defs = { A: { type: "object", properties: { self: { $ref: "#/$defs/A" }, leaf: { $ref: "#/$defs/Leaf" } } }, Leaf: { type: "string" } }
    expect(Either.getOrThrow(Dialect.normalise(declare({ type: "object", properties: { a: { $ref: "#/$defs/A" } }, $defs })))).toEqual({
      type: "object",
      properties: { a: { $ref: "#/$defs/A" } },
      $defs: { A: { type: "object", properties: { self: { $ref: "#/$defs/A" }, leaf: { type: "string" } } } }
    })
  })

  it("a definition referring to itself and to one whose search ended earlier is recursive; that one is not", () => {
    // The search starts from each definition in turn: Done (ends at once), then Self, which reaches Via, then Done.
    const $defs = {
      Done: { type: "string" },
      Self: { type: "object", properties: { self: { $ref: "#/$defs/Self" }, via: { $ref: "#/$defs/Via" } } },
      Via: { type: "array", items: { $ref: "#/$defs/Done" } }
    }
    expect(Either.getOrThrow(Dialect.normalise(declare({ type: "object", properties: { s: { $ref: "#/$defs/Self" } }, $defs })))).toEqual({
      type: "object",
      properties: { s: { $ref: "#/$defs/Self" } },
      $defs: { Self: { type: "object", properties: { self: { $ref: "#/$defs/Self" }, via: { type: "array", items: { type: "string" } } } } }
    })
  })
})

describe("Dialect: references and their sibling keywords", () => {
  it("a sibling keyword of a $ref wins over the definition's own keyword of that name", () => {
    const parameters = {
      type: "object",
      properties: { a: { $ref: "#/$defs/A", description: "the a" } },
      $defs: { A: { type: "string", description: "any string" } }
    }
    expect(Either.getOrThrow(Dialect.normalise(declare(parameters)))).toEqual({ type: "object", properties: { a: { type: "string", description: "the a" } } })
  })

  it("a recursive definition that is only a reference (written under definitions) points into the $defs emitted", () => {
    const parameters = {
      type: "object",
      properties: { a: { $ref: "#/definitions/A" } },
      definitions: { A: { $ref: "#/definitions/B" }, B: { type: "array", items: { $ref: "#/definitions/A" } } }
    }
    expect(Either.getOrThrow(Dialect.normalise(declare(parameters)))).toEqual({
      type: "object",
      properties: { a: { $ref: "#/$defs/A" } },
      $defs: { A: { $ref: "#/$defs/B" }, B: { type: "array", items: { $ref: "#/$defs/A" } } }
    })
  })
})
