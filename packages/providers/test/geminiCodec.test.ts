/**
 * The Gemini codec driven directly: each wire field decoded to its neutral place and back, the request body's
 * optional members present exactly when asked for, usage arithmetic and every finish reason.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import type { FunctionDeclaration, LanguageModel, Turn } from "@agentfx/core"
import { Dialect } from "@agentfx/core"
import * as Codec from "../src/internal/gemini/codec.js"
import type * as Wire from "../src/internal/gemini/wire.js"

/** Synthesised ids name the position they were asked for. */
const source = { next: (position: number) => `made_${position}` }

const decode = (part: Wire.Part, position = 0) => Codec.decodeModelPart(part, source, position)

const declaration: FunctionDeclaration.FunctionDeclaration = {
  name: "lamp",
  description: "Switches the lamp",
  parameters: { type: "object", properties: { on: { type: "boolean" } }, required: ["on"] }
}

const request = (fields: Partial<LanguageModel.Request> = {}): LanguageModel.Request => ({ transcript: [{ role: "user", parts: [{ _tag: "Text", text: "hi" }] }], declarations: [], ...fields })

const body = (fields: Partial<LanguageModel.Request> = {}) => Either.getOrThrow(Codec.encodeRequest(request(fields)))

describe("Gemini codec: wire parts to neutral parts", () => {
  it("a text part keeps its signature and unknown fields, and leaves out fields that are undefined", () => {
    expect(decode({ text: "hello" })).toStrictEqual({ _tag: "Text", text: "hello" })
    expect(decode({ text: "hello", thoughtSignature: "sig", videoMetadata: { fps: 1 }, partMetadata: undefined } as Wire.Part)).toStrictEqual({
      _tag: "Text",
      text: "hello",
      metadata: { thoughtSignature: "sig", geminiPart: { videoMetadata: { fps: 1 } } }
    })
    // `thought: false` is not a known field of a text part: it is kept as it came.
    expect(decode({ text: "hello", thought: false } as Wire.Part)).toStrictEqual({ _tag: "Text", text: "hello", metadata: { geminiPart: { thought: false } } })
  })

  it("a thought is reasoning, its `thought` flag not repeated among the extra fields", () => {
    expect(decode({ text: "pondering", thought: true })).toStrictEqual({ _tag: "Reasoning", text: "pondering" })
    expect(decode({ text: "pondering", thought: true, thoughtSignature: "s1" })).toStrictEqual({ _tag: "Reasoning", text: "pondering", metadata: { thoughtSignature: "s1" } })
  })

  it("a call keeps its id, or is given one and marked synthetic; its signature and other fields are kept", () => {
    expect(decode({ functionCall: { id: "c1", name: "lamp", args: { on: true } } })).toStrictEqual({ _tag: "FunctionCall", id: "c1", name: "lamp", args: { on: true } })
    expect(decode({ functionCall: { name: "lamp" }, thoughtSignature: "s", extra: 1 } as Wire.Part, 4)).toStrictEqual({
      _tag: "FunctionCall",
      id: "made_4",
      name: "lamp",
      args: {},
      metadata: { thoughtSignature: "s", syntheticId: true, geminiPart: { extra: 1 } }
    })
  })

  it("a part with both text and a function response, or neither, is kept opaque", () => {
    const both = { text: "x", functionResponse: { name: "f", response: {} } } as Wire.Part
    expect(decode(both)).toStrictEqual({ _tag: "Opaque", provider: "gemini", data: both })
    expect(decode({ inlineData: { mimeType: "image/png", data: "AA==" } } as Wire.Part)).toMatchObject({ _tag: "Opaque", provider: "gemini" })
  })

  it("synthesised ids count calls only, in order", () => {
    const parts = Codec.decodeModelParts(
      [{ text: "a" }, { functionCall: { name: "f" } }, { text: "b" }, { functionCall: { name: "g" } }, { functionCall: { id: "given", name: "h" } }, { functionCall: { name: "k" } }],
      source
    )
    expect(parts.flatMap((part) => (part._tag === "FunctionCall" ? [part.id] : []))).toEqual(["made_0", "made_1", "given", "made_3"])
  })
})

