/**
 * The chat-completions codec driven directly: arguments as the model sent them, assistant messages both ways,
 * user and tool messages, usage and every finish reason.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import type { FunctionDeclaration, Turn } from "@agentfx/core"
import { Dialect, FunctionCall } from "@agentfx/core"
import * as Codec from "../src/internal/openai/codec.js"

const source = { next: (position: number) => `made_${position}` }
const errorKey = FunctionCall.argumentsErrorKey
const withReasoning = { reasoning: true }
const without = { reasoning: false }

describe("chat-completions codec: arguments", () => {
  it("absent arguments are none; an object is taken as it is; anything else is an argument error", () => {
    expect(Codec.parseArguments(null)).toStrictEqual({ args: {} })
    expect(Codec.parseArguments(undefined)).toStrictEqual({ args: {} })
    expect(Codec.parseArguments({ a: 1 })).toStrictEqual({ args: { a: 1 } })
    expect(Codec.parseArguments([1] as never)).toStrictEqual({ args: {}, metadata: { [errorKey]: "arguments must be a JSON object" } })
  })

  it("text: blank is kept raw, invalid JSON and non-objects are errors saying what they got, and a text that is not the canonical form is kept raw", () => {
    expect(Codec.parseArguments("  ")).toStrictEqual({ args: {}, metadata: { arguments: "  " } })
    const invalid = Codec.parseArguments("{nope")
    expect(invalid.args).toStrictEqual({})
    expect(invalid.metadata?.arguments).toBe("{nope")
    expect(String(invalid.metadata?.[errorKey])).toMatch(/^arguments are not valid JSON: /)
    expect(Codec.parseArguments("null").metadata?.[errorKey]).toBe("arguments must be a JSON object, got null")
    expect(Codec.parseArguments("[1]").metadata?.[errorKey]).toBe("arguments must be a JSON object, got an array")
    expect(Codec.parseArguments("3").metadata?.[errorKey]).toBe("arguments must be a JSON object, got number")
    expect(Codec.parseArguments(`{"a":1}`)).toStrictEqual({ args: { a: 1 } })
    expect(Codec.parseArguments(`{ "a": 1 }`)).toStrictEqual({ args: { a: 1 }, metadata: { arguments: `{ "a": 1 }` } })
  })
})

describe("chat-completions codec: assistant messages", () => {
  it("decodes reasoning, then text, then calls, giving ids to calls that have none (or an empty one)", () => {
    const turn = Codec.decodeAssistant(
      {
        content: "Switching.",
        reasoning_content: "The user wants light.",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "lamp", arguments: `{"on":true}` } },
          { id: null, type: "function", function: { name: "lamp", arguments: `{"on":false}` } },
          { type: "function", function: { name: "clock", arguments: "{}" } },
          { id: "", type: "function", function: { name: "door", arguments: "" } }
        ]
      } as Parameters<typeof Codec.decodeAssistant>[0],
      source
    )
    expect(turn).toStrictEqual({
      role: "model",
      parts: [
        { _tag: "Reasoning", text: "The user wants light." },
        { _tag: "Text", text: "Switching." },
        { _tag: "FunctionCall", id: "c1", name: "lamp", args: { on: true } },
        { _tag: "FunctionCall", id: "made_1", name: "lamp", args: { on: false } },
        { _tag: "FunctionCall", id: "made_2", name: "clock", args: {} },
        { _tag: "FunctionCall", id: "made_3", name: "door", args: {}, metadata: { arguments: "" } }
      ]
    })
    expect(Codec.decodeAssistant({ content: null, reasoning_content: null, tool_calls: null }, source)).toStrictEqual({ role: "model", parts: [] })
  })

  it("encodes text and calls, sends reasoning back only where asked, the raw arguments as they came, and empty text beside calls as null", () => {
    const turn: Turn.Turn = {
      role: "model",
      parts: [
        { _tag: "Reasoning", text: "Think" },
        { _tag: "Reasoning", text: "ing." },
        { _tag: "Text", text: "" },
        { _tag: "FunctionCall", id: "c1", name: "lamp", args: { a: 1 }, metadata: { arguments: `{ "a": 1 }` } },
        { _tag: "FunctionCall", id: "c2", name: "door", args: { b: 2 } }
      ]
    }
    const calls = [
      { id: "c1", type: "function", function: { name: "lamp", arguments: `{ "a": 1 }` } },
      { id: "c2", type: "function", function: { name: "door", arguments: `{"b":2}` } }
    ]
    expect(Codec.encodeAssistant(turn, withReasoning)).toStrictEqual({ role: "assistant", content: null, reasoning_content: "Thinking.", tool_calls: calls })
    expect(Codec.encodeAssistant(turn, without)).toStrictEqual({ role: "assistant", content: null, tool_calls: calls })
    expect(
      Codec.encodeAssistant(
        { role: "model", parts: [{ _tag: "Text", text: "Hel" }, { _tag: "Text", text: "lo" }] },
        withReasoning
      )
    ).toStrictEqual({ role: "assistant", content: "Hello" })
  })

  it("raw arguments that are not a string are not sent: the arguments are; parts other than text, reasoning and calls are left out", () => {
    expect(
      Codec.encodeAssistant(
        {
          role: "model",
          parts: [
            { _tag: "Text", text: "ok" },
            { _tag: "Opaque", provider: "openai", data: { type: "refusal" } },
            { _tag: "FunctionCall", id: "c1", name: "lamp", args: { on: true }, metadata: { arguments: 5 } }
          ]
        },
        without
      )
    ).toStrictEqual({ role: "assistant", content: "ok", tool_calls: [{ id: "c1", type: "function", function: { name: "lamp", arguments: `{"on":true}` } }] })
  })

  it("a model turn with neither text nor calls is not sent", () => {
    expect(Codec.encodeAssistant({ role: "model", parts: [{ _tag: "Reasoning", text: "hmm" }] }, withReasoning)).toBeUndefined()
    expect(Codec.encodeAssistant({ role: "model", parts: [{ _tag: "Text", text: "" }] }, withReasoning)).toBeUndefined()
    expect(Codec.encodeAssistant({ role: "model", parts: [] }, withReasoning)).toBeUndefined()
  })
})

describe("chat-completions codec: messages", () => {
  it("the system message only when there is one; responses as tool messages; one text as a string, more as parts", () => {
    const image = { type: "image_url", image_url: { url: "data:," } }
    const messages = Codec.encodeMessages(
      "Be brief.",
      [
        { role: "user", parts: [{ _tag: "Text", text: "hi" }] },
        { role: "model", parts: [{ _tag: "FunctionCall", id: "c1", name: "lamp", args: {} }] },
        { role: "user", parts: [{ _tag: "FunctionResponse", id: "c1", name: "lamp", response: { on: true }, isError: false }] },
        { role: "model", parts: [{ _tag: "Reasoning", text: "only thinking" }] },
        { role: "user", parts: [{ _tag: "Text", text: "look" }, { _tag: "Opaque", provider: "openai", data: image }, { _tag: "Opaque", provider: "gemini", data: {} }] },
        { role: "user", parts: [{ _tag: "Opaque", provider: "openai", data: "not an object" }] },
        { role: "user", parts: [{ _tag: "Reasoning", text: "as text" }] }
      ],
      without
    )
    expect(messages).toStrictEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "lamp", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: `{"on":true}` },
      { role: "user", content: [{ type: "text", text: "look" }, image] },
      { role: "user", content: "as text" }
    ])
    expect(Codec.encodeMessages("", [{ role: "user", parts: [{ _tag: "Opaque", provider: "openai", data: image }] }], without)).toStrictEqual([
      { role: "user", content: [image] }
    ])
    // A lone part is sent as a plain string only when it is a text part with a string text.
    const alone = (data: Record<string, unknown>) => Codec.encodeMessages(undefined, [{ role: "user", parts: [{ _tag: "Opaque", provider: "openai", data }] }], without)
    expect(alone({ type: "input_audio", text: "a transcript" })).toStrictEqual([{ role: "user", content: [{ type: "input_audio", text: "a transcript" }] }])
    expect(alone({ type: "text", text: 5 })).toStrictEqual([{ role: "user", content: [{ type: "text", text: 5 }] }])
  })

  it("tools compile each declaration, and the first that cannot be expressed fails them all", () => {
    const lamp: FunctionDeclaration.FunctionDeclaration = { name: "lamp", description: "Lamp", parameters: { type: "object", properties: { on: { type: "boolean" } } } }
    expect(Codec.encodeTools([lamp])).toStrictEqual(Either.right([Either.getOrThrow(Dialect.openAI(lamp))]))
    expect(Codec.encodeTools([])).toStrictEqual(Either.right([]))
    const bad: FunctionDeclaration.FunctionDeclaration = { name: "bad", description: "Bad", parameters: { type: "string" } }
    expect(Codec.encodeTools([lamp, bad])).toMatchObject(Either.left({ _tag: "DeclarationError", name: "bad", reason: `parameters must be an object schema, got "string"` }))
  })
})

describe("chat-completions codec: usage and finish reasons", () => {
  it("usage: a total computed only when absent, reasoning and cached tokens kept when given", () => {
    expect(Codec.decodeUsage(null)).toStrictEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 })
    expect(Codec.decodeUsage({ prompt_tokens: 5, completion_tokens: 3 } as never)).toStrictEqual({ inputTokens: 5, outputTokens: 3, totalTokens: 8 })
    expect(
      Codec.decodeUsage({ prompt_tokens: 5, completion_tokens: 3, total_tokens: 20, completion_tokens_details: { reasoning_tokens: 2 }, prompt_tokens_details: { cached_tokens: 4 } } as never)
    ).toStrictEqual({ inputTokens: 5, outputTokens: 3, totalTokens: 20, reasoningTokens: 2, cachedTokens: 4 })
    expect(
      Codec.decodeUsage({ prompt_tokens: 1, completion_tokens: 1, completion_tokens_details: { reasoning_tokens: null }, prompt_tokens_details: { cached_tokens: null } } as never)
    ).toStrictEqual({ inputTokens: 1, outputTokens: 1, totalTokens: 2 })
  })

  it("finish reasons", () => {
    for (const reason of [undefined, null, "stop"]) {
      expect(Codec.decodeFinishReason(reason, false)).toBe("stop")
      expect(Codec.decodeFinishReason(reason, true)).toBe("tool_calls")
    }
    expect(Codec.decodeFinishReason("tool_calls", false)).toBe("tool_calls")
    expect(Codec.decodeFinishReason("function_call", false)).toBe("tool_calls")
    expect(Codec.decodeFinishReason("length", true)).toBe("length")
    expect(Codec.decodeFinishReason("model_context_window_exceeded", true)).toBe("length")
    expect(Codec.decodeFinishReason("content_filter", false)).toBe("safety")
    expect(Codec.decodeFinishReason("sensitive", false)).toBe("safety")
    expect(Codec.decodeFinishReason("network_error", false)).toBe("other")
  })
})
