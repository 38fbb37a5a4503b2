import { Turn } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import OpenAIClient, { BadRequestError } from "openai"
import { Conformance, Emulator } from "../src/index.js"

const user = { role: "user", parts: [{ text: "hi" }] }
const call = (extra: object = {}) => ({ role: "model", parts: [{ functionCall: { id: "c1", name: "get_weather", args: { city: "Paris" } }, ...extra }] })
const answer = (response: unknown = { celsius: 20 }, extra: object = {}) => ({ role: "user", parts: [{ functionResponse: { id: "c1", name: "get_weather", response, ...extra } }] })

const rejection = (verdict: Conformance.Verdict): string => (verdict._tag === "Rejected" ? verdict.message : "accepted")

describe("Conformance — Gemini reads the body as a proto parser does", () => {
  const cases: ReadonlyArray<readonly [string, unknown, string]> = [
    [
      "a field Gemini does not know, on a part (a neutral tag leaking onto the wire)",
      { contents: [user, call(), { role: "user", parts: [{ functionResponse: { id: "c1", name: "get_weather", response: {} }, isError: false }] }] },
      `Invalid JSON payload received. Unknown name "isError" at 'contents[2].parts[0]': Cannot find field.`
    ],
    [
      "a field Gemini does not know, inside a function response",
      { contents: [user, call(), answer({}, { isError: true })] },
      `Invalid JSON payload received. Unknown name "isError" at 'contents[2].parts[0].function_response': Cannot find field.`
    ],
    ["an unknown top-level field", { contents: [user], temperature: 0 }, `Invalid JSON payload received. Unknown name "temperature": Cannot find field.`],
    [
      "a generation setting Gemini does not have",
      { contents: [user], generationConfig: { max_tokens: 10 } },
      `Invalid JSON payload received. Unknown name "max_tokens" at 'generation_config': Cannot find field.`
    ],
    ["text that is not a string", { contents: [{ role: "user", parts: [{ text: 5 }] }] }, "Invalid value at 'contents[0].parts[0].text' (TYPE_STRING), 5"],
    [
      "arguments given as a JSON string (the chat-completions habit)",
      { contents: [user, { role: "model", parts: [{ functionCall: { name: "f", args: '{"a":1}' } }] }] },
      `Invalid value at 'contents[1].parts[0].function_call.args' (type.googleapis.com/google.protobuf.Struct), "{\\"a\\":1}"`
    ],
    [
      "an unknown function-calling mode",
      { contents: [user], toolConfig: { functionCallingConfig: { mode: "REQUIRED" } } },
      `Invalid value at 'tool_config.function_calling_config.mode' (type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), "REQUIRED"`
    ],
    [
      "a part holding both text and a call",
      { contents: [user, { role: "model", parts: [{ text: "x", functionCall: { name: "f", args: {} } }] }] },
      "Invalid JSON payload received. Oneof field 'data' is already set. Cannot set 'functionCall' at 'contents[1].parts[0]'."
    ],
    ["a part holding nothing", { contents: [{ role: "user", parts: [{}] }] }, "* GenerateContentRequest.contents[0].parts[0].data: required oneof field 'data' must have one initialized field\n"],
    [
      "a call without a name",
      { contents: [user, { role: "model", parts: [{ functionCall: { args: {} } }] }] },
      "* GenerateContentRequest.contents[1].parts[0].function_call.name: Name cannot be empty.\n"
    ],
    ["a response turn with the role the REST AFC of other clients uses", { contents: [user, call(), { ...answer(), role: "function" }] }, "Please use a valid role: user, model."],
    [
      "a string response",
      { contents: [user, call(), answer("20 degrees")] },
      `Invalid value at 'contents[2].parts[0].function_response.response' (type.googleapis.com/google.protobuf.Struct), "20 degrees"`
    ],
    [
      "an unknown scheduling",
      { contents: [user, call(), answer({}, { scheduling: "LATER" })] },
      `Invalid value at 'contents[2].parts[0].function_response.scheduling' (type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionResponse.Scheduling), "LATER"`
    ]
  ]
  for (const [name, body, message] of cases) {
    it(`rejects ${name}`, () => expect(rejection(Conformance.gemini(body))).toBe(message))
  }

  it("accepts what the SDK sends, and reads it as the neutral request", () => {
    const verdict = Conformance.gemini({
      contents: [user, call({ thoughtSignature: "c2ln" }), answer()],
      systemInstruction: { role: "user", parts: [{ text: "Be brief." }] },
      tools: [{ functionDeclarations: [{ name: "get_weather", description: "w", parametersJsonSchema: { type: "object", properties: { city: { type: "string" } } }, behavior: "NON_BLOCKING" }] }],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } },
      generationConfig: { temperature: 0, thinkingConfig: { thinkingBudget: 0 } }
    })
    expect(verdict).toEqual({
      _tag: "Accepted",
      request: {
        system: "Be brief.",
        transcript: [
          Turn.user("hi"),
          { role: "model", parts: [{ _tag: "FunctionCall", id: "c1", name: "get_weather", args: { city: "Paris" }, metadata: { thoughtSignature: "c2ln" } }] },
          { role: "user", parts: [{ _tag: "FunctionResponse", id: "c1", name: "get_weather", response: { celsius: 20 }, isError: false }] }
        ],
        declarations: [{ name: "get_weather", description: "w", parameters: { type: "object", properties: { city: { type: "string" } } }, behavior: "nonBlocking" }],
        toolChoice: { allowed: ["get_weather"] }
      }
    })
  })

  it("matches responses without ids to their calls by position, and invents ids only for its own reading", () => {
    const verdict = Conformance.gemini({
      contents: [
        user,
        { role: "model", parts: [{ functionCall: { name: "a", args: {} } }, { functionCall: { name: "b", args: {} } }] },
        { role: "user", parts: [{ functionResponse: { name: "a", response: {} } }, { functionResponse: { name: "b", response: { error: { message: "no" } } } }] }
      ]
    })
    if (verdict._tag !== "Accepted") throw new Error(verdict.message)
    const [, calls, responses] = verdict.request.transcript
    expect(Turn.calls(calls!).map((c) => c.id)).toEqual(Turn.responses(responses!).map((r) => r.id))
    expect(Turn.responses(responses!).map((r) => r.isError)).toEqual([false, true])
  })
})

