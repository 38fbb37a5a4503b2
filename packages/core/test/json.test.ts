import { describe, expect, it } from "@effect/vitest"
import { Either, Option, Schema, SchemaAST } from "effect"
import type { ArgumentLimits } from "../src/internal/json.js"
import { checkArguments, defaultLimits, describeFailure, issuesOf, toJson } from "../src/internal/json.js"
import * as Json from "../src/Json.js"

const wide: ArgumentLimits = { maxDepth: 1_000, maxNodes: 1_000_000, maxChars: 10_000_000 }
const check = (args: unknown, limits: Partial<ArgumentLimits> = {}) => {
  const checked = checkArguments(args, { ...wide, ...limits })
  return Either.isRight(checked) ? "ok" : checked.left.map((issue) => `${issue.path}: ${issue.message}`).join("; ")
}

describe("checkArguments", () => {
  it("the defaults are 64 levels, 100,000 values and 1,000,000 characters", () => {
    expect(defaultLimits).toEqual({ maxDepth: 64, maxNodes: 100_000, maxChars: 1_000_000 })
  })

  it("accepts JSON and returns the same object", () => {
    const args = { a: [1, "x", true, null, { b: -0 }], c: {} }
    const checked = checkArguments(args, defaultLimits)
    expect(Either.isRight(checked) && checked.right).toBe(args)
    expect(check(Object.create(null))).toBe("ok")
  })

  it.each([
    [null, "null"],
    [[1], "an array"],
    ["{}", "string"],
    [1, "number"],
    [undefined, "undefined"],
    [new Date(0), "object"]
  ] as const)("refuses %j as the arguments (got %s)", (args, got) => {
    expect(check(args)).toBe(`: expected an object of arguments, got ${got}`)
  })

  it("depth: the root object is level 1; an object at exactly maxDepth passes, one deeper fails at its path", () => {
    expect(check({ a: 1 }, { maxDepth: 1 })).toBe("ok")
    expect(check({ a: {} }, { maxDepth: 1 })).toBe("a: arguments are nested deeper than 1 levels")
    expect(check({ a: {} }, { maxDepth: 2 })).toBe("ok")
    expect(check({ a: { b: { c: "deep" } } }, { maxDepth: 3 })).toBe("ok")
    expect(check({ a: { b: { c: {} } } }, { maxDepth: 3 })).toBe("a.b.c: arguments are nested deeper than 3 levels")
  })

  it("depth counts nested arrays like objects", () => {
    expect(check({ a: [[1]] }, { maxDepth: 3 })).toBe("ok")
    expect(check({ a: [[1]] }, { maxDepth: 2 })).toBe("a[0]: arguments are nested deeper than 2 levels")
    expect(check({ a: [[], [[]]] }, { maxDepth: 3 })).toBe("a[1][0]: arguments are nested deeper than 3 levels")
  })

  it("nodes: every value counts, the root and array items too; exactly maxNodes passes", () => {
    expect(check({ a: 1 }, { maxNodes: 2 })).toBe("ok")
    expect(check({ a: 1 }, { maxNodes: 1 })).toBe(": arguments hold more than 1 values")
    expect(check({ xs: [1, 2, 3] }, { maxNodes: 5 })).toBe("ok")
    expect(check({ xs: [1, 2, 3] }, { maxNodes: 4 })).toBe(": arguments hold more than 4 values")
    expect(check({}, { maxNodes: 1 })).toBe("ok")
  })

  it("characters: keys and strings count; exactly maxChars passes", () => {
    expect(check({ ab: "cde" }, { maxChars: 5 })).toBe("ok")
    expect(check({ ab: "cde" }, { maxChars: 4 })).toBe(": arguments are larger than 4 characters")
    expect(check({ abcdef: 1 }, { maxChars: 5 })).toBe(": arguments are larger than 5 characters")
    expect(check({ abcde: 1 }, { maxChars: 5 })).toBe("ok")
    expect(check({ a: ["xy", "z"] }, { maxChars: 4 })).toBe("ok")
    expect(check({ a: ["xy", "zw"] }, { maxChars: 4 })).toBe(": arguments are larger than 4 characters")
    expect(check({ n: 123456789, b: true }, { maxChars: 2 })).toBe("ok")
  })

  it("refuses keys that could change a prototype, at their path", () => {
    expect(check(JSON.parse('{"__proto__": 1}'))).toBe('__proto__: the key "__proto__" is not allowed')
    expect(check({ a: [{ constructor: 1 }] })).toBe('a[0].constructor: the key "constructor" is not allowed')
    expect(check({ "a b": { prototype: 1 } })).toBe('["a b"].prototype: the key "prototype" is not allowed')
  })

  it("refuses values that are not JSON, at their path", () => {
    expect(check({ n: Infinity })).toBe("n: expected a finite number, got Infinity")
    expect(check({ xs: [1, NaN] })).toBe("xs[1]: expected a finite number, got NaN")
    expect(check({ u: undefined })).toBe("u: expected JSON data, got undefined")
    expect(check({ b: 1n })).toBe("b: expected JSON data, got bigint")
    expect(check({ f: () => 1 })).toBe("f: expected JSON data, got function")
    expect(check({ $d: new Date(0) })).toBe("$d: expected JSON data, got a class instance")
    expect(check({ _x: { "1a": new Map() } })).toBe('_x["1a"]: expected JSON data, got a class instance')
  })
})

