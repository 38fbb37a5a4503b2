/**
 * Why a Gemini Live setup failed, read from how its socket ended: every HTTP status of a refused upgrade, every
 * close code the server sends during setup, and the transport errors left, each to its own ModelError with the
 * status, the message a person needs, and any key scrubbed out of it.
 */
import { describe, expect, it } from "@effect/vitest"
import { setupFailure } from "../src/internal/live/errors.js"
import { scrubber } from "../src/internal/secrets.js"

const key = "AIzaSy-live-errors-test-key"
const scrub = scrubber(key)

const refused = (status: number) => setupFailure({ error: `Unexpected server response: ${status}` }, scrub)
const closed = (code: number, reason: string, error?: string) => setupFailure({ close: { code, reason }, error }, scrub)

describe("Live setup failures — a refused upgrade, by HTTP status", () => {
  it("401 and 403 are Unauthorized and say the key is missing or not allowed", () => {
    for (const status of [401, 403]) {
      const error = refused(status)
      expect(error).toMatchObject({ _tag: "Unauthorized", status })
      expect(error.message).toBe(`the Live endpoint refused the connection with HTTP ${status}: the API key is missing or not allowed`)
    }
  })

  it("429 is RateLimited, 500 and above Unavailable, each with the status", () => {
    expect(refused(429)).toMatchObject({ _tag: "RateLimited", status: 429, message: "the Live endpoint refused the connection with HTTP 429" })
    for (const status of [500, 502, 503]) {
      expect(refused(status)).toMatchObject({ _tag: "Unavailable", status, message: `the Live endpoint refused the connection with HTTP ${status}` })
    }
  })

  it("404 is InvalidRequest naming the URL as the cause; other 4xx are InvalidRequest with the bare status", () => {
    expect(refused(404)).toMatchObject({
      _tag: "InvalidRequest",
      status: 404,
      message: "the Live endpoint refused the connection with HTTP 404: no Gemini Live endpoint at this URL"
    })
    for (const status of [400, 499]) {
      expect(refused(status)).toMatchObject({ _tag: "InvalidRequest", status, message: `the Live endpoint refused the connection with HTTP ${status}` })
    }
  })

  it("a multi-digit status is read whole, inside a longer transport message", () => {
    expect(setupFailure({ error: "ws: Unexpected server response: 503 (Service Unavailable)" }, scrub)).toMatchObject({ _tag: "Unavailable", status: 503 })
  })

  it("the upgrade's status wins over a close the socket reported after it", () => {
    expect(setupFailure({ error: "Unexpected server response: 429", close: { code: 1008, reason: "API key not valid" } }, scrub)).toMatchObject({
      _tag: "RateLimited",
      status: 429
    })
  })
})

describe("Live setup failures — a close during setup, by code", () => {
  it("1008 whose reason names the API key is Unauthorized; the key itself never shows", () => {
    const error = closed(1008, `API key not valid. Please pass a valid API key. (${key})`)
    expect(error).toMatchObject({ _tag: "Unauthorized", status: 1008 })
    expect(error.message).toBe("the server closed the connection during setup (1008: API key not valid. Please pass a valid API key. ([redacted]))")
    expect(error.message).not.toContain(key)
  })

  it("1007 whose reason says the key is not valid (what the service sends for a wrong key) is Unauthorized, scrubbed", () => {
    for (const reason of ["API key not valid. Please pass a valid API key.", "API key expired. Please renew the API key.", "API_KEY_INVALID"]) {
      const error = closed(1007, `${reason} ${key}`)
      expect(error).toMatchObject({ _tag: "Unauthorized", status: 1007 })
      expect(error.message).toBe(`the server closed the connection during setup (1007: ${reason} [redacted])`)
    }
  })

  it("1007, 1003 and any other 1008 are InvalidRequest with the server's reason", () => {
    for (const code of [1007, 1003, 1008]) {
      const error = closed(code, "models/nope is not found for API version v1beta")
      expect(error).toMatchObject({ _tag: "InvalidRequest", status: code })
      expect(error.message).toBe(`the server closed the connection during setup (${code}: models/nope is not found for API version v1beta)`)
    }
    // Under 1007 only words that say the key was refused name a refused key; one that merely mentions it is a bad
    // request, and under 1003 any mention is.
    for (const code of [1007, 1003]) expect(closed(code, "API key field is misplaced")).toMatchObject({ _tag: "InvalidRequest", status: code })
    expect(closed(1003, "API key not valid. Please pass a valid API key.")).toMatchObject({ _tag: "InvalidRequest", status: 1003 })
    expect(closed(1011, "API key service down")).toMatchObject({ _tag: "Unavailable", status: 1011 })
  })

  it("other codes are Unavailable; a close without a reason shows only its code", () => {
    expect(closed(1011, "Internal error encountered.")).toMatchObject({
      _tag: "Unavailable",
      status: 1011,
      message: "the server closed the connection during setup (1011: Internal error encountered.)"
    })
    expect(closed(1001, "")).toMatchObject({ _tag: "Unavailable", status: 1001, message: "the server closed the connection during setup (1001)" })
  })

  it("1005 and 1006 (no close frame: the socket dropped) say the connection failed, with the transport's error", () => {
    for (const code of [1005, 1006]) {
      const error = closed(code, "", "read ECONNRESET")
      expect(error).toMatchObject({ _tag: "Unavailable", message: "the Live connection failed during setup: read ECONNRESET" })
      expect(error).not.toHaveProperty("status", code)
    }
    expect(closed(1006, "")).toMatchObject({ _tag: "Unavailable", message: "the Live connection failed during setup" })
  })
})

describe("Live setup failures — the transport alone", () => {
  it("a refused connection is Unavailable with the transport's message, scrubbed", () => {
    const error = setupFailure({ error: `connect ECONNREFUSED 127.0.0.1:1 (key=${key})` }, scrub)
    expect(error).toMatchObject({ _tag: "Unavailable", message: "the Live connection failed during setup: connect ECONNREFUSED 127.0.0.1:1 (key=[redacted])" })
  })

  it("nothing known is still Unavailable, never a silent success", () => {
    expect(setupFailure({}, scrub)).toMatchObject({ _tag: "Unavailable", message: "the Live connection failed during setup" })
  })

  it("a refused upgrade's message is scrubbed as well", () => {
    const error = setupFailure({ error: "Unexpected server response: 403" }, (text) => text.replace("HTTP", "[scrubbed]"))
    expect(error.message).toContain("[scrubbed] 403")
  })
})
