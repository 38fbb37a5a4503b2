import { Output } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { ApiError, GoogleGenAI } from "@google/genai"
import { Effect, Either, Schema } from "effect"
import OpenAIClient, { BadRequestError } from "openai"
import { Conformance, Emulator, Policy } from "../src/index.js"
import { schemaInText, valueOf } from "../src/internal/output.js"

const schema = {
  type: "object",
  properties: { category: { type: "string", enum: ["repair", "refund"] }, serials: { type: "array", items: { type: "string" } }, note: { anyOf: [{ type: "string" }, { type: "null" }] } },
  required: ["category", "serials", "note"],
  additionalProperties: false
}
const tools = [{ functionDeclarations: [{ name: "check_warranty", parametersJsonSchema: { type: "object", properties: {} } }] }]
const contents = [{ role: "user", parts: [{ text: "hi" }] }]

const geminiRefusal = (model: string, config: object, withTools = false) =>
  Effect.gen(function* () {
    const emulator = yield* Emulator.make()
    const client = new GoogleGenAI({ apiKey: emulator.apiKey, httpOptions: { baseUrl: emulator.geminiBaseUrl } })
    const outcome = yield* Effect.either(
      Effect.tryPromise({ try: () => client.models.generateContent({ model, contents, config: { ...config, ...(withTools ? { tools } : {}) } }), catch: (error) => error })
    )
    if (Either.isRight(outcome)) return "accepted"
    const error = outcome.left
    if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`)
    expect(error.status).toBe(400)
    return (JSON.parse(error.message) as { error: { message: string } }).error.message
  })

describe("Emulator — Gemini's JSON mode, as strict as the service (through @google/genai)", () => {
  it.scoped("refuses responseSchema and responseJsonSchema together", () =>
    Effect.map(geminiRefusal("gemini-3-flash-preview", { responseMimeType: "application/json", responseSchema: { type: "OBJECT" }, responseJsonSchema: schema }), (message) =>
      expect(message).toBe("* GenerateContentRequest.generation_config: response_schema and response_json_schema are mutually exclusive.\n")))

  it.scoped("refuses a schema with a mime type that is not JSON, and a mime type it does not know", () =>
    Effect.gen(function* () {
      expect(yield* geminiRefusal("gemini-3-flash-preview", { responseJsonSchema: schema })).toBe(
        "* GenerateContentRequest.generation_config.response_mime_type: When response_json_schema is set, response_mime_type must be application/json.\n"
      )
      expect(yield* geminiRefusal("gemini-3-flash-preview", { responseMimeType: "text/plain", responseSchema: { type: "OBJECT" } })).toBe(
        "* GenerateContentRequest.generation_config.response_mime_type: When response_schema is set, response_mime_type must be application/json.\n"
      )
      expect(yield* geminiRefusal("gemini-3-flash-preview", { responseMimeType: "application/jsonl" })).toMatch(/allowed mimetypes are `text\/plain`, `application\/json`/)
    }))

  it.scoped("refuses JSON mode with function declarations on 2.x models only", () =>
    Effect.gen(function* () {
      const jsonMode = { responseMimeType: "application/json", responseJsonSchema: schema }
      expect(yield* geminiRefusal("gemini-2.5-flash", jsonMode, true)).toBe("Function calling with a response mime type: 'application/json' is unsupported")
      expect(yield* geminiRefusal("gemini-2.0-flash-001", jsonMode, true)).toBe("Function calling with a response mime type: 'application/json' is unsupported")
      expect(yield* geminiRefusal("gemini-3-flash-preview", jsonMode, true)).toBe("accepted")
      expect(yield* geminiRefusal("gemini-2.5-flash", jsonMode, false)).toBe("accepted")
    }))
})

describe("Emulator — chat completions' response_format (through the openai SDK)", () => {
  const create = (flavour: "openai" | "glm", responseFormat: object, content = "Answer in JSON.") =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const client = new OpenAIClient({ apiKey: emulator.apiKey, baseURL: flavour === "glm" ? emulator.glmBaseUrl() : emulator.openAIBaseUrl(), maxRetries: 0 })
      const outcome = yield* Effect.either(
        Effect.tryPromise({
          try: () => client.chat.completions.create({ model: "m", messages: [{ role: "user", content }], response_format: responseFormat } as never),
          catch: (error) => error
        })
      )
      if (Either.isRight(outcome)) return "accepted"
      expect(outcome.left).toBeInstanceOf(BadRequestError)
      const error = outcome.left as BadRequestError
      return `${error.param ?? ""}: ${(error.error as { message: string }).message}`
    })

  it.scoped("OpenAI refuses a schema that breaks strict mode, with the service's words and the path", () =>
    Effect.gen(function* () {
      const jsonSchema = (schema: object) => ({ type: "json_schema", json_schema: { name: "triage", schema, strict: true } })
      expect(yield* create("openai", jsonSchema({ ...schema, required: ["category"] }))).toBe(
        "response_format: Invalid schema for response_format 'triage': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'serials'."
      )
      const { additionalProperties: _, ...open } = schema
      expect(yield* create("openai", jsonSchema(open))).toBe(
        "response_format: Invalid schema for response_format 'triage': In context=(), 'additionalProperties' is required to be supplied and to be false."
      )
      const nested = { ...schema, properties: { ...schema.properties, serials: { type: "array", items: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } } } }
      expect(yield* create("openai", jsonSchema(nested))).toBe(
        "response_format: Invalid schema for response_format 'triage': In context=('properties', 'serials', 'items'), 'additionalProperties' is required to be supplied and to be false."
      )
      const unique = { ...schema, properties: { ...schema.properties, serials: { type: "array", items: { type: "string" }, uniqueItems: true } } }
      expect(yield* create("openai", jsonSchema(unique))).toBe("response_format: Invalid schema for response_format 'triage': In context=('properties', 'serials'), 'uniqueItems' is not permitted.")
      expect(yield* create("openai", jsonSchema({ type: "array", items: { type: "string" } }))).toBe(
        "response_format: Invalid schema for response_format 'triage': schema must be a JSON Schema of 'type: \"object\"', got 'type: \"array\"'."
      )
      expect(yield* create("openai", jsonSchema(schema))).toBe("accepted")
      // Not strict: the schema is a hint, and is not checked.
      expect(yield* create("openai", { type: "json_schema", json_schema: { name: "triage", schema: open } })).toBe("accepted")
      expect(yield* create("openai", { type: "json_schema", json_schema: { name: "tri age", schema } })).toMatch(/^response_format.json_schema.name: Invalid 'response_format.json_schema.name'/)
    }))

  it.scoped("json_object needs the word json in the messages (OpenAI); GLM knows only text and json_object", () =>
    Effect.gen(function* () {
      expect(yield* create("openai", { type: "json_object" }, "Answer plainly.")).toBe(
        "messages: 'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'."
      )
      expect(yield* create("openai", { type: "json_object" })).toBe("accepted")
      expect(yield* create("glm", { type: "json_object" })).toBe("accepted")
      expect(yield* create("glm", { type: "json_schema", json_schema: { name: "triage", schema, strict: true } })).toBe(
        ": response_format.type 参数非法: supported values are 'text' and 'json_object'"
      )
    }))
})

describe("Emulator — what a policy is told of the answer's form", () => {
  it("Gemini: JSON with its schema; a schema in the system instruction when the client can only tell it", () => {
    const verdict = Conformance.gemini({ contents, generationConfig: { responseMimeType: "application/json", responseJsonSchema: schema } })
    expect(verdict._tag === "Accepted" && verdict.request.output).toEqual({ json: true, schema })
    const told = Conformance.gemini({ contents, systemInstruction: { parts: [{ text: `Be brief.\n\nAnswer in JSON:\n${JSON.stringify(schema)}` }] } })
    expect(told._tag === "Accepted" && told.request.output).toEqual({ json: false, schema })
    const plain = Conformance.gemini({ contents })
    expect(plain._tag === "Accepted" && plain.request.output).toBeUndefined()
  })

  it("chat completions: json_schema's schema and name; json_object with the schema of the instructions", () => {
    const strict = Conformance.chatCompletions({ model: "m", messages: [{ role: "user", content: "hi" }], response_format: { type: "json_schema", json_schema: { name: "triage", schema, strict: true } } }, "openai")
    expect(strict._tag === "Accepted" && strict.request.output).toEqual({ json: true, schema, name: "triage" })
    const glm = Conformance.chatCompletions({ model: "m", messages: [{ role: "system", content: `JSON only:\n${JSON.stringify(schema)}` }, { role: "user", content: "hi" }], response_format: { type: "json_object" } }, "glm")
    expect(glm._tag === "Accepted" && glm.request.output).toEqual({ json: true, schema })
  })
})

describe("Emulator — the offline model answers JSON that fits the schema asked for", () => {
  const offline = (output: Policy.Request["output"], transcript: Policy.Request["transcript"] = [{ role: "user", parts: [{ _tag: "Text", text: "What is the status of my kettle?" }] }]) =>
    Policy.offline.reply({ transcript, declarations: [], output } as unknown as Policy.Request)

  it.effect("a value of the schema, the same every time", () =>
    Effect.gen(function* () {
      const step = yield* offline({ json: true, schema })
      const text = (step as { text: string }).text
      const value = JSON.parse(text) as unknown
      expect(value).toEqual({ category: "repair", serials: [], note: expect.stringContaining("agentfx emulator") })
      expect(Either.isRight(Schema.decodeUnknownEither(Either.getOrThrow(Output.fromJsonSchema(schema)))(value))).toBe(true)
      expect(yield* offline({ json: true, schema })).toEqual(step)
    }))

  it.effect("JSON mode without a schema: an object with the answer; no JSON asked: words", () =>
    Effect.gen(function* () {
      const json = (yield* offline({ json: true })) as { text: string }
      expect(JSON.parse(json.text)).toEqual({ answer: expect.stringContaining("offline") })
      const words = (yield* offline(undefined)) as { text: string }
      expect(words.text).toMatch(/^I am the agentfx emulator/)
    }))

  it("valueOf fits bounds, formats, unions, references and recursion", () => {
    expect(valueOf({ type: "string", minLength: 5 }, "ab")).toBe("ab...")
    expect(valueOf({ type: "string", maxLength: 3 }, "abcdef")).toBe("abc")
    expect(valueOf({ type: "string", format: "date" }, "x")).toBe("2026-01-01")
    expect(valueOf({ type: "integer", minimum: 2.5 }, "x")).toBe(3)
    expect(valueOf({ type: "number", exclusiveMinimum: 1, maximum: 1.5 }, "x")).toBe(1.5)
    expect(valueOf({ type: "array", items: { const: 1 }, minItems: 2 }, "x")).toEqual([1, 1])
    expect(valueOf({ anyOf: [{ type: "null" }, { type: "boolean" }] }, "x")).toBe(false)
    expect(valueOf({ type: ["null", "integer"] }, "x")).toBe(0)
    expect(valueOf({ type: "OBJECT", properties: { a: { type: "STRING" } } }, "x")).toEqual({ a: "x" })
    const tree = { $defs: { Node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Node" }, minItems: 1 } } } }, $ref: "#/$defs/Node" }
    expect(JSON.stringify(valueOf(tree, "x")).length).toBeLessThan(200)
  })

  it("schemaInText finds the last JSON Schema on a line of its own", () => {
    expect(schemaInText(`Be brief.\n{"type": "string"}\n{not json\n${JSON.stringify(schema)}\nThanks.`)).toEqual(schema)
    expect(schemaInText("{ just braces in prose }")).toBeUndefined()
    expect(schemaInText('{"answer": 1}')).toBeUndefined()
    expect(schemaInText(undefined)).toBeUndefined()
  })
})

describe("Emulator — valueOf and schemaInText, case by case", () => {
  it("types: null, a union of nulls, a type-less schema read from its keywords, numbers at their bounds", () => {
    expect(valueOf({ type: "null" }, "x")).toBeNull()
    expect(valueOf({ type: [7, "boolean"] }, "x")).toBe(false)
    expect(valueOf({ anyOf: [{ type: ["null"] }, { type: "boolean" }] }, "x")).toBeNull()
    expect(valueOf({ type: "object" }, "x")).toEqual({})
    expect(valueOf({ type: ["NULL"] }, "x")).toBeNull()
    expect(valueOf({ anyOf: [{ type: "NULL" }, { type: "null" }] }, "x")).toBeNull()
    expect(valueOf({ oneOf: [{ type: "null" }, { type: "integer", minimum: 4 }] }, "x")).toBe(4)
    expect(valueOf({ anyOf: [] }, "x")).toBe("x")
    expect(valueOf({ enum: [] }, "x")).toBe("x")
    expect(valueOf({ enum: ["a", "b"], const: "c" }, "x")).toBe("c")
    expect(valueOf({ properties: { a: { type: "boolean" } } }, "x")).toEqual({ a: false })
    expect(valueOf({ items: { const: 1 }, minItems: 1 }, "x")).toEqual([1])
    expect(valueOf({}, "words")).toBe("words")
    expect(valueOf(true, "x")).toBeNull()
    expect(valueOf({ type: "object", properties: { a: true } }, "x")).toEqual({ a: null })
    expect(valueOf({ type: "number" }, "x")).toBe(0)
    expect(valueOf({ type: "number", maximum: -5 }, "x")).toBe(-5)
    expect(valueOf({ type: "number", exclusiveMaximum: 0 }, "x")).toBe(-1)
    expect(valueOf({ type: "integer", exclusiveMinimum: 2 }, "x")).toBe(3)
    expect(valueOf({ type: "number", minimum: 1.5 }, "x")).toBe(1.5)
    expect(valueOf({ type: "string", format: "date-time" }, "x")).toBe("2026-01-01T00:00:00Z")
    expect(valueOf({ type: "string", minLength: 2, maxLength: 4 }, "abcdef")).toBe("abcd")
    expect(valueOf({ type: "string", minLength: 2 }, "abc")).toBe("abc")
  })

  it("arrays: the fewest items allowed, 16 at most, a count that is not a number taken as none", () => {
    expect(valueOf({ type: "array", items: { const: 0 }, minItems: "2" }, "x")).toEqual([0, 0])
    expect(valueOf({ type: "array", items: { const: 0 }, minItems: 100 }, "x")).toHaveLength(16)
    expect(valueOf({ type: "array", items: { const: 0 }, minItems: "many" }, "x")).toEqual([])
    expect(valueOf({ type: "array", items: { const: 0 } }, "x")).toEqual([])
  })

  it("objects: every property as its own key, __proto__ too", () => {
    const value = valueOf(JSON.parse('{"type": "object", "properties": {"__proto__": {"type": "integer"}, "b": {"type": "string"}}}'), "x") as Record<string, unknown>
    expect(Object.keys(value)).toEqual(["__proto__", "b"])
    // As JSON.parse would make it: an own, plain data property.
    expect(Object.getOwnPropertyDescriptor(value, "__proto__")).toEqual({ value: 0, enumerable: true, writable: true, configurable: true })
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
  })

  it("references: $defs and definitions, escaped names, unknown or inherited names as null, a loop cut 8 deep", () => {
    expect(valueOf({ $defs: { A: { const: "a" } }, definitions: { B: { const: "b" } }, type: "array", items: { anyOf: [{ $ref: "#/definitions/B" }] }, minItems: 1 }, "x")).toEqual(["b"])
    expect(valueOf({ $defs: { "a/b~c": { const: 1 } }, $ref: "#/$defs/a~1b~0c" }, "x")).toBe(1)
    expect(valueOf({ $defs: { A: { const: 1 } }, $ref: "#/$defs/B" }, "x")).toBeNull()
    expect(valueOf({ $defs: {}, $ref: "#/$defs/toString" }, "x")).toBeNull()
    expect(valueOf({ definitions: { A: { const: 1 } }, $ref: "https://example.com/A" }, "x")).toBeNull()
    expect(valueOf({ $defs: { Item: { const: 1 } }, $ref: "https://example.com/schema#/$defs/Item" }, "x")).toBeNull()
    expect(valueOf({ $defs: { Item: { const: 1 } }, $ref: "#/$defs/Item" }, "x")).toBe(1)
    expect(valueOf({ $defs: { A: { const: 1 } }, definitions: { A: { const: 2 } }, $ref: "#/$defs/A" }, "x")).toBe(1)
    expect(valueOf({ $defs: { A: { $ref: "#/$defs/A" } }, $ref: "#/$defs/A" }, "x")).toBeNull()
    expect(valueOf({ $defs: { undefined: { const: 1 } }, $ref: "https://example.com/A" }, "x")).toBeNull()
    // Eight references are followed; the ninth is not.
    const chain = (length: number) => ({
      $defs: Object.fromEntries(Array.from({ length }, (_, i) => [`D${i + 1}`, i + 1 === length ? { const: "end" } : { $ref: `#/$defs/D${i + 2}` }])),
      $ref: "#/$defs/D1"
    })
    expect(valueOf(chain(8), "x")).toBe("end")
    expect(valueOf(chain(9), "x")).toBeNull()
    const tree = { $defs: { Node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Node" }, minItems: 1 } } } }, $ref: "#/$defs/Node" }
    expect(valueOf(tree, "x")).toEqual({ children: [{ children: [{ children: [null] }] }] })
    // Past 8 levels of unions, the last branch: the way out of a union that holds itself.
    const nested = (levels: number): object => (levels === 0 ? { type: "integer" } : { anyOf: [nested(levels - 1), { type: "boolean" }] })
    expect(valueOf(nested(10), "x")).toBe(false)
    expect(valueOf(nested(8), "x")).toBe(0)
    const levels = (depth: number): object => (depth === 12 ? { type: "integer" } : { anyOf: [levels(depth + 1), { const: depth }] })
    expect(valueOf(levels(0), "x")).toBe(8)
  })

  it("schemaInText: a schema told by its properties, a union or a reference, on an indented line", () => {
    expect(schemaInText('  {"properties": {"a": {"type": "string"}}}  ')).toEqual({ properties: { a: { type: "string" } } })
    expect(schemaInText('{"anyOf": [{"type": "string"}]}')).toEqual({ anyOf: [{ type: "string" }] })
    expect(schemaInText('{"$ref": "#/$defs/A"}\nnot a schema')).toEqual({ $ref: "#/$defs/A" })
    expect(schemaInText("[1, 2]\n1")).toBeUndefined()
    expect(schemaInText('{"type": "string"}')).toEqual({ type: "string" })
  })
})

