import { describe, expect, it } from "@effect/vitest"
import * as HttpUrl from "../src/HttpUrl.js"

describe("HttpUrl", () => {
  it("an http or https URL has no problem", () => {
    expect(HttpUrl.check("http://localhost:8080/v1")).toBeUndefined()
    expect(HttpUrl.check("https://example.com")).toBeUndefined()
    expect(HttpUrl.isHttp("https://example.com/api")).toBe(true)
    expect(HttpUrl.isHttp("http://127.0.0.1")).toBe(true)
  })

  it("text that does not parse is Invalid, and never quoted", () => {
    expect(HttpUrl.check("not a url?key=secret")).toEqual({ _tag: "Invalid" })
    expect(HttpUrl.isHttp("example.com")).toBe(false)
  })

  it("another scheme is NotHttp with the scheme alone, without its colon", () => {
    expect(HttpUrl.check("ftp://user:token@example.com")).toEqual({ _tag: "NotHttp", scheme: "ftp" })
    expect(HttpUrl.check("file:///etc/passwd")).toEqual({ _tag: "NotHttp", scheme: "file" })
    expect(HttpUrl.isHttp("ws://example.com")).toBe(false)
  })
})
