import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Schema, TestClock } from "effect"
import { Agent, ModelError, Registry, Retry, Tool, Turn } from "../src/index.js"
import { Scripted } from "../src/testing.js"

const add = Tool.make("add", {
  description: "a + b",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  handler: ({ a, b }) => Effect.succeed(a + b)
})

const malformed = new ModelError.MalformedResponse({
  message: "the model produced an unusable function call (MALFORMED_FUNCTION_CALL): Malformed function call: add(a=1, b=)",
  malformedCall: "MALFORMED_FUNCTION_CALL: Malformed function call: add(a=1, b=)"
})

const script: ReadonlyArray<Scripted.Step> = [{ error: malformed }, { calls: [{ name: "add", args: { a: 1, b: 2 } }] }, { text: "3" }]

const run = (onMalformedCall: Agent.Options<never>["onMalformedCall"], retry = Retry.policy({ base: "1 second" })) =>
  Effect.gen(function* () {
    const registry = yield* Registry.make(add)
    const fiber = yield* Effect.fork(
      Effect.gen(function* () {
        const result = yield* Effect.either(Agent.run({ registry, prompt: "1 + 2?", onMalformedCall, retry }))
        return { result, requests: yield* (yield* Scripted.ScriptedModel).requests }
      }).pipe(Effect.provide(Scripted.layer(script)))
    )
    yield* TestClock.adjust("1 minute")
    return yield* Fiber.join(fiber)
  })

const lastTurn = (request: { readonly transcript: ReadonlyArray<Turn.Turn> }) => request.transcript[request.transcript.length - 1]!

describe("a malformed function call", () => {
  it.effect("by default the retry tells the model its call was malformed and why; the transcript does not keep the note", () =>
    Effect.gen(function* () {
      const { result, requests } = yield* run(undefined)
      expect(result._tag).toBe("Right")
      if (result._tag !== "Right") return
      expect(result.right.text).toBe("3")
      expect(requests).toHaveLength(3)
      expect(requests[0]!.transcript).toHaveLength(1)
      const retried = requests[1]!
      expect(retried.transcript.slice(0, 1)).toEqual(requests[0]!.transcript)
      expect(lastTurn(retried).role).toBe("user")
      expect(Turn.text(lastTurn(retried))).toBe(
        "Your last function call was malformed and was not executed (MALFORMED_FUNCTION_CALL: Malformed function call: add(a=1, b=)). Try again: " +
          "call the function with arguments that are one valid JSON object matching its declared parameters, or answer in text."
      )
      expect(result.right.transcript.map((turn) => turn.role)).toEqual(["user", "model", "user", "model"])
      expect(result.right.transcript.some((turn) => Turn.text(turn).includes("malformed"))).toBe(false)
      // The next turn's request continues the transcript, without the note.
      expect(requests[2]!.transcript).toEqual(result.right.transcript.slice(0, 3))
    }))

  it.effect("retry: the same request again", () =>
    Effect.gen(function* () {
      const { result, requests } = yield* run("retry")
      expect(result._tag).toBe("Right")
      expect(requests[1]).toEqual(requests[0])
    }))

  it.effect("fail: the run fails at once with the typed error, one request sent", () =>
    Effect.gen(function* () {
      const { result, requests } = yield* run("fail")
      expect(result).toMatchObject({ _tag: "Left", left: { _tag: "MalformedResponse", malformedCall: malformed.malformedCall } })
      expect(requests).toHaveLength(1)
    }))

  it.effect("the feedback retries count against the retry policy: with none left, the run fails with the error", () =>
    Effect.gen(function* () {
      const { result, requests } = yield* run("feedback", Retry.never)
      expect(result).toMatchObject({ _tag: "Left", left: { _tag: "MalformedResponse" } })
      expect(requests).toHaveLength(1)
    }))

  it.effect("other malformed responses are retried unchanged under every policy", () =>
    Effect.gen(function* () {
      const registry = yield* Registry.make(add)
      const broken = new ModelError.MalformedResponse({ message: "bad JSON" })
      for (const onMalformedCall of ["feedback", "retry", "fail"] as const) {
        const fiber = yield* Effect.fork(
          Effect.gen(function* () {
            const result = yield* Agent.run({ registry, prompt: "hi", onMalformedCall, retry: Retry.policy({ base: "1 second" }) })
            return { result, requests: yield* (yield* Scripted.ScriptedModel).requests }
          }).pipe(Effect.provide(Scripted.layer([{ error: broken }, { text: "hello" }])))
        )
        yield* TestClock.adjust("1 minute")
        const { result, requests } = yield* Fiber.join(fiber)
        expect(result.text).toBe("hello")
        expect(requests[1]).toEqual(requests[0])
      }
    }))
})
