/**
 * The emulator is a check only if it catches the layers' mistakes. Here the layers' encoders are wrapped so that
 * each test can break what they put on the wire in one classic way (each one a defect seen in other toolkits),
 * and the run through the real SDK and the emulator must fail with the server's own refusal.
 */
import { Agent, LanguageModel } from "@agentfx/core"
import { Policy } from "@agentfx/emulator"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { vi } from "vitest"
import type * as GeminiCodec from "../src/internal/gemini/codec.js"
import type * as OpenAICodec from "../src/internal/openai/codec.js"
import { registry, setup } from "./fixtures.js"

type Body = { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> }
type Messages = Array<Record<string, unknown>>

const breakage: { gemini?: (body: Body) => void; chat?: (messages: Messages) => void } = {}

vi.mock("../src/internal/gemini/codec.js", async (importOriginal) => {
  const original = await importOriginal<typeof GeminiCodec>()
  return {
    ...original,
    encodeRequest: (...args: Parameters<typeof original.encodeRequest>) => {
      const encoded = original.encodeRequest(...args)
      if (encoded._tag === "Right") breakage.gemini?.(encoded.right as unknown as Body)
      return encoded
    }
  }
})

vi.mock("../src/internal/openai/codec.js", async (importOriginal) => {
  const original = await importOriginal<typeof OpenAICodec>()
  return {
    ...original,
    encodeMessages: (...args: Parameters<typeof original.encodeMessages>) => {
      const messages = original.encodeMessages(...args)
      breakage.chat?.(messages as unknown as Messages)
      return messages
    }
  }
})

afterEach(() => {
  delete breakage.gemini
  delete breakage.chat
})

const twoTurns = () => Policy.script([{ calls: [{ name: "get_weather", args: { city: "Paris" } }] }, { reasoning: "Done.", text: "20 °C" }])
const firstTwoTurns = () => Policy.script([{ reasoning: "Let me look.", calls: [{ name: "get_weather", args: { city: "Paris" } }] }, { text: "20 °C" }])

const failure = (provider: "gemini" | "glm" | "openai", policy: Policy.Policy) =>
  Effect.gen(function* () {
    const { model } = yield* setup(provider, { policy })
    const exit = yield* Effect.exit(Agent.run({ registry, prompt: "Weather in Paris?" }).pipe(Effect.provideService(LanguageModel.LanguageModel, model)))
    if (Exit.isSuccess(exit)) throw new Error("the broken wire was accepted")
    return exit.cause
  })

describe("a layer that puts a wrong shape on the wire is refused by the emulator", () => {
  it.scoped("Gemini: function responses sent with role `function`", () =>
    Effect.gen(function* () {
      breakage.gemini = (body) => {
        for (const content of body.contents) if (content.parts.some((part) => "functionResponse" in part)) content.role = "function"
      }
      expect(yield* failure("gemini", twoTurns())).toMatchObject({ error: { _tag: "InvalidRequest", message: "INVALID_ARGUMENT: Please use a valid role: user, model." } })
    }))

  it.scoped("Gemini: a result sent as it is instead of as an object", () =>
    Effect.gen(function* () {
      breakage.gemini = (body) => {
        for (const content of body.contents) for (const part of content.parts) if (part.functionResponse !== undefined) (part.functionResponse as { response: unknown }).response = "20 degrees"
      }
      expect(yield* failure("gemini", twoTurns())).toMatchObject({ error: { _tag: "InvalidRequest" } })
    }))

  it.scoped("Gemini: the thought signature dropped from the echoed call", () =>
    Effect.gen(function* () {
      breakage.gemini = (body) => {
        for (const content of body.contents) for (const part of content.parts) delete part.thoughtSignature
      }
      const cause = yield* failure("gemini", twoTurns())
      expect(cause).toMatchObject({ error: { _tag: "InvalidRequest" } })
      expect(JSON.stringify(cause)).toContain("Function call is missing a thought_signature")
    }))

  it.scoped("OpenAI: GLM's reasoning_content echoed to a server that does not know it", () =>
    Effect.gen(function* () {
      breakage.chat = (messages) => {
        for (const message of messages) if (message.role === "assistant") message.reasoning_content = "Let me look."
      }
      const cause = yield* failure("openai", firstTwoTurns())
      expect(JSON.stringify(cause)).toContain("Additional properties are not allowed ('reasoning_content' was unexpected)")
    }))

  it.scoped("GLM: the tool messages left out after the assistant's tool calls", () =>
    Effect.gen(function* () {
      breakage.chat = (messages) => {
        for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "tool") messages.splice(i, 1)
      }
      const cause = yield* failure("glm", firstTwoTurns())
      expect(JSON.stringify(cause)).toContain("must be followed by tool messages responding to each 'tool_call_id'")
    }))

  it.scoped("without a breakage the same runs are accepted (the wrapper itself changes nothing)", () =>
    Effect.gen(function* () {
      for (const [provider, policy] of [["gemini", twoTurns()], ["openai", firstTwoTurns()], ["glm", firstTwoTurns()]] as const) {
        const { model } = yield* setup(provider, { policy })
        const result = yield* Agent.run({ registry, prompt: "Weather in Paris?" }).pipe(Effect.provideService(LanguageModel.LanguageModel, model))
        expect(result.text).toBe("20 °C")
      }
    }))
})
