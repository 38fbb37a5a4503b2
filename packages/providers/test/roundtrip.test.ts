import { Transcript, Turn } from "@agentfx/core"
import type { FunctionCall, FunctionResponse, Json } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import * as geminiCodec from "../src/internal/gemini/codec.js"
import * as GeminiWire from "../src/internal/gemini/wire.js"
import * as geminiEmulator from "../src/internal/emulator/gemini.js"
import * as openAICodec from "../src/internal/openai/codec.js"
import * as OpenAIWire from "../src/internal/openai/wire.js"
import * as openAIEmulator from "../src/internal/emulator/openai.js"

/** What crosses the network: JSON text, parsed again. */
const overTheWire = <A>(value: A): unknown => JSON.parse(JSON.stringify(value))

const json: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 3 }).map(overTheWire)
const key = fc.string({ maxLength: 6 }).filter((k) => k !== "__proto__")
const args: fc.Arbitrary<Json.JsonObject> = fc.dictionary(key, json, { maxKeys: 4 }).map((value) => overTheWire(value) as Json.JsonObject)
const name = fc.constantFrom("get_weather", "get_time", "list_cities", "send_email")
const base64 = fc.uint8Array({ minLength: 1, maxLength: 12 }).map((bytes) => Buffer.from(bytes).toString("base64"))

/** A success response (never exactly `{error}`), or a failure `{error: {...}}`. */
const response: fc.Arbitrary<{ response: Json.JsonObject; isError: boolean }> = fc.oneof(
  json.map((value) => ({ response: { output: value }, isError: false })),
  args.filter((value) => !(Object.keys(value).length === 1 && "error" in value)).map((value) => ({ response: value, isError: false })),
  fc.string().map((message) => ({ response: { error: { type: "ExecutionFailed", message } }, isError: true }))
)

/**
 * A transcript that satisfies the invariants: exchanges of a user message, rounds of a call turn answered by a
 * response turn (ids unique, same order), and maybe a final text turn. `modelParts` adds each provider's extras.
 */
const transcript = (
  modelParts: (calls: ReadonlyArray<FunctionCall.FunctionCall>, final: boolean) => fc.Arbitrary<ReadonlyArray<Turn.Part>>,
  callMetadata: fc.Arbitrary<FunctionCall.Metadata | undefined>,
  userText: fc.Arbitrary<string>
): fc.Arbitrary<Transcript.Transcript> => {
  const call = fc.record({ name, args, result: response, metadata: callMetadata })
  const round = fc.array(call, { minLength: 1, maxLength: 3 })
  const exchange = fc.record({ text: userText, rounds: fc.array(round, { maxLength: 2 }), final: fc.boolean() })
  return fc.array(exchange, { minLength: 1, maxLength: 3 }).chain((exchanges) => {
    let next = 0
    const pieces: Array<fc.Arbitrary<ReadonlyArray<Turn.Turn>>> = []
    for (const { text, rounds, final } of exchanges) {
      pieces.push(fc.constant([Turn.user(text)]))
      for (const round of rounds) {
        const calls = round.map((c): FunctionCall.FunctionCall => ({
          _tag: "FunctionCall",
          id: `fc-${next++}`,
          name: c.name,
          args: c.args,
          ...(c.metadata === undefined ? {} : { metadata: c.metadata })
        }))
        const responses: Array<FunctionResponse.FunctionResponse> = round.map((c, i) => ({
          _tag: "FunctionResponse",
          id: calls[i]!.id,
          name: c.name,
          response: c.result.response,
          isError: c.result.isError
        }))
        pieces.push(modelParts(calls, false).map((parts) => [{ role: "model", parts }, { role: "user", parts: responses }]))
      }
      if (final) pieces.push(modelParts([], true).map((parts) => [{ role: "model", parts }]))
    }
    return fc.tuple(...pieces).map((groups) => groups.flat())
  })
}

// ---------------------------------------------------------------------------------------------------------------
// Gemini

const signature = fc.option(base64, { nil: undefined }).map((sig) => (sig === undefined ? undefined : { thoughtSignature: sig }))
const withMetadata = <A extends { metadata?: unknown }>(part: A, metadata: object | undefined): A => (metadata === undefined ? part : { ...part, metadata })