describe("Emulator — response_format's rules, case by case (as Conformance reads a body)", () => {
  const verdict = (responseFormat: unknown, flavour: "openai" | "glm" = "openai", content = "Answer in JSON.") =>
    Conformance.chatCompletions(
      {
        model: "m",
        messages: [{ role: "system", content: [{ type: "text", text: content }] }, { role: "user", content: "hi" }],
        ...(responseFormat === undefined ? {} : { response_format: responseFormat })
      },
      flavour
    )
  const refusal = (responseFormat: unknown, flavour: "openai" | "glm" = "openai", content?: string) => {
    const outcome = verdict(responseFormat, flavour, content)
    return outcome._tag === "Rejected" ? `${outcome.param ?? ""}: ${outcome.message}` : "accepted"
  }
  const strict = (schema: unknown, name = "triage") => ({ type: "json_schema", json_schema: { name, schema, strict: true } })
  const closed = (properties: Record<string, unknown>, extra: object = {}) => ({ type: "object", properties, required: Object.keys(properties), additionalProperties: false, ...extra })
  const prefix = "response_format: Invalid schema for response_format 'triage': "

  it("the root: an object schema, not a union, not another type", () => {
    expect(refusal(strict({ anyOf: [closed({})] }))).toBe(`${prefix}schema must be a JSON Schema of 'type: "object"', got 'type: "anyOf"'.`)
    expect(refusal(strict({ type: "object", anyOf: [closed({})] }))).toBe(`${prefix}schema must be a JSON Schema of 'type: "object"', got 'type: "anyOf"'.`)
    expect(refusal(strict({ properties: {} }))).toBe(`${prefix}schema must be a JSON Schema of 'type: "object"', got 'type: null'.`)
    expect(refusal(strict(closed({})))).toBe("accepted")
    expect(refusal({ type: "json_schema", json_schema: { name: "triage", strict: true } })).toBe(`${prefix}schema must be a JSON Schema object.`)
    expect(refusal(null)).toBe("accepted")
  })

  it("each place a schema may hide a problem: properties, items, unions, definitions, with the path the service prints", () => {
    expect(refusal(strict(closed({ a: "x" })))).toBe(`${prefix}In context=('properties', 'a'), schema must be a JSON Schema object.`)
    expect(refusal(strict(closed({ a: { type: "array", items: [{ type: "string" }] } })))).toBe(`${prefix}In context=('properties', 'a'), 'items' must be a schema, not an array.`)
    expect(refusal(strict(closed({ a: { type: "array", items: { type: "string", not: {} } } })))).toBe(`${prefix}In context=('properties', 'a', 'items'), 'not' is not permitted.`)
    expect(refusal(strict(closed({ a: { anyOf: [{ type: "string" }, { type: ["object", "null"], properties: {} }] } })))).toBe(
      `${prefix}In context=('properties', 'a', 'anyOf', '1'), 'additionalProperties' is required to be supplied and to be false.`
    )
    expect(refusal(strict(closed({ a: { properties: { b: { type: "string" } }, additionalProperties: false } })))).toBe(
      `${prefix}In context=('properties', 'a'), 'required' is required to be supplied and to be an array including every key in properties. Missing 'b'.`
    )
    expect(refusal(strict(closed({ a: { type: "object", properties: {}, additionalProperties: false } })))).toBe(
      `${prefix}In context=('properties', 'a'), 'required' is required to be supplied and to be an array including every key in properties.`
    )
    expect(refusal(strict(closed({ a: { $ref: "#/$defs/B" } }, { $defs: { B: { type: "object", properties: {}, required: [], additionalProperties: true } } })))).toBe(
      `${prefix}In context=('$defs', 'B'), 'additionalProperties' is required to be supplied and to be false.`
    )
    expect(refusal(strict(closed({}, { definitions: { B: { type: "string", minContains: 1 } } })))).toBe(`${prefix}In context=('definitions', 'B'), 'minContains' is not permitted.`)
    expect(refusal(strict(closed({}, { items: { type: "string", prefixItems: [] } })))).toBe(`${prefix}In context=('items',), 'prefixItems' is not permitted.`)
    expect(refusal(strict(closed({ a: { anyOf: [{ type: "string" }, { type: "integer" }] } }, { $defs: { B: closed({ c: { type: "boolean" } }) } })))).toBe("accepted")
    // Every property and every definition is checked, not only the first; an object is one by its type alone, or a type list holding "object".
    expect(refusal(strict(closed({ a: { type: "string" }, b: { type: "object" } })))).toBe(
      `${prefix}In context=('properties', 'b'), 'additionalProperties' is required to be supplied and to be false.`
    )
    expect(refusal(strict(closed({ a: { type: ["object", "null"] } })))).toBe(`${prefix}In context=('properties', 'a'), 'additionalProperties' is required to be supplied and to be false.`)
    expect(refusal(strict(closed({}, { $defs: { A: { type: "string" }, B: { type: "string", not: {} } } })))).toBe(`${prefix}In context=('$defs', 'B'), 'not' is not permitted.`)
    expect(refusal(strict({ type: "object", additionalProperties: false, required: [] }))).toBe("accepted")
    expect(refusal(strict(closed({ a: { type: "array", items: { type: "string" }, anyOf: [{ type: "array", not: {} }] } })))).toBe(
      `${prefix}In context=('properties', 'a', 'anyOf', '0'), 'not' is not permitted.`
    )
  })

  it("each keyword strict mode does not enforce is refused by name", () => {
    const keywords = [
      "allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas", "patternProperties", "propertyNames", "unevaluatedProperties",
      "unevaluatedItems", "minProperties", "maxProperties", "prefixItems", "additionalItems", "contains", "minContains", "maxContains", "uniqueItems"
    ]
    expect(keywords.map((key) => refusal(strict(closed({ a: { type: "string", [key]: 1 } }))))).toEqual(
      keywords.map((key) => `${prefix}In context=('properties', 'a'), '${key}' is not permitted.`)
    )
  })

  it("the format's type and its name; json_object's word 'json' in any message, in any case, text parts too", () => {
    expect(refusal({ type: "text" })).toBe("accepted")
    expect(refusal({ type: "text" }, "glm")).toBe("accepted")
    expect(refusal({ type: "xml" })).toBe("response_format.type: Invalid value: 'xml'. Supported values are: 'text', 'json_object', and 'json_schema'.")
    expect(refusal({ type: "json_schema" })).toBe("response_format.json_schema: Missing required parameter: 'response_format.json_schema'.")
    expect(refusal({ type: "json_schema", json_schema: { name: "a".repeat(64), schema: {} } })).toBe("accepted")
    expect(refusal({ type: "json_schema", json_schema: { name: "a".repeat(65), schema: {} } })).toMatch(/^response_format.json_schema.name: /)
    expect(refusal({ type: "json_schema", json_schema: { name: "", schema: {} } })).toMatch(/^response_format.json_schema.name: /)
    expect(refusal({ type: "json_object" }, "openai", "Reply as JSON.")).toBe("accepted")
    expect(refusal({ type: "json_object" }, "openai", "Reply in plain words.")).toBe(
      "messages: 'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'."
    )
    expect(refusal({ type: "xml" }, "glm")).toBe("response_format.type: response_format.type 参数非法: supported values are 'text' and 'json_object'")
  })

  it("what a policy is told: nothing for text, JSON without a schema, a json_schema without its name", () => {
    const told = (responseFormat: unknown, content = "Be brief.") => {
      const outcome = verdict(responseFormat, "openai", content)
      return outcome._tag === "Accepted" ? outcome.request.output : outcome.message
    }
    expect(told(undefined)).toBeUndefined()
    expect(told({ type: "text" })).toBeUndefined()
    expect(told(undefined, `Answer so:\n${JSON.stringify(schema)}`)).toEqual({ json: false, schema })
    expect(told({ type: "text" }, `Answer so:\n${JSON.stringify(schema)}`)).toEqual({ json: false, schema })
    expect(told({ type: "json_object" }, "Answer in JSON.")).toStrictEqual({ json: true })
    expect(told({ type: "json_schema", json_schema: { name: "triage", schema } }, `Answer so:\n{"type": "string"}`)).toEqual({ json: true, schema, name: "triage" })
  })
})
