/**
 * What @google/genai throws → the ModelError taxonomy, driven directly: every status the classifier tells apart,
 * the google.rpc details it reads (a per-day quota, a retry delay, an invalid key) and those it must not, and every
 * kind of thrown value, each message scrubbed.
 */
import { describe, expect, it } from "@effect/vitest"
import { ApiError } from "@google/genai"
import * as Duration from "effect/Duration"
import { classify, errorBody, fromStatus, parseDelay } from "../src/internal/gemini/errors.js"

const key = "AIzaSy-gemini-errors-test-key"
const scrub = (text: string) => text.split(key).join("[redacted]")
const endpoint = "http://127.0.0.1:9/"

const body = (error: Record<string, unknown>) => ({ error })
const retryInfo = (retryDelay: unknown) => ({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay })
const quotaFailure = (violations: unknown) => ({ "@type": "type.googleapis.com/google.rpc.QuotaFailure", violations })
const errorInfo = (reason: string) => ({ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason })
/** The retry delay an error carries, in milliseconds (undefined without one). */
const millis = (error: object): number | undefined => {
  const after: unknown = (error as { readonly retryAfter?: unknown }).retryAfter
  return Duration.isDuration(after) ? Duration.toMillis(after) : undefined
}

describe("Gemini errors — reading what the SDK's message holds", () => {
  it("errorBody: the google.rpc error after any prefix; none without braces or when it is not one", () => {
    expect(errorBody('got status: 429. {"error":{"code":429,"message":"slow down"}}')).toEqual(body({ code: 429, message: "slow down" }))
    expect(errorBody("no body here")).toBeUndefined()
    expect(errorBody("{not json")).toBeUndefined()
    expect(errorBody('{"error":"a string"}')).toBeUndefined()
    expect(errorBody('{"error":{"code":"429","message":"slow down"}}')).toBeUndefined()
  })

  it("parseDelay: seconds with a fraction, around white space; anything else is no delay", () => {
    expect([" 7s ", "0.5s", "1.200s", "0s"].map((text) => Duration.toMillis(parseDelay(text)!))).toEqual([7000, 500, 1200, 0])
    for (const text of ["7", "7 s", "-1s", "s", "1.s", "7ms", "7s later", "x7s", 7, undefined]) expect(parseDelay(text)).toBeUndefined()
  })
})

describe("Gemini errors — a status and its body", () => {
  it("429 with a per-day quota (by quotaId or quotaMetric) is QuotaExhausted: retrying only burns requests", () => {
    const perDay = [{ quotaId: "GenerateRequestsPerDayPerProjectPerModel-FreeTier" }, { quotaMetric: "generativelanguage.googleapis.com/generate_requests_per_day" }]
    for (const violation of perDay) {
      expect(fromStatus(429, body({ message: "quota", details: [quotaFailure([{ quotaId: "PerMinute" }, violation])] }), "", scrub)).toMatchObject({ _tag: "QuotaExhausted", status: 429 })
    }
  })

  it("429 otherwise is RateLimited, with the RetryInfo delay when there is one", () => {
    const limited = (details: ReadonlyArray<unknown> | undefined) => fromStatus(429, body({ message: "slow down", ...(details === undefined ? {} : { details }) }), "", scrub)
    expect(limited([quotaFailure([{ quotaId: "GenerateRequestsPerMinutePerProjectPerModel" }]), retryInfo("12s")])).toMatchObject({ _tag: "RateLimited", status: 429 })
    expect(millis(limited([retryInfo("12s")]))).toBe(12_000)
    // Only details of the right type count, and only readable delays: the first readable one wins.
    expect(millis(limited([{ "@type": "type.googleapis.com/google.rpc.Other", retryDelay: "5s" }, retryInfo("soon"), retryInfo("3s"), retryInfo("9s")]))).toBe(3000)
    for (const details of [undefined, [], ["a string", null, { retryDelay: "5s" }, { "@type": 3, retryDelay: "5s" }]]) {
      const error = limited(details)
      expect(error).toMatchObject({ _tag: "RateLimited" })
      expect(error).not.toHaveProperty("retryAfter")
    }
    // Violations that are not a list, or not objects, say nothing about the day.
    for (const violations of [{ quotaId: "PerDay" }, ["PerDay"], [{ quotaId: 3 }], [{ quotaId: ["PerDay"] }]]) {
      expect(limited([quotaFailure(violations)])).toMatchObject({ _tag: "RateLimited" })
    }
    // Per-day violations in a detail of another type are not a quota failure.
    expect(limited([{ "@type": "type.googleapis.com/google.rpc.Help", violations: [{ quotaId: "PerDay" }] }])).toMatchObject({ _tag: "RateLimited" })
  })

  it("401, 403, or an invalid key named by ErrorInfo or by the message, are Unauthorized", () => {
    expect(fromStatus(401, undefined, "no", scrub)).toMatchObject({ _tag: "Unauthorized", status: 401 })
    expect(fromStatus(403, undefined, "no", scrub)).toMatchObject({ _tag: "Unauthorized", status: 403 })
    expect(fromStatus(400, body({ message: "bad", details: [errorInfo("API_KEY_INVALID")] }), "", scrub)).toMatchObject({ _tag: "Unauthorized", status: 400 })
    expect(fromStatus(400, body({ message: "API key not valid. Please pass a valid API key." }), "", scrub)).toMatchObject({ _tag: "Unauthorized" })
    expect(fromStatus(400, body({ message: "bad", details: [errorInfo("OTHER")] }), "", scrub)).toMatchObject({ _tag: "InvalidRequest" })
    const otherType = { "@type": "type.googleapis.com/google.rpc.Help", reason: "API_KEY_INVALID" }
    expect(fromStatus(400, body({ message: "bad", details: [otherType] }), "", scrub)).toMatchObject({ _tag: "InvalidRequest" })
  })

  it("503 is Overloaded, with the RetryInfo delay when there is one", () => {
    const overloaded = fromStatus(503, body({ message: "busy", details: [retryInfo("2s")] }), "", scrub)
    expect(overloaded).toMatchObject({ _tag: "Overloaded", status: 503 })
    expect(millis(overloaded)).toBe(2000)
    expect(fromStatus(503, undefined, "busy", scrub)).not.toHaveProperty("retryAfter")
  })

  it("408, 499 and every other 5xx are Unavailable; the other 4xx are InvalidRequest", () => {
    for (const status of [408, 499, 500, 502, 504, 599]) expect(fromStatus(status, undefined, "x", scrub)).toMatchObject({ _tag: "Unavailable", status })
    for (const status of [400, 404, 409, 413, 422, 498]) expect(fromStatus(status, undefined, "x", scrub)).toMatchObject({ _tag: "InvalidRequest", status })
  })

  it("the message is the body's (after its status name), else the fallback, and never shows the key", () => {
    expect(fromStatus(400, body({ status: "INVALID_ARGUMENT", message: `bad ${key}` }), "fallback", scrub).message).toBe("INVALID_ARGUMENT: bad [redacted]")
    expect(fromStatus(400, body({ message: "bad" }), "fallback", scrub).message).toBe("bad")
    expect(fromStatus(400, body({ status: "INVALID_ARGUMENT" }), `fallback ${key}`, scrub).message).toBe("INVALID_ARGUMENT: fallback [redacted]")
    expect(fromStatus(400, undefined, `fallback ${key}`, scrub).message).toBe("fallback [redacted]")
  })
})

