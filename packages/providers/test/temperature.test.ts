/** No sampling temperature goes on the wire unless the caller sets one: the provider's default applies. */
import { Agent, LanguageModel, Registry, Retry } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import * as ChatCompletions from "../src/ChatCompletions.js"
import * as Gemini from "../src/Gemini.js"
import { sentinel } from "./fixtures.js"
import { body, misbehaving } from "./support/misbehaving.js"

const providers: Record<string, { make: (origin: string) => Effect.Effect<LanguageModel.Service>; answer: string; temperatureOf: (sent: Record<string, unknown>) => unknown }> = {
  gemini: {
    make: (origin) => Gemini.make({ apiKey: Redacted.make(sentinel), baseUrl: origin }),
    answer: JSON.stringify({ candidates: [{ content: { role: "model", parts: [{ text: "hi" }] }, finishReason: "STOP" }] }),
    temperatureOf: (sent) => (sent.generationConfig as Record<string, unknown> | undefined)?.temperature
  },
  chat: {
    make: (origin) => ChatCompletions.make({ apiKey: Redacted.make(sentinel), baseUrl: origin, model: "m" }),
    answer: JSON.stringify({ id: "x", object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }] }),
    temperatureOf: (sent) => sent.temperature
  }
}

describe("temperature on the wire", () => {
  for (const [name, provider] of Object.entries(providers)) {
    for (const temperature of [undefined, 0, 0.7]) {
      it.scoped(`${name}: ${temperature === undefined ? "none is sent when none is set" : `${temperature} is sent when set`}`, () =>
        Effect.gen(function* () {
          const server = yield* misbehaving
          server.answer = body(provider.answer, "application/json")
          const layer = Layer.effect(LanguageModel.LanguageModel, provider.make(server.origin))
          yield* Agent.run({ registry: Registry.empty, prompt: "hi", retry: Retry.never, temperature }).pipe(Effect.provide(layer))
          const sent = JSON.parse(server.bodies[0]!) as Record<string, unknown>
          expect(provider.temperatureOf(sent)).toBe(temperature)
          if (temperature === undefined) expect(server.bodies[0]).not.toContain("temperature")
        }))
    }
  }
})
