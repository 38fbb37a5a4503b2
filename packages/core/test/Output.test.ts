import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { Schema as Schema4 } from "effect4"
import { Dialect, Output } from "../src/index.js"

const Triage = Schema.Struct({
  category: Schema.Literal("repair", "refund", "other"),
  serials: Schema.Array(Schema.String),
  note: Schema.optionalWith(Schema.String, { exact: true })
})
const triage = Either.getOrThrow(Output.declare(Triage))
const left = <A, E>(either: Either.Either<A, E>): E => Either.getOrThrowWith(Either.flip(either), () => new Error("expected a Left"))

describe("Output.declare", () => {
  it("sends the encoded side's JSON Schema, named by the Schema's identifier, else output", () => {
    expect(triage.name).toBe("output")
    expect(triage.schema).toEqual({
      type: "object",
      required: ["category", "serials"],
      properties: {
        category: { type: "string", enum: ["repair", "refund", "other"] },
        serials: { type: "array", items: { type: "string" } },
        note: { type: "string" }
      },
      additionalProperties: false
    })
    class Ticket extends Schema.Class<Ticket>("Ticket")({ id: Schema.String }) {}
    expect(Either.getOrThrow(Output.declare(Ticket)).name).toBe("Ticket")
    expect(Either.getOrThrow(Output.declare(Schema.Struct({ a: Schema.Number }).annotations({ title: "Weather report!" }))).name).toBe("Weather_report")
    expect(Either.getOrThrow(Output.declare(Schema.Struct({ a: Schema.Number }).annotations({ identifier: "ÉÉ" }))).name).toBe("output")
  })

  it("is kept per Schema: every request of a run shares one declaration", () => {
    expect(Either.getOrThrow(Output.declare(Triage))).toBe(triage)
  })

  it("refuses a Schema with no JSON Schema form, and one made by effect 4, as a DeclarationError of the output", () => {
    const noForm = left(Output.declare(Schema.Struct({ at: Schema.DateFromSelf })))
    expect(noForm).toBeInstanceOf(Dialect.DeclarationError)
    expect(noForm.kind).toBe("output")
    expect(noForm.message).toMatch(/^output "output" cannot be declared for JSON Schema: its Schema has no JSON Schema form: /)
    const other = left(Output.declare(Schema4.Struct({ a: Schema4.String }) as unknown as Schema.Schema.AnyNoContext))
    expect(other.message).toContain("was made by effect 4 or later")
  })
})

describe("Dialect.geminiOutput", () => {
  it("inlines every reference, as for tools (the neutral declaration already inlines those that do not recur)", () => {
    const Named = Schema.Struct({ id: Schema.String }).annotations({ identifier: "Named" })
    expect(JSON.stringify(Either.getOrThrow(Output.declare(Schema.Struct({ one: Named }))).schema)).not.toContain("$ref")
    const id = { type: "object", required: ["id"], properties: { id: { type: "string" } }, additionalProperties: false }
    const declaration = { name: "refs", schema: { $defs: { Named: id }, type: "object", properties: { one: { $ref: "#/$defs/Named" }, many: { type: "array", items: { $ref: "#/$defs/Named" } } } } }
    expect(Either.getOrThrow(Dialect.geminiOutput(declaration))).toEqual({ type: "object", properties: { one: id, many: { type: "array", items: id } } })
  })

  it("refuses a recursive schema, which it cannot inline", () => {
    interface Node {
      readonly children: ReadonlyArray<Node>
    }
    const Node: Schema.Schema<Node> = Schema.Struct({ children: Schema.Array(Schema.suspend((): Schema.Schema<Node> => Node)) }).annotations({ identifier: "Node" })
    const declaration = Either.getOrThrow(Output.declare(Schema.Struct({ root: Node })))
    expect(left(Dialect.geminiOutput(declaration)).message).toBe(
      'output "output" cannot be declared for Gemini: the schema is recursive through "Node", which Gemini\'s responseJsonSchema cannot inline'
    )
    // OpenAI's strict mode keeps recursive definitions in $defs.
    const strict = Either.getOrThrow(Dialect.openAIOutput(declaration)).json_schema.schema
    expect(strict.$defs).toEqual({
      Node: { type: "object", required: ["children"], properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } }, additionalProperties: false }
    })
  })
})

