/**
 * How a transport failure (no HTTP answer) is worded, driven directly: the endpoint as errors show it, the system's
 * code found in the cause chain (undici and the openai SDK bury it), whether the connection was ever made, and the
 * key scrubbed from whatever the chain says.
 */
import { ModelError } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { baseUrlProblem, displayUrl, transportError } from "../src/internal/endpoint.js"

const withCode = (message: string, code: string, cause?: unknown) => Object.assign(new Error(message, cause === undefined ? {} : { cause }), { code })
const same = (text: string) => text
const wording = (error: unknown, endpoint = "http://127.0.0.1:9/v1") => transportError(error, endpoint, same).message

describe("transportError", () => {
  it("is Unavailable (a retry may succeed)", () => {
    expect(transportError(new Error("x"), "http://h", same)).toBeInstanceOf(ModelError.Unavailable)
  })

  it("every code that means no connection was made says it could not connect; others that the connection failed", () => {
    for (const code of ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT", "UND_ERR_CONNECT_TIMEOUT", "EADDRNOTAVAIL"]) {
      expect(wording(withCode(`connect ${code} 127.0.0.1:9`, code)), code).toBe(`cannot connect to http://127.0.0.1:9/v1: ${code}`)
    }
    for (const code of ["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"]) {
      expect(wording(withCode(`socket ${code}`, code)), code).toBe(`the connection to http://127.0.0.1:9/v1 failed: ${code}`)
    }
  })

  it("finds the code and message deep in the cause chain, past fetch's and the openai SDK's bare wrappers", () => {
    const undici = new TypeError("fetch failed", { cause: withCode("connect ECONNREFUSED 127.0.0.1:9", "ECONNREFUSED") })
    expect(wording(undici)).toBe("cannot connect to http://127.0.0.1:9/v1: ECONNREFUSED")
    const openai = new Error("Connection error.", { cause: undici })
    expect(wording(openai)).toBe("cannot connect to http://127.0.0.1:9/v1: ECONNREFUSED")
    // The innermost message that says something wins; a message that does not quote the code is kept beside it.
    const reset = new Error("outer words", { cause: withCode("other side hung up", "ECONNRESET") })
    expect(wording(reset)).toBe("the connection to http://127.0.0.1:9/v1 failed: ECONNRESET (other side hung up)")
    // An empty message says nothing: the one outside it is kept.
    expect(wording(new Error("kept", { cause: new Error("") }))).toBe("the connection to http://127.0.0.1:9/v1 failed: kept")
  })

  it("skips only the exact wrapper messages, not messages that merely start or end like them", () => {
    expect(wording(new Error("fetch failed badly"))).toBe("the connection to http://127.0.0.1:9/v1 failed: fetch failed badly")
    expect(wording(new Error("the Connection error."))).toBe("the connection to http://127.0.0.1:9/v1 failed: the Connection error.")
    expect(wording(new TypeError("fetch failed"))).toBe("the connection to http://127.0.0.1:9/v1 failed: no details")
  })

  it("without a code: a bad port or unknown scheme is a connection never made; anything else, a failure; nothing, no details", () => {
    expect(wording(new TypeError("fetch failed", { cause: new Error("bad port") }))).toBe("cannot connect to http://127.0.0.1:9/v1: bad port")
    expect(wording(new Error("unknown scheme"))).toBe("cannot connect to http://127.0.0.1:9/v1: unknown scheme")
    expect(wording(new Error("socket hang up"))).toBe("the connection to http://127.0.0.1:9/v1 failed: socket hang up")
    expect(wording("not even an Error")).toBe("the connection to http://127.0.0.1:9/v1 failed: no details")
    expect(wording(withCode("", "ECONNRESET"))).toBe("the connection to http://127.0.0.1:9/v1 failed: ECONNRESET")
  })

  it("a message about a bad port counts as no connection only when no code says otherwise", () => {
    expect(wording(withCode("bad port", "ECONNRESET"))).toBe("the connection to http://127.0.0.1:9/v1 failed: ECONNRESET (bad port)")
  })

  it("a code that is not a string is not a code", () => {
    expect(wording(Object.assign(new Error("refused"), { code: 111 }))).toBe("the connection to http://127.0.0.1:9/v1 failed: refused")
  })

  it("reads eight links of the chain at most, so a chain that loops ends", () => {
    const looping = new Error("loops")
    Object.assign(looping, { cause: looping })
    expect(wording(looping)).toBe("the connection to http://127.0.0.1:9/v1 failed: loops")
    // A code on the ninth link is not read; one on the eighth is.
    const chain = (depth: number) => {
      let error: Error = withCode("deep", "ECONNREFUSED")
      for (let i = 1; i < depth; i++) error = new Error(`level ${depth - i}`, { cause: error })
      return error
    }
    expect(wording(chain(8))).toBe("cannot connect to http://127.0.0.1:9/v1: ECONNREFUSED (deep)")
    expect(wording(chain(9))).toBe("the connection to http://127.0.0.1:9/v1 failed: level 8")
  })

  it("what the chain says goes through the scrubber", () => {
    const error = new Error("refused for key sk-secret-123")
    expect(transportError(error, "http://h", (text) => text.replaceAll("sk-secret-123", "[redacted]")).message).toBe("the connection to http://h failed: refused for key [redacted]")
  })
})

describe("baseUrlProblem", () => {
  it("says what is wrong with a base URL without quoting it; a usable one has no problem", () => {
    expect(baseUrlProblem("http://127.0.0.1:9/v1")).toBeUndefined()
    expect(baseUrlProblem("https://api.example.com")).toBeUndefined()
    expect(baseUrlProblem("not a url sk-1")).toBe("the base URL is not a valid URL")
    expect(baseUrlProblem("ftp://files.example.com/sk-1")).toBe("the base URL is not http:// or https:// (its scheme is ftp)")
  })
})

describe("displayUrl", () => {
  it("keeps the scheme, host and path; drops credentials, query, fragment, a trailing slash and a bare root", () => {
    expect(displayUrl("https://user:pw@api.example.com:8443/v1beta/?key=k#x")).toBe("https://api.example.com:8443/v1beta")
    expect(displayUrl("http://127.0.0.1:9/")).toBe("http://127.0.0.1:9")
    expect(displayUrl("http://127.0.0.1:9")).toBe("http://127.0.0.1:9")
    expect(displayUrl("http://h/a/b")).toBe("http://h/a/b")
  })

  it("an unparseable URL is never quoted", () => {
    expect(displayUrl("not a url with sk-secret")).toBe("(an invalid URL)")
  })
})