const geminiText = fc.tuple(fc.string(), signature).map(([text, metadata]) => withMetadata(Turn.Text.make({ text }), metadata))
const geminiReasoning = fc.tuple(fc.string(), signature).map(([text, metadata]) => withMetadata(Turn.Reasoning.make({ text }), metadata))
const geminiOpaque = fc.constant(Turn.Opaque.make({ provider: "gemini", data: { inlineData: { mimeType: "image/png", data: "iVBORw0K" } } }))

const geminiModelParts = (calls: ReadonlyArray<FunctionCall.FunctionCall>, final: boolean): fc.Arbitrary<ReadonlyArray<Turn.Part>> =>
  fc
    .tuple(fc.option(geminiReasoning, { nil: undefined }), fc.array(fc.oneof(geminiText, geminiOpaque), { minLength: final ? 1 : 0, maxLength: 2 }))
    .map(([reasoning, texts]) => [...(reasoning === undefined ? [] : [reasoning]), ...texts, ...calls])

const geminiTranscript = transcript(geminiModelParts, signature, fc.string())

describe("neutral ↔ Gemini wire", () => {
  it.prop(
    "neutral → Gemini wire → neutral round-trips ids, names, args, results and signatures, and the emulator accepts the wire",
    [geminiTranscript, fc.option(fc.string({ minLength: 1 }), { nil: undefined })],
    ([original, system]) => {
      expect(Either.isRight(Transcript.validate(original))).toBe(true)
      const body = Either.getOrThrow(geminiCodec.encodeRequest({ system, transcript: original, declarations: [] }))
      const received = Either.getOrThrow(GeminiWire.decodeRequest(overTheWire(body)))
      expect(geminiEmulator.violation(received, undefined)).toBeUndefined()
      const decoded = geminiCodec.decodeRequest(received)
      expect(decoded.transcript).toEqual(original)
      expect(decoded.system).toEqual(system)
    }
  )

  /** Contents as Gemini could send them back: calls with or without ids, responses echoing whatever the call had. */
  const geminiContents = fc
    .array(
      fc.record({
        text: fc.string(),
        rounds: fc.array(fc.array(fc.record({ name, args, withId: fc.boolean(), signature: fc.option(base64, { nil: undefined }) }), { minLength: 1, maxLength: 3 }), { maxLength: 2 })
      }),
      { minLength: 1, maxLength: 3 }
    )
    .map((exchanges) => {
      let next = 0
      const contents: Array<unknown> = []
      for (const { text, rounds } of exchanges) {
        contents.push({ role: "user", parts: [{ text }] })
        for (const round of rounds) {
          const ids = round.map((call) => (call.withId ? `wire-${next++}` : undefined))
          contents.push({
            role: "model",
            parts: round.map((call, i) => ({
              functionCall: { ...(ids[i] === undefined ? {} : { id: ids[i] }), name: call.name, args: call.args },
              ...(call.signature === undefined ? {} : { thoughtSignature: call.signature })
            }))
          })
          contents.push({
            role: "user",
            parts: round.map((call, i) => ({ functionResponse: { ...(ids[i] === undefined ? {} : { id: ids[i] }), name: call.name, response: { output: i } } }))
          })
        }
      }
      return contents
    })

  it.prop("Gemini wire → neutral → Gemini wire is the identity: no id is invented on the wire", [geminiContents], ([contents]) => {
    const received = Either.getOrThrow(GeminiWire.decodeRequest({ contents }))
    const neutral = geminiCodec.decodeRequest(received)
    expect(Either.isRight(Transcript.validate(neutral.transcript))).toBe(true)
    expect(overTheWire(geminiCodec.encodeContents(neutral.transcript))).toEqual(contents)
  })
})

// ---------------------------------------------------------------------------------------------------------------
// OpenAI / GLM

/** The raw `arguments` text the model may have written: minimal JSON, spaced JSON, or something unparseable. */
const rawArguments = (value: Json.JsonObject): fc.Arbitrary<string> =>
  fc.constantFrom(JSON.stringify(value), JSON.stringify(value, null, 1), JSON.stringify(value).slice(0, -1), `${JSON.stringify(value)}{}`)

