import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import { Executor, FunctionCall, Registry } from "@agentfx/core"
import { Calculator } from "@agentfx/tools"

const value = (expression: string) => Either.getOrThrowWith(Calculator.evaluate(expression), (e) => new Error(e.message))
const failure = (expression: string) => Either.flip(Calculator.evaluate(expression)).pipe(Either.getOrThrowWith(() => new Error(`"${expression}" evaluated`)))

describe("Calculator.evaluate", () => {
  it("follows precedence, associativity and unary minus", () => {
    expect(value("1 + 2 * 3")).toBe(7)
    expect(value("(1 + 2) * 3")).toBe(9)
    expect(value("10 - 4 - 3")).toBe(3)
    expect(value("100 / 10 / 5")).toBe(2)
    expect(value("2 ^ 3 ^ 2")).toBe(512)
    expect(value("-2 ^ 2")).toBe(-4)
    expect(value("(-2) ^ 2")).toBe(4)
    expect(value("2 ^ -1")).toBe(0.5)
    expect(value("--3")).toBe(3)
    expect(value("-(1 + 2) * +4")).toBe(-12)
    expect(value("2 * -3")).toBe(-6)
  })

  it("reads decimals, typographic operators and ** as power", () => {
    expect(value("1.5 + .25 + 2.")).toBe(3.75)
    expect(value("6 × 7")).toBe(42)
    expect(value("7 ÷ 2")).toBe(3.5)
    expect(value("5 − 8")).toBe(-3)
    expect(value("2 ** 10")).toBe(1024)
    expect(value("  ( ( 4 ) )  ")).toBe(4)
  })

  it("rounds floating-point noise to 15 significant digits", () => {
    expect(value("0.1 + 0.2")).toBe(0.3)
    expect(value("1 / 3")).toBe(0.333333333333333)
    expect(Object.is(value("-0"), 0)).toBe(true)
  })

  it("refuses a bad expression with the position and the reason", () => {
    const cases: ReadonlyArray<readonly [string, number, string]> = [
      ["", 0, "the expression is empty"],
      ["   ", 0, "the expression is empty"],
      ["2 + x", 4, `unexpected character "x"`],
      ["2 +", 3, `expected a number or "(", found the end of the expression`],
      ["(1 + 2", 6, `expected ")" to close the "(" at character 1, found the end of the expression`],
      ["1 + 2)", 5, `unmatched ")"`],
      ["1.2.3", 3, `malformed number "1.2."`],
      ["2..3", 2, `malformed number "2.."`],
      ["1 2", 2, "unexpected the number 2"],
      ["* 2", 0, `expected a number or "(", found "*"`],
      ["()", 1, `expected a number or "(", found ")"`],
      ["(1 (2)", 3, `expected ")" to close the "(" at character 1, found "("`],
      [". 5", 0, `"." must be followed by digits`],
      ["2 +* 3", 3, `expected a number or "(", found "*"`],
      ["1e3", 1, `unexpected character "e"`]
    ]
    for (const [expression, position, reason] of cases) {
      const error = failure(expression)
      expect(error).toBeInstanceOf(Calculator.InvalidExpression)
      expect(error).toMatchObject({ position, reason })
    }
    expect(failure("2 + x").message).toBe(`invalid expression at character 5: unexpected character "x"`)
  })

  it("refuses division by zero, including a negative power of zero", () => {
    for (const [expression, position] of [["1 / 0", 2], ["4 / (2 - 2)", 2], ["0 ^ -1", 2], ["1 ÷ 0.0", 2]] as const) {
      const error = failure(expression)
      expect(error).toBeInstanceOf(Calculator.DivisionByZero)
      expect(error).toMatchObject({ position })
    }
    expect(failure("1 / 0").message).toBe("division by zero at character 3")
  })

  it("refuses results that are not finite real numbers", () => {
    expect(failure("10 ^ 400")).toMatchObject({ _tag: "ArithmeticError", reason: "the result is too large to represent" })
    expect(failure("(-8) ^ 0.5")).toMatchObject({ _tag: "ArithmeticError", reason: "the result is not a real number" })
    expect(failure("10 ^ 400").message).toBe("the result is too large to represent")
  })

  it("refuses expressions that are too long or nested too deep", () => {
    expect(failure("1+".repeat(600) + "1")).toMatchObject({ _tag: "InvalidExpression", reason: `longer than ${Calculator.maxLength} characters` })
    expect(failure("(".repeat(150) + "1" + ")".repeat(150))).toMatchObject({ reason: `nested deeper than ${Calculator.maxDepth} levels` })
    // Each exponent is a level deeper than its base.
    expect(failure("2**".repeat(150) + "2")).toMatchObject({ reason: `nested deeper than ${Calculator.maxDepth} levels` })
    expect(failure("-".repeat(150) + "1")).toMatchObject({ reason: `nested deeper than ${Calculator.maxDepth} levels` })
    expect(value("(".repeat(50) + "1" + ")".repeat(50))).toBe(1)
  })

  type Tree = number | { readonly op: "+" | "-" | "*"; readonly left: Tree; readonly right: Tree } | { readonly neg: Tree }
  const tree: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
    tree: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.integer({ min: 0, max: 1000 }),
      fc.record({ op: fc.constantFrom("+" as const, "-" as const, "*" as const), left: tie("tree"), right: tie("tree") }),
      fc.record({ neg: tie("tree") })
    )
  })).tree
  const print = (t: Tree): string => (typeof t === "number" ? String(t) : "neg" in t ? `-(${print(t.neg)})` : `(${print(t.left)} ${t.op} ${print(t.right)})`)
  const compute = (t: Tree): number =>
    typeof t === "number" ? t : "neg" in t ? -compute(t.neg) : t.op === "+" ? compute(t.left) + compute(t.right) : t.op === "-" ? compute(t.left) - compute(t.right) : compute(t.left) * compute(t.right)

  it.prop("evaluating a printed integer expression tree gives the tree's value", [tree], ([t]) => {
    const expected = compute(t)
    const result = Calculator.evaluate(print(t))
    if (print(t).length > Calculator.maxLength || !Number.isSafeInteger(expected)) return true
    expect(result).toStrictEqual(Either.right(expected === 0 ? 0 : expected))
  })
})

