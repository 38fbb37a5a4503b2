/**
 * Which effect made a value a user hands us. effect is a peer dependency: the user's code and ours must share one
 * copy of effect 3. When a package manager leaves two (a bare `npm i effect` installs the registry's `latest`,
 * effect 4, and nests our 3.x beside it), a Schema or an Effect made by the user's copy reaches ours and fails deep
 * inside it (`Cannot convert undefined or null to object` from JSON Schema generation). The checks here turn that
 * into one line naming both versions and the install that fixes it.
 *
 * A value says which effect made it by its type marker: effect 3 keys its Schemas and Effects with
 * `Symbol.for("effect/Schema")` and `Symbol.for("effect/Effect")`, effect 4 with strings such as
 * `"~effect/Schema/Schema"`, which carry no version: of those, the major is all that can be told. An Effect of
 * effect 3 also carries the exact version that made it (`_V`, which effect's own runtime compares). Copies of effect
 * 3 share their markers and their global state, so their Schemas work together and are let through: only a value
 * of another major, or an Effect of another 3.x version, is refused.
 */
import * as ModuleVersion from "effect/ModuleVersion"

/** The version of effect these modules run on. */
export const version: string = ModuleVersion.getCurrentVersion()

/** The install line that brings the user's effect to the line ours is on: `npm i effect@~3.22`. */
export const fix = `npm i effect@~${version.split(".").slice(0, 2).join(".")}`

type Kind = "Schema" | "Effect"

const isObjectLike = (value: unknown): value is object => (typeof value === "object" && value !== null) || typeof value === "function"

/** effect 4 and later mark their values with string keys under `~effect/`, on the value or its prototypes. */
const laterMajor = (value: object): boolean => {
  for (let at: object | null = value; at !== null && at !== Object.prototype && at !== Function.prototype; at = Object.getPrototypeOf(at)) {
    if (Reflect.ownKeys(at).some((key) => typeof key === "string" && key.startsWith("~effect/"))) return true
  }
  return false
}

// Looked up once: a handler's Effect is checked on every call.
const effect3Markers: Record<Kind, symbol> = { Schema: Symbol.for("effect/Schema"), Effect: Symbol.for("effect/Effect") }

const mismatch = (theirs: string): string =>
  `was made by effect ${theirs}, but agentfx runs on effect ${version} (two copies of effect are installed): ${fix}`

/**
 * Why `value` cannot be used as a `kind` here, as the rest of a sentence about it ("its parameters Schema …"), or
 * `undefined` when it can: made by another major of effect, by another 3.x version (Effects only: they carry it),
 * or no effect value at all.
 */
export const refusal = (value: unknown, kind: Kind): string | undefined => {
  if (!isObjectLike(value)) return `is not an effect ${kind} (got ${value === null ? "null" : typeof value})`
  const marker = (value as Record<symbol, unknown>)[effect3Markers[kind]]
  if (!isObjectLike(marker)) return laterMajor(value) ? mismatch("4 or later") : `is not an effect ${kind} (got an object without its marker)`
  if (kind === "Effect") {
    const made = (marker as { readonly _V?: unknown })._V
    if (typeof made === "string" && made !== version) return mismatch(made)
  }
  return undefined
}
