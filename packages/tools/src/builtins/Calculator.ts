/**
 * The `calculator` tool: a small arithmetic parser (no `eval`, no `Function`). It accepts `+ - * / ^`, the
 * typographic `− × ÷`, `**` for powers, parentheses, decimals and unary minus, with the usual precedence:
 * `^` binds tighter than unary minus (`-2^2 = -4`) and is right-associative (`2^3^2 = 512`).
 *
 * @example
 * ```ts
 * import { Registry } from "@agentfx/core"
 * import { Calculator } from "@agentfx/tools"
 *
 * console.log(Calculator.evaluate("2 × (3 + 4) ^ 2")) // Right(98)
 * const registry = Registry.unsafeMake(Calculator.tool)
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { Tool } from "@agentfx/core"

/**
 * The expression cannot be parsed; `position` is the 0-based character offset of the problem.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidExpression extends Schema.TaggedError<InvalidExpression>()("InvalidExpression", {
  expression: Schema.String,
  position: Schema.Number,
  reason: Schema.String
}) {
  override get message(): string {
    return `invalid expression at character ${this.position + 1}: ${this.reason}`
  }
}

/**
 * A division (or a negative power of zero) by zero.
 *
 * @since 0.1.0
 * @category errors
 */
export class DivisionByZero extends Schema.TaggedError<DivisionByZero>()("DivisionByZero", {
  expression: Schema.String,
  position: Schema.Number
}) {
  override get message(): string {
    return `division by zero at character ${this.position + 1}`
  }
}

/**
 * The expression parses, but its value is not a finite real number (overflow, even root of a negative).
 *
 * @since 0.1.0
 * @category errors
 */
