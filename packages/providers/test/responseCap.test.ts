import { LanguageModel } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Redacted } from "effect"
import * as ChatCompletions from "../src/ChatCompletions.js"
import * as Gemini from "../src/Gemini.js"
import { ask, sentinel } from "./fixtures.js"
import type { Answer } from "./support/misbehaving.js"
import { misbehaving } from "./support/misbehaving.js"

const limit = 256 * 1024

/** A 200 that starts with `head` and repeats `unit` for as long as the client reads; `closed` when it stops. */
const endless = (head: string, unit: string, contentType: string, closed: Deferred.Deferred<number>): Answer => (_, response) => {
  let sent = 0
  response.writeHead(200, { "content-type": contentType })
  response.write(head)
  const fill = () => {
    while (!response.destroyed && response.write(unit)) sent += unit.length
    if (!response.destroyed) response.once("drain", fill)
  }
  response.on("close", () => Deferred.unsafeDone(closed, Effect.succeed(sent)))
  fill()
}

const text = "x".repeat(1024)
const shapes = {
  gemini: {
    make: (origin: string) => Gemini.make({ apiKey: Redacted.make(sentinel), baseUrl: origin, maxResponseBytes: limit }),
    generate: [`{"candidates": [{"content": {"role": "model", "parts": [{"text": "`, text],
    stream: ["", `data: {"candidates": [{"content": {"role": "model", "parts": [{"text": "${text}"}]}}]}\n\n`]
  },
  chat: {
    make: (origin: string) => ChatCompletions.make({ apiKey: Redacted.make(sentinel), baseUrl: origin, model: "m", maxResponseBytes: limit }),
    generate: [`{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": "`, text],
    stream: ["", `data: {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [{"index": 0, "delta": {"content": "${text}"}}]}\n\n`]
  }
} as const

describe("a response larger than maxResponseBytes fails with a typed error and the connection is closed", () => {
  for (const [provider, shape] of Object.entries(shapes)) {
    for (const mode of ["generate", "stream"] as const) {
      it.scoped(`${provider} ${mode}: an endless body`, () =>
        Effect.gen(function* () {
          const server = yield* misbehaving
          const closed = yield* Deferred.make<number>()
          const [head, unit] = shape[mode]
          server.answer = endless(head, unit, mode === "stream" ? "text/event-stream" : "application/json", closed)
          const model = yield* shape.make(server.origin)
          const error = yield* Effect.flip(mode === "generate" ? model.generate(ask("hi")) : LanguageModel.collect(model.stream(ask("hi"))))
          expect(error).toMatchObject({ _tag: "MalformedResponse" })
          expect(error.message).toBe("the response is larger than the limit of 256 KiB (maxResponseBytes); it was not read further")
          // The server saw the connection closed: nothing keeps reading the endless body.
          yield* Deferred.await(closed)
        })
      )
    }

    it.scoped(`${provider}: a declared content-length over the limit is refused unread`, () =>
      Effect.gen(function* () {
        const server = yield* misbehaving
        server.answer = (_, response) => {
          response.writeHead(200, { "content-type": "application/json", "content-length": String(limit + 1) })
          response.write("{")
        }
        const model = yield* shape.make(server.origin)
        const error = yield* Effect.flip(model.generate(ask("hi")))
        expect(error.message).toContain("larger than the limit of 256 KiB")
      })
    )
  }

  it.scoped("a response under the limit is read as before", () =>
    Effect.gen(function* () {
      const server = yield* misbehaving
      server.answer = (_, response) =>
        response
          .writeHead(200, { "content-type": "application/json" })
          .end(`{"candidates": [{"content": {"role": "model", "parts": [{"text": "${"y".repeat(limit - 200)}"}]}, "finishReason": "STOP"}]}`)
      const model = yield* shapes.gemini.make(server.origin)
      const response = yield* model.generate(ask("hi"))
      expect(response.turn.parts).toMatchObject([{ _tag: "Text", text: "y".repeat(limit - 200) }])
    })
  )
})
