/**
 * Compiles a declaration's JSON Schema into what each provider accepts.
 *
 * - Gemini (`parametersJsonSchema`): every `$ref` inlined and `$defs` removed; a recursive schema cannot be
 *   inlined and is a `DeclarationError`.
 * - OpenAI / GLM (`parameters`): plain JSON Schema; non-recursive references are inlined too (some
 *   OpenAI-compatible servers ignore `$defs`), recursive ones keep their `$defs`.
 *
 * Both drop `$schema`/`$id` and always produce a top-level `{type: "object", properties}`.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { FunctionDeclaration } from "./FunctionDeclaration.js"
import type { JsonObject } from "./Json.js"
import { isPlainObject } from "./Json.js"

/**
 * A declaration cannot be expressed in a provider's dialect.
 *
 * @since 0.1.0
 * @category errors
 */
export class DeclarationError extends Schema.TaggedError<DeclarationError>()("DeclarationError", {
  name: Schema.String,
  dialect: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `function "${this.name}" cannot be declared for ${this.dialect}: ${this.reason}`
  }
}

/**
 * Gemini's `FunctionDeclaration` wire shape.
 *
 * @since 0.1.0
 * @category models
 */
export interface GeminiDeclaration {
  readonly name: string
  readonly description: string
  readonly parametersJsonSchema: JsonObject
}

/**
 * OpenAI / GLM `tools[]` entry.
 *
 * @since 0.1.0
 * @category models
 */
export interface OpenAITool {
  readonly type: "function"
  readonly function: { readonly name: string; readonly description: string; readonly parameters: JsonObject }
}

class Recursive {
  constructor(readonly ref: string) {}
}

const definitionsOf = (root: JsonObject): Record<string, unknown> => ({
  ...(isPlainObject(root.definitions) ? root.definitions : {}),
  ...(isPlainObject(root.$defs) ? root.$defs : {})
})

const refName = (ref: string): string | undefined => {
  // Stryker disable next-line Regex: without the final $ the greedy (.+) still takes the rest of the reference
  const match = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref)
  // Stryker disable next-line OptionalChaining: a match always has its one group
  return match?.[1]?.replace(/~1/g, "/").replace(/~0/g, "~")
}

const refsIn = (node: unknown, out: Set<string>): Set<string> => {
  if (Array.isArray(node)) for (const item of node) refsIn(item, out)
  else if (isPlainObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") {
        const name = refName(value)
        if (name !== undefined) out.add(name)
      } else refsIn(value, out)
    }
  }
  return out
}

/** Definitions that reach themselves through references: they cannot be inlined. */
const recursiveDefinitions = (definitions: Record<string, unknown>): Set<string> => {
  const edges = new Map(Object.entries(definitions).map(([name, schema]) => [name, refsIn(schema, new Set())]))
  const recursive = new Set<string>()
  for (const start of edges.keys()) {
    const seen = new Set<string>()
    const pending = [...(edges.get(start) ?? [])]
    while (pending.length > 0) {
      const next = pending.pop()!
      if (next === start) {
        recursive.add(start)
        break
      }
      if (seen.has(next)) continue
      seen.add(next)
      pending.push(...(edges.get(next) ?? []))
    }
  }
  return recursive
}

/** Inlines references; recursive ones are kept (with their `$defs`) when `keepRecursive`, else an error. */
const inline = (root: JsonObject, keepRecursive: boolean): JsonObject => {
  const definitions = definitionsOf(root)
  const recursive = recursiveDefinitions(definitions)
  const kept = new Set<string>()
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit)
    if (!isPlainObject(node)) return node
    const ref = node.$ref
    if (typeof ref === "string") {
      const name = refName(ref)
      // Own keys only: a reference to "constructor" must not resolve to Object's.
      const target = name === undefined || !Object.hasOwn(definitions, name) ? undefined : definitions[name]
      if (name === undefined || target === undefined) throw new Error(`unresolvable reference ${ref}`)
      const { $ref: _ref, ...siblings } = node
      if (recursive.has(name)) {
        if (!keepRecursive) throw new Recursive(name)
        kept.add(name)
        return { $ref: `#/$defs/${name}`, ...visitObject(siblings) }
      }
      const resolved = visit(target)
      return isPlainObject(resolved) ? { ...resolved, ...visitObject(siblings) } : resolved
    }
    return visitObject(node)
  }
  const visitObject = (node: JsonObject): JsonObject => {
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(node)) {
      if (key === "$schema" || key === "$id" || key === "$defs" || key === "definitions") continue
      // A map from property names to schemas: its keys are names (a parameter may be called "definitions").
      out[key] = (key === "properties" || key === "patternProperties") && isPlainObject(value) ? visitMap(value) : visit(value)
    }
    return out
  }
  const visitMap = (map: JsonObject): JsonObject => {
    const out: Record<string, unknown> = {}
    for (const [name, schema] of Object.entries(map)) out[name] = visit(schema)
    return out
  }
  const schema = visit(root) as JsonObject
  if (kept.size === 0) return schema
  // Every kept definition is emitted, expanded the same way; visiting one may keep more.
  const $defs: Record<string, unknown> = {}
  for (let added = true; added; ) {
    added = false
    for (const name of [...kept]) {
      if (name in $defs) continue
      $defs[name] = isPlainObject(definitions[name]) ? visitObject(definitions[name]) : definitions[name]
      added = true
    }
  }
  return { ...schema, $defs }
}