describe("Conformance — Gemini's `parameters` is the OpenAPI subset Schema, not JSON Schema", () => {
  const declared = (declaration: object) => ({ contents: [user], tools: [{ functionDeclarations: [{ name: "get_weather", description: "w", ...declaration }] }] })
  const at = "tools[0].function_declarations[0]"
  const refused: ReadonlyArray<readonly [string, object, string]> = [
    ["additionalProperties", { parameters: { type: "object", additionalProperties: false } }, `Unknown name "additionalProperties" at '${at}.parameters'`],
    ["$schema", { parameters: { $schema: "http://json-schema.org/draft-07/schema#", type: "object" } }, `Unknown name "$schema" at '${at}.parameters'`],
    ["$defs", { parameters: { type: "object", $defs: {} } }, `Unknown name "$defs" at '${at}.parameters'`],
    ["const, inside a property", { parameters: { type: "OBJECT", properties: { city: { type: "STRING" }, unit: { type: "STRING", const: "C" } } } }, `Unknown name "const" at '${at}.parameters.properties[1].value'`],
    [
      "$ref, inside an array's items",
      { parameters: { type: "OBJECT", properties: { cities: { type: "ARRAY", items: { $ref: "#/$defs/city" } } } } },
      `Unknown name "$ref" at '${at}.parameters.properties[0].value.items'`
    ],
    ["oneOf", { parameters: { type: "OBJECT", oneOf: [] } }, `Unknown name "oneOf" at '${at}.parameters'`],
    ["additionalProperties in the response schema", { response: { type: "OBJECT", additionalProperties: true } }, `Unknown name "additionalProperties" at '${at}.response'`]
  ]
  for (const [name, declaration, where] of refused) {
    it(`refuses ${name} with the proto parser's "Unknown name" 400`, () =>
      expect(rejection(Conformance.gemini(declared(declaration)))).toBe(`Invalid JSON payload received. ${where}: Cannot find field.`))
  }

  it("refuses a type the Schema does not have, and response together with responseJsonSchema", () => {
    expect(rejection(Conformance.gemini(declared({ parameters: { type: "DICT" } })))).toBe(
      `Invalid value at '${at}.parameters.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), "DICT"`
    )
    expect(rejection(Conformance.gemini(declared({ response: { type: "OBJECT" }, responseJsonSchema: { type: "object" } })))).toBe(
      `* GenerateContentRequest.${at}: response and response_json_schema are mutually exclusive.\n`
    )
  })

  it("refuses a parameter name the OpenAPI parameters do not allow (parametersJsonSchema has no such rule)", () => {
    expect(rejection(Conformance.gemini(declared({ parameters: { type: "OBJECT", properties: { "city-name": { type: "STRING" } } } })))).toBe(
      `* GenerateContentRequest.${at}.parameters.properties[city-name]: Invalid parameter name. Parameter names must start with a letter or an underscore and must only contain chars a-z, A-Z, 0-9, or underscores with a maximum length of 64.\n`
    )
    expect(Conformance.gemini(declared({ parametersJsonSchema: { type: "object", properties: { "city-name": { type: "string" } } } }))._tag).toBe("Accepted")
  })

  it("accepts every field of the subset, and full JSON Schema in parametersJsonSchema / responseJsonSchema", () => {
    const parameters = {
      type: "OBJECT",
      title: "weather",
      description: "where",
      nullable: false,
      properties: {
        city: { type: "STRING", format: "enum", enum: ["Paris", "Oslo"], pattern: "^[A-Z]", minLength: 1, maxLength: "40", example: "Paris", default: "Paris" },
        days: { type: "integer", minimum: 1, maximum: 7 },
        hours: { type: "ARRAY", items: { type: "NUMBER" }, minItems: 0, maxItems: "24" },
        either: { anyOf: [{ type: "STRING" }, { type: "NULL" }] }
      },
      required: ["city"],
      propertyOrdering: ["city", "days", "hours", "either"],
      minProperties: 1,
      maxProperties: "4"
    }
    const verdict = Conformance.gemini(declared({ parameters, response: { type: "OBJECT", properties: { celsius: { type: "NUMBER" } } } }))
    expect(verdict._tag === "Accepted" && verdict.request.declarations[0]!.parameters).toEqual(parameters)
    const jsonSchema = { type: "object", additionalProperties: false, $defs: {}, properties: { unit: { const: "C" } } }
    expect(Conformance.gemini(declared({ parametersJsonSchema: jsonSchema, responseJsonSchema: jsonSchema }))._tag).toBe("Accepted")
  })
})

