import { LanguageModel } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Redacted } from "effect"
import * as ChatCompletions from "../src/ChatCompletions.js"
import * as Gemini from "../src/Gemini.js"
import { ask, sentinel } from "./fixtures.js"
import type { Answer } from "./support/misbehaving.js"
import { body, events, misbehaving } from "./support/misbehaving.js"

const html = body("<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>", "text/html")
const bodies: Record<string, Answer> = {
  html,
  "html as JSON": body("<!doctype html><html></html>", "application/json"),
  "broken JSON": body(`{"choices": [{"message": `, "application/json"),
  "JSON that is not an object": body(`[1, 2, 3]`, "application/json"),
  "empty body": body("", "application/json"),
  "plain text stream": body("hello\nworld\n", "text/event-stream"),
  "broken JSON event": events(`{"candidates": [`),
  "no events": events(),
  "only [DONE]": events("[DONE]")
}

const emptyTurns: Record<string, Record<string, Answer>> = {
  gemini: {
    "no candidates": body(`{"candidates": []}`, "application/json"),
    "no parts": body(`{"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "STOP"}]}`, "application/json"),
    "empty text": body(`{"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "STOP"}]}`, "application/json"),
    "empty text events": events(`{"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "STOP"}]}`)
  },
  chat: {
    "no choices": body(`{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []}`, "application/json"),
    "empty content": body(`{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": ""}, "finish_reason": "stop"}]}`, "application/json"),
    "null content": body(`{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": null}, "finish_reason": "stop"}]}`, "application/json"),
    "empty delta events": events(`{"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "stop"}]}`, "[DONE]")
  }
}

const models = {
  gemini: (origin: string) => Gemini.make({ apiKey: Redacted.make(sentinel), baseUrl: origin }),
  chat: (origin: string) => ChatCompletions.make({ apiKey: Redacted.make(sentinel), baseUrl: origin, model: "m" })
}

describe("a 200 that does not decode, or holds an empty model turn, is MalformedResponse on every provider path", () => {
  for (const [provider, make] of Object.entries(models)) {
    for (const mode of ["generate", "stream"] as const) {
      for (const [name, answer] of Object.entries(bodies)) {
        it.scoped(`${provider} ${mode}: ${name}`, () =>
          Effect.gen(function* () {
            const server = yield* misbehaving
            server.answer = answer
            const model = yield* make(server.origin)
            const exit = yield* Effect.exit(mode === "generate" ? model.generate(ask("hi")) : LanguageModel.collect(model.stream(ask("hi"))))
            expect(Exit.isFailure(exit), JSON.stringify(exit)).toBe(true)
            expect(exit).toMatchObject({ cause: { error: { _tag: "MalformedResponse" } } })
          })
        )
      }
      for (const [name, answer] of Object.entries(emptyTurns[provider]!)) {
        it.scoped(`${provider} ${mode}: an empty model turn (${name}) is an error, not an empty answer`, () =>
          Effect.gen(function* () {
            const server = yield* misbehaving
            server.answer = answer
            const model = yield* make(server.origin)
            const exit = yield* Effect.exit(mode === "generate" ? model.generate(ask("hi")) : LanguageModel.collect(model.stream(ask("hi"))))
            expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "MalformedResponse" } } })
          })
        )
      }
    }
  }
})

// Fields of the wrong type, inside otherwise well-formed answers: the SDKs pass them through unchecked, so only the
// provider's own wire Schemas stand between them and a call named 42 or a usage of "7" tokens.
const completion = (message: string, extra = "") =>
  body(`{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [{"index": 0, "message": ${message}, "finish_reason": "stop"}]${extra}}`, "application/json")
const chunk = (delta: string, extra = "") => events(`{"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [{"index": 0, "delta": ${delta}}]${extra}}`, "[DONE]")
const candidate = (parts: string, extra = "") => `{"candidates": [{"content": {"role": "model", "parts": ${parts}}, "finishReason": "STOP"}]${extra}}`
const wrongTypes: Record<keyof typeof models, Record<string, Record<"generate" | "stream", Answer>>> = {
  chat: {
    "a call named 42": {
      generate: completion(`{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": 42, "arguments": "{}"}}]}`),
      stream: chunk(`{"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": 42, "arguments": "{}"}}]}`)
    },
    "text that is a number": { generate: completion(`{"role": "assistant", "content": 5}`), stream: chunk(`{"content": 5}`) },
    "a token count that is a string": {
      generate: completion(`{"role": "assistant", "content": "hi"}`, `, "usage": {"prompt_tokens": "7", "completion_tokens": 1, "total_tokens": 8}`),
      stream: chunk(`{"content": "hi"}`, `, "usage": {"prompt_tokens": "7", "completion_tokens": 1, "total_tokens": 8}`)
    },
    "tool calls that are not a list": {
      generate: completion(`{"role": "assistant", "tool_calls": {"id": "c1"}}`),
      stream: chunk(`{"tool_calls": {"index": 0}}`)
    },
    "a call index that is a string": {
      generate: completion(`{"role": "assistant", "tool_calls": [{"id": "c1", "index": "0", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}`),
      stream: chunk(`{"tool_calls": [{"index": "0", "id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}`)
    }
  },
  gemini: {
    "a call named 42": {
      generate: body(candidate(`[{"functionCall": {"name": 42, "args": {}}}]`), "application/json"),
      stream: events(candidate(`[{"functionCall": {"name": 42, "args": {}}}]`))
    },
    "text that is a number": { generate: body(candidate(`[{"text": 5}]`), "application/json"), stream: events(candidate(`[{"text": 5}]`)) },
    "a token count that is a string": {
      generate: body(candidate(`[{"text": "hi"}]`, `, "usageMetadata": {"promptTokenCount": "7"}`), "application/json"),
      stream: events(candidate(`[{"text": "hi"}]`, `, "usageMetadata": {"promptTokenCount": "7"}`))
    },
    "a block reason that is a number": {
      generate: body(`{"promptFeedback": {"blockReason": 7}}`, "application/json"),
      stream: events(`{"promptFeedback": {"blockReason": 7}}`)
    },
    "a function response named 42 beside the text": {
      generate: body(candidate(`[{"text": "hi"}, {"functionResponse": {"name": 42}}]`), "application/json"),
      stream: events(candidate(`[{"text": "hi"}, {"functionResponse": {"name": 42}}]`))
    }
  }
}