describe("issuesOf", () => {
  it("one issue per path; a union's messages at one path are joined, without repeats", () => {
    const schema = Schema.Struct({ a: Schema.Union(Schema.String, Schema.Number), b: Schema.Array(Schema.Boolean) })
    const result = Schema.decodeUnknownEither(schema, { errors: "all" })({ a: true, b: [1, true, "x"] })
    if (Either.isRight(result)) throw new Error("expected a parse error")
    expect(issuesOf(result.left)).toEqual([
      { path: "a", message: "Expected string, actual true, or Expected number, actual true" },
      { path: "b[0]", message: "Expected boolean, actual 1" },
      { path: "b[2]", message: 'Expected boolean, actual "x"' }
    ])
    const twice = Schema.Union(Schema.Literal("a"), Schema.Literal("a").annotations({ message: () => "not a" }), Schema.Literal("b").annotations({ message: () => "not a" }))
    const repeated = Schema.decodeUnknownEither(twice)("c")
    if (Either.isRight(repeated)) throw new Error("expected a parse error")
    expect(issuesOf(repeated.left)).toEqual([{ path: "", message: 'Expected "a", actual "c", or not a' }])
  })
})

describe("toJson", () => {
  it("a plain JSON tree is returned as it is, not copied", () => {
    const tree = { a: [1, { b: "c" }], d: null, e: false }
    const converted = toJson(tree)
    expect(Either.isRight(converted) && converted.right).toBe(tree)
    expect(toJson("text")).toEqual(Either.right("text"))
    expect(toJson(undefined)).toEqual(Either.right(null))
  })

  it("anything else goes through JSON's own conversion", () => {
    expect(toJson({ at: new Date(0), gone: undefined })).toEqual(Either.right({ at: "1970-01-01T00:00:00.000Z" }))
    expect(toJson([new Map([["a", 1]])])).toEqual(Either.right([{}]))
    expect(toJson(() => 1)).toEqual(Either.right(null))
  })

  it("values JSON cannot hold are an error, not a silent null", () => {
    expect(toJson({ x: NaN })).toEqual(Either.left("the number NaN has no JSON form"))
    expect(toJson([1, -Infinity])).toEqual(Either.left("the number -Infinity has no JSON form"))
    expect(toJson({ at: new Date(0), n: Infinity })).toEqual(Either.left("the number Infinity has no JSON form"))
    expect(Either.isLeft(toJson({ big: 1n }))).toBe(true)
  })

  it("a cycle is an error (it used to hang); a value shared by two fields is not a cycle", () => {
    const cycle: Record<string, unknown> = { a: 1 }
    cycle.self = cycle
    expect(Either.isLeft(toJson(cycle))).toBe(true)
    const loop: Array<unknown> = []
    loop.push([loop])
    expect(Either.isLeft(toJson(loop))).toBe(true)
    const shared = { x: [1] }
    expect(toJson({ a: shared, b: shared })).toEqual(Either.right({ a: { x: [1] }, b: { x: [1] } }))
  })
})

