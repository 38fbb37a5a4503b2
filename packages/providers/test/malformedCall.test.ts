/**
 * Gemini's MALFORMED_FUNCTION_CALL through the emulator, the real SDK and the loop: by default the retry tells the
 * model its call was malformed (a user turn at the end of the retried request, on the wire), and under `fail` the
 * run ends with the typed error.
 */
import { Agent, LanguageModel, Retry } from "@agentfx/core"
import { Fault, Policy } from "@agentfx/emulator"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber, Layer, Option } from "effect"
import { decodeResponse } from "../src/internal/gemini/response.js"
import type * as Wire from "../src/internal/gemini/wire.js"
import { advanceWhenScheduled, contentsOf, registry, setup } from "./fixtures.js"

const script = () =>
  Policy.script([
    Policy.withFaults({ calls: [{ name: "get_weather", args: { city: "Paris" } }] }, Fault.malformedArguments("invalid")),
    { calls: [{ name: "get_weather", args: { city: "Paris" } }] },
    { text: "20 °C in Paris." }
  ])

describe("a malformed function call from Gemini", () => {
  for (const streaming of [false, true]) {
    const mode = streaming ? "stream" : "generate"
    it.scoped(`${mode}: by default the model is told its call was malformed, and the run goes on`, () =>
      Effect.gen(function* () {
        const { emulator, model } = yield* setup("gemini", { policy: script() })
        const fiber = yield* Effect.fork(
          Agent.run({ registry, prompt: "Weather in Paris?", streaming, retry: Retry.policy({ base: "1 second" }) }).pipe(
            Effect.provide(Layer.succeed(LanguageModel.LanguageModel, model))
          )
        )
        yield* advanceWhenScheduled("2 seconds")
        const result = yield* Fiber.join(fiber)
        expect(result.text).toBe("20 °C in Paris.")
        const records = yield* emulator.requests
        expect(records).toHaveLength(3)
        const retried = contentsOf(records, 1)
        expect(retried.map((content) => content.role)).toEqual(["user", "user"])
        // @google/genai drops the candidate's finishMessage, so the finish reason is what the model is told.
        expect(String(retried[1]!.parts[0]!.text)).toMatch(/^Your last function call was malformed and was not executed \(MALFORMED_FUNCTION_CALL\)/)
        // The note was for the retry only: the next request continues the transcript without it.
        expect(contentsOf(records, 2).map((content) => content.role)).toEqual(["user", "model", "user"])
      }))

    it.scoped(`${mode}: onMalformedCall "fail" ends the run with MalformedResponse naming the finish reason`, () =>
      Effect.gen(function* () {
        const { emulator, model } = yield* setup("gemini", { policy: script() })
        const error = yield* Effect.flip(
          Agent.run({ registry, prompt: "Weather in Paris?", streaming, onMalformedCall: "fail" }).pipe(Effect.provide(Layer.succeed(LanguageModel.LanguageModel, model)))
        )
        expect(error).toMatchObject({ _tag: "MalformedResponse", malformedCall: "MALFORMED_FUNCTION_CALL" })
        expect(yield* emulator.received).toBe(1)
      }))
  }
})

describe("MISSING_THOUGHT_SIGNATURE", () => {
  it("is our request's fault: InvalidRequest (not retried), never a malformed call told to the model", () => {
    for (const parts of [[], [{ functionCall: { name: "get_weather", args: { city: "Paris" } } }]]) {
      const decoded = decodeResponse([], { candidates: [{ content: { role: "model", parts }, finishReason: "MISSING_THOUGHT_SIGNATURE" }] } as Wire.Response)
      expect(Either.isLeft(decoded)).toBe(true)
      const error = Either.getLeft(decoded).pipe(Option.getOrThrow)
      expect(error._tag).toBe("InvalidRequest")
      expect(error.retryable).toBe(false)
      expect(error).not.toHaveProperty("malformedCall")
      expect(error.message).toContain("MISSING_THOUGHT_SIGNATURE")
    }
  })
})
