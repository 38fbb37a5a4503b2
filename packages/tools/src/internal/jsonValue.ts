import { Json } from "@agentfx/core"

/** One place where an actual JSON value differs from an expected one. */
export interface Difference {
  /** `a.b[1]`; empty for the value itself. */
  readonly path: string
  readonly problem: "missing" | "unexpected" | "different"
  readonly expected?: unknown
  readonly actual?: unknown
}

const join = (path: string, key: string | number): string => {
  // Stryker disable next-line ConditionalExpression,StringLiteral: a number fails the name test below and JSON writes its digits: `[n]` all the same
  if (typeof key === "number") return `${path}[${key}]`
  return /^[A-Za-z_$][\w$-]*$/.test(key) ? (path === "" ? key : `${path}.${key}`) : `${path}[${JSON.stringify(key)}]`
}

/** Structural equality of JSON values (key order ignored). */
export const equals = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => equals(item, b[i]))
  if (Json.isPlainObject(a)) {
    if (!Json.isPlainObject(b)) return false
    const keys = Object.keys(a)
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && equals(a[key], b[key]))
  }
  return false
}

/**
 * Every difference between `expected` and `actual`. With `partial`, objects only need the expected keys
 * (recursively); arrays and scalars must still be equal (arrays element by element, each element partially).
 */
export const differences = (expected: unknown, actual: unknown, partial: boolean, path = ""): ReadonlyArray<Difference> => {
  if (Json.isPlainObject(expected) && Json.isPlainObject(actual)) {
    const out: Array<Difference> = []
    for (const key of Object.keys(expected)) {
      const at = join(path, key)
      if (!Object.hasOwn(actual, key)) out.push({ path: at, problem: "missing", expected: expected[key] })
      else out.push(...differences(expected[key], actual[key], partial, at))
    }
    if (!partial) {
      for (const key of Object.keys(actual)) {
        if (!Object.hasOwn(expected, key)) out.push({ path: join(path, key), problem: "unexpected", actual: actual[key] })
      }
    }
    return out
  }
  if (Array.isArray(expected) && Array.isArray(actual) && expected.length === actual.length) {
    return expected.flatMap((item, i) => differences(item, actual[i], partial, join(path, i)))
  }
  return equals(expected, actual) ? [] : [{ path, problem: "different", expected, actual }]
}

/** True when `actual` holds everything `expected` states (see `differences` with `partial`). */
export const contains = (expected: unknown, actual: unknown): boolean => differences(expected, actual, true).length === 0

/** Compact JSON for messages; `undefined` (absent) shows as `(absent)`. Long values are cut at `max`. */
export const show = (value: unknown, max = Infinity): string => {
  if (value === undefined) return "(absent)"
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}
