/**
 * The providers' JSON helpers and plain part constructors, driven directly: untrusted text parsed (or why not),
 * decoded with a Schema keeping unknown fields, error responses told apart, parts built with and without metadata.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { isErrorResponse, parse, parseWith } from "../src/internal/json.js"
import * as Parts from "../src/internal/parts.js"

describe("provider JSON", () => {
  it("parse gives the value, or why the text is not JSON", () => {
    expect(parse('{"a":[1,2]}')).toEqual(Either.right({ a: [1, 2] }))
    const bad = parse("{not json")
    expect(Either.isLeft(bad) && bad.left).toMatch(/JSON/)
    expect(Either.isLeft(bad) && bad.left).not.toBe("invalid JSON")
  })

  it("parseWith decodes with the Schema, keeping fields it does not name, and says why it cannot", () => {
    const decode = parseWith(Schema.Struct({ a: Schema.Number }))
    expect(decode('{"a":1,"extra":true}')).toEqual(Either.right({ a: 1, extra: true }))
    const wrong = decode('{"a":"x"}')
    expect(Either.isLeft(wrong) && wrong.left).toContain("Expected number")
    expect(Either.isLeft(decode("nope"))).toBe(true)
  })

  it("an error response is exactly { error }", () => {
    expect(isErrorResponse({ error: "x" })).toBe(true)
    expect(isErrorResponse({ error: { message: "m" } })).toBe(true)
    expect(isErrorResponse({ error: "x", output: 1 })).toBe(false)
    expect(isErrorResponse({ output: 1 })).toBe(false)
    expect(isErrorResponse({})).toBe(false)
  })
})

describe("parts", () => {
  it("text and reasoning carry metadata only when given", () => {
    expect(Parts.text("hi")).toStrictEqual({ _tag: "Text", text: "hi" })
    expect(Parts.text("hi", { sig: "s" })).toStrictEqual({ _tag: "Text", text: "hi", metadata: { sig: "s" } })
    expect(Parts.reasoning("hm")).toStrictEqual({ _tag: "Reasoning", text: "hm" })
    expect(Parts.reasoning("hm", { sig: "s" })).toStrictEqual({ _tag: "Reasoning", text: "hm", metadata: { sig: "s" } })
  })

  it("opaque, calls and responses are the plain values, arguments kept as given", () => {
    expect(Parts.opaque("gemini", { x: 1 })).toStrictEqual({ _tag: "Opaque", provider: "gemini", data: { x: 1 } })
    const args = JSON.parse('{"__proto__":{"polluted":true}}') as Record<string, unknown>
    const call = Parts.functionCall({ id: "c", name: "f", args })
    expect(call).toStrictEqual({ _tag: "FunctionCall", id: "c", name: "f", args })
    expect(Object.hasOwn(call.args, "__proto__")).toBe(true)
    expect(Parts.functionResponse({ id: "c", name: "f", response: { ok: true }, isError: false })).toStrictEqual({
      _tag: "FunctionResponse",
      id: "c",
      name: "f",
      response: { ok: true },
      isError: false
    })
  })
})
