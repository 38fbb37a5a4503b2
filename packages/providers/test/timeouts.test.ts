/**
 * The three bounds on a model request (first byte, idle, whole turn) through the real SDKs against a local server
 * that the test drives chunk by chunk. The run's clock is the TestClock: the test writes a chunk, waits until the
 * run has seen it, then moves the clock, so no test sleeps and none depends on the machine's speed.
 */
import { Agent, LanguageModel, Registry, Retry } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer, Queue, Redacted, Stream, TestClock } from "effect"
import type { ServerResponse } from "node:http"
import * as ChatCompletions from "../src/ChatCompletions.js"
import * as Gemini from "../src/Gemini.js"
import { sentinel } from "./fixtures.js"
import { misbehaving } from "./support/misbehaving.js"

interface Wire {
  readonly make: (origin: string) => Effect.Effect<LanguageModel.Service>
  readonly chunk: (text: string) => string
  readonly end: string
  readonly whole: (text: string) => string
}

const wires: Record<string, Wire> = {
  gemini: {
    make: (origin) => Gemini.make({ apiKey: Redacted.make(sentinel), baseUrl: origin }),
    chunk: (text) => `data: ${JSON.stringify({ candidates: [{ content: { role: "model", parts: [{ text }] } }] })}\n\n`,
    end: `data: ${JSON.stringify({ candidates: [{ content: { role: "model", parts: [{ text: "." }] }, finishReason: "STOP" }] })}\n\n`,
    whole: (text) => JSON.stringify({ candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP" }] })
  },
  chat: {
    make: (origin) => ChatCompletions.make({ apiKey: Redacted.make(sentinel), baseUrl: origin, model: "m" }),
    chunk: (content) => `data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta: { content } }] })}\n\n`,
    end: `data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta: { content: "." }, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`,
    whole: (content) =>
      JSON.stringify({ id: "x", object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }] })
  }
}

/** A server that holds every request until the test answers it; `held` gives the next request's response. */
const holding = Effect.gen(function* () {
  const server = yield* misbehaving
  const held = yield* Queue.unbounded<ServerResponse>()
  const closed = yield* Deferred.make<void>()
  server.answer = (request, response) => {
    request.socket.once("close", () => Deferred.unsafeDone(closed, Exit.void))
    Queue.unsafeOffer(held, response)
  }
  return { server, held, closed }
})

const startStream = (response: ServerResponse) => response.writeHead(200, { "content-type": "text/event-stream" })

const options = (overrides: Partial<Agent.Options<never>>): Agent.Options<never> => ({
  registry: Registry.empty,
  prompt: "go",
  retry: Retry.never,
  streaming: true,
  ...overrides
})

/** The run as a fiber, and a queue of the text it has streamed so far. */
const follow = (layer: Layer.Layer<LanguageModel.LanguageModel>, run: Agent.Options<never>) =>
  Effect.gen(function* () {
    const deltas = yield* Queue.unbounded<string>()
    const fiber = yield* Effect.fork(
      Agent.stream(run).pipe(
        Stream.runForEach((event) => (event._tag === "TextDelta" ? Queue.offer(deltas, event.text) : Effect.void)),
        Effect.provide(layer)
      )
    )
    return { fiber, deltas }
  })

