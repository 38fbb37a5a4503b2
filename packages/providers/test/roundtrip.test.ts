import { Transcript, Turn } from "@agentfx/core"
import type { FunctionCall, FunctionResponse, Json } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { Conformance } from "@agentfx/emulator"
import * as geminiCodec from "../src/internal/gemini/codec.js"
import type * as GeminiWire from "../src/internal/gemini/wire.js"
import * as openAICodec from "../src/internal/openai/codec.js"

/**
 * These properties check the client codecs against the emulator's reading of the wire (`Conformance`), which was
 * written from the protocols and shares no code with them: what a layer encodes must be accepted by the server's
 * rules and read back as what the layer meant.
 */
const acceptedTranscript = (verdict: Conformance.Verdict): Transcript.Transcript => {
  if (verdict._tag === "Rejected") throw new Error(`the server refused the body: ${verdict.message}`)
  return verdict.request.transcript
}

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
    "what the Gemini layer encodes is accepted by the server's rules and read back as the same ids, names, args, results and signatures",
    [geminiTranscript, fc.option(fc.string({ minLength: 1 }), { nil: undefined })],
    ([original, system]) => {
      expect(Either.isRight(Transcript.validate(original))).toBe(true)
      const body = Either.getOrThrow(geminiCodec.encodeRequest({ system, transcript: original, declarations: [] }))
      const verdict = Conformance.gemini(overTheWire(body))
      expect(acceptedTranscript(verdict)).toEqual(original)
      expect(verdict._tag === "Accepted" && verdict.request.system).toEqual(system)
    }
  )

  /** A model Content as Gemini may send it: text and thoughts, calls with or without ids, signatures on any part. */
  const modelContent = fc
    .array(
      fc.oneof(
        fc.record({ text: fc.string(), thought: fc.constantFrom(true, undefined), signature: fc.option(base64, { nil: undefined }) }),
        fc.record({ name, args, withId: fc.boolean(), signature: fc.option(base64, { nil: undefined }) })
      ),
      { minLength: 1, maxLength: 4 }
    )
    .map((parts) => {
      let next = 0
      return parts.map((part): GeminiWire.Part => {
        const signed = part.signature === undefined ? {} : { thoughtSignature: part.signature }
        if ("text" in part) return { text: part.text, ...(part.thought === true ? { thought: true } : {}), ...signed }
        return { functionCall: { ...(part.withId ? { id: `wire-${next++}` } : {}), name: part.name, args: part.args }, ...signed }
      })
    })

  it.prop("a model turn is echoed exactly as received: same parts, same order, each signature on its part, no invented id", [modelContent], ([parts]) => {
    const turn: Turn.Turn = { role: "model", parts: geminiCodec.decodeModelParts(parts, geminiCodec.idSourceAfter([Turn.user("hi")], [])) }
    const responses: Turn.Turn = {
      role: "user",
      parts: Turn.calls(turn).map((call) => ({ _tag: "FunctionResponse", id: call.id, name: call.name, response: { ok: true }, isError: false }))
    }
    const transcript = responses.parts.length === 0 ? [Turn.user("hi"), turn] : [Turn.user("hi"), turn, responses]
    const contents = overTheWire(geminiCodec.encodeContents(transcript)) as Array<{ parts: Array<Record<string, unknown>> }>
    expect(contents[1]!.parts).toEqual(overTheWire(parts))
    if (responses.parts.length > 0) {
      const answered = contents[2]!.parts.map((part) => (part.functionResponse as { id?: string }).id)
      expect(answered).toEqual(parts.flatMap((part) => (part.functionCall === undefined ? [] : [part.functionCall.id])))
      expect(Conformance.gemini({ contents })._tag).toBe("Accepted")
    }
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

/** What the server is told of a call: `argumentsError` is the layer's own note, never on the wire. */
const withoutLayerNotes = (transcript: Transcript.Transcript): Transcript.Transcript =>
  transcript.map((turn) => ({
    ...turn,
    parts: turn.parts.map((part) => {
      if (part._tag !== "FunctionCall" || part.metadata === undefined) return part
      const { argumentsError: _, ...metadata } = part.metadata
      return Object.keys(metadata).length === 0 ? { _tag: part._tag, id: part.id, name: part.name, args: part.args } : { ...part, metadata }
    })
  }))

const withoutReasoning = (transcript: Transcript.Transcript): Transcript.Transcript =>
  transcript.map((turn) => ({ ...turn, parts: turn.parts.filter((part) => part._tag !== "Reasoning") }))

describe("neutral ↔ chat-completions wire", () => {
  it.prop(
    "what the GLM layer encodes is accepted by GLM's rules and read back as the same ids, names, args, raw arguments, results and reasoning",
    [openAITranscript, fc.option(fc.string({ minLength: 1 }), { nil: undefined })],
    ([original, system]) => {
      expect(Either.isRight(Transcript.validate(original))).toBe(true)
      const messages = openAICodec.encodeMessages(system, original, { reasoning: true })
      const verdict = Conformance.chatCompletions(overTheWire({ model: "glm-4.7", messages }), "glm")
      expect(acceptedTranscript(verdict)).toEqual(withoutLayerNotes(original))
      expect(verdict._tag === "Accepted" && verdict.request.system).toEqual(system)
    }
  )

  it.prop(
    "what the OpenAI preset encodes (no reasoning_content, which OpenAI refuses) is accepted by OpenAI's rules and read back",
    [openAITranscript],
    ([original]) => {
      const messages = openAICodec.encodeMessages(undefined, original, { reasoning: false })
      expect(acceptedTranscript(Conformance.chatCompletions(overTheWire({ model: "gpt", messages }), "openai"))).toEqual(withoutReasoning(withoutLayerNotes(original)))
    }
  )

  it.prop("user turns of several parts, images included, round-trip as content arrays", [fc.array(multiPartUser, { minLength: 1, maxLength: 3 })], ([turns]) => {
    const messages = openAICodec.encodeMessages(undefined, turns, { reasoning: true })
    expect(acceptedTranscript(Conformance.chatCompletions(overTheWire({ model: "gpt", messages }), "openai"))).toEqual(turns)
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
