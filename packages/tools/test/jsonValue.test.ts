import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import { contains, differences, equals, show } from "../src/internal/jsonValue.js"

describe("jsonValue.equals", () => {
  it("compares JSON values structurally, ignoring key order", () => {
    expect(equals({ a: 1, b: [1, { c: "x" }] }, { b: [1, { c: "x" }], a: 1 })).toBe(true)
    expect(equals([], [])).toBe(true)
    expect(equals({}, {})).toBe(true)
    expect(equals(null, null)).toBe(true)
    expect(equals(1, 2)).toBe(false)
    expect(equals(1, "1")).toBe(false)
    expect(equals({ a: 1 }, { a: 2 })).toBe(false)
    expect(equals([1, 2], [2, 1])).toBe(false)
  })

  it("an array equals only an array of the same length", () => {
    expect(equals([1], [1, 2])).toBe(false)
    expect(equals([1, 2], [1])).toBe(false)
    expect(equals([1], { 0: 1, length: 1 })).toBe(false)
    expect(equals([], {})).toBe(false)
  })

  it("an object equals only an object with the same keys", () => {
    expect(equals({}, [])).toBe(false)
    expect(equals({ a: 1 }, null)).toBe(false)
    expect(equals({ a: 1 }, { a: 1, b: 2 })).toBe(false)
    expect(equals({ a: 1, b: 2 }, { a: 1 })).toBe(false)
    expect(equals({ a: null }, { b: null })).toBe(false)
    // Same count, one key absent and one extra, whose values look alike.
    expect(equals({ a: undefined }, { b: undefined })).toBe(false)
  })

  it.prop("equals is reflexive on JSON values and agrees with their canonical JSON", [fc.jsonValue(), fc.jsonValue()], ([a, b]) => {
    expect(equals(a, structuredClone(a))).toBe(true)
    const canonical = (value: unknown): string =>
      JSON.stringify(value, (_key, inner: unknown) =>
        inner !== null && typeof inner === "object" && !Array.isArray(inner)
          ? Object.fromEntries(Object.entries(inner).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
          : inner
      )
    expect(equals(a, b)).toBe(canonical(a) === canonical(b))
  })
})

describe("jsonValue.differences", () => {
  it("lists every missing, unexpected and different value, with its path", () => {
    expect(differences({ a: 1, b: { c: 2, d: 3 } }, { a: 1, b: { c: 5, e: 4 }, f: 6 }, false)).toStrictEqual([
      { path: "b.c", problem: "different", expected: 2, actual: 5 },
      { path: "b.d", problem: "missing", expected: 3 },
      { path: "b.e", problem: "unexpected", actual: 4 },
      { path: "f", problem: "unexpected", actual: 6 }
    ])
    expect(differences({ a: 1 }, { a: 1 }, false)).toStrictEqual([])
  })

  it("partially, an object needs only the expected keys, at every depth", () => {
    expect(differences({ b: { c: 2 } }, { a: 1, b: { c: 2, d: 3 } }, true)).toStrictEqual([])
    expect(differences({ b: { c: 2 } }, { b: { d: 3 } }, true)).toStrictEqual([{ path: "b.c", problem: "missing", expected: 2 }])
  })

  it("compares arrays of the same length element by element, and others as a whole", () => {
    expect(differences([1, { a: 1 }, 3], [1, { a: 2, b: 0 }, 3], true)).toStrictEqual([{ path: "[1].a", problem: "different", expected: 1, actual: 2 }])
    expect(differences({ xs: [1, 2] }, { xs: [1] }, true)).toStrictEqual([{ path: "xs", problem: "different", expected: [1, 2], actual: [1] }])
    expect(differences({ xs: [{ a: 1 }] }, { xs: [{ a: 1, b: 2 }] }, false)).toStrictEqual([{ path: "xs[0].b", problem: "unexpected", actual: 2 }])
  })

  it("a scalar, or a value of another kind, is different as a whole", () => {
    expect(differences(1, 2, false)).toStrictEqual([{ path: "", problem: "different", expected: 1, actual: 2 }])
    expect(differences({ a: 1 }, [1], true)).toStrictEqual([{ path: "", problem: "different", expected: { a: 1 }, actual: [1] }])
    expect(differences([1], { 0: 1 }, true)).toStrictEqual([{ path: "", problem: "different", expected: [1], actual: { 0: 1 } }])
    // An object that looks like an array (its own "length") is still no array.
    expect(differences([1], { 0: 1, length: 1 }, true)).toStrictEqual([{ path: "", problem: "different", expected: [1], actual: { 0: 1, length: 1 } }])
    expect(differences("x", "x", false)).toStrictEqual([])
  })

  it("writes a key that is not a plain name in brackets, as a JSON string", () => {
    const paths = (key: string) => differences({ [key]: 1, n: { [key]: 1 } }, { [key]: 2, n: { [key]: 2 } }, false).map((d) => d.path)
    expect(paths("plain_name")).toStrictEqual(["plain_name", "n.plain_name"])
    expect(paths("$ref")).toStrictEqual(["$ref", "n.$ref"])
    expect(paths("_x")).toStrictEqual(["_x", "n._x"])
    expect(paths("Content-Type")).toStrictEqual(["Content-Type", "n.Content-Type"])
    expect(paths("a1")).toStrictEqual(["a1", "n.a1"])
    expect(paths("1a")).toStrictEqual([`["1a"]`, `n["1a"]`])
    expect(paths("-a")).toStrictEqual([`["-a"]`, `n["-a"]`])
    expect(paths("a b")).toStrictEqual([`["a b"]`, `n["a b"]`])
    expect(paths("a.b")).toStrictEqual([`["a.b"]`, `n["a.b"]`])
    expect(paths("ab!")).toStrictEqual([`["ab!"]`, `n["ab!"]`])
    expect(paths("")).toStrictEqual([`[""]`, `n[""]`])
  })
})

describe("jsonValue.contains", () => {
  it("holds when the actual value has everything the expected one states", () => {
    expect(contains({ a: 1 }, { a: 1, b: 2 })).toBe(true)
    expect(contains({ a: 1, b: 2 }, { a: 1 })).toBe(false)
    expect(contains([{ a: 1 }], [{ a: 1, b: 2 }])).toBe(true)
    expect(contains(1, 1)).toBe(true)
    expect(contains(1, 2)).toBe(false)
  })
})

describe("jsonValue.show", () => {
  it("writes compact JSON, and an absent value as (absent)", () => {
    expect(show({ a: [1, "x"] })).toBe(`{"a":[1,"x"]}`)
    expect(show(undefined)).toBe("(absent)")
    expect(show(null)).toBe("null")
  })

  it("falls back to String for what JSON cannot write", () => {
    expect(show(10n)).toBe("10")
    expect(show(Symbol.for("s"))).toBe("Symbol(s)")
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(show(cyclic)).toBe("[object Object]")
  })

  it("cuts a value longer than max to max characters, ending in an ellipsis", () => {
    expect(show("abcd", 6)).toBe(`"abcd"`)
    expect(show("abcde", 6)).toBe(`"abcd…`)
    expect(show("abcde", 6)).toHaveLength(6)
  })
})
