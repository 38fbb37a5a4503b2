/**
 * What the openai SDK throws → the ModelError taxonomy, driven directly: GLM business codes and OpenAI error codes
 * (which win over the HTTP status), every status, the retry headers, and every kind of thrown value.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai"
import { classify, fromError, retryAfterOf } from "../src/internal/openai/errors.js"

const key = "sk-openai-errors-test-key"
const scrub = (text: string) => text.split(key).join("[redacted]")
const endpoint = "http://127.0.0.1:9/v1"

const headers = (entries: Record<string, string>) => new Headers(entries)
const millis = (error: object): number | undefined => {
  const after: unknown = (error as { readonly retryAfter?: unknown }).retryAfter
  return Duration.isDuration(after) ? Duration.toMillis(after) : undefined
}
const tagOf = (code: string | number | null | undefined, status: number | undefined) =>
  fromError(status, { code, message: "m" }, undefined, "fallback", scrub)._tag

describe("OpenAI-compatible errors — retry headers", () => {
  it("retry-after-ms first, else retry-after in seconds or as an HTTP date; anything unreadable is none", () => {
    const now = Date.parse("2026-01-01T00:00:00Z")
    const of = (entries: Record<string, string>) => {
      const delay = retryAfterOf(headers(entries), now)
      return delay === undefined ? undefined : Duration.toMillis(delay)
    }
    expect(of({ "retry-after-ms": "1500", "retry-after": "9" })).toBe(1500)
    expect(of({ "retry-after-ms": "0" })).toBe(0)
    for (const ms of ["-1", "soon", " ", "Infinity"]) expect(of({ "retry-after-ms": ms, "retry-after": "2" })).toBe(2000)
    expect(of({ "retry-after": "0.5" })).toBe(500)
    expect(of({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" })).toBe(30_000)
    // A date already past is no wait, not a negative one.
    expect(of({ "retry-after": "Wed, 31 Dec 2025 23:59:00 GMT" })).toBe(0)
    for (const after of ["", "  ", "-3", "later"]) expect(of({ "retry-after": after })).toBeUndefined()
    expect(of({})).toBeUndefined()
    expect(of({ "retry-after": "0" })).toBe(0)
    expect(retryAfterOf(undefined)).toBeUndefined()
    // Headers that are not trimmed (a hand-made getter): white space alone is no value, not zero.
    const raw = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? null })
    expect(retryAfterOf(raw({ "retry-after-ms": "  ", "retry-after": "2" }))).toEqual(Duration.millis(2000))
    expect(retryAfterOf(raw({ "retry-after": "  " }))).toBeUndefined()
  })
})

describe("OpenAI-compatible errors — codes win over the status", () => {
  it("GLM business codes, at each edge of their ranges", () => {
    const table: ReadonlyArray<readonly [number, string]> = [
      [1113, "QuotaExhausted"], [1308, "QuotaExhausted"], [1310, "QuotaExhausted"], [1313, "QuotaExhausted"],
      [1302, "RateLimited"], [1303, "RateLimited"],
      [1305, "Overloaded"],
      [1000, "Unauthorized"], [1002, "Unauthorized"], [1004, "Unauthorized"], [1220, "Unauthorized"],
      [1300, "Blocked"], [1301, "Blocked"],
      [1230, "Unavailable"], [1234, "Unavailable"],
      [1210, "InvalidRequest"], [1214, "InvalidRequest"], [1231, "InvalidRequest"]
    ]
    // At status 500 (Unavailable by itself) and 400 (InvalidRequest by itself), so that each code is seen to win
    // over a status that says otherwise.
    for (const [code, tag] of table) {
      for (const status of [500, 400]) {
        expect([code, status, tagOf(code, status)]).toEqual([code, status, tag])
        expect([String(code), status, tagOf(String(code), status)]).toEqual([String(code), status, tag])
      }
    }
    // Codes outside the ranges say nothing: the status decides (here 500, Unavailable).
    for (const code of [999, 1005, 1112, 1114, 1209, 1232, 1233, 1235, 1304, 1306, 1307, 1314]) expect([code, tagOf(code, 500)]).toEqual([code, "Unavailable"])
    // Not a number once something else is around it.
    for (const code of ["1113x", "x1113", "11 13", " 1113", "1113 "]) expect([code, tagOf(code, 400)]).toEqual([code, "InvalidRequest"])
  })

  it("OpenAI's error codes", () => {
    const table: ReadonlyArray<readonly [string, string]> = [
      ["insufficient_quota", "QuotaExhausted"], ["billing_hard_limit_reached", "QuotaExhausted"],
      ["rate_limit_exceeded", "RateLimited"],
      ["invalid_api_key", "Unauthorized"], ["invalid_organization", "Unauthorized"],
      ["content_filter", "Blocked"], ["content_policy_violation", "Blocked"],
      ["model_not_found", "Unavailable"]
    ]
    for (const [code, tag] of table) expect([code, tagOf(code, 500)]).toEqual([code, tag])
  })

  it("without a code the status decides; without a status (an error inside a stream) it is Unavailable", () => {
    const byStatus: ReadonlyArray<readonly [number | undefined, string]> = [
      [429, "RateLimited"], [401, "Unauthorized"], [403, "Unauthorized"], [503, "Overloaded"], [529, "Overloaded"],
      [408, "Unavailable"], [500, "Unavailable"], [502, "Unavailable"], [400, "InvalidRequest"], [404, "InvalidRequest"], [499, "InvalidRequest"],
      [undefined, "Unavailable"]
    ]
    for (const [status, tag] of byStatus) {
      for (const code of [undefined, null]) expect([status, code, tagOf(code, status)]).toEqual([status, code, tag])
    }
    expect(fromError(undefined, { message: "m" }, undefined, "", scrub)).not.toHaveProperty("status")
    expect(fromError(500, { message: "m" }, undefined, "", scrub)).toMatchObject({ status: 500 })
  })
})

describe("OpenAI-compatible errors — messages and retry delays", () => {
  it("the message leads with the code, falls back when the body has none, and never shows the key", () => {
    expect(fromError(429, { code: 1302, message: `too fast ${key}` }, undefined, "fallback", scrub).message).toBe("1302: too fast [redacted]")
    expect(fromError(400, { code: null, message: "bad" }, undefined, "fallback", scrub).message).toBe("bad")
    expect(fromError(400, undefined, undefined, `fallback ${key}`, scrub).message).toBe("fallback [redacted]")
    expect(fromError(400, { code: "x" }, undefined, "fallback", scrub).message).toBe("x: fallback")
  })

  it("rate limits and overloads carry the headers' delay; other kinds never do", () => {
    const wait = headers({ "retry-after": "3" })
    expect(millis(fromError(429, { message: "m" }, wait, "", scrub))).toBe(3000)
    expect(millis(fromError(400, { code: 1305, message: "m" }, wait, "", scrub))).toBe(3000)
    expect(fromError(429, { message: "m" }, headers({}), "", scrub)).not.toHaveProperty("retryAfter")
    expect(fromError(503, { message: "m" }, undefined, "", scrub)).not.toHaveProperty("retryAfter")
    for (const status of [401, 400, 500]) expect(fromError(status, { message: "m" }, wait, "", scrub)).not.toHaveProperty("retryAfter")
  })
})

describe("OpenAI-compatible errors — whatever the SDK threw", () => {
  it("the SDK's abort, timeout and connection errors", () => {
    expect(classify(new APIUserAbortError(), scrub, endpoint)).toMatchObject({ _tag: "Unavailable", message: "the request was aborted" })
    expect(classify(new APIConnectionTimeoutError(), scrub, endpoint)).toMatchObject({ _tag: "Unavailable", message: "the request timed out" })
    const refused = new APIConnectionError({ message: "Connection error.", cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" }) })
    const transport = classify(refused, scrub, endpoint)
    expect(transport._tag).toBe("Unavailable")
    expect(transport.message).toContain("127.0.0.1:9")
    expect(transport.message).toContain("ECONNREFUSED")
  })

  it("an APIError is read by its status, its error body and its headers", () => {
    const error = APIError.generate(429, { error: { code: "1113", message: `no balance ${key}` } }, "429", headers({ "retry-after": "1" }))
    expect(classify(error, scrub, endpoint)).toMatchObject({ _tag: "QuotaExhausted", status: 429, message: "1113: no balance [redacted]" })
    const limited = classify(APIError.generate(429, { error: { message: "slow" } }, "429", headers({ "retry-after-ms": "250" })), scrub, endpoint)
    expect(limited).toMatchObject({ _tag: "RateLimited", message: "slow" })
    expect(millis(limited)).toBe(250)
    // A body that is not an error object: the SDK's own message stands in.
    expect(classify(APIError.generate(404, { error: "not an object" }, "404 gone", headers({})), scrub, endpoint)).toMatchObject({ _tag: "InvalidRequest", status: 404 })
    // An error object with a field of the wrong type is not read at all: its code does not decide, the status does.
    const wrongMessage = classify(APIError.generate(429, { error: { code: "1113", message: 42 } }, "429 slow", headers({})), scrub, endpoint)
    expect(wrongMessage).toMatchObject({ _tag: "RateLimited", status: 429 })
    expect(wrongMessage.message).not.toContain("1113")
    const wrongCode = classify(APIError.generate(500, { error: { code: { n: 1 }, message: "m" } }, "500 broken", headers({})), scrub, endpoint)
    expect(wrongCode).toMatchObject({ _tag: "Unavailable", status: 500 })
    expect(wrongCode.message).not.toContain("[object Object]")
  })

  it("a body that cannot be parsed, a broken transport, and the SDK refusing the request", () => {
    expect(classify(new SyntaxError(`Unexpected token ${key}`), scrub, endpoint)).toMatchObject({ _tag: "MalformedResponse", message: "the response could not be read: Unexpected token [redacted]" })
    const terminated = classify(new TypeError("terminated", { cause: new Error("other side closed") }), scrub, endpoint)
    expect(terminated._tag).toBe("Unavailable")
    expect(terminated.message).toContain("127.0.0.1:9")
    expect(classify(new Error(`messages must not be empty ${key}`), scrub, endpoint)).toMatchObject({ _tag: "InvalidRequest", message: "messages must not be empty [redacted]" })
    expect(classify(42, scrub, endpoint)).toMatchObject({ _tag: "Unavailable", message: "the request failed: 42" })
  })
})
