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