/** What each of them says: one line, naming the field, what fits there and what came (the whole Schema is not in it). */
const wrongTypeMessages: Record<string, string> = {
  "gemini generate: a call named 42": "unexpected response shape: candidates[0].content.parts[0].functionCall.name should be a string, got 42",
  "gemini stream: a call named 42": "unexpected response shape: candidates[0].content.parts[0].functionCall.name should be a string, got 42",
  "gemini generate: text that is a number": "unexpected response shape: candidates[0].content.parts[0].text should be a string, got 5",
  "gemini stream: text that is a number": "unexpected response shape: candidates[0].content.parts[0].text should be a string, got 5",
  "gemini generate: a token count that is a string": "unexpected response shape: usageMetadata.promptTokenCount should be a number, got \"7\"",
  "gemini stream: a token count that is a string": "unexpected response shape: usageMetadata.promptTokenCount should be a number, got \"7\"",
  "gemini generate: a block reason that is a number": "unexpected response shape: promptFeedback.blockReason should be a string, got 7",
  "gemini stream: a block reason that is a number": "unexpected response shape: promptFeedback.blockReason should be a string, got 7",
  "gemini generate: a function response named 42 beside the text": "unexpected response shape: candidates[0].content.parts[1].functionResponse.name should be a string, got 42",
  "gemini stream: a function response named 42 beside the text": "unexpected response shape: candidates[0].content.parts[1].functionResponse.name should be a string, got 42",
  "chat generate: a call named 42": "unexpected completion shape: choices[0].message.tool_calls[0].function.name should be a string, got 42",
  "chat stream: a call named 42": "unexpected chunk shape: choices[0].delta.tool_calls[0].function.name should be a string or null, got 42",
  "chat generate: text that is a number": "unexpected completion shape: choices[0].message.content should be a string or null, got 5",
  "chat stream: text that is a number": "unexpected chunk shape: choices[0].delta.content should be a string or null, got 5",
  "chat generate: a token count that is a string": "unexpected completion shape: usage.prompt_tokens should be a number or null, got \"7\"",
  "chat stream: a token count that is a string": "unexpected chunk shape: usage.prompt_tokens should be a number or null, got \"7\"",
  "chat generate: tool calls that are not a list": "unexpected completion shape: choices[0].message.tool_calls should be an array or null, got an object",
  "chat stream: tool calls that are not a list": "unexpected chunk shape: choices[0].delta.tool_calls should be an array or null, got an object",
  "chat generate: a call index that is a string": "unexpected completion shape: choices[0].message.tool_calls[0].index should be a number or null, got \"0\"",
  "chat stream: a call index that is a string": "unexpected chunk shape: choices[0].delta.tool_calls[0].index should be a number or null, got \"0\""
}

describe("a 200 whose fields have the wrong type is MalformedResponse (one line naming the field), never a call or a count made of them", () => {
  for (const [provider, make] of Object.entries(models)) {
    for (const [name, answers] of Object.entries(wrongTypes[provider as keyof typeof models])) {
      for (const mode of ["generate", "stream"] as const) {
        it.scoped(`${provider} ${mode}: ${name}`, () =>
          Effect.gen(function* () {
            const server = yield* misbehaving
            server.answer = answers[mode]
            const model = yield* make(server.origin)
            const exit = yield* Effect.exit(mode === "generate" ? model.generate(ask("hi")) : LanguageModel.collect(model.stream(ask("hi"))))
            expect(exit).toMatchObject({ _tag: "Failure", cause: { _tag: "Fail", error: { _tag: "MalformedResponse", message: wrongTypeMessages[`${provider} ${mode}: ${name}`] } } })
          })
        )
      }
    }
  }
})