describe("Calculator.tool", () => {
  const registry = Registry.unsafeMake(Calculator.tool)
  const call = (args: Record<string, unknown>) => FunctionCall.make({ id: "c1", name: "calculator", args })

  it.effect("returns the expression and its result", () =>
    Effect.gen(function* () {
      const result = yield* Executor.execute(registry, call({ expression: "2 × (3 + 4) ^ 2" }))
      expect(result).toStrictEqual({ expression: "2 × (3 + 4) ^ 2", result: 98 })
    })
  )

  it.effect("sends a typed failure the model can read", () =>
    Effect.gen(function* () {
      const results = yield* Executor.executeAll(registry, [call({ expression: "1/0" })])
      const [response] = Either.getOrThrow(Executor.buildResponses([call({ expression: "1/0" })], results))
      expect(response!.isError).toBe(true)
      expect(response!.response).toMatchObject({
        error: { type: "ExecutionFailed", details: { _tag: "DivisionByZero", expression: "1/0", position: 1 } }
      })
    })
  )

  it("declares an expression string parameter", () => {
    expect(Calculator.tool.declaration.parameters).toMatchObject({
      type: "object",
      required: ["expression"],
      properties: { expression: { type: "string" } }
    })
  })
})

describe("Calculator.evaluate at its edges", () => {
  it("takes an expression of exactly the longest length and refuses one character more, quoting its start", () => {
    const longest = "1+".repeat(Calculator.maxLength / 2 - 1) + "10"
    expect(longest.length).toBe(Calculator.maxLength)
    expect(value(longest)).toBe(Calculator.maxLength / 2 - 1 + 10)
    expect(failure(longest + "0")).toMatchObject({ _tag: "InvalidExpression", expression: `${longest.slice(0, 40)}…`, position: Calculator.maxLength })
  })

  it("takes nesting of exactly the deepest depth and refuses one level more", () => {
    // Each unary minus is one level below the sum it sits in.
    const nested = (levels: number) => "-".repeat(levels) + "1"
    expect(value(nested(Calculator.maxDepth))).toBe(Calculator.maxDepth % 2 === 0 ? 1 : -1)
    expect(failure(nested(Calculator.maxDepth + 1))).toMatchObject({ _tag: "InvalidExpression", reason: `nested deeper than ${Calculator.maxDepth} levels` })
  })

  it("zero to a negative power is a division by zero at the operator; zero to the power zero is one", () => {
    expect(failure("0 ^ -1")).toMatchObject({ _tag: "DivisionByZero", position: 2 })
    expect(value("0 ^ 0")).toBe(1)
    expect(value("0 ^ 2")).toBe(0)
    expect(value("1 / 0.5")).toBe(2)
    expect(value("3 * 0")).toBe(0)
  })

  it("a number must start where it stands and be followed by something else; ** is power, a lone * is not", () => {
    expect(failure("2 + .")).toMatchObject({ _tag: "InvalidExpression", position: 4, reason: `"." must be followed by digits` })
    expect(failure("1.2.3")).toMatchObject({ _tag: "InvalidExpression", position: 3 })
    expect(value("1. + .5")).toBe(1.5)
    expect(value("2 ** 3")).toBe(8)
    expect(value("2 * 3")).toBe(6)
    expect(value("2*3*4")).toBe(24)
  })

  it("a negative zero comes back as zero", () => {
    expect(Object.is(value("-0"), 0)).toBe(true)
    expect(Object.is(value("0 * -1"), 0)).toBe(true)
  })

  it("the tool's name, description and parameter description", () => {
    expect(Calculator.tool.name).toBe("calculator")
    expect(Calculator.tool.declaration.description).toMatch(/^Evaluates an arithmetic expression exactly as written/)
    expect(JSON.stringify(Calculator.tool.declaration.parameters)).toContain("Arithmetic expression, e.g.")
  })
})
