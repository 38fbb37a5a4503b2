/**
 * The key scrubber on its own: every spelling of an API key a server or SDK may echo (as is, URL-encoded, base64
 * and base64url of the key, of `Bearer <key>` and of `x-goog-api-key: <key>`, at any alignment inside a longer
 * encoded text) is removed, whole; the plain ones also in any letter case and as any prefix of 8 characters or
 * more; short keys only as written; nothing else is touched.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc, Redacted } from "effect"
import { scrubber, spellings } from "../src/internal/secrets.js"

// 20 characters: "Bearer " (7 bytes) and the key make 27 bytes, whole base64 groups with no padding.
const key = "AIzaSyD-k3y_w1th+/=x"
const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64")
const base64url = (text: string) => Buffer.from(text, "utf8").toString("base64url")

describe("scrubber", () => {
  it("removes the key as written and URL-encoded, and leaves the text around it", () => {
    const scrub = scrubber(key)
    expect(scrub(`key=${key}&alt=sse`)).toBe("key=[redacted]&alt=sse")
    expect(encodeURIComponent(key)).not.toBe(key)
    expect(scrub(`GET /v1?key=${encodeURIComponent(key)} 400`)).toBe("GET /v1?key=[redacted] 400")
    expect(scrub(`${key} and ${key} again`)).toBe("[redacted] and [redacted] again")
  })

  it("removes an echoed Authorization header in base64 and base64url whole, and the Gemini key header", () => {
    const scrub = scrubber(key)
    expect(scrub(`auth=${base64(`Bearer ${key}`)}`)).toBe("auth=[redacted]")
    expect(scrub(`auth=${base64url(`Bearer ${key}`)}`)).toBe("auth=[redacted]")
    const header = base64(`x-goog-api-key: ${key}`)
    expect(scrub(header)).not.toContain(header.slice(8, 24))
    expect(scrub(header)).toContain("[redacted]")
  })

  it("removes the key base64-encoded inside a longer encoded text at each of the three alignments", () => {
    const scrub = scrubber(key)
    for (const before of ["", "x", "xy", "xyz"]) {
      for (const encode of [base64, base64url]) {
        const encoded = encode(`${before}${key}!tail`)
        const scrubbed = scrub(`body: ${encoded}`)
        expect(scrubbed, `${before.length} bytes before, ${encode.name}`).toContain("[redacted]")
        // The key's 20 bytes hold at least 6 whole groups of 3 (24 characters) whatever the alignment: all gone.
        expect(scrubbed.replace("[redacted]", "").length).toBeLessThanOrEqual(`body: ${encoded}`.length - 24)
        for (const spelling of spellings(key)) expect(scrubbed).not.toContain(spelling)
      }
    }
  })

  it("issue 35 item 14: an echo of the key in another letter case is removed, as written and URL-encoded", () => {
    const scrub = scrubber(key)
    expect(scrub(`invalid key ${key.toUpperCase()}.`)).toBe("invalid key [redacted].")
    expect(scrub(`invalid key ${key.toLowerCase()}.`)).toBe("invalid key [redacted].")
    expect(scrub(`key=${encodeURIComponent(key).toLowerCase()}&alt=sse`)).toBe("key=[redacted]&alt=sse")
    const mixed = [...key].map((char, at) => (at % 2 === 0 ? char.toUpperCase() : char.toLowerCase())).join("")
    expect(scrub(`[${mixed}]`)).toBe("[[redacted]]")
  })

  it("issue 35 item 14: a prefix of the key of 8 characters or more is removed, in any case; 7 characters are left", () => {
    const scrub = scrubber(key)
    expect(scrub(`the key ${key.slice(0, 12)}… is invalid`)).toBe("the key [redacted]… is invalid")
    expect(scrub(`the key ${key.slice(0, 12).toUpperCase()}… is invalid`)).toBe("the key [redacted]… is invalid")
    expect(scrub(`starts ${key.slice(0, 8)}, nothing more`)).toBe("starts [redacted], nothing more")
    expect(scrub(`starts ${key.slice(0, 7)}, nothing more`)).toBe(`starts ${key.slice(0, 7)}, nothing more`)
    // The longest prefix present goes, and what follows it stays: here the key's first 16 characters, then other text.
    expect(scrub(`${key.slice(0, 16)}ZZZZ`)).toBe("[redacted]ZZZZ")
    // The URL-encoded key parts from the key where a character is escaped; each spelling's prefix goes whole.
    expect(scrub(`${encodeURIComponent(key).slice(0, 20)}|`)).toBe("[redacted]|")
  })

  it.prop(
    "issue 35 item 14: any key of 8 characters or more, echoed in either case as any prefix of 8 or more, is removed whole and nothing else is",
    [
      fc.stringOf(fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"), { minLength: 8, maxLength: 48 }),
      fc.nat(),
      fc.boolean(),
      fc.constantFrom("", " ", "key=", "(", "\n"),
      fc.constantFrom("", " ", "…", ")", "\n")
    ],
    ([secret, cut, upper, before, after]) => {
      const prefix = secret.slice(0, 8 + (cut % (secret.length - 7)))
      const echoed = upper ? prefix.toUpperCase() : prefix.toLowerCase()
      expect(scrubber(secret)(`${before}${echoed}${after}`)).toBe(`${before}[redacted]${after}`)
    }
  )

  it("takes a Redacted key as well as a string, and several keys at once", () => {
    expect(scrubber(Redacted.make(key))(`k=${key}`)).toBe("k=[redacted]")
    expect(scrubber("first-key-123", Redacted.make("second-key-456"))("first-key-123 second-key-456")).toBe("[redacted] [redacted]")
  })

  it("a key shorter than 8 characters is removed as written, its encodings are not (they would match ordinary text)", () => {
    const scrub = scrubber("s3cr3t")
    expect(scrub("a s3cr3t b")).toBe("a [redacted] b")
    expect(scrub(base64("xxs3cr3tyy"))).toBe(base64("xxs3cr3tyy"))
  })

  it("a key of exactly 8 characters has its encodings removed too", () => {
    const scrub = scrubber("abcdefgh")
    // base64("abcdefgh") = "YWJjZGVmZ2g=": its first 6 bytes are one whole 8-character spelling.
    expect(scrub(base64("abcdefgh"))).not.toContain("YWJjZGVm")
  })

  it("empty keys are ignored: the text comes back as it was", () => {
    expect(scrubber("")("hello world")).toBe("hello world")
    expect(scrubber(Redacted.make(""), "")("hello world")).toBe("hello world")
    expect(scrubber()("hello")).toBe("hello")
  })
})

describe("spellings", () => {
  it("lists the key, its URL encoding and the base64 forms, longest first, each at least 8 characters", () => {
    const all = spellings(key)
    expect(all).toContain(key)
    expect(all).toContain(encodeURIComponent(key))
    expect(all).toContain(base64(`Bearer ${key}`))
    expect(all).toContain(base64url(`Bearer ${key}`))
    expect(all.every((spelling) => spelling.length >= 8)).toBe(true)
    expect(all.map((spelling) => spelling.length)).toEqual([...all.map((spelling) => spelling.length)].sort((a, b) => b - a))
    expect(new Set(all).size).toBe(all.length)
  })

  it("leaves out the spellings of a short key that are shorter than 8 characters (they would match ordinary text)", () => {
    const short = spellings("k3y")
    expect(short).not.toContain("k3y")
    expect(short.length).toBeGreaterThan(0)
    expect(short.every((spelling) => spelling.length >= 8)).toBe(true)
  })
})
