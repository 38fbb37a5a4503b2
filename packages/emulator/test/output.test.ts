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