describe("Gemini codec: neutral parts to wire parts", () => {
  it("each part goes back exactly as it came, signature and extra fields included", () => {
    const wire: Array<Wire.Part> = [
      { text: "hello", thoughtSignature: "sig", videoMetadata: { fps: 1 } } as Wire.Part,
      { text: "pondering", thought: true, thoughtSignature: "s1" },
      { functionCall: { id: "c1", name: "lamp", args: { on: true } }, thoughtSignature: "s2" }
    ]
    const parts = Codec.decodeModelParts(wire, source)
    expect(parts.map((part) => Codec.encodePart(part, new Set()))).toStrictEqual(wire)
  })

  it("a signature that is not a string is not sent", () => {
    expect(Codec.encodePart({ _tag: "Text", text: "hi", metadata: { thoughtSignature: 42 } }, new Set())).toStrictEqual({ text: "hi" })
  })

  it("a synthetic id never goes on the wire, for the call nor for its response", () => {
    const transcript: Array<Turn.Turn> = [
      { role: "user", parts: [{ _tag: "Text", text: "go" }] },
      { role: "model", parts: [Codec.decodeModelPart({ functionCall: { name: "lamp", args: { on: true } } }, source, 0), { _tag: "FunctionCall", id: "real", name: "lamp", args: {} }] },
      {
        role: "user",
        parts: [
          { _tag: "FunctionResponse", id: "made_0", name: "lamp", response: { ok: true }, isError: false },
          { _tag: "FunctionResponse", id: "real", name: "lamp", response: { ok: false }, isError: false }
        ]
      }
    ]
    expect(Codec.encodeContents(transcript)).toStrictEqual([
      { role: "user", parts: [{ text: "go" }] },
      { role: "model", parts: [{ functionCall: { name: "lamp", args: { on: true } } }, { functionCall: { id: "real", name: "lamp", args: {} } }] },
      {
        role: "user",
        parts: [{ functionResponse: { name: "lamp", response: { ok: true } } }, { functionResponse: { id: "real", name: "lamp", response: { ok: false } } }]
      }
    ])
  })

  it("opaque parts go back only to their own provider, only as objects; a turn left without parts is not sent", () => {
    const mine = { inlineData: { mimeType: "image/png", data: "AA==" } }
    expect(Codec.encodePart({ _tag: "Opaque", provider: "gemini", data: mine }, new Set())).toBe(mine)
    expect(Codec.encodePart({ _tag: "Opaque", provider: "openai", data: mine }, new Set())).toBeUndefined()
    expect(Codec.encodePart({ _tag: "Opaque", provider: "gemini", data: "text" }, new Set())).toBeUndefined()
    expect(
      Codec.encodeContents([
        { role: "user", parts: [{ _tag: "Text", text: "hi" }] },
        { role: "model", parts: [{ _tag: "Opaque", provider: "openai", data: {} }] }
      ])
    ).toStrictEqual([{ role: "user", parts: [{ text: "hi" }] }])
  })
})

describe("Gemini codec: the request body", () => {
  it("has contents only when nothing else is asked for", () => {
    expect(body()).toStrictEqual({ contents: [{ role: "user", parts: [{ text: "hi" }] }] })
    expect(body({ system: "" })).toStrictEqual({ contents: [{ role: "user", parts: [{ text: "hi" }] }] })
  })

  it("carries the system instruction, tools, tool choice and generation settings when given", () => {
    const full = body({ system: "Be brief.", declarations: [declaration], toolChoice: "any", temperature: 0, maxOutputTokens: 64 })
    expect(full.systemInstruction).toStrictEqual({ role: "user", parts: [{ text: "Be brief." }] })
    expect(full.tools).toStrictEqual([{ functionDeclarations: [Either.getOrThrow(Dialect.gemini(declaration))] }])
    expect(full.toolConfig).toStrictEqual({ functionCallingConfig: { mode: "ANY" } })
    expect(full.generationConfig).toStrictEqual({ temperature: 0, maxOutputTokens: 64 })
    expect(body({ maxOutputTokens: 10 }).generationConfig).toStrictEqual({ maxOutputTokens: 10 })
    expect(Object.keys(body({ declarations: [declaration] }))).toEqual(["contents", "tools"])
  })

  it("a tool choice without tools is not sent (Gemini refuses a tool config with no functions)", () => {
    expect(Object.keys(body({ toolChoice: "any" }))).toEqual(["contents"])
  })

  it("maps every tool choice", () => {
    expect(Codec.encodeToolConfig(undefined)).toBeUndefined()
    expect(Codec.encodeToolConfig("auto")).toStrictEqual({ functionCallingConfig: { mode: "AUTO" } })
    expect(Codec.encodeToolConfig("none")).toStrictEqual({ functionCallingConfig: { mode: "NONE" } })
    expect(Codec.encodeToolConfig("any")).toStrictEqual({ functionCallingConfig: { mode: "ANY" } })
    expect(Codec.encodeToolConfig({ allowed: ["lamp", "door"] } as LanguageModel.ToolChoice)).toStrictEqual({
      functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["lamp", "door"] }
    })
  })
})

describe("Gemini codec: usage and finish reasons", () => {
  it("usage: thoughts count as output and are reported apart; a total is computed only when absent; cached tokens kept", () => {
    expect(Codec.decodeUsage(undefined)).toStrictEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 })
    expect(Codec.decodeUsage({ promptTokenCount: 10, candidatesTokenCount: 4 })).toStrictEqual({ inputTokens: 10, outputTokens: 4, totalTokens: 14 })
    expect(Codec.decodeUsage({ promptTokenCount: 10, candidatesTokenCount: 4, thoughtsTokenCount: 3, cachedContentTokenCount: 6, totalTokenCount: 99 })).toStrictEqual({
      inputTokens: 10,
      outputTokens: 7,
      totalTokens: 99,
      reasoningTokens: 3,
      cachedTokens: 6
    })
    expect(Codec.decodeUsage({ thoughtsTokenCount: 0, totalTokenCount: 0 })).toStrictEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0, reasoningTokens: 0 })
  })

  it("finish reasons", () => {
    for (const reason of [undefined, "STOP", "FINISH_REASON_UNSPECIFIED"]) {
      expect(Codec.decodeFinishReason(reason, false)).toBe("stop")
      expect(Codec.decodeFinishReason(reason, true)).toBe("tool_calls")
    }
    expect(Codec.decodeFinishReason("MAX_TOKENS", true)).toBe("length")
    for (const reason of ["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION"]) {
      expect(Codec.decodeFinishReason(reason, false)).toBe("safety")
    }
    for (const reason of ["MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"]) {
      expect(Codec.decodeFinishReason(reason, true)).toBe("malformed_call")
    }
    expect(Codec.decodeFinishReason("LANGUAGE", false)).toBe("other")
    expect(Codec.decodeFinishReason("", false)).toBe("other")
  })
})
