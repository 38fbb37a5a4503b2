import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { parsePartial } from "../src/internal/partialJson.js"

/** JSON text with every kind of JSON white space around every token. */
const spaced = (value: unknown): string => {
  const gap = " \t\r\n"
  if (Array.isArray(value)) return `[${gap}${value.map(spaced).join(`${gap},${gap}`)}${gap}]`
  if (typeof value === "object" && value !== null) {
    return `{${gap}${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}${gap}:${gap}${spaced(item)}`).join(`${gap},${gap}`)}${gap}}`
  }
  return JSON.stringify(value)
}

// Texts as models write them: compact, indented, and with white space around every token.
const texts = fc.jsonValue({ maxDepth: 4 }).chain((value) => fc.constantFrom(JSON.stringify(value), JSON.stringify(value, null, 2), spaced(value)))

describe("parsePartial", () => {
  it.prop("for any JSON value and any prefix of its text, the parse never throws, and on the full text it equals JSON.parse", [texts], ([text]) => {
    for (let end = 0; end < text.length; end++) parsePartial(text.slice(0, end))
    expect(parsePartial(text)).toStrictEqual(JSON.parse(text))
  })

  it.prop("a prefix of an object's text parses to an object or nothing, never to another kind of value", [fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }))], ([object]) => {
    const text = JSON.stringify(object)
    for (let end = 0; end <= text.length; end++) {
      const partial = parsePartial(text.slice(0, end))
      expect(partial === undefined || (typeof partial === "object" && partial !== null && !Array.isArray(partial))).toBe(true)
    }
  })

  it("keeps what is complete and the string being written; leaves out what cannot be told yet", () => {
    expect(parsePartial("")).toBeUndefined()
    expect(parsePartial("  ")).toBeUndefined()
    expect(parsePartial('{"category": "valid-warr')).toStrictEqual({ category: "valid-warr" })
    expect(parsePartial('{"serials": ["SN-1", "SN')).toStrictEqual({ serials: ["SN-1", "SN"] })
    expect(parsePartial('{"a": 1, "b')).toStrictEqual({ a: 1 })
    expect(parsePartial('{"a": 1, "b": ')).toStrictEqual({ a: 1 })
    expect(parsePartial('{"a": tr')).toStrictEqual({})
    expect(parsePartial('{"a": -')).toStrictEqual({})
    expect(parsePartial('{"a": 1.')).toStrictEqual({})
    expect(parsePartial('{"a": 12')).toStrictEqual({ a: 12 })
    expect(parsePartial('[1, {"b": [true, nu')).toStrictEqual([1, { b: [true] }])
  })

  it("a string cut inside an escape keeps the characters before the escape", () => {
    expect(parsePartial('"ab\\')).toBe("ab")
    expect(parsePartial('"ab\\u00')).toBe("ab")
    expect(parsePartial('"ab\\u00e9')).toBe("abé")
    expect(parsePartial('"ab\\\\')).toBe("ab\\")
    expect(parsePartial('"ab\\n')).toBe("ab\n")
  })

  it("skips an opening code fence, and gives nothing for prose", () => {
    expect(parsePartial('```json\n{"a": [1, 2')).toStrictEqual({ a: [1, 2] })
    expect(parsePartial('```\n{"a": 1}\n```')).toStrictEqual({ a: 1 })
    expect(parsePartial("I checked the warranty")).toBeUndefined()
    expect(parsePartial('{"a": 1} and then some prose')).toStrictEqual({ a: 1 })
  })

  it("a separator or quote out of place stops the read there: nothing after it is taken", () => {
    expect(parsePartial('{"a": 1 x"b": 2}')).toStrictEqual({ a: 1 })
    expect(parsePartial("[1 x2]")).toStrictEqual([1])
    expect(parsePartial('{"a" x: 1, "b": 2}')).toStrictEqual({})
    expect(parsePartial('{"a": 1, x"b": 2}')).toStrictEqual({ a: 1 })
    expect(parsePartial('{"a": x, "b": 2}')).toStrictEqual({})
    expect(parsePartial("[x, 2]")).toStrictEqual([])
    expect(parsePartial('{"a": [1, 2] "b": 3}')).toStrictEqual({ a: [1, 2] })
  })

  it("a word is kept only whole; cut, it is left out, and anything else stops the read", () => {
    expect(parsePartial("[true, fals")).toStrictEqual([true])
    expect(parsePartial("[nul")).toStrictEqual([])
    expect(parsePartial("tru")).toBeUndefined()
    expect(parsePartial("[trux, 1]")).toStrictEqual([])
    expect(parsePartial("[nulL, 1]")).toStrictEqual([])
    expect(parsePartial("[false, null, true]")).toStrictEqual([false, null, true])
  })

  it("numbers are read with their fraction and exponent, and a cut exponent is left out", () => {
    expect(parsePartial("[1e5, -0.5e-3, 2E+2, 0]")).toStrictEqual([100000, -0.0005, 200, 0])
    expect(parsePartial("[1e")).toStrictEqual([])
    expect(parsePartial("[1e+")).toStrictEqual([])
    expect(parsePartial("[-")).toStrictEqual([])
    expect(parsePartial("[12, 3")).toStrictEqual([12, 3])
  })

  it("stops at text that is not JSON, with what it read", () => {
    expect(parsePartial('{"a": 1 "b": 2}')).toStrictEqual({ a: 1 })
    expect(parsePartial("[1 2]")).toStrictEqual([1])
    expect(parsePartial('{a: 1}')).toStrictEqual({})
    expect(parsePartial('{"a": yes}')).toStrictEqual({})
  })

  it("a __proto__ key is an own member, as JSON.parse makes it", () => {
    const parsed = parsePartial('{"__proto__": {"x": 1}}') as Record<string, unknown>
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype)
    expect(Object.hasOwn(parsed, "__proto__")).toBe(true)
    expect(parsed).toStrictEqual(JSON.parse('{"__proto__": {"x": 1}}'))
  })

  it("is bounded: nesting past maxDepth is left out, a text past maxChars is not read", () => {
    expect(parsePartial('{"a": {"b": {"c": 1}}, "d": 2}', { maxDepth: 2, maxChars: 100 })).toStrictEqual({ a: {}, d: 2 })
    expect(parsePartial('[[["x"]], 1]', { maxDepth: 1, maxChars: 100 })).toStrictEqual([1])
    expect(parsePartial('{"a": 1}', { maxDepth: 10, maxChars: 7 })).toBeUndefined()
    expect(parsePartial('{"a": 1}', { maxDepth: 10, maxChars: 8 })).toStrictEqual({ a: 1 })
    expect(parsePartial("[1]", { maxDepth: 0, maxChars: 100 })).toBeUndefined()
    expect(parsePartial('{"a": "}]", "b": [{"c": "]"}], "d": 1}', { maxDepth: 1, maxChars: 100 })).toStrictEqual({ a: "}]", d: 1 })
    // 100,000 open brackets: read to the default 64 levels, without overflowing the stack.
    let deep = parsePartial("[".repeat(100_000))
    for (let level = 1; level < 64; level++) deep = (deep as Array<unknown>)[0]
    expect(deep).toStrictEqual([])
  })

  it("a number of any length is read whole", () => {
    const long = "1".repeat(500)
    expect(parsePartial(`[${long}]`)).toStrictEqual(JSON.parse(`[${long}]`))
  })
})