describe("Dialect.openAIOutput", () => {
  const strictOf = (schema: Schema.Schema.AnyNoContext) => Dialect.openAIOutput(Either.getOrThrow(Output.declare(schema)))

  it("makes every property required, an optional one nullable, and closes every object", () => {
    expect(Either.getOrThrow(Dialect.openAIOutput(triage))).toEqual({
      type: "json_schema",
      json_schema: {
        name: "output",
        strict: true,
        schema: {
          type: "object",
          required: ["category", "serials", "note"],
          properties: {
            category: { type: "string", enum: ["repair", "refund", "other"] },
            serials: { type: "array", items: { type: "string" } },
            note: { anyOf: [{ type: "string" }, { type: "null" }] }
          },
          additionalProperties: false
        }
      }
    })
  })

  it("writes a record as {entries: [{key, value}]}, the one closed form of it, and reads it back", () => {
    const Stock = Schema.Struct({ stock: Schema.Record({ key: Schema.String, value: Schema.Number }) })
    const declaration = Either.getOrThrow(Output.declare(Stock))
    const schema = Either.getOrThrow(Dialect.openAIOutput(declaration)).json_schema.schema
    const entry = { type: "object", properties: { key: { type: "string" }, value: { type: "number" } }, required: ["key", "value"], additionalProperties: false }
    expect(schema.properties).toEqual({ stock: { type: "object", properties: { entries: { type: "array", items: entry } }, required: ["entries"], additionalProperties: false } })
    expect(Output.decode(Stock, declaration, '{"stock": {"entries": [{"key": "kettle", "value": 3}]}}')).toEqual(Either.right({ stock: { kettle: 3 } }))
    expect(Output.decode(Stock, declaration, '{"stock": {"kettle": 3}}')).toEqual(Either.right({ stock: { kettle: 3 } }))
  })

  it.each([
    [Schema.Struct({ pair: Schema.Tuple(Schema.String, Schema.Number) }), "at properties/pair: tuple items (a list of schemas) are not supported in strict mode: use one schema for every item"],
    [Schema.Array(Schema.String), "at <root>: the root must be an object (strict mode answers with one JSON object): wrap the value in a struct"],
    [Schema.Union(Schema.Struct({ a: Schema.String }), Schema.Struct({ b: Schema.String })), "at <root>: the root must be an object (strict mode answers with one JSON object): wrap the value in a struct"],
    [
      Schema.Struct({ a: Schema.String }, Schema.Record({ key: Schema.String, value: Schema.Number })),
      "at <root>: an object that accepts properties beyond those it declares cannot be strict: declare every property (additionalProperties: false)"
    ]
  ])("refuses what strict mode cannot express, naming the path (%#)", (schema, reason) => {
    expect(left(strictOf(schema)).message).toBe(`output "output" cannot be declared for OpenAI strict mode: ${reason}`)
  })

  it("refuses an unsupported keyword, nesting past 10 objects and more than 5,000 properties", () => {
    const tags = { name: "tags", schema: { type: "object", properties: { tags: { type: "array", items: { type: "string" }, uniqueItems: true } }, required: ["tags"] } }
    expect(left(Dialect.openAIOutput(tags)).message).toBe('output "tags" cannot be declared for OpenAI strict mode: at properties/tags: the keyword "uniqueItems" is not supported in strict mode')
    let deep: Record<string, unknown> = { type: "string" }
    for (let level = 0; level < 11; level++) deep = { type: "object", properties: { a: deep }, required: ["a"] }
    expect(left(Dialect.openAIOutput({ name: "deep", schema: deep })).message).toContain("at properties/a/properties/a/properties/a/properties/a/properties/a/properties/a/properties/a/properties/a/properties/a/properties/a: objects are nested more than 10 levels deep")
    const wide = { type: "object", properties: Object.fromEntries(Array.from({ length: 5_001 }, (_, i) => [`p${i}`, { type: "string" }])) }
    expect(left(Dialect.openAIOutput({ name: "wide", schema: wide })).message).toContain("the schema declares more than 5000 properties")
    let ten: Record<string, unknown> = { type: "string" }
    for (let level = 0; level < 10; level++) ten = { type: "object", properties: { a: ten }, required: ["a"] }
    expect(Either.isRight(Dialect.openAIOutput({ name: "ten", schema: ten }))).toBe(true)
  })

  it("an optional field that admits null stays nullable: strict mode writes it absent as null, and it decodes as null", () => {
    const Maybe = Schema.Struct({ note: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }) })
    const declaration = Either.getOrThrow(Output.declare(Maybe))
    expect(Either.getOrThrow(Dialect.openAIOutput(declaration)).json_schema.schema.properties).toEqual({ note: { anyOf: [{ type: "string" }, { type: "null" }] } })
    expect(Output.decode(Maybe, declaration, '{"note": null}')).toEqual(Either.right({ note: null }))
  })
})