describe("Gemini errors — whatever the SDK threw", () => {
  it("an ApiError is read by its status and the body in its message", () => {
    const error = new ApiError({ status: 429, message: JSON.stringify(body({ message: "slow", details: [retryInfo("4s")] })) })
    const classified = classify(error, scrub, endpoint)
    expect(classified).toMatchObject({ _tag: "RateLimited", status: 429, message: "slow" })
    expect(millis(classified)).toBe(4000)
  })

  it("an abort is Unavailable; a body that cannot be parsed is MalformedResponse", () => {
    const abort = Object.assign(new Error("This operation was aborted"), { name: "AbortError" })
    expect(classify(abort, scrub, endpoint)).toMatchObject({ _tag: "Unavailable", message: "the request was aborted" })
    expect(classify(new DOMException("aborted", "AbortError"), scrub, endpoint)).toMatchObject({ _tag: "Unavailable", message: "the request was aborted" })
    expect(classify(new SyntaxError(`Unexpected token < ${key}`), scrub, endpoint)).toMatchObject({
      _tag: "MalformedResponse",
      message: "the response could not be read: Unexpected token < [redacted]"
    })
    for (const text of ["Incomplete JSON segment at the end", "exception parsing stream chunk {"]) {
      expect(classify(new Error(text), scrub, endpoint)).toMatchObject({ _tag: "MalformedResponse", message: `the response could not be read: ${text}` })
    }
  })

  it("a transport failure is Unavailable naming the endpoint; another Error is the SDK refusing the request", () => {
    const refused = new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" }) })
    const transport = classify(refused, scrub, endpoint)
    expect(transport._tag).toBe("Unavailable")
    expect(transport.message).toContain("127.0.0.1:9")
    expect(transport.message).toContain("ECONNREFUSED")
    expect(classify(new Error(`the model is required (${key})`), scrub, endpoint)).toMatchObject({ _tag: "InvalidRequest", message: "the model is required ([redacted])" })
  })

  it("a thrown value that is not an Error is Unavailable with what it was", () => {
    expect(classify(`boom ${key}`, scrub, endpoint)).toMatchObject({ _tag: "Unavailable", message: "the request failed: boom [redacted]" })
    expect(classify(undefined, scrub, endpoint)).toMatchObject({ _tag: "Unavailable", message: "the request failed: undefined" })
  })
})