const openAICalls = (calls: ReadonlyArray<FunctionCall.FunctionCall>): fc.Arbitrary<ReadonlyArray<FunctionCall.FunctionCall>> =>
  fc.tuple(...calls.map((call) => rawArguments(call.args).map((raw) => ({ call, raw })))).map((pairs) =>
    pairs.map(({ call, raw }) => {
      // The call as the layer decodes it from that text: args, plus the raw text or the parse error when they matter.
      const { args, metadata } = openAICodec.parseArguments(raw)
      return { ...call, args, ...(metadata === undefined ? {} : { metadata }) }
    })
  )

const openAIModelParts = (calls: ReadonlyArray<FunctionCall.FunctionCall>, final: boolean): fc.Arbitrary<ReadonlyArray<Turn.Part>> =>
  fc
    .tuple(
      fc.option(fc.string().map((text) => Turn.Reasoning.make({ text })), { nil: undefined }),
      // Empty text beside calls is sent as `content: null` (what the servers expect), so it has no wire form to round-trip.
      final ? fc.string({ minLength: 1 }).map((text) => Turn.Text.make({ text })) : fc.option(fc.string({ minLength: 1 }).map((text) => Turn.Text.make({ text })), { nil: undefined }),
      calls.length === 0 ? fc.constant([]) : openAICalls(calls)
    )
    .map(([reasoning, text, withArguments]) => [...(reasoning === undefined ? [] : [reasoning]), ...(text === undefined ? [] : [text]), ...withArguments])

const openAITranscript = transcript(openAIModelParts, fc.constant(undefined), fc.string())

const imagePart = Turn.Opaque.make({ provider: "openai", data: { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0K" } } })

/** User messages with several parts, some of them images the neutral model has no name for. */
const multiPartUser: fc.Arbitrary<Turn.Turn> = fc
  .array(fc.oneof(fc.string().map((text) => Turn.Text.make({ text })), fc.constant(imagePart)), { minLength: 2, maxLength: 3 })
  .map((parts) => ({ role: "user", parts }))

describe("neutral ↔ chat-completions wire", () => {
  it.prop(
    "neutral → chat-completions wire → neutral round-trips ids, names, args, results, raw arguments and reasoning, and GLM and OpenAI accept the wire",
    [openAITranscript, fc.option(fc.string({ minLength: 1 }), { nil: undefined })],
    ([original, system]) => {
      expect(Either.isRight(Transcript.validate(original))).toBe(true)
      const messages = openAICodec.encodeMessages(system, original, { reasoning: true })
      const received = Either.getOrThrow(OpenAIWire.decodeRequest(overTheWire({ model: "glm-4.7", messages })))
      expect(openAIEmulator.violation(received, "glm")).toBeUndefined()
      expect(openAIEmulator.violation(received, "openai")).toBeUndefined()
      const decoded = openAICodec.decodeRequest(received)
      expect(decoded.transcript).toEqual(original)
      expect(decoded.system).toEqual(system)
    }
  )

  it.prop("user turns of several parts, images included, round-trip as content arrays", [fc.array(multiPartUser, { minLength: 1, maxLength: 3 })], ([turns]) => {
    const messages = openAICodec.encodeMessages(undefined, turns, { reasoning: true })
    const received = Either.getOrThrow(OpenAIWire.decodeRequest(overTheWire({ model: "gpt", messages })))
    expect(openAIEmulator.violation(received, "openai")).toBeUndefined()
    expect(openAICodec.decodeRequest(received).transcript).toEqual(turns)
  })

  it.prop("arguments parse to the object they hold, or to {} with the reason and the text kept", [args, fc.string()], ([value, noise]) => {
    const exact = openAICodec.parseArguments(JSON.stringify(value))
    expect(exact).toEqual({ args: value })
    const spaced = openAICodec.parseArguments(` ${JSON.stringify(value)} `)
    expect(spaced).toEqual({ args: value, metadata: { arguments: ` ${JSON.stringify(value)} ` } })
    const broken = openAICodec.parseArguments(`${JSON.stringify(value)}${noise}}`)
    if (broken.metadata?.argumentsError !== undefined) {
      expect(broken.args).toEqual({})
      expect(broken.metadata.arguments).toBe(`${JSON.stringify(value)}${noise}}`)
    }
    expect(openAICodec.parseArguments("[1,2]").metadata?.argumentsError).toBe("arguments must be a JSON object, got an array")
  })
})
