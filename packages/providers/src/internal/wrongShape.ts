/**
 * The one wording of "the provider answered in the wrong shape", for every decode of what a provider sent (Gemini
 * responses and stream chunks, Live messages, chat completions and their chunks): a `MalformedResponse` whose
 * message is one line naming the deepest place the decoder stopped and what it expected there —
 * `unexpected completion shape: choices[0].message.content should be a string or null, got 5`. The Schema's own
 * report spells out the whole expected type, kilobytes of it, which buries the one field that matters; each place
 * that failed is kept instead in `details`, one a line with the value found there in full, for `--verbose`.
 */
import { ModelError } from "@agentfx/core"
import type * as ParseResult from "effect/ParseResult"
import * as AST from "effect/SchemaAST"
import * as Option from "effect/Option"

/** One thing the decoder found wrong, at one place. */
interface Problem {
  readonly path: ReadonlyArray<PropertyKey>
  /** What fits there (`undefined` for a value only absence fits, as a union's `undefined` member). */
  readonly expected: string | undefined
  /** `missing`: a required field is absent; `unexpected`: nothing belongs there; else the value found. */
  readonly found: { readonly _tag: "Value"; readonly value: unknown } | { readonly _tag: "Missing" } | { readonly _tag: "Unexpected"; readonly value: unknown }
}

const longest = 40

const cut = (text: string): string => (text.length > longest ? `${text.slice(0, longest - 1)}…` : text)

/** What a schema accepts, in a few words (an optional field's `undefined` counts as no words). */
const describe = (ast: AST.AST): string | undefined => {
  switch (ast._tag) {
    case "StringKeyword":
    case "TemplateLiteral":
      return "a string"
    case "NumberKeyword":
      return "a number"
    case "BooleanKeyword":
      return "a boolean"
    case "BigIntKeyword":
      return "an integer"
    case "UndefinedKeyword":
    case "VoidKeyword":
      return undefined
    case "Literal":
      return ast.literal === null ? "null" : cut(typeof ast.literal === "bigint" ? String(ast.literal) : JSON.stringify(ast.literal))
    case "Enums":
      return ast.enums.map(([, value]) => JSON.stringify(value)).join(", ")
    case "TupleType":
      return "an array"
    case "TypeLiteral":
      return "an object"
    case "Union":
      return join(ast.types.map(describe))
    case "Refinement":
      return Option.getOrUndefined(AST.getDescriptionAnnotation(ast)) ?? describe(ast.from)
    case "Transformation":
      return describe(ast.from)
    case "Suspend":
      return describe(ast.f())
    case "Declaration":
      return Option.getOrUndefined(AST.getDescriptionAnnotation(ast)) ?? Option.getOrElse(AST.getIdentifierAnnotation(ast), () => "a valid value")
    default:
      return "a valid value"
  }
}

/** "a, b or c", each once; undefined when nothing but absence fits. */
const join = (options: ReadonlyArray<string | undefined>): string | undefined => {
  const words = [...new Set(options.filter((option): option is string => option !== undefined))]
  if (words.length === 0) return undefined
  return words.length === 1 ? words[0] : `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`
}

/** How much of a value the details show. */
const longestInDetails = 2000

/** A value as JSON, `limit` characters at most. */
const json = (value: unknown, limit: number): string => {
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text
}

/** A value as the message shows it: scalars as JSON (cut short), containers by kind; the details show it whole. */
const show = (value: unknown, whole: boolean): string => {
  if (value === undefined) return "nothing"
  if (whole) return json(value, longestInDetails)
  if (Array.isArray(value)) return `an array of ${value.length}`
  if (typeof value === "object" && value !== null) return "an object"
  return json(value, longest)
}

/** `choices[0].message["odd key"]`; the empty path is the whole message. */
const where = (path: ReadonlyArray<PropertyKey>): string =>
  path
    .map((key, index) =>
      typeof key === "number"
        ? `[${key}]`
        : typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)
          ? `${index === 0 ? "" : "."}${cut(key)}`
          : `[${cut(typeof key === "string" ? JSON.stringify(key) : String(key))}]`
    )
    .join("")

