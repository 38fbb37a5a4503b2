import * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import { ArrayFormatter } from "effect/ParseResult"
import type { JsonObject } from "../Json.js"
import { isPlainObject } from "../Json.js"
import type { ArgumentIssue } from "../ToolError.js"

/** Limits on untrusted arguments, checked before any Schema decoding touches them. */
export interface ArgumentLimits {
  /** Deepest nesting of objects and arrays (default 64). */
  readonly maxDepth: number
  /** Most values in the whole tree (default 100,000). */
  readonly maxNodes: number
  /** Most characters over all keys and strings (default 1,000,000). */
  readonly maxChars: number
}

export const defaultLimits: ArgumentLimits = { maxDepth: 64, maxNodes: 100_000, maxChars: 1_000_000 }

const forbiddenKeys = new Set(["__proto__", "constructor", "prototype"])

const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((acc, key) => {
    if (typeof key === "number") return `${acc}[${key}]`
    const text = String(key)
    return /^[A-Za-z_$][\w$]*$/.test(text) ? (acc === "" ? text : `${acc}.${text}`) : `${acc}[${JSON.stringify(text)}]`
  }, "")

/**
 * Refuses what must never reach a decoder: non-objects, keys that could change a prototype, and trees too deep
 * or too large. Iterative, so a maliciously deep value cannot overflow the stack.
 */
export const checkArguments = (
  args: unknown,
  limits: ArgumentLimits
): Either.Either<JsonObject, ReadonlyArray<ArgumentIssue>> => {
  if (!isPlainObject(args)) {
    const got = args === null ? "null" : Array.isArray(args) ? "an array" : typeof args
    return Either.left([{ path: "", message: `expected an object of arguments, got ${got}` }])
  }
  const stack: Array<{ value: unknown; depth: number; path: ReadonlyArray<PropertyKey> }> = [{ value: args, depth: 1, path: [] }]
  let nodes = 0
  let chars = 0
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!
    nodes++
    if (nodes > limits.maxNodes) return Either.left([{ path: "", message: `arguments hold more than ${limits.maxNodes} values` }])
    if (typeof value === "string") {
      chars += value.length
    } else if (typeof value === "object" && value !== null) {
      if (depth > limits.maxDepth) {
        return Either.left([{ path: formatPath(path), message: `arguments are nested deeper than ${limits.maxDepth} levels` }])
      }
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) stack.push({ value: value[i], depth: depth + 1, path: [...path, i] })
      } else if (isPlainObject(value)) {
        for (const key of Object.keys(value)) {
          if (forbiddenKeys.has(key)) {
            return Either.left([{ path: formatPath([...path, key]), message: `the key "${key}" is not allowed` }])
          }
          chars += key.length
          stack.push({ value: value[key], depth: depth + 1, path: [...path, key] })
        }
      } else {
        return Either.left([{ path: formatPath(path), message: "expected JSON data, got a class instance" }])
      }
    } else if (typeof value === "number") {
      if (!Number.isFinite(value)) return Either.left([{ path: formatPath(path), message: `expected a finite number, got ${value}` }])
    } else if (typeof value !== "boolean" && value !== null) {
      return Either.left([{ path: formatPath(path), message: `expected JSON data, got ${typeof value}` }])
    }
    if (chars > limits.maxChars) return Either.left([{ path: "", message: `arguments are larger than ${limits.maxChars} characters` }])
  }
  return Either.right(args)
}

/** ParseError → one issue per failing path, readable by a person and by a model. */
export const issuesOf = (error: ParseResult.ParseError): ReadonlyArray<ArgumentIssue> => {
  // A union reports one issue per member at the same path; one line per path reads better.
  const byPath = new Map<string, Array<string>>()
  for (const issue of ArrayFormatter.formatErrorSync(error)) {
    const path = formatPath(issue.path)
    const messages = byPath.get(path)
    if (messages === undefined) byPath.set(path, [issue.message])
    else if (!messages.includes(issue.message)) messages.push(issue.message)
  }
  return [...byPath].map(([path, messages]) => ({ path, message: messages.join(", or ") }))
}

const isJsonTree = (value: unknown): boolean => {
  const stack: Array<unknown> = [value]
  // An object met twice may be a cycle: JSON's own conversion then says which (a shared value is merely copied).
  const seen = new Set<object>()
  while (stack.length > 0) {
    const next = stack.pop()
    if (next === null || typeof next === "string" || typeof next === "boolean") continue
    if (typeof next === "number") {
      if (!Number.isFinite(next)) return false
      continue
    }
    if (Array.isArray(next)) {
      if (seen.has(next)) return false
      seen.add(next)
      for (const item of next) stack.push(item)
      continue
    }
    if (!isPlainObject(next) || seen.has(next)) return false
    seen.add(next)
    for (const key of Object.keys(next)) stack.push(next[key])
  }
  return true
}

/**
 * A handler result as JSON. Plain JSON trees pass as they are (no copy); anything else (dates, class instances,
 * undefined fields) goes through JSON's own conversion. Values JSON cannot hold (bigint, cycles, NaN) are an error
 * rather than a silent `null`.
 */
export const toJson = (value: unknown): Either.Either<unknown, string> => {
  // Stryker disable next-line ConditionalExpression: a fast path; JSON's own conversion also makes undefined null
  if (value === undefined) return Either.right(null)
  if (isJsonTree(value)) return Either.right(value)
  try {
    const text = JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === "number" && !Number.isFinite(v)) throw new Error(`the number ${v} has no JSON form`)
      return v
    })
    return Either.right(text === undefined ? null : JSON.parse(text))
  } catch (error) {
    return Either.left(error instanceof Error ? error.message : String(error))
  }
}

/** A thrown value or typed failure as JSON the model can read (no stack traces, no class instances). */
export const describeFailure = (error: unknown): unknown => {
  if (error instanceof Error) {
    const fields: Record<string, unknown> = { message: error.message }
    if (error.name !== "Error") fields.type = "_tag" in error && typeof error._tag === "string" ? error._tag : error.name
    return fields
  }
  return Either.getOrElse(toJson(error), () => String(error))
}