export class ArithmeticError extends Schema.TaggedError<ArithmeticError>()("ArithmeticError", {
  expression: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/**
 * Every failure of `evaluate`.
 *
 * @since 0.1.0
 * @category models
 */
export type CalculatorError = InvalidExpression | DivisionByZero | ArithmeticError

/**
 * Longest expression accepted; a model has no reason to send more, and it bounds the work.
 *
 * @since 0.1.0
 */
export const maxLength = 1_000

/**
 * Deepest parenthesis / unary nesting; the parser is recursive, so this keeps the stack safe.
 *
 * @since 0.1.0
 */
export const maxDepth = 100

type Token =
  | { readonly _tag: "number"; readonly value: number; readonly position: number }
  | { readonly _tag: "op"; readonly op: "+" | "-" | "*" | "/" | "^"; readonly position: number }
  | { readonly _tag: "paren"; readonly open: boolean; readonly position: number }

const operators: Record<string, "+" | "-" | "*" | "/" | "^"> = {
  "+": "+",
  "-": "-",
  "\u2212": "-",
  "*": "*",
  "\u00d7": "*",
  "/": "/",
  "\u00f7": "/",
  "^": "^"
}

class Failure {
  constructor(readonly error: CalculatorError) {}
}

const tokenize = (expression: string): Array<Token> => {
  const invalid = (position: number, reason: string) => new Failure(new InvalidExpression({ expression, position, reason }))
  const tokens: Array<Token> = []
  let i = 0
  while (i < expression.length) {
    const char = expression[i]!
    if (/\s/.test(char)) {
      i++
    } else if (/[0-9.]/.test(char)) {
      const match = /^(?:\d+(?:\.\d*)?|\.\d+)/.exec(expression.slice(i))
      if (match === null) throw invalid(i, `"." must be followed by digits`)
      const next = expression[i + match[0].length]
      // Stryker disable next-line ConditionalExpression: at the end, `test(undefined)` reads "undefined", which has no digit or "." either
      if (next !== undefined && /[0-9.]/.test(next)) throw invalid(i + match[0].length, `malformed number "${match[0]}${next}"`)
      tokens.push({ _tag: "number", value: Number(match[0]), position: i })
      i += match[0].length
    } else if (char === "*" && expression[i + 1] === "*") {
      tokens.push({ _tag: "op", op: "^", position: i })
      i += 2
    } else if (char in operators) {
      tokens.push({ _tag: "op", op: operators[char]!, position: i })
      i++
    } else if (char === "(" || char === ")") {
      tokens.push({ _tag: "paren", open: char === "(", position: i })
      i++
    } else {
      throw invalid(i, `unexpected character "${char}"`)
    }
  }
  return tokens
}

const describeToken = (token: Token | undefined): string =>
  token === undefined ? "the end of the expression" : token._tag === "number" ? `the number ${token.value}` : token._tag === "op" ? `"${token.op}"` : `"${token.open ? "(" : ")"}"`

/**
 * Recursive descent over:
 *   sum     := product (("+" | "-") product)*
 *   product := unary (("*" | "/") unary)*
 *   unary   := ("+" | "-") unary | power
 *   power   := primary ("^" unary)?
 *   primary := number | "(" sum ")"
 */
const parse = (expression: string, tokens: ReadonlyArray<Token>): number => {
  let index = 0
  const invalid = (position: number, reason: string) => new Failure(new InvalidExpression({ expression, position, reason }))
  const here = () => tokens[index]?.position ?? expression.length
  const isOp = (token: Token | undefined, ...ops: ReadonlyArray<string>): token is Extract<Token, { _tag: "op" }> =>
    token?._tag === "op" && ops.includes(token.op)

  const sum = (depth: number): number => {
    let value = product(depth)
    for (let token = tokens[index]; isOp(token, "+", "-"); token = tokens[index]) {
      index++
      const right = product(depth)
      value = token.op === "+" ? value + right : value - right
    }
    return value
  }
  const product = (depth: number): number => {
    let value = unary(depth)
    for (let token = tokens[index]; isOp(token, "*", "/"); token = tokens[index]) {
      index++
      const right = unary(depth)
      if (token.op === "/" && right === 0) throw new Failure(new DivisionByZero({ expression, position: token.position }))
      value = token.op === "*" ? value * right : value / right
    }
    return value
  }
  const unary = (depth: number): number => {
    if (depth > maxDepth) throw invalid(here(), `nested deeper than ${maxDepth} levels`)
    const token = tokens[index]
    if (isOp(token, "+", "-")) {
      index++
      const value = unary(depth + 1)
      return token.op === "-" ? -value : value
    }
    return power(depth)
  }
  const power = (depth: number): number => {
    const base = primary(depth)
    const token = tokens[index]
    if (!isOp(token, "^")) return base
    index++
    const exponent = unary(depth + 1)
    if (base === 0 && exponent < 0) throw new Failure(new DivisionByZero({ expression, position: token.position }))
    return base ** exponent
  }
  const primary = (depth: number): number => {
    const token = tokens[index]
    if (token?._tag === "number") {
      index++
      return token.value
    }
    if (token?._tag === "paren" && token.open) {
      index++
      const value = sum(depth + 1)
      const close = tokens[index]
      if (close?._tag !== "paren" || close.open) {
        throw invalid(here(), `expected ")" to close the "(" at character ${token.position + 1}, found ${describeToken(close)}`)
      }
      index++
      return value
    }
    throw invalid(here(), `expected a number or "(", found ${describeToken(token)}`)
  }

  const value = sum(0)
  if (index < tokens.length) {
    const token = tokens[index]!
    const reason = token._tag === "paren" && !token.open ? `unmatched ")"` : `unexpected ${describeToken(token)}`
    throw invalid(token.position, reason)
  }
  return value
}

/**
 * Evaluates an arithmetic expression. The result is rounded to 15 significant digits, so binary floating-point
 * noise (`0.1 + 0.2`) does not reach the model as `0.30000000000000004`.
 *
 * @since 0.1.0
 */
export const evaluate = (expression: string): Either.Either<number, CalculatorError> => {
  if (expression.length > maxLength) {
    return Either.left(new InvalidExpression({ expression: expression.slice(0, 40) + "…", position: maxLength, reason: `longer than ${maxLength} characters` }))
  }
  if (expression.trim() === "") return Either.left(new InvalidExpression({ expression, position: 0, reason: "the expression is empty" }))
  try {
    const value = parse(expression, tokenize(expression))
    if (Number.isNaN(value)) return Either.left(new ArithmeticError({ expression, reason: "the result is not a real number" }))
    if (!Number.isFinite(value)) return Either.left(new ArithmeticError({ expression, reason: "the result is too large to represent" }))
    // `toPrecision` writes -0 as "0": a negative zero comes back as zero.
    return Either.right(Number(value.toPrecision(15)))
  } catch (error) {
    if (error instanceof Failure) return Either.left(error.error)
    throw error
  }
}

/**
 * The tool's arguments.
 *
 * @since 0.1.0
 */
export const Parameters = Schema.Struct({
  expression: Schema.String.annotations({ description: "Arithmetic expression, e.g. \"(12.5 + 7) * 3 ^ 2 / -4\"" })
})

/**
 * What the tool returns.
 *
 * @since 0.1.0
 */
export const Result = Schema.Struct({ expression: Schema.String, result: Schema.Number })

/**
 * The tool's failures, as sent to the model.
 *
 * @since 0.1.0
 */
export const Failures = Schema.Union(InvalidExpression, DivisionByZero, ArithmeticError)

/**
 * The `calculator` tool: `{expression}` → `{expression, result}`.
 *
 * @since 0.1.0
 */
export const tool = Tool.make("calculator", {
  description:
    "Evaluates an arithmetic expression exactly as written: + - * / ^ (power), parentheses, decimals and unary minus.",
  parameters: Parameters,
  success: Result,
  failure: Failures,
  handler: ({ expression }) => Effect.map(evaluate(expression), (result) => ({ expression, result }))
})