describe("bounded waits through the real SDKs", () => {
  for (const [provider, wire] of Object.entries(wires)) {
    it.scoped(`${provider}: a stream sending a chunk every second for 20 s (past the old 15 s total) succeeds with a 2 s idle bound`, () =>
      Effect.gen(function* () {
        const { server, held } = yield* holding
        const layer = Layer.effect(LanguageModel.LanguageModel, wire.make(server.origin))
        const { fiber, deltas } = yield* follow(layer, options({ idleTimeout: "2 seconds", firstByteTimeout: "2 seconds" }))
        const response = yield* Queue.take(held)
        startStream(response)
        for (let i = 0; i < 20; i++) {
          response.write(wire.chunk(`w${i} `))
          expect(yield* Queue.take(deltas)).toBe(`w${i} `)
          yield* TestClock.adjust("1 second")
        }
        response.end(wire.end)
        yield* Fiber.join(fiber)
        expect(server.requests).toHaveLength(1)
      }))

    it.scoped(`${provider}: a server that never sends headers is cut at firstByteTimeout, and the connection is closed`, () =>
      Effect.gen(function* () {
        const { server, held, closed } = yield* holding
        const layer = Layer.effect(LanguageModel.LanguageModel, wire.make(server.origin))
        const { fiber } = yield* follow(layer, options({ firstByteTimeout: "5 seconds" }))
        yield* Queue.take(held)
        yield* TestClock.adjust("4999 millis")
        expect(fiber.unsafePoll()).toBeNull()
        yield* TestClock.adjust("1 millis")
        const exit = yield* Fiber.await(fiber)
        expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "ModelTimeout", limit: "firstByte" } } })
        yield* Deferred.await(closed)
      }))

    it.scoped(`${provider}: a stream that stalls after its first chunk is cut at idleTimeout, and the connection is closed`, () =>
      Effect.gen(function* () {
        const { server, held, closed } = yield* holding
        const layer = Layer.effect(LanguageModel.LanguageModel, wire.make(server.origin))
        const { fiber, deltas } = yield* follow(layer, options({ idleTimeout: "3 seconds" }))
        const response = yield* Queue.take(held)
        startStream(response)
        response.write(wire.chunk("first "))
        yield* Queue.take(deltas)
        yield* TestClock.adjust("2999 millis")
        expect(fiber.unsafePoll()).toBeNull()
        yield* TestClock.adjust("1 millis")
        const exit = yield* Fiber.await(fiber)
        expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "ModelTimeout", limit: "idle" } } })
        yield* Deferred.await(closed)
      }))

    it.scoped(`${provider}: a stream that goes on past turnTimeout is cut there, as a turn timeout`, () =>
      Effect.gen(function* () {
        const { server, held } = yield* holding
        const layer = Layer.effect(LanguageModel.LanguageModel, wire.make(server.origin))
        const { fiber, deltas } = yield* follow(layer, options({ idleTimeout: "2 seconds", turnTimeout: "10 seconds" }))
        const response = yield* Queue.take(held)
        startStream(response)
        for (let i = 0; i < 10; i++) {
          response.write(wire.chunk(`w${i} `))
          yield* Queue.take(deltas)
          yield* TestClock.adjust("1 second")
        }
        const exit = yield* Fiber.await(fiber)
        expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "ModelTimeout", limit: "turn" } } })
      }))

    it.scoped(`${provider}: a non-streamed answer that takes 20 s succeeds (only the turn bound applies)`, () =>
      Effect.gen(function* () {
        const { server, held } = yield* holding
        const layer = Layer.effect(LanguageModel.LanguageModel, wire.make(server.origin))
        const fiber = yield* Effect.fork(
          Agent.run(options({ streaming: false, firstByteTimeout: "1 second", idleTimeout: "1 second" })).pipe(Effect.provide(layer))
        )
        const response = yield* Queue.take(held)
        yield* TestClock.adjust("20 seconds")
        response.writeHead(200, { "content-type": "application/json" }).end(wire.whole("done"))
        const result = yield* Fiber.join(fiber)
        expect(result.text).toBe("done")
      }))

    it.scoped(`${provider}: a non-streamed answer that goes on past turnTimeout is cut there, and the connection is closed`, () =>
      Effect.gen(function* () {
        const { server, held, closed } = yield* holding
        const layer = Layer.effect(LanguageModel.LanguageModel, wire.make(server.origin))
        const fiber = yield* Effect.fork(Agent.run(options({ streaming: false, turnTimeout: "10 seconds" })).pipe(Effect.provide(layer)))
        yield* Queue.take(held)
        yield* TestClock.adjust("10 seconds")
        const exit = yield* Fiber.await(fiber)
        expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "ModelTimeout", limit: "turn" } } })
        yield* Deferred.await(closed)
      }))
  }
})
