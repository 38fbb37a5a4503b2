import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { createHmac } from "node:crypto"
import { canonical } from "../src/internal/json.js"
import { dummySignatures, signer } from "../src/internal/gemini/signature.js"

const secret = "0123456789abcdef"
/** The signature as the protocol defines it, computed afresh every time. */
const direct = (subject: unknown): string => createHmac("sha256", secret).update(canonical(subject)).digest().subarray(0, 24).toString("base64")

const subjectArb = fc.record({ kind: fc.constantFrom("call", "text"), id: fc.option(fc.constantFrom("c1", "c2", "c3")), args: fc.dictionary(fc.constantFrom("a", "b"), fc.integer({ min: 0, max: 3 })) })

describe("Gemini thought signatures, cached per content", () => {
  it.prop(
    "a signer that remembers at most k signatures signs every subject as the HMAC of its canonical form, in any order, however often, and never holds more than k",
    [fc.array(subjectArb, { maxLength: 60 }), fc.integer({ min: 1, max: 6 })],
    ([subjects, capacity]) => {
      const sign = signer(secret, capacity)
      for (const subject of subjects) {
        expect(sign.sign(subject)).toBe(direct(subject))
        expect(sign.verify(subject, direct(subject))).toBe(true)
        expect(sign.cached().length).toBeLessThanOrEqual(capacity)
      }
    }
  )

  it("the same content in another key order is one entry; a signature for other content, or under another secret, fails", () => {
    const sign = signer(secret)
    const call = { kind: "call", id: "c1", name: "lookup", args: { a: 1, b: [2, 3] } }
    const signature = sign.sign(call)
    expect(sign.sign({ args: { b: [2, 3], a: 1 }, name: "lookup", id: "c1", kind: "call" })).toBe(signature)
    expect(sign.cached()).toEqual([canonical(call)])
    expect(sign.verify({ ...call, args: { a: 2, b: [2, 3] } }, signature)).toBe(false)
    expect(signer("another secret").verify(call, signature)).toBe(false)
    expect(sign.verify(call, [...dummySignatures][0]!)).toBe(true)
  })

  it("past its capacity the least recently used content is forgotten first, and one used again is kept", () => {
    const sign = signer(secret, 2)
    const [one, two, three] = [{ n: 1 }, { n: 2 }, { n: 3 }]
    sign.sign(one)
    sign.sign(two)
    // Used again: `two` is now the least recently used.
    expect(sign.verify(one, direct(one))).toBe(true)
    expect(sign.cached()).toEqual([canonical(two), canonical(one)])
    expect(sign.sign(three)).toBe(direct(three))
    expect(sign.cached()).toEqual([canonical(one), canonical(three)])
    expect(sign.sign(two)).toBe(direct(two))
    expect(sign.cached()).toEqual([canonical(three), canonical(two)])
  })
})
