/**
 * A Gemini Live server message, decoded as it comes off the wire, → the neutral events it holds: each field to
 * its event, in the order `LiveModel` promises, and every message that cannot be used refused with the reason.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import { eventsOf } from "../src/internal/live/events.js"
import { decodeServerMessage } from "../src/internal/live/wire.js"

/** The events of a message given as the server's JSON; fails the test if the message does not decode. */
const eventsOfJson = (message: unknown) => {
  const decoded = decodeServerMessage(message)
  if (Either.isLeft(decoded)) throw new Error(`did not decode: ${decoded.left.message}`)
  return eventsOf(decoded.right)
}

const events = (message: unknown) => Either.getOrThrow(eventsOfJson(message))
const refusal = (message: unknown) => Either.flip(eventsOfJson(message)).pipe(Either.getOrThrow)

describe("Live wire — what decodes", () => {
  it("keeps the keys it does not read (the server adds fields over time)", () => {
    const decoded = decodeServerMessage({ serverContent: { turnComplete: true, future: 1 }, somethingNew: { a: 1 } })
    expect(decoded).toEqual(Either.right({ serverContent: { turnComplete: true, future: 1 }, somethingNew: { a: 1 } }))
  })

  it("refuses a field of the wrong type, naming it", () => {
    const decoded = decodeServerMessage({ toolCall: { functionCalls: [{ id: "c1", name: 3 }] } })
    expect(Either.isLeft(decoded)).toBe(true)
    expect(Either.flip(decoded).pipe(Either.getOrThrow).message).toContain("name")
    expect(Either.isLeft(decodeServerMessage({ toolCall: { functionCalls: [{ id: "c1", name: "f", args: [1] }] } }))).toBe(true)
    // Every nested field is checked, not only kept: a wrong type never reaches an event.
    const wrong = [
      { serverContent: { inputTranscription: { text: 3 } } },
      { serverContent: { outputTranscription: { finished: "yes" } } },
      { toolCallCancellation: { ids: [1] } },
      { usageMetadata: { responseTokenCount: "5" } },
      { usageMetadata: { promptTokenCount: "5" } },
      { goAway: { timeLeft: 5 } },
      { sessionResumptionUpdate: { newHandle: 5 } },
      { sessionResumptionUpdate: { resumable: "yes" } }
    ]
    for (const message of wrong) expect([message, Either.isLeft(decodeServerMessage(message))]).toEqual([message, true])
  })
})