const problemsOf = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey>): ReadonlyArray<Problem> => {
  switch (issue._tag) {
    case "Type":
      return [{ path, expected: describe(issue.ast), found: { _tag: "Value", value: issue.actual } }]
    case "Missing":
      return [{ path, expected: describe(issue.ast.type), found: { _tag: "Missing" } }]
    case "Unexpected":
      return [{ path, expected: undefined, found: { _tag: "Unexpected", value: issue.actual } }]
    case "Forbidden":
      return [{ path, expected: describe(issue.ast), found: { _tag: "Value", value: issue.actual } }]
    case "Pointer":
      return problemsOf(issue.issue, [...path, ...(Array.isArray(issue.path) ? (issue.path as ReadonlyArray<PropertyKey>) : [issue.path as PropertyKey])])
    case "Composite":
      return Array.isArray(issue.issues)
        ? (issue.issues as ReadonlyArray<ParseResult.ParseIssue>).flatMap((inner) => problemsOf(inner, path))
        : problemsOf(issue.issues as ParseResult.ParseIssue, path)
    case "Refinement":
      // A value of the right type that fails the refinement's check: what the refinement says it wants.
      return issue.kind === "From" ? problemsOf(issue.issue, path) : [{ path, expected: describe(issue.ast), found: { _tag: "Value", value: issue.actual } }]
    case "Transformation":
      return problemsOf(issue.issue, path)
  }
}

/** One problem in words: `PATH should be X, got Y`. */
const sentence = (path: ReadonlyArray<PropertyKey>, expected: string | undefined, found: Problem["found"], whole: boolean): string => {
  const place = path.length === 0 ? "the message" : where(path)
  switch (found._tag) {
    case "Missing":
      return `${place} is missing${expected === undefined ? "" : ` (it should be ${expected})`}`
    case "Unexpected":
      return `${place} should not be there, got ${show(found.value, whole)}`
    case "Value":
      return `${place} should be ${expected ?? "absent"}, got ${show(found.value, whole)}`
  }
}

const samePath = (a: ReadonlyArray<PropertyKey>, b: ReadonlyArray<PropertyKey>): boolean => a.length === b.length && a.every((key, index) => key === b[index])

const within = (inner: ReadonlyArray<PropertyKey>, outer: ReadonlyArray<PropertyKey>): boolean => inner.length > outer.length && outer.every((key, index) => key === inner[index])

/** A problem's place, with everything that would fit there. */
const at = (problems: ReadonlyArray<Problem>, problem: Problem, whole: boolean): string =>
  sentence(problem.path, join(problems.filter((other) => samePath(other.path, problem.path)).map((other) => other.expected)), problem.found, whole)

/**
 * The error for an answer `error` says is not of the expected shape: `what` names the answer ("completion", "Live
 * message"); the message names the deepest place the decoder failed, with everything that would fit there; `details`
 * lists each place that failed, one a line. Both are scrubbed (a server may echo the key back in what it sends).
 */
export const wrongShape = (what: string, error: ParseResult.ParseError, scrub: (text: string) => string): ModelError.MalformedResponse => {
  const problems = problemsOf(error.issue, [])
  // A place that holds a deeper problem failed because of it (an optional field's `undefined` did not fit either):
  // only the deepest places say what is wrong, and the deepest of all is where the decoder got furthest.
  const leaves = problems.filter(
    (problem, index) => !problems.some((other) => within(other.path, problem.path)) && problems.findIndex((other) => samePath(other.path, problem.path)) === index
  )
  const deepest = leaves.reduce<Problem | undefined>((best, problem) => (best === undefined || problem.path.length > best.path.length ? problem : best), undefined)
  const headline = deepest === undefined ? "it could not be decoded" : at(problems, deepest, false)
  return new ModelError.MalformedResponse({
    message: scrub(`unexpected ${what} shape: ${headline}`),
    details: scrub(leaves.map((problem) => at(problems, problem, true)).join("\n"))
  })
}
