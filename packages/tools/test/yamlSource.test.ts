// The YAML reader behind case and scenario files, driven directly: lines, fields and reasons as a person editing
// the file reads them.
import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import * as YamlSource from "../src/internal/yamlSource.js"

const source = (text: string, lineOffset = 0) => Either.getOrThrowWith(YamlSource.parse(text, lineOffset), (problem) => new Error(problem.reason))
const problem = (result: Either.Either<unknown, YamlSource.Problem>) => Either.getOrThrowWith(Either.flip(result), () => new Error("no problem"))

describe("YamlSource.where", () => {
  it("is file:line, or the file alone without a line", () => {
    expect(YamlSource.where("a.yaml", 3)).toBe("a.yaml:3")
    expect(YamlSource.where("a.yaml", undefined)).toBe("a.yaml")
  })
})

describe("YamlSource.formatPath", () => {
  it("writes keys with dots and indices in brackets", () => {
    expect(YamlSource.formatPath([])).toBe("")
    expect(YamlSource.formatPath([0])).toBe("[0]")
    expect(YamlSource.formatPath(["a", 0, "b", "c", 12])).toBe("a[0].b.c[12]")
  })
})

describe("YamlSource.parse", () => {
  it("gives the line of any path, or of its nearest existing ancestor, shifted by the offset", () => {
    const text = "a:\n  b:\n    - x\n    - y: 1\n      z: 2\nc: 3\n"
    const parsed = source(text)
    expect(parsed.value).toStrictEqual({ a: { b: ["x", { y: 1, z: 2 }] }, c: 3 })
    expect(parsed.lineOf([])).toBe(1)
    expect(parsed.lineOf(["a", "b", 0])).toBe(3)
    expect(parsed.lineOf(["a", "b", 1, "z"])).toBe(5)
    expect(parsed.lineOf(["c"])).toBe(6)
    // Missing keys and indices, and a path through a scalar, stop at the last node found.
    expect(parsed.lineOf(["a", "nope", "deeper"])).toBe(1)
    expect(parsed.lineOf(["a", "b", 7])).toBe(2)
    expect(parsed.lineOf(["a", "b", "key"])).toBe(2)
    expect(parsed.lineOf(["c", "d"])).toBe(6)
    expect(source(text, 10).lineOf(["a", "b", 1, "z"])).toBe(15)
  })

  it("gives a scalar's text as written, and nothing for what is not a scalar or not there", () => {
    const parsed = source("version: 1.10\nlist: [1, 2]\nquoted: 'x y'\n")
    expect(parsed.value).toStrictEqual({ version: 1.1, list: [1, 2], quoted: "x y" })
    expect(parsed.textOf(["version"])).toBe("1.10")
    expect(parsed.textOf(["quoted"])).toBe("'x y'")
    expect(parsed.textOf(["list", 1])).toBe("2")
    expect(parsed.textOf(["list"])).toBeUndefined()
    expect(parsed.textOf(["missing"])).toBeUndefined()
  })

  it("refuses invalid YAML at its line (shifted by the offset), without the parser's position suffix", () => {
    const bad = problem(YamlSource.parse("a: 1\nb: [x\n"))
    expect(bad.line).toBe(3)
    expect(bad.reason).not.toMatch(/at line \d+, column \d+/)
    expect(bad.reason.length).toBeGreaterThan(0)
    expect(problem(YamlSource.parse("a: 1\nb: [x\n", 4)).line).toBe(7)
  })

  it("refuses two keys that are one property once made JSON, and aliases past a bound", () => {
    expect(problem(YamlSource.parse("1: a\n'1': b\n")).reason).toMatch(/unique/i)
    const laughs = ["a: &a [x, x]", ...Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`)].join("\n")
    expect(problem(YamlSource.parse(`${laughs}\n`)).reason).toMatch(/alias/i)
    // A few aliases are fine.
    expect(source("a: &a [1]\nb: *a\n").value).toStrictEqual({ a: [1], b: [1] })
  })

  it("refuses __proto__ anywhere, and constructor or prototype as a name under a name map, with the path and line", () => {
    expect(problem(YamlSource.parse("a:\n  - b: 1\n    __proto__: {}\n"))).toStrictEqual({
      line: 3,
      field: "a[0].__proto__",
      reason: `the key "__proto__" is not allowed here: it names a member of every JavaScript object, so it would not be read as written`
    })
    expect(problem(YamlSource.parse("mock_function_responses:\n  ok: []\n  constructor: []\n"))).toMatchObject({ line: 3, field: "mock_function_responses.constructor" })
    expect(problem(YamlSource.parse("$defs:\n  prototype: {}\n"))).toMatchObject({ line: 2, field: "$defs.prototype" })
    // Elsewhere they are ordinary keys, and a name map's own values are not name maps.
    expect(source("constructor: 1\nprototype: 2\n").value).toStrictEqual({ constructor: 1, prototype: 2 })
    expect(source("mock_function_responses:\n  f:\n    - constructor: 1\n").value).toStrictEqual({ mock_function_responses: { f: [{ constructor: 1 }] } })
    // An alias used as a key is the key it points to.
    expect(problem(YamlSource.parse("k: &p __proto__\nm:\n  *p : 1\n"))).toMatchObject({ line: 3, field: "m.__proto__" })
  })
})

describe("YamlSource.parseAll", () => {
  it("reads every document, skipping empty ones; lines count from the top of the stream", () => {
    const sources = Either.getOrThrow(YamlSource.parseAll("a: 1\n---\n---\nb: 2\nc: 3\n---\n"))
    expect(sources.map((s) => s.value)).toStrictEqual([{ a: 1 }, { b: 2, c: 3 }])
    expect(sources[1]!.lineOf(["c"])).toBe(5)
    expect(Either.getOrThrow(YamlSource.parseAll(""))).toStrictEqual([])
    expect(Either.getOrThrow(YamlSource.parseAll("# only a comment\n"))).toStrictEqual([])
  })

  it("stops at the first document with a problem", () => {
    expect(problem(YamlSource.parseAll("a: 1\n---\nb: [x\n---\nc: 1\n"))).toMatchObject({ line: 4 })
    expect(problem(YamlSource.parseAll("a: 1\n---\n__proto__: 1\n"))).toMatchObject({ line: 3, field: "__proto__" })
  })
})

describe("YamlSource.decode", () => {
  const Item = Schema.Struct({ name: Schema.String, size: Schema.Number })
  const File = Schema.Struct({ title: Schema.String, items: Schema.NonEmptyArray(Item) })

  it("names the first problem in the file's order, with its line, and counts the others", () => {
    const decoded = YamlSource.decode(File, source("title: t\nitems:\n  - name: a\n    size: x\n  - name: 3\n    size: 1\n"))
    expect(problem(decoded)).toStrictEqual({ line: 4, field: "items[0].size", reason: 'Expected number, actual "x" (and 1 more problem)' })
    const three = YamlSource.decode(File, source("title: 1\nitems:\n  - name: a\n    size: x\n  - name: 3\n    size: 1\n"))
    expect(problem(three)).toMatchObject({ line: 1, field: "title", reason: "Expected string, actual 1 (and 2 more problems)" })
  })

  it("says what a file's editor needs: unknown fields with the known ones, missing fields, an empty list", () => {
    expect(problem(YamlSource.decode(File, source("title: t\nitems:\n  - name: a\n    size: 1\n    colour: red\n")))).toStrictEqual({
      line: 5,
      field: "items[0].colour",
      reason: "unknown field; expected one of name | size"
    })
    expect(problem(YamlSource.decode(File, source("title: t\nitems:\n  - name: a\n")))).toMatchObject({ line: 3, field: "items[0].size", reason: "is required but missing" })
    expect(problem(YamlSource.decode(File, source("title: t\nitems: []\n")))).toStrictEqual({ line: 2, field: "items", reason: "the list is empty: give at least one entry" })
  })

  it("puts the prefix before the path, and names no field for a problem with the whole document", () => {
    expect(problem(YamlSource.decode(File, source("title: t\nitems: [{ name: a, size: '1' }]\n"), ["x-case"]))).toMatchObject({ field: "x-case.items[0].size" })
    expect(problem(YamlSource.decode(File, source("- 1\n")))).toMatchObject({ field: undefined, line: 1 })
  })

  it("shortens a long spelled-out type to what was found; a short one stays", () => {
    const Wide = Schema.Struct({ settings: Schema.Struct({ alpha: Schema.String, beta: Schema.Number, gamma: Schema.Boolean, delta: Schema.String }) })
    expect(problem(YamlSource.decode(Wide, source("settings: 3\n")))).toMatchObject({ field: "settings", reason: "has the wrong shape (got 3)" })
    expect(problem(YamlSource.decode(Schema.Struct({ n: Schema.Number }), source("n: x\n")))).toMatchObject({ reason: 'Expected number, actual "x"' })
  })
})