const asObjectSchema = (schema: JsonObject): JsonObject => {
  const isEmptyStruct =
    Array.isArray(schema.anyOf) &&
    schema.anyOf.length === 2 &&
    schema.anyOf.every((s) => isPlainObject(s) && Object.keys(s).length === 1 && (s.type === "object" || s.type === "array"))
  if (isEmptyStruct || Object.keys(schema).length === 0) return { type: "object", properties: {} }
  if (schema.type === "object" && schema.properties === undefined) return { ...schema, properties: {} }
  return schema
}

const compile = (
  declaration: FunctionDeclaration,
  dialect: "gemini" | "openai"
): Either.Either<JsonObject, DeclarationError> => {
  const fail = (reason: string) =>
    Either.left(new DeclarationError({ name: declaration.name, dialect: dialect === "gemini" ? "Gemini" : "OpenAI", reason }))
  try {
    const object = asObjectSchema(inline(declaration.parameters, dialect === "openai"))
    if (object.type !== "object") return fail(`parameters must be an object schema, got ${JSON.stringify(object.type)}`)
    return Either.right(object)
  } catch (error) {
    if (error instanceof Recursive) {
      return fail(`the schema is recursive through "${error.ref}", which Gemini's parametersJsonSchema cannot inline`)
    }
    return fail(error instanceof Error ? error.message : String(error))
  }
}

/**
 * The top-level parameters object schema, normalised (no `$schema`, empty structs as `{type: "object"}`).
 *
 * @since 0.1.0
 */
export const normalise = (declaration: FunctionDeclaration): Either.Either<JsonObject, DeclarationError> =>
  compile(declaration, "openai")

/**
 * Declarations are sent with every request but rarely change: each compiled form is kept per declaration
 * object (declarations are immutable values), so a long conversation compiles each tool once.
 */
const memoise = <A>(compileOne: (declaration: FunctionDeclaration) => A): ((declaration: FunctionDeclaration) => A) => {
  const cache = new WeakMap<FunctionDeclaration, A>()
  return (declaration) => {
    let compiled = cache.get(declaration)
    if (compiled === undefined) {
      compiled = compileOne(declaration)
      cache.set(declaration, compiled)
    }
    return compiled
  }
}

/**
 * @example
 * ```ts
 * import { Dialect, type FunctionDeclaration } from "@agentfx/core"
 * import { Either } from "effect"
 *
 * const declaration: FunctionDeclaration.FunctionDeclaration = {
 *   name: "get_weather",
 *   description: "Current weather in a city",
 *   parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
 * }
 * const gemini = Dialect.gemini(declaration)
 * console.log(Either.isRight(gemini) && gemini.right.parametersJsonSchema) // the JSON Schema, $refs inlined
 * ```
 *
 * @since 0.1.0
 */
export const gemini: (declaration: FunctionDeclaration) => Either.Either<GeminiDeclaration, DeclarationError> = memoise((declaration) =>
  Either.map(compile(declaration, "gemini"), (parametersJsonSchema) => ({
    name: declaration.name,
    description: declaration.description,
    parametersJsonSchema
  }))
)

/**
 * @example
 * ```ts
 * import { Dialect, type FunctionDeclaration } from "@agentfx/core"
 * import { Either } from "effect"
 *
 * const declaration: FunctionDeclaration.FunctionDeclaration = {
 *   name: "get_weather",
 *   description: "Current weather in a city",
 *   parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
 * }
 * const tool = Dialect.openAI(declaration)
 * console.log(Either.isRight(tool) && tool.right.function.name) // "get_weather"
 * ```
 *
 * @since 0.1.0
 */
export const openAI: (declaration: FunctionDeclaration) => Either.Either<OpenAITool, DeclarationError> = memoise((declaration) =>
  Either.map(compile(declaration, "openai"), (parameters) => ({
    type: "function" as const,
    function: { name: declaration.name, description: declaration.description, parameters }
  }))
)
