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
