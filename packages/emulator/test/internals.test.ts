/**
 * The emulator's small helpers, each on its own: JSON read off the wire and its words for a value's type, the
 * offline model's sentences for a tool's result, thought signatures, a Live connection's bounded logs and its close,
 * and the Live route and key. The behaviour they carry is also checked through the SDKs in the other files; here
 * every branch is, on both sides of each bound.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { WebSocket } from "ws"
import { ModelError } from "@agentfx/core"
import { Duration } from "effect"
import { answerOf, breakArguments, faultOfError, pieces, streamStop } from "../src/internal/answer.js"
import { canonical, isErrorResponse, kindOf, parse } from "../src/internal/json.js"
import { callSubject, dummySignatures, isBase64, signer } from "../src/internal/gemini/signature.js"
import { append, closeSocket, frameLog, type MutableRecord } from "../src/internal/live/connection.js"
import { maxFrameChars, maxFrames } from "../src/internal/live/record.js"
import { keyOf, route } from "../src/internal/live/route.js"
import { failure, success } from "../src/internal/sentence.js"

describe("json", () => {
  it("parse: a JSON value, or the parser's words for what is wrong (never a bare 'invalid JSON' when it has words)", () => {
    expect(parse('{"a":[1,null]}')).toEqual(Either.right({ a: [1, null] }))
    const refused = parse('{"a":')
    expect(Either.isLeft(refused) && refused.left).toMatch(/JSON/)
    expect(Either.isLeft(refused) && refused.left).not.toBe("invalid JSON")
    expect(Either.isLeft(refused) && refused.left.length).toBeGreaterThan(0)
  })

  it("isErrorResponse: exactly { error }, nothing more or less", () => {
    expect(isErrorResponse({ error: "no" })).toBe(true)
    expect(isErrorResponse({ error: "no", output: 1 })).toBe(false)
    expect(isErrorResponse({ output: 1 })).toBe(false)
    expect(isErrorResponse({})).toBe(false)
    expect(isErrorResponse({ errors: "no" })).toBe(false)
  })

  it("kindOf: a JSON value's type in words", () => {
    expect([null, [], {}, 3, 3.5, "x", true].map(kindOf)).toEqual(["null", "an array", "an object", "an integer", "a number", "a string", "a boolean"])
  })

  it("canonical: the same text for the same value whatever its key order", () => {
    expect(canonical({ b: 1, a: [{ d: 2, c: 3 }] })).toBe(canonical({ a: [{ c: 3, d: 2 }], b: 1 }))
    expect(canonical({ a: 1 })).not.toBe(canonical({ a: 2 }))
  })
})

describe("sentence: the offline model's words for a result", () => {
  it.each([
    ["a scalar", "f", 7, "f returned 7."],
    ["a string as it is", "f", "hi", "f returned hi."],
    ["an output object unwrapped", "f", { output: "hi" }, "f returned hi."],
    ["output beside other fields is a field like them", "f", { output: 1, more: 2 }, "f returned output 1 and more 2."],
    ["one field", "f", { only: true }, "f returned only true."],
    ["three fields", "f", { a: 1, b: "x", c: null }, "f returned a 1, b x and c null."],
    ["no field", "f", {}, "f returned nothing."],
    ["an expression and result", "calc", { expression: "1 + 1", result: 2 }, "1 + 1 = 2."],
    ["an expression alone is a field", "calc", { expression: "1 + 1" }, "calc returned expression 1 + 1."],
    ["a time with no zone, weekday or offset", "clock", { time: "10:00", date: "2026-01-01" }, "It is 10:00 on 2026-01-01."],
    ["a time in a zone named timeZone", "clock", { time: "10:00", date: "2026-01-01", timeZone: "UTC" }, "It is 10:00 on 2026-01-01 in UTC."],
    ["a time that is not text is a field", "clock", { time: 10, date: "d" }, "clock returned time 10 and date d."],
    ["a listing of one entry, truncated", "ls", { entries: [{ name: "a", type: "file" }], truncated: 3 }, "The directory holds 1 entry: a (and 3 more not listed)."],
    ["an empty listing, truncated", "ls", { path: "x", entries: [], truncated: 2 }, "x is empty (and 2 more not listed)."],
    ["a listing of entries that are not objects", "ls", { path: "x", entries: ["a", 1] }, "x holds 2 entries: a and 1."],
    ["a count of entries left out that is not a number is not said", "ls", { path: "x", entries: ["a"], truncated: "3" }, "x holds 1 entry: a."],
    ["an entry with no name", "ls", { path: "x", entries: [{ type: "file" }] }, 'x holds 1 entry: {"type":"file"}.'],
    ["a file with no size", "read", { path: "a.txt", content: "hi" }, "a.txt reads:\nhi"],
    ["a file whose content is not text is fields", "read", { path: "a.txt", content: 1 }, "read returned path a.txt and content 1."],
    ["an HTTP answer with no content type", "fetch", { url: "u", status: 404, body: "gone", content_type: "" }, "u answered 404:\ngone"],
    ["an HTTP answer whose body is not text is fields", "fetch", { url: "u", status: 200, body: 1 }, "fetch returned url u, status 200 and body 1."]
  ] as const)("%s", (_, name, response, text) => {
    expect(success(name, response)).toBe(text)
  })

  it("a long content or body is cut at 2000 characters, saying how many more there were; 2000 exactly is not cut", () => {
    expect(success("read", { path: "a", content: "x".repeat(2000) })).toBe(`a reads:\n${"x".repeat(2000)}`)
    expect(success("read", { path: "a", content: "x".repeat(2003) })).toBe(`a reads:\n${"x".repeat(2000)}… (3 more characters)`)
    expect(success("fetch", { url: "u", status: 200, body: "y".repeat(2001) })).toBe(`u answered 200:\n${"y".repeat(2000)}… (1 more characters)`)
  })

  it("a failure with its message, one final period; or the error itself", () => {
    expect(failure("f", { message: "gone." })).toBe("f failed: gone.")
    expect(failure("f", { message: "gone" })).toBe("f failed: gone.")
    expect(failure("f", { code: 7 })).toBe('f failed: {"code":7}.')
    expect(failure("f", "plain words")).toBe("f failed: plain words.")
  })
})

describe("thought signatures", () => {
  it("a signature verifies its subject only, under its secret only; the documented dummies pass anywhere", () => {
    const one = signer("secret-1")
    const subject = callSubject({ id: "c1", name: "f", args: { a: 1 } })
    const signature = one.sign(subject)
    expect(isBase64(signature)).toBe(true)
    expect(one.verify(subject, signature)).toBe(true)
    expect(one.verify(callSubject({ id: "c1", name: "f", args: { a: 2 } }), signature)).toBe(false)
    expect(signer("secret-2").verify(subject, signature)).toBe(false)
    for (const dummy of dummySignatures) expect(one.verify(subject, dummy)).toBe(true)
  })

  it("a call's subject: its id (null without one), its name and its arguments ({} without them)", () => {
    expect(callSubject({ name: "f" })).toEqual({ kind: "call", id: null, name: "f", args: {} })
    expect(callSubject({ id: "c1", name: "f", args: { a: 1 } })).toEqual({ kind: "call", id: "c1", name: "f", args: { a: 1 } })
    // Without an id, the signature is not that of the same call with one.
    const sign = signer("s").sign
    expect(sign(callSubject({ name: "f" }))).not.toBe(sign(callSubject({ id: "", name: "f" })))
  })

  it("isBase64: standard base64 only, padded to a multiple of 4", () => {
    for (const text of ["", "QUJD", "QUI=", "QQ==", "a+/b"]) expect(isBase64(text), text).toBe(true)
    for (const text of ["QUJ", "QQ=", "Q===", "QUJD!", "-_ab", " QUJD", "QUJD\n", "QU=D"]) expect(isBase64(text), text).toBe(false)
  })
})

describe("a Live connection's logs and close", () => {
  const record = (): MutableRecord =>
    ({ received: [], sent: [], droppedFrames: 0, responses: [], cancelled: [], violations: [], faults: [], closed: undefined }) as unknown as MutableRecord

  it("append keeps the last maxFrames items: at the bound nothing goes, past it the oldest", () => {
    const list = Array.from({ length: maxFrames - 1 }, (_, i) => i)
    append(list, maxFrames - 1)
    expect([list.length, list[0]]).toEqual([maxFrames, 0])
    append(list, maxFrames, maxFrames + 1)
    expect([list.length, list[0], list.at(-1)]).toEqual([maxFrames, 2, maxFrames + 1])
  })

  it("frameLog keeps at most maxFrames frames and maxFrameChars characters, always the last frame; none when told not to keep", () => {
    const kept = record()
    const log = frameLog(kept, "received", true)
    log("a", maxFrameChars - 1)
    log("b", 1)
    expect([kept.received, kept.droppedFrames]).toEqual([["a", "b"], 0])
    log("c", 1)
    expect([kept.received, kept.droppedFrames]).toEqual([["b", "c"], 1])
    log("huge", maxFrameChars * 2)
    expect([kept.received, kept.droppedFrames]).toEqual([["huge"], 3])
    const many = record()
    const small = frameLog(many, "sent", true)
    for (let i = 0; i <= maxFrames; i++) small(i, 1)
    expect([many.sent.length, many.sent[0], many.droppedFrames]).toEqual([maxFrames, 1, 1])
    const none = record()
    frameLog(none, "sent", false)("x", 1)
    expect([none.sent, none.droppedFrames]).toEqual([[], 1])
  })

  const socket = (readyState: number) => {
    const calls: Array<string> = []
    const fake = {
      OPEN: 1,
      CONNECTING: 0,
      readyState,
      close: (code: number, reason: string) => calls.push(`close ${code} ${reason}`),
      terminate: () => calls.push("terminate")
    }
    return { calls, ws: fake as unknown as WebSocket }
  }

  it("closeSocket: a sendable code closes with a reason cut to 123 bytes; 1006 and unsendable codes drop the socket; a second close is ignored", () => {
    const open = socket(1)
    const closed = record()
    closeSocket(open.ws, closed, 1011, "é".repeat(70))
    expect(open.calls).toEqual([`close 1011 ${"é".repeat(60)}`])
    expect(Buffer.byteLength(closed.closed!.reason)).toBe(120)
    closeSocket(open.ws, closed, 1000, "again")
    expect(open.calls).toHaveLength(1)
    const exact = socket(0)
    closeSocket(exact.ws, record(), 1000, "x".repeat(123))
    expect(exact.calls).toEqual([`close 1000 ${"x".repeat(123)}`])
    const dropped = socket(1)
    const droppedRecord = record()
    closeSocket(dropped.ws, droppedRecord, 1005, "no status")
    expect([dropped.calls, droppedRecord.closed]).toEqual([["terminate"], { code: 1006, reason: "dropped: 1005 cannot be sent in a close frame (no status)", by: "server" }])
    const gone = socket(1)
    const goneRecord = record()
    closeSocket(gone.ws, goneRecord, 1006, "cut")
    expect([gone.calls, goneRecord.closed]).toEqual([["terminate"], { code: 1006, reason: "cut", by: "server" }])
    const closing = socket(2)
    closeSocket(closing.ws, record(), 1000, "bye")
    expect(closing.calls).toEqual([])
  })
})

describe("the Live route", () => {
  it("the upgrade path of each version and method, and nothing around it", () => {
    const path = (version: string, method: string) => `/ws/google.ai.generativelanguage.${version}.GenerativeService.${method}`
    for (const version of ["v1beta", "v1alpha", "v1"]) {
      for (const method of ["BidiGenerateContent", "BidiGenerateContentConstrained"]) expect(route.test(path(version, method)), `${version} ${method}`).toBe(true)
    }
    for (const other of [path("v2", "BidiGenerateContent"), path("v1beta", "GenerateContent"), `${path("v1beta", "BidiGenerateContent")}/more`, path("v1beta", "BidiGenerateContentX")]) {
      expect(route.test(other), other).toBe(false)
    }
  })

  it("the key is `key`, else an ephemeral `access_token`", () => {
    expect(keyOf(new URLSearchParams("key=k&access_token=t"))).toBe("k")
    expect(keyOf(new URLSearchParams("access_token=t"))).toBe("t")
    expect(keyOf(new URLSearchParams(""))).toBeUndefined()
  })
})

describe("answer", () => {
  const request = (transcript: ReadonlyArray<unknown>, system?: string) => ({ index: 3, system, transcript, declarations: [], toolChoice: undefined, output: undefined }) as never

  it("answerOf: usage estimated at a token per 4 characters of each part (at least 1), reasoning counted in the output", () => {
    const transcript = [
      { role: "user", parts: [{ _tag: "Text", text: "12345678" }, { _tag: "Opaque", data: {} }] },
      { role: "model", parts: [{ _tag: "Reasoning", text: "abcd" }, { _tag: "FunctionCall", id: "x", name: "ab", args: { a: 1 } }] },
      { role: "user", parts: [{ _tag: "FunctionResponse", id: "x", name: "ab", response: { b: 2 }, isError: false }] }
    ]
    // 4 (system) + 8 + 16 (opaque) + 4 + (2 + 7) + (2 + 7) = 50 characters: 13 tokens.
    expect(answerOf({ text: "abcdefghi" }, request(transcript, "sys.")).usage).toStrictEqual({ inputTokens: 13, outputTokens: 3, totalTokens: 16 })
    expect(answerOf({ reasoning: "abcde", calls: [{ name: "f", args: { k: "v" } }] }, request([])).usage).toEqual({
      inputTokens: 1,
      outputTokens: 3 + 2,
      totalTokens: 6,
      reasoningTokens: 2
    })
    expect(answerOf({ text: "", usage: { inputTokens: 10, outputTokens: 20, totalTokens: 99, cachedTokens: 4, reasoningTokens: 5 } }, request([])).usage).toEqual({
      inputTokens: 10,
      outputTokens: 20,
      totalTokens: 99,
      reasoningTokens: 5,
      cachedTokens: 4
    })
    expect(answerOf({ text: "a", usage: { inputTokens: 10 } }, request([])).usage).toEqual({ inputTokens: 10, outputTokens: 1, totalTokens: 11 })
  })

  it("answerOf: the finish reason (tool_calls with calls, stop without, the step's own first) and call ids never taken before", () => {
    expect(answerOf({ text: "a" }, request([])).finishReason).toBe("stop")
    expect(answerOf({ calls: [{ name: "f" }] }, request([])).finishReason).toBe("tool_calls")
    expect(answerOf({ text: "a", finishReason: "length" }, request([])).finishReason).toBe("length")
    const taken = [
      { role: "model", parts: [{ _tag: "FunctionCall", id: "call_3_0", name: "f", args: {} }, { _tag: "FunctionCall", id: "call_3_0_1", name: "f", args: {} }, { _tag: "FunctionCall", id: "call_3_0_2", name: "f", args: {} }] },
      { role: "model", parts: [{ _tag: "FunctionCall", id: "call_3_1", name: "f", args: {} }] }
    ]
    const answer = answerOf({ calls: [{ name: "f" }, { name: "g" }, { name: "h" }] }, request(taken))
    expect(answer.turn.parts.map((part) => (part._tag === "FunctionCall" ? part.id : part._tag))).toEqual(["call_3_0_3", "call_3_1_1", "call_3_2"])
    expect(answer.turn.role).toBe("model")
  })

  it("pieces: each word with the white space after it", () => {
    expect(pieces("It is  20 °C.\n")).toEqual(["It ", "is  ", "20 ", "°C.\n"])
    expect(pieces("  lead")).toEqual(["  ", "lead"])
    expect(pieces("")).toEqual([])
  })

  it("breakArguments: quotes made single (or '{,}' without any), cut at half (a character at least), or doubled", () => {
    expect(breakArguments('{"a":1}', "invalid")).toBe("{'a':1}")
    expect(breakArguments("{}", "invalid")).toBe("{,}")
    expect(breakArguments('{"a":1}', "truncated")).toBe('{"a')
    expect(breakArguments("{", "truncated")).toBe("{")
    expect(breakArguments("{}", "concatenated")).toBe("{}{}")
  })

  it("faultOfError: the fault each error step is sent as", () => {
    expect(faultOfError(new ModelError.RateLimited({ message: "slow", retryAfter: Duration.seconds(2) }))).toEqual({ _tag: "RateLimited", retryAfter: Duration.seconds(2) })
    expect(faultOfError(new ModelError.QuotaExhausted({ message: "q" }))).toEqual({ _tag: "QuotaExhausted" })
    expect(faultOfError(new ModelError.Overloaded({ message: "o" }))).toEqual({ _tag: "Overloaded" })
    expect(faultOfError(new ModelError.Unauthorized({ message: "u" }))).toEqual({ _tag: "Unauthorized" })
    expect(faultOfError(new ModelError.InvalidRequest({ message: "bad" }))).toEqual({ _tag: "Status", status: 400, message: "bad" })
    expect(faultOfError(new ModelError.InvalidRequest({ message: "gone", status: 404 }))).toEqual({ _tag: "Status", status: 404, message: "gone" })
    expect(faultOfError(new ModelError.Unavailable({ message: "down" }))).toEqual({ _tag: "Status", status: 500, message: "down" })
    expect(faultOfError(new ModelError.Unavailable({ message: "gw", status: 502 }))).toEqual({ _tag: "Status", status: 502, message: "gw" })
    expect(faultOfError(new ModelError.ModelTimeout({ after: Duration.seconds(1) }))).toEqual({ _tag: "Stall" })
    expect(faultOfError(new ModelError.Blocked({ message: "no" }))).toEqual({ _tag: "Status", status: 500, message: "no" })
    expect(faultOfError(new ModelError.MalformedResponse({ message: "garbled" }))).toEqual({ _tag: "Status", status: 500, message: "garbled" })
  })

  it("streamStop: a drop wins over a stall, a stall over an error frame; none without them", () => {
    const frame = () => "frame"
    const error = { _tag: "ErrorMidStream", afterChunks: 3, error: { _tag: "Overloaded" } } as const
    expect(streamStop([error, { _tag: "StallMidStream", afterChunks: 2 }, { _tag: "DropMidStream", afterChunks: 1 }], frame)).toEqual({ after: 1, how: "drop" })
    expect(streamStop([error, { _tag: "StallMidStream", afterChunks: 2 }], frame)).toEqual({ after: 2, how: "stall" })
    expect(streamStop([{ _tag: "OmitIndex" }, error], frame)).toEqual({ after: 3, how: "error", errorFrame: "frame" })
    expect(streamStop([{ _tag: "OmitIndex" }], frame)).toBeUndefined()
  })
})
