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
    expect(parsed.lineOf(["c", 0])).toBe(6)
    expect(source(text, 10).lineOf(["a", "b", 1, "z"])).toBe(15)
    // A key given through an alias is found as the key it points to.
    expect(source("k: &k name\nm:\n  x: 1\n  *k : 2\n").lineOf(["m", "name"])).toBe(4)
  })

  it("gives no line in an empty document", () => {
    expect(source("").value).toBeNull()
    expect(source("").lineOf([])).toBeUndefined()
    expect(source("# a comment\n").lineOf(["a", 0])).toBeUndefined()
  })

  it("gives a scalar's text as written, and nothing for what is not a scalar or not there", () => {
    const parsed = source("version: 1.10\nlist: [1, 2]\nquoted: 'x y'\n")
    expect(parsed.value).toStrictEqual({ version: 1.1, list: [1, 2], quoted: "x y" })
    expect(parsed.textOf(["version"])).toBe("1.10")
    expect(parsed.textOf(["quoted"])).toBe("'x y'")
    expect(parsed.textOf(["list", 1])).toBe("2")
    expect(parsed.textOf(["list"])).toBeUndefined()
    expect(parsed.textOf(["missing"])).toBeUndefined()
    // A path that goes on through a scalar, past a list's end, or into a list by name finds nothing.
    expect(parsed.textOf(["version", "minor"])).toBeUndefined()
    expect(parsed.textOf(["version", 0])).toBeUndefined()
    expect(parsed.textOf(["list", 2])).toBeUndefined()
    expect(parsed.textOf(["list", "length"])).toBeUndefined()
  })

  it("refuses invalid YAML at its line (shifted by the offset), without the parser's position suffix", () => {
    const bad = problem(YamlSource.parse("a: 1\nb: [x\n"))
    expect(bad.line).toBe(3)
    expect(bad.reason).not.toMatch(/at line \d+, column \d+/)
    expect(bad.reason.length).toBeGreaterThan(0)
    expect(problem(YamlSource.parse("a: 1\nb: [x\n", 4)).line).toBe(7)
    // Positions of two digits and more are cut as well; the parser's own words stay as they are.
    const late = `${Array.from({ length: 11 }, (_, i) => `k${i}: 1`).join("\n")}\nlong_key_a: b: c\n`
    expect(problem(YamlSource.parse(late))).toStrictEqual({ line: 12, reason: "Nested mappings are not allowed in compact mappings" })
  })

  it("keeps the spec's strict checks: an implicit key longer than 1,024 characters is refused", () => {
    expect(problem(YamlSource.parse(`${"k".repeat(1100)}: 1\n`)).reason).toMatch(/at most 1024 chars/)
    expect(source(`${"k".repeat(1000)}: 1\n`).value).toStrictEqual({ ["k".repeat(1000)]: 1 })
  })

  it("refuses two keys that are one property once made JSON, and aliases past a bound", () => {
    expect(problem(YamlSource.parse("1: a\n'1': b\n")).reason).toMatch(/unique/i)
    const laughs = ["a: &a [x, x]", ...Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`)].join("\n")
    expect(problem(YamlSource.parse(`${laughs}\n`)).reason).toMatch(/alias/i)
    // A few aliases are fine: up to 49 uses of one anchor (the parser counts the anchor as well), not 50.
    expect(source("a: &a [1]\nb: *a\n").value).toStrictEqual({ a: [1], b: [1] })
    const uses = (n: number) => `a: &a x\nb: [${Array.from({ length: n }, () => "*a").join(", ")}]\n`
    expect(source(uses(49)).value).toStrictEqual({ a: "x", b: Array.from({ length: 49 }, () => "x") })
    expect(problem(YamlSource.parse(uses(50))).reason).toMatch(/alias/i)
  })

  it("refuses a key given twice through an alias, with the path and line of the second", () => {
    expect(problem(YamlSource.parse("k: &k name\nm:\n  name: 1\n  *k : 2\n"))).toStrictEqual({
      line: 4,
      field: "m.name",
      reason: 'the key "name" is given twice in one mapping: keys must be unique'
    })
    // Apart, in two mappings, the same key is fine.
    expect(source("a:\n  x: 1\nb:\n  x: 2\n").value).toStrictEqual({ a: { x: 1 }, b: { x: 2 } })
  })

  it("refuses a list or a mapping used as a key, naming the mapping it is in", () => {
    expect(problem(YamlSource.parse("a:\n  ok: 1\n  ? [x, y]\n  : 2\n"))).toStrictEqual({
      line: 3,
      field: "a",
      reason: "a key must be plain text, not a list or a mapping"
    })
    expect(problem(YamlSource.parse("? {x: 1}\n: 2\n", 3))).toStrictEqual({ line: 4, field: undefined, reason: "a key must be plain text, not a list or a mapping" })
  })

  it("refuses __proto__ anywhere, and constructor or prototype as a name under a name map, with the path and line", () => {
    expect(problem(YamlSource.parse("a:\n  - b: 1\n    __proto__: {}\n"))).toStrictEqual({
      line: 3,
      field: "a[0].__proto__",
      reason: `the key "__proto__" is not allowed here: it names a member of every JavaScript object, so it would not be read as written`
    })
    expect(problem(YamlSource.parse("mock_function_responses:\n  ok: []\n  constructor: []\n"))).toMatchObject({ line: 3, field: "mock_function_responses.constructor" })
    expect(problem(YamlSource.parse("$defs:\n  prototype: {}\n"))).toMatchObject({ line: 2, field: "$defs.prototype" })
    expect(problem(YamlSource.parse("definitions:\n  constructor: {}\n", 5))).toMatchObject({ line: 7, field: "definitions.constructor" })
    expect(problem(YamlSource.parse("__proto__: 1\n", 5))).toMatchObject({ line: 6, field: "__proto__" })
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
    // A problem is dropped only under a deeper one at its own path, not beside one in a sibling entry.
    const siblings = YamlSource.decode(File, source("title: t\nitems:\n  - name: a\n    size: x\n  - 3\n"))
    expect(problem(siblings)).toMatchObject({ line: 4, field: "items[0].size", reason: 'Expected number, actual "x" (and 1 more problem)' })
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
    // The bound is 60 characters of the expected type: a literal of 58 characters, quoted, is 60 and stays.
    const literal = (length: number) => Schema.Struct({ kind: Schema.Literal("k".repeat(length)) })
    expect(problem(YamlSource.decode(literal(58), source("kind: other\n"))).reason).toBe(`Expected "${"k".repeat(58)}", actual "other"`)
    expect(problem(YamlSource.decode(literal(59), source("kind: other\n"))).reason).toBe('has the wrong shape (got "other")')
  })
})

describe("YamlSource.decodeAll", () => {
  const Call = Schema.Struct({ function_name: Schema.String, arguments: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })) })
  const File = Schema.Struct({ id: Schema.String, calls: Schema.Array(Call) })
  const problems = <A>(decoded: Either.Either<A, ReadonlyArray<YamlSource.Problem>>) => Either.match(decoded, { onLeft: (all) => all, onRight: () => [] })

  it("gives every problem, in the file's order, each with its field and line", () => {
    const decoded = YamlSource.decodeAll(File, source("id: 1\ncalls:\n  - function_name: a\n  - function_name: 2\n  - {}\n"))
    expect(problems(decoded)).toStrictEqual([
      { line: 1, field: "id", reason: "Expected string, actual 1" },
      { line: 4, field: "calls[1].function_name", reason: "Expected string, actual 2" },
      { line: 5, field: "calls[2].function_name", reason: "is required but missing" }
    ])
  })

  it("an unknown key close to a known one says which, and that one is not also reported missing", () => {
    const decoded = YamlSource.decodeAll(File, source("id: x\ncalls:\n  - functon_name: a\n  - function_name: b\n    argumnts: {}\n    colour: red\n"))
    expect(problems(decoded)).toStrictEqual([
      { line: 3, field: "calls[0].functon_name", reason: 'unknown field (did you mean "function_name"?); expected one of function_name | arguments' },
      { line: 5, field: "calls[1].argumnts", reason: 'unknown field (did you mean "arguments"?); expected one of function_name | arguments' },
      { line: 6, field: "calls[1].colour", reason: "unknown field; expected one of function_name | arguments" }
    ])
  })

  it("decode gives the first of them and counts the others", () => {
    expect(problem(YamlSource.decode(File, source("id: x\ncalls:\n  - functon_name: a\n  - function_name: b\n    colour: red\n")))).toStrictEqual({
      line: 3,
      field: "calls[0].functon_name",
      reason: 'unknown field (did you mean "function_name"?); expected one of function_name | arguments (and 1 more problem)'
    })
  })
})