describe("Output.decode", () => {
  it("reads the JSON of the answer: whole, in a code fence, or with prose around it", () => {
    const expected = Either.right({ category: "repair", serials: ["SN-1"] })
    expect(Output.decode(Triage, triage, '{"category": "repair", "serials": ["SN-1"]}')).toEqual(expected)
    expect(Output.decode(Triage, triage, '```json\n{"category": "repair", "serials": ["SN-1"]}\n```')).toEqual(expected)
    expect(Output.decode(Triage, triage, 'Here it is:\n{"category": "repair", "serials": ["SN-1"]}\nAnything else?')).toEqual(expected)
    expect(Output.decode(Triage, triage, 'Here it is: {"category": "repair", "serials": ["SN-1 {x}"]} done')).toEqual(Either.right({ category: "repair", serials: ["SN-1 {x}"] }))
  })

  it("takes a strict-mode answer back: null for an optional field is its absence", () => {
    expect(Output.decode(Triage, triage, '{"category": "other", "serials": [], "note": null}')).toEqual(Either.right({ category: "other", serials: [] }))
  })

  it("says what failed at which path, every path once", () => {
    const issues = left(Output.decode(Triage, triage, '{"category": "broken", "serials": ["SN-1", 7], "extra": 1}'))
    expect(new Set(issues)).toEqual(
      new Set([
        { path: "category", message: 'Expected "repair", actual "broken", or Expected "refund", actual "broken", or Expected "other", actual "broken"' },
        { path: "serials[1]", message: "Expected string, actual 7" },
        { path: "extra", message: "is unexpected, expected: \"category\" | \"serials\" | \"note\"" }
      ])
    )
    expect(left(Output.decode(Triage, triage, '{"serials": []}'))).toEqual([{ path: "category", message: "is missing" }])
  })

  it("an answer that is no JSON, or empty, is one issue for the whole answer", () => {
    expect(left(Output.decode(Triage, triage, "The kettle is under warranty."))).toEqual([{ path: "", message: expect.stringMatching(/^the answer is not JSON \(/) }])
    expect(left(Output.decode(Triage, triage, "  \n"))).toEqual([{ path: "", message: "the answer is empty: it must be one JSON value" }])
    expect(left(Output.decode(Triage, triage, '{"category": "repair", "serials": ['))).toEqual([{ path: "", message: expect.stringMatching(/^the answer is not JSON/) }])
  })
})

describe("Output.correction", () => {
  it("is a user turn saying what failed at which path, marked as the loop's", () => {
    const turn = Output.correction([
      { path: "", message: "the answer is not JSON" },
      { path: "serials[1]", message: "Expected string, actual 7" }
    ])
    expect(turn.role).toBe("user")
    expect(turn.parts).toEqual([
      {
        _tag: "Text",
        text:
          "Your final answer could not be used: it must be one JSON value matching the JSON Schema you were given, with nothing around it. What failed:\n" +
          "- the answer: the answer is not JSON\n- serials[1]: Expected string, actual 7\nAnswer again with the corrected JSON only.",
        metadata: { agentfxOutputCorrection: true }
      }
    ])
    expect(Output.isCorrection(turn)).toBe(true)
    expect(Output.isCorrection({ role: "user", parts: [{ _tag: "Text", text: "hi" }] })).toBe(false)
  })

  it("instructions name the schema and give it whole", () => {
    expect(Output.instructions(triage)).toBe(
      "When you give your final answer (the turn in which you call no function), answer with one JSON value and nothing else — no prose around it, no code fences — that matches this JSON Schema (named \"output\"):\n" +
        JSON.stringify(triage.schema)
    )
  })
})

describe("Output.fromJsonSchema", () => {
  const fromJson = (schema: unknown) => Either.getOrThrow(Output.fromJsonSchema(schema))
  const decodes = (schema: Schema.Schema<unknown>, value: unknown) => Either.isRight(Schema.decodeUnknownEither(schema, { onExcessProperty: "error" })(value))

  it("decodes what the JSON Schema accepts, and declares the JSON Schema as it was given", () => {
    const json = {
      title: "ticket",
      type: "object",
      properties: {
        id: { type: "string", pattern: "^T-\\d+$" },
        priority: { type: "integer", minimum: 1, maximum: 3 },
        tags: { type: "array", items: { type: "string", minLength: 1 }, maxItems: 2 },
        kind: { enum: ["repair", "refund"] },
        note: { type: ["string", "null"] },
        stock: { type: "object", additionalProperties: { type: "number" } }
      },
      required: ["id", "priority"],
      additionalProperties: false
    }
    const schema = fromJson(json)
    expect(decodes(schema, { id: "T-1", priority: 2, tags: ["a"], kind: "refund", note: null, stock: { a: 1 } })).toBe(true)
    for (const wrong of [{ id: "X", priority: 2 }, { id: "T-1", priority: 4 }, { id: "T-1", priority: 1.5 }, { id: "T-1", priority: 1, tags: ["a", "b", "c"] }, { id: "T-1", priority: 1, tags: [""] }, { id: "T-1", priority: 1, kind: "x" }, { id: "T-1", priority: 1, stock: { a: "1" } }, { id: "T-1", priority: 1, extra: true }, { priority: 1 }]) {
      expect(decodes(schema, wrong)).toBe(false)
    }
    const declaration = Either.getOrThrow(Output.declare(schema))
    expect(declaration).toEqual({ name: "ticket", schema: json })
  })

  it("an object without additionalProperties: false lets other properties through, as JSON Schema does", () => {
    expect(decodes(fromJson({ type: "object", properties: { a: { type: "string" } } }), { a: "x", b: 1 })).toBe(true)
  })

  it("follows references, recursive ones too", () => {
    const schema = fromJson({ $defs: { Node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } }, required: ["children"], additionalProperties: false } }, $ref: "#/$defs/Node" })
    expect(decodes(schema, { children: [{ children: [] }] })).toBe(true)
    expect(decodes(schema, { children: [{ children: [1] }] })).toBe(false)
  })

  it.each([
    [{ type: "object", properties: { a: { allOf: [{ type: "string" }] } } }, "at properties/a: the keyword \"allOf\" is not supported (it would not be checked)"],
    [{ type: "array", items: [{ type: "string" }] }, "tuple items (a list of schemas) are not supported: give one schema for every item"],
    [{ $ref: "#/$defs/Nope" }, "the reference \"#/$defs/Nope\" resolves to no definition"],
    [{ type: "strin" }, "unknown type \"strin\""],
    [{ type: "string", pattern: "(" }, "\"pattern\" is not a valid regular expression: \"(\""],
    [{ type: "object", required: ["a"] }, "\"a\" is required but not declared in \"properties\""],
    [[], "a JSON Schema must be a JSON object"],
    [{ type: "object", properties: { a: { type: "string" } }, additionalProperties: { type: "string" } }, "declared properties beside an \"additionalProperties\" schema are not supported"]
  ])("refuses what it would not check, naming the path (%#)", (schema, message) => {
    const error = left(Output.fromJsonSchema(schema))
    expect(error).toBeInstanceOf(Output.InvalidOutputSchema)
    expect(error.message).toBe(message)
  })
})