describe("Conformance — tool kinds and names", () => {
  const chat = (tools: ReadonlyArray<object>) => ({ model: "m", messages: [{ role: "user", content: "hi" }], tools })

  it("OpenAI accepts a custom tool (named under `custom`) and says which types it supports otherwise; GLM refuses it in its own words", () => {
    expect(Conformance.chatCompletions(chat([{ type: "custom", custom: { name: "grep", description: "free-form" } }]), "openai")._tag).toBe("Accepted")
    expect(rejection(Conformance.chatCompletions(chat([{ type: "custom", custom: {} }]), "openai"))).toBe("Missing required parameter: 'tools[0].custom.name'.")
    expect(rejection(Conformance.chatCompletions(chat([{ type: "browser" }]), "openai"))).toBe("Invalid value: 'browser'. Supported values are: 'function' and 'custom'.")
    expect(rejection(Conformance.chatCompletions(chat([{ type: "custom", custom: { name: "grep" } }]), "glm"))).toBe(
      "tools[0].type 参数非法: supported values are 'function', 'retrieval' and 'web_search'"
    )
    expect(Conformance.chatCompletions(chat([{ type: "web_search", web_search: { enable: true } }]), "glm")._tag).toBe("Accepted")
  })

  it("a Gemini function name may be 128 characters long (the API's documented limit), not 129", () => {
    const declared = (name: string) => ({ contents: [user], tools: [{ functionDeclarations: [{ name, description: "d" }] }] })
    expect(Conformance.gemini(declared(`_${"a".repeat(127)}`))._tag).toBe("Accepted")
    expect(rejection(Conformance.gemini(declared("a".repeat(129))))).toBe(
      "* GenerateContentRequest.tools[0].function_declarations[0].name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 128.\n"
    )
  })
})