describe("describeFailure", () => {
  class Tagged extends Error {
    readonly _tag = "OutOfStock"
    override name = "TaggedError"
  }
  class TaggedPlain extends Error {
    readonly _tag = "Ignored"
  }
  class Named extends Error {
    override name = "Custom"
  }

  it("an Error is its message, and its tag or name unless it is a plain Error", () => {
    expect(describeFailure(new Error("plain"))).toEqual({ message: "plain" })
    expect(describeFailure(new TypeError("bad"))).toEqual({ message: "bad", type: "TypeError" })
    expect(describeFailure(new Tagged("none left"))).toEqual({ message: "none left", type: "OutOfStock" })
    expect(describeFailure(new Named("n"))).toEqual({ message: "n", type: "Custom" })
    expect(describeFailure(new TaggedPlain("p"))).toEqual({ message: "p" })
    expect(describeFailure(Object.assign(new RangeError("r"), { _tag: 7 }))).toEqual({ message: "r", type: "RangeError" })
  })

  it("anything else as JSON, or as text when JSON cannot hold it", () => {
    expect(describeFailure({ code: 7 })).toEqual({ code: 7 })
    expect(describeFailure("oops")).toBe("oops")
    expect(describeFailure(10n)).toBe("10")
  })
})

describe("Json", () => {
  it("isPlainObject is true for {} literals and null-prototype objects only", () => {
    expect(Json.isPlainObject({ a: 1 })).toBe(true)
    expect(Json.isPlainObject(Object.create(null))).toBe(true)
    expect(Json.isPlainObject(JSON.parse("{\"__proto__\": 1}"))).toBe(true)
    for (const value of [null, undefined, [], "{}", 1, new Date(0), new (class Point {})(), Object.create({})]) {
      expect(Json.isPlainObject(value)).toBe(false)
    }
  })

  it("the JsonObject Schema accepts plain objects as they are and refuses anything else", () => {
    const value = JSON.parse("{\"__proto__\": {\"polluted\": true}, \"a\": 1}")
    const decoded = Schema.decodeUnknownEither(Json.JsonObject)(value)
    expect(Either.isRight(decoded) && decoded.right).toBe(value)
    expect(Either.isLeft(Schema.decodeUnknownEither(Json.JsonObject)([1]))).toBe(true)
    expect(Either.isLeft(Schema.decodeUnknownEither(Json.JsonObject)(null))).toBe(true)
    expect(String(Json.JsonObject)).toBe("JsonObject")
    expect(SchemaAST.getDescriptionAnnotation(Json.JsonObject.ast)).toEqual(Option.some("a JSON object"))
  })

  it("canonical is JSON with sorted keys and undefined fields left out, at every depth", () => {
    expect(Json.canonical({ b: 1, a: [{ d: undefined, c: "x" }, null, true], e: undefined })).toBe(
      "{\"a\":[{\"c\":\"x\"},null,true],\"b\":1}"
    )
    expect(Json.canonical({ b: 1, a: 2 })).toBe(Json.canonical({ a: 2, b: 1 }))
    expect(Json.canonical([])).toBe("[]")
    expect(Json.canonical({})).toBe("{}")
    expect(Json.canonical("a\"b")).toBe("\"a\\\"b\"")
    expect(Json.canonical(undefined)).toBe("null")
    expect(Json.canonical(null)).toBe("null")
  })
})
