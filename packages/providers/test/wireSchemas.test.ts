/**
 * Every field the layers read off the wire is checked, not only kept. Each decoder gets one sample holding every
 * field it names; then every node of the sample in turn is given a value of another type (the decoder must refuse
 * it, naming that place), removed (refused only where the field is required), and, for the chat-completions
 * decoders, set to `null` (compatible servers send `null` for any absent field). The samples are written out here,
 * not derived from the Schemas, so a field dropped from a Schema fails its row.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import { ArrayFormatter, type ParseError } from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as GeminiWire from "../src/internal/gemini/wire.js"
import * as LiveWire from "../src/internal/live/wire.js"
import * as OpenAIWire from "../src/internal/openai/wire.js"

type Path = ReadonlyArray<PropertyKey>
type Decode = (input: unknown) => Either.Either<unknown, ParseError>

interface Decoder {
  readonly name: string
  readonly decode: Decode
  readonly sample: Record<string, unknown>
  /** Fields that must be present (every other one may be left out). */
  readonly required: ReadonlyArray<string>
  /** Fields whose value is any JSON (or any JSON object): checked as a whole, their insides not walked. */
  readonly opaque: ReadonlyArray<string>
  /** Fields that take any value at all. */
  readonly anything: ReadonlyArray<string>
  /** Whether an absent field may be sent as `null`. */
  readonly nullable: boolean
}

const key = (path: Path) => path.map(String).join(".")

/** Every node of `value` below the root, parents before children; opaque and free-form fields are not entered. */
const nodes = (value: unknown, decoder: Decoder, path: Path = []): Array<Path> => {
  if (typeof value !== "object" || value === null) return []
  const children: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((item, i) => [i, item]) : Object.entries(value)
  return children.flatMap(([name, child]) => {
    const at = [...path, name]
    if (decoder.anything.includes(key(at))) return []
    return decoder.opaque.includes(key(at)) ? [at] : [at, ...nodes(child, decoder, at)]
  })
}

/** `value` with the node at `path` replaced by what `change` returns (`undefined`: removed). */
const changed = (value: unknown, path: Path, change: (old: unknown) => unknown): unknown => {
  if (path.length === 0) return change(value)
  const [head, ...rest] = path
  if (Array.isArray(value)) return value.map((item, i) => (i === head ? changed(item, rest, change) : item))
  const record = value as Record<string, unknown>
  const next = changed(record[head as string], rest, change)
  const { [head as string]: _dropped, ...others } = record
  return next === undefined ? others : { ...others, [head as string]: next }
}

/** A value of a type the field at hand cannot take (a string field gets a boolean, which no union here allows). */
const wrongFor = (value: unknown): unknown =>
  typeof value === "string" ? true : typeof value === "number" ? "7" : typeof value === "boolean" ? 1 : Array.isArray(value) ? { 0: value[0] } : "text"

const issuePaths = (decoded: Either.Either<unknown, ParseError>): Array<string> =>
  Either.isLeft(decoded) ? ArrayFormatter.formatErrorSync(decoded.left).map((issue) => key(issue.path)) : []

const preserving = <A, I>(schema: Schema.Schema<A, I>): Decode => Schema.decodeUnknownEither(schema, { onExcessProperty: "preserve" })

const call = { id: "call-1", name: "get_weather", args: { city: "Paris", days: [1, 2] } }

const geminiResponse: Decoder = {
  name: "Gemini generateContent response",
  decode: GeminiWire.decodeResponse,
  sample: {
    candidates: [
      {
        content: {
          role: "model",
          parts: [
            {
              text: "Let me look.",
              thought: true,
              thoughtSignature: "c2ln",
              functionCall: call,
              functionResponse: { id: "call-1", name: "get_weather", response: { temperature: 20 } }
            }
          ]
        },
        finishReason: "STOP",
        finishMessage: "done",
        index: 0
      }
    ],
    promptFeedback: { blockReason: "SAFETY", blockReasonMessage: "blocked" },
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 3, cachedContentTokenCount: 2, totalTokenCount: 18 },
    modelVersion: "gemini-2.5-flash",
    responseId: "response-1"
  },
  required: ["candidates.0.content.parts.0.functionCall.name", "candidates.0.content.parts.0.functionResponse.name"],
  opaque: ["candidates.0.content.parts.0.functionCall.args"],
  anything: ["candidates.0.content.parts.0.functionResponse.response"],
  nullable: false
}

const geminiError: Decoder = {
  name: "Gemini error envelope",
  decode: preserving(GeminiWire.ErrorBody),
  sample: { error: { code: 400, message: "API key not valid.", status: "INVALID_ARGUMENT", details: [{ reason: "API_KEY_INVALID" }] } },
  required: ["error"],
  opaque: [],
  anything: ["error.details.0"],
  nullable: false
}

const liveMessage: Decoder = {
  name: "Gemini Live server message",
  decode: LiveWire.decodeServerMessage,
  sample: {
    setupComplete: {},
    serverContent: {
      modelTurn: { role: "model", parts: [{ text: "Hello", thought: false }] },
      turnComplete: true,
      interrupted: false,
      generationComplete: true,
      inputTranscription: { text: "hi", finished: true },
      outputTranscription: { text: "hello", finished: false },
      turnCompleteReason: "NEED_MORE_INPUT"
    },
    toolCall: { functionCalls: [call] },
    toolCallCancellation: { ids: ["call-1"] },
    usageMetadata: {
      promptTokenCount: 10,
      candidatesTokenCount: 5,
      thoughtsTokenCount: 3,
      cachedContentTokenCount: 2,
      totalTokenCount: 18,
      responseTokenCount: 5
    },
    goAway: { timeLeft: "10s" },
    sessionResumptionUpdate: { newHandle: "handle-1", resumable: true }
  },
  required: ["toolCall.functionCalls.0.name"],
  opaque: ["toolCall.functionCalls.0.args"],
  anything: ["setupComplete"],
  nullable: false
}