describe("Live events — each field to its event", () => {
  it("text parts are TextDelta, without thoughts or empty texts", () => {
    const parts = [{ text: "It is " }, { text: "thinking", thought: true }, { text: "" }, { inlineData: { mimeType: "audio/pcm", data: "AA==" } }, { text: "off." }]
    expect(events({ serverContent: { modelTurn: { role: "model", parts } } })).toStrictEqual([
      { _tag: "TextDelta", text: "It is " },
      { _tag: "TextDelta", text: "off." }
    ])
  })

  it("transcriptions keep their direction; one without text is no event", () => {
    expect(events({ serverContent: { inputTranscription: { text: "hello" }, outputTranscription: { text: "hi there" } } })).toStrictEqual([
      { _tag: "Transcription", direction: "input", text: "hello" },
      { _tag: "Transcription", direction: "output", text: "hi there" }
    ])
    expect(events({ serverContent: { inputTranscription: { finished: true }, outputTranscription: {} } })).toStrictEqual([])
  })

  it("calls keep id, name and arguments (none is an empty object); cancellations their ids", () => {
    const [call, cancel] = events({
      toolCall: { functionCalls: [{ id: "c1", name: "lamp", args: { on: true } }, { id: "c2", name: "ping" }] },
      toolCallCancellation: { ids: ["c0"] }
    })
    expect(call).toMatchObject({ _tag: "ToolCall", calls: [{ id: "c1", name: "lamp", args: { on: true } }, { id: "c2", name: "ping", args: {} }] })
    expect(cancel).toEqual({ _tag: "ToolCallCancellation", ids: ["c0"] })
    expect(events({ toolCall: { functionCalls: [] }, toolCallCancellation: { ids: [] } })).toStrictEqual([])
    expect(events({ toolCall: {}, toolCallCancellation: {} })).toStrictEqual([])
  })

  it("a call without an id, or with an empty one, is refused: it could never be answered", () => {
    for (const id of [undefined, ""]) {
      const error = refusal({ toolCall: { functionCalls: [{ id: "c1", name: "ok" }, { ...(id === undefined ? {} : { id }), name: "lamp" }] } })
      expect(error).toMatchObject({ _tag: "MalformedResponse", message: 'the server asked for "lamp" without an id, so it cannot be answered' })
    }
  })

  it("usage: output counts the response and the thoughts; the total is the server's, else input + output", () => {
    expect(events({ usageMetadata: { promptTokenCount: 10, responseTokenCount: 5, thoughtsTokenCount: 2, cachedContentTokenCount: 4, totalTokenCount: 99 } })).toStrictEqual([
      { _tag: "Usage", usage: { inputTokens: 10, outputTokens: 7, totalTokens: 99, reasoningTokens: 2, cachedTokens: 4 } }
    ])
    expect(events({ usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5 } })).toStrictEqual([
      { _tag: "Usage", usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } }
    ])
    // responseTokenCount (Live's name) wins over candidatesTokenCount.
    expect(events({ usageMetadata: { promptTokenCount: 1, responseTokenCount: 3, candidatesTokenCount: 50 } })).toStrictEqual([
      { _tag: "Usage", usage: { inputTokens: 1, outputTokens: 3, totalTokens: 4 } }
    ])
    expect(events({ usageMetadata: {} })).toStrictEqual([{ _tag: "Usage", usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } }])
  })

  it("interrupted, generation complete and turn complete, each only when true", () => {
    expect(events({ serverContent: { interrupted: true, generationComplete: true, turnComplete: true } })).toStrictEqual([
      { _tag: "Interrupted" },
      { _tag: "GenerationComplete" },
      { _tag: "TurnComplete" }
    ])
    expect(events({ serverContent: { interrupted: false, generationComplete: false, turnComplete: false } })).toStrictEqual([])
  })

  it("turn complete carries a reason the server named, not the unspecified one", () => {
    expect(events({ serverContent: { turnComplete: true, turnCompleteReason: "NEED_MORE_INPUT" } })).toStrictEqual([{ _tag: "TurnComplete", reason: "NEED_MORE_INPUT" }])
    expect(events({ serverContent: { turnComplete: true, turnCompleteReason: "TURN_COMPLETE_REASON_UNSPECIFIED" } })).toStrictEqual([{ _tag: "TurnComplete" }])
  })

  it("goAway carries the time left; one that cannot be read is refused with what it said", () => {
    const [goAway] = events({ goAway: { timeLeft: "1.5s" } })
    expect(goAway?._tag === "GoAway" && Duration.toMillis(goAway.timeLeft)).toBe(1500)
    expect(refusal({ goAway: { timeLeft: "soon" } })).toMatchObject({ _tag: "MalformedResponse", message: 'goAway with an unreadable timeLeft "soon"' })
    expect(refusal({ goAway: {} }).message).toBe("goAway with an unreadable timeLeft undefined")
  })

  it("a resumption update is resumable only with a handle to resume with", () => {
    expect(events({ sessionResumptionUpdate: { newHandle: "h1", resumable: true } })).toStrictEqual([{ _tag: "ResumptionUpdate", handle: "h1", resumable: true }])
    expect(events({ sessionResumptionUpdate: { newHandle: "h1", resumable: false } })).toStrictEqual([{ _tag: "ResumptionUpdate", handle: undefined, resumable: false }])
    expect(events({ sessionResumptionUpdate: { newHandle: "", resumable: true } })).toStrictEqual([{ _tag: "ResumptionUpdate", handle: undefined, resumable: false }])
    expect(events({ sessionResumptionUpdate: { resumable: true } })).toStrictEqual([{ _tag: "ResumptionUpdate", handle: undefined, resumable: false }])
  })

  it("setupComplete alone, or an empty message, holds no event", () => {
    expect(events({ setupComplete: {} })).toStrictEqual([])
    expect(events({})).toStrictEqual([])
  })
})

describe("Live events — the order LiveModel promises", () => {
  it("text, transcriptions, calls, cancellations, usage, then the turn's end, then go-away and resumption", () => {
    const all = events({
      sessionResumptionUpdate: { newHandle: "h2", resumable: true },
      goAway: { timeLeft: "5s" },
      serverContent: {
        turnComplete: true,
        generationComplete: true,
        interrupted: true,
        outputTranscription: { text: "out" },
        inputTranscription: { text: "in" },
        modelTurn: { parts: [{ text: "a" }] }
      },
      usageMetadata: { promptTokenCount: 1 },
      toolCallCancellation: { ids: ["x"] },
      toolCall: { functionCalls: [{ id: "c1", name: "f" }] }
    })
    expect(all.map((event) => (event._tag === "Transcription" ? `Transcription:${event.direction}` : event._tag))).toStrictEqual([
      "TextDelta",
      "Transcription:input",
      "Transcription:output",
      "ToolCall",
      "ToolCallCancellation",
      "Usage",
      "Interrupted",
      "GenerationComplete",
      "TurnComplete",
      "GoAway",
      "ResumptionUpdate"
    ])
  })
})