describe("Conformance — OpenAI refuses what it does not know, GLM lets it through", () => {
  const assistant = { role: "assistant", content: null, reasoning_content: "thinking", tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] }
  const tool = { role: "tool", tool_call_id: "c1", content: "{}" }
  const body = (messages: ReadonlyArray<object>, extra: object = {}) => ({ model: "m", messages: [{ role: "user", content: "hi" }, ...messages], ...extra })

  it("reasoning_content on an assistant message: GLM's field, refused by OpenAI", () => {
    expect(Conformance.chatCompletions(body([assistant, tool]), "glm")._tag).toBe("Accepted")
    expect(Conformance.chatCompletions(body([assistant, tool]), "openai")).toEqual({
      _tag: "Rejected",
      message: "Additional properties are not allowed ('reasoning_content' was unexpected) - 'messages.1'",
      param: "messages.[1]"
    })
  })

  it("an unknown request argument: refused by OpenAI by name, ignored by GLM", () => {
    expect(rejection(Conformance.chatCompletions(body([], { thinking: { type: "enabled" } }), "openai"))).toBe("Unrecognized request argument supplied: thinking")
    expect(Conformance.chatCompletions(body([], { thinking: { type: "enabled" } }), "glm")._tag).toBe("Accepted")
  })

  const typeErrors: ReadonlyArray<readonly [string, unknown, string]> = [
    ["content that is a number", body([{ role: "user", content: 5 }]), "Invalid type for 'messages[1].content': expected one of a string or array of objects, but got an integer instead."],
    [
      "arguments given as an object (the Gemini habit)",
      body([{ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: {} } }] }, tool]),
      "Invalid type for 'messages[1].tool_calls[0].function.arguments': expected a string, but got an object instead."
    ],
    ["a message without a role", body([{ content: "x" }]), "Missing required parameter: 'messages[1].role'."],
    [
      "a tool call without its type",
      body([{ role: "assistant", content: null, tool_calls: [{ id: "c1", function: { name: "f", arguments: "{}" } }] }, tool]),
      "Missing required parameter: 'messages[1].tool_calls[0].type'."
    ]
  ]
  for (const [name, wrong, message] of typeErrors) {
    it(`rejects ${name}`, () => {
      expect(rejection(Conformance.chatCompletions(wrong, "openai"))).toBe(message)
      expect(rejection(Conformance.chatCompletions(wrong, "glm"))).not.toBe("accepted")
    })
  }

  it.scoped("the server answers those refusals as OpenAI does: a 400 naming the parameter, through the SDK", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const client = new OpenAIClient({ apiKey: emulator.apiKey, baseURL: emulator.openAIBaseUrl(), maxRetries: 0 })
      const error = yield* Effect.flip(
        Effect.tryPromise({ try: () => client.chat.completions.create(body([assistant, tool]) as never), catch: (e) => e })
      )
      expect(error).toBeInstanceOf(BadRequestError)
      expect((error as BadRequestError).message).toContain("Additional properties are not allowed ('reasoning_content' was unexpected)")
      expect((error as BadRequestError).param).toBe("messages.[1]")
    }))
})
