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

  it("a user name or a password, in any spelling the URL parser reads, is held; redact shows the URL without them (issue 35, item 7)", () => {
    for (const url of ["http://user:PASS@host", "http://:PASS@host/v1", "http://user@host", "http:user:PASS@host", "http://user:PA SS@host", "HTTPS://USER:PASS@HOST/a?b#c"]) {
      expect(HttpUrl.holdsCredentials(url)).toBe(true)
      expect(HttpUrl.redact(url)).not.toMatch(/PASS|PA SS|user|USER/)
    }
    expect(HttpUrl.redact("https://user:PASS@host:8443/v1?q=1#f")).toBe("https://***@host:8443/v1?q=1#f")
    for (const url of ["http://host/v1", "https://example.com/@user", "not a url:PASS@", ""]) {
      expect(HttpUrl.holdsCredentials(url)).toBe(false)
      expect(HttpUrl.redact(url)).toBe(url)
    }
  })

  it("holdsCredentials and redact read a URL of any scheme: a postgres:// store's URL shows neither user name nor password", () => {
    expect(HttpUrl.holdsCredentials("postgres://agentfx:PASS@db:5432/runs")).toBe(true)
    expect(HttpUrl.redact("postgres://agentfx:PASS@db:5432/runs?sslmode=require")).toBe("postgres://***@db:5432/runs?sslmode=require")
    expect(HttpUrl.holdsCredentials("postgresql://db/runs")).toBe(false)
  })
})