const usage = {
  prompt_tokens: 10,
  completion_tokens: 5,
  total_tokens: 15,
  prompt_tokens_details: { cached_tokens: 2 },
  completion_tokens_details: { reasoning_tokens: 3 }
}

const completion: Decoder = {
  name: "chat completion",
  decode: OpenAIWire.decodeCompletion,
  sample: {
    id: "chatcmpl-1",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: "Let me look.",
          reasoning_content: "The user wants the weather.",
          tool_calls: [{ id: "call-1", type: "function", index: 0, function: { name: "get_weather", arguments: '{"city":"Paris"}' } }]
        },
        finish_reason: "tool_calls"
      }
    ],
    usage
  },
  required: ["choices", "choices.0.message", "choices.0.message.tool_calls.0.function", "choices.0.message.tool_calls.0.function.name"],
  opaque: [],
  anything: [],
  nullable: true
}

const chunk: Decoder = {
  name: "chat completion chunk",
  decode: OpenAIWire.decodeChunk,
  sample: {
    id: "chatcmpl-1",
    choices: [
      {
        index: 0,
        delta: {
          role: "assistant",
          content: "Let",
          reasoning_content: "The user",
          tool_calls: [{ index: 0, id: "call-1", type: "function", function: { name: "get_weather", arguments: '{"ci' } }]
        },
        finish_reason: "tool_calls"
      }
    ],
    usage
  },
  required: [],
  opaque: [],
  anything: [],
  nullable: true
}

const errorObject: Decoder = {
  name: "chat-completions error object",
  decode: OpenAIWire.decodeErrorObject,
  sample: { code: "1302", message: "Rate limit reached", type: "rate_limit_error", param: "model" },
  required: [],
  opaque: [],
  anything: [],
  nullable: true
}

const decoders = [geminiResponse, geminiError, liveMessage, completion, chunk, errorObject]

describe.each(decoders)("wire decoder: $name", (decoder) => {
  const places = nodes(decoder.sample, decoder)

  it("accepts the sample as it is, keeping it unchanged", () => {
    expect(decoder.decode(decoder.sample)).toEqual(Either.right(decoder.sample))
  })

  it("keeps keys it does not read, at every level", () => {
    const withExtras = places
      .filter((path) => !decoder.opaque.includes(key(path)))
      .reduce<unknown>((value, path) => changed(value, path, (old) => (typeof old === "object" && old !== null && !Array.isArray(old) ? { ...old, extra: key(path) } : old)), {
        ...decoder.sample,
        extra: "root"
      })
    expect(decoder.decode(withExtras)).toEqual(Either.right(withExtras))
  })

  it.each(places.map((path) => [key(path), path] as const))("refuses a value of the wrong type at %s, naming the place", (name, path) => {
    const decoded = decoder.decode(changed(decoder.sample, path, wrongFor))
    expect(Either.isLeft(decoded)).toBe(true)
    expect(issuePaths(decoded).some((at) => at === name || at.startsWith(`${name}.`))).toBe(true)
  })

  // (Fields only: an array's element is never absent.)
  const fields = places.filter((path) => typeof path.at(-1) === "string").map((path) => [key(path), path] as const)

  it.each(fields)("%s: may be left out only when it is optional", (name, path) => {
    const decoded = decoder.decode(changed(decoder.sample, path, () => undefined))
    if (decoder.required.includes(name)) {
      expect(issuePaths(decoded)).toContain(name)
    } else {
      expect(Either.isRight(decoded)).toBe(true)
    }
  })

  it.each(fields)(
    "%s: null is taken as absent only by the chat-completions decoders, and never for a required field",
    (name, path) => {
      const decoded = decoder.decode(changed(decoder.sample, path, () => null))
      expect(Either.isRight(decoded)).toBe(decoder.nullable && !decoder.required.includes(name))
    }
  )
})

describe("wire decoders — unions", () => {
  it("a completion's arguments may be a JSON object (some servers send one), a chunk's may not", () => {
    const withObject = (sample: Record<string, unknown>, at: "message" | "delta") =>
      changed(sample, ["choices", 0, at, "tool_calls", 0, "function", "arguments"], () => ({ city: "Paris" }))
    expect(Either.isRight(OpenAIWire.decodeCompletion(withObject(completion.sample, "message")))).toBe(true)
    expect(issuePaths(OpenAIWire.decodeChunk(withObject(chunk.sample, "delta")))).toContain("choices.0.delta.tool_calls.0.function.arguments")
  })

  it("an error code may be a string (GLM) or a number, nothing else", () => {
    expect(OpenAIWire.decodeErrorObject({ code: 1302 })).toEqual(Either.right({ code: 1302 }))
    expect(issuePaths(OpenAIWire.decodeErrorObject({ code: ["1302"] }))).toContain("code")
  })

  it("a Gemini call's arguments must be an object, not an array", () => {
    const decoded = GeminiWire.decodeResponse(changed(geminiResponse.sample, ["candidates", 0, "content", "parts", 0, "functionCall", "args"], () => [1]))
    expect(issuePaths(decoded)).toContain("candidates.0.content.parts.0.functionCall.args")
  })
})
