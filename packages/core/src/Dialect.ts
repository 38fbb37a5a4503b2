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
 * A run's typed output (`Agent.run({ output })`) is compiled the same way: Gemini `responseJsonSchema` with every
 * reference inlined (a recursive schema is a `DeclarationError`, as for tools); OpenAI's strict `json_schema` form
 * (every property required, optional ones nullable, records as `{key, value}` entries, objects closed, what strict
 * mode cannot express refused with the path); GLM, which has only `json_object`, gets the neutral schema in the
 * instructions (`Output.instructions`).
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { FunctionDeclaration } from "./FunctionDeclaration.js"
import { StrictProblem, toStrict } from "./internal/strictSchema.js"
import type { JsonObject } from "./Json.js"
import { isPlainObject } from "./Json.js"
import type { Declaration as OutputDeclaration } from "./Output.js"

/** A declaration (of a function, or of a run's output) cannot be expressed in a provider's dialect. */
export class DeclarationError extends Schema.TaggedError<DeclarationError>()("DeclarationError", {
  name: Schema.String,
  dialect: Schema.String,
  reason: Schema.String,
  /** What was declared: a function (the default) or a run's output. */
  kind: Schema.optional(Schema.Literal("function", "output"))
}) {
  override get message(): string {
    return `${this.kind ?? "function"} "${this.name}" cannot be declared for ${this.dialect}: ${this.reason}`
  }
}

/** Gemini's `FunctionDeclaration` wire shape. */
export interface GeminiDeclaration {
  readonly name: string
  readonly description: string
  readonly parametersJsonSchema: JsonObject
}

/** OpenAI / GLM `tools[]` entry. */
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

/** The top-level parameters object schema, normalised (no `$schema`, empty structs as `{type: "object"}`). */
export const normalise = (declaration: FunctionDeclaration): Either.Either<JsonObject, DeclarationError> =>
  compile(declaration, "openai")

/**
 * Declarations are sent with every request but rarely change: each compiled form is kept per declaration
 * object (declarations are immutable values), so a long conversation compiles each tool once.
 */
const memoise = <D extends object, A>(compileOne: (declaration: D) => A): ((declaration: D) => A) => {
  const cache = new WeakMap<D, A>()
  return (declaration) => {
    let compiled = cache.get(declaration)
    if (compiled === undefined) {
      compiled = compileOne(declaration)
      cache.set(declaration, compiled)
    }
    return compiled
  }
}

/** @example Dialect.gemini(declaration) // Right({ name, description, parametersJsonSchema }) */
export const gemini: (declaration: FunctionDeclaration) => Either.Either<GeminiDeclaration, DeclarationError> = memoise((declaration: FunctionDeclaration) =>
  Either.map(compile(declaration, "gemini"), (parametersJsonSchema) => ({
    name: declaration.name,
    description: declaration.description,
    parametersJsonSchema
  }))
)

/** @example Dialect.openAI(declaration) // Right({ type: "function", function: { name, description, parameters } }) */
export const openAI: (declaration: FunctionDeclaration) => Either.Either<OpenAITool, DeclarationError> = memoise((declaration: FunctionDeclaration) =>
  Either.map(compile(declaration, "openai"), (parameters) => ({
    type: "function" as const,
    function: { name: declaration.name, description: declaration.description, parameters }
  }))
)

// ---------------------------------------------------------------------------------------------------------------
// a run's output

/**
 * An output's JSON Schema in neutral form: `$schema` / `$id` dropped, references inlined except recursive ones
 * (kept in `$defs`). Unlike parameters, the root may be any schema. Throws on a reference that resolves nowhere.
 *
 * @since 0.2.0
 */
export const normaliseOutput = (schema: JsonObject): JsonObject => inline(schema, true)

const outputError = (declaration: OutputDeclaration, dialect: string, reason: string) =>
  Either.left(new DeclarationError({ name: declaration.name, dialect, reason, kind: "output" }))

/**
 * Gemini's `responseJsonSchema` for an output: every reference inlined; a recursive schema cannot be, and is a
 * `DeclarationError` (the bound tools have too).
 *
 * @example Dialect.geminiOutput({ name: "triage", schema }) // Right(schema with references inlined)
 *
 * @since 0.2.0
 */
export const geminiOutput: (declaration: OutputDeclaration) => Either.Either<JsonObject, DeclarationError> = memoise((declaration: OutputDeclaration) => {
  try {
    return Either.right(inline(declaration.schema, false))
  } catch (error) {
    return outputError(
      declaration,
      "Gemini",
      error instanceof Recursive ? `the schema is recursive through "${error.ref}", which Gemini's responseJsonSchema cannot inline` : String(error instanceof Error ? error.message : error)
    )
  }
})

/**
 * OpenAI's `response_format` for strict Structured Outputs.
 *
 * @since 0.2.0
 */
export interface OpenAIResponseFormat {
  readonly type: "json_schema"
  readonly json_schema: { readonly name: string; readonly schema: JsonObject; readonly strict: true }
}

/**
 * OpenAI's strict `response_format` for an output (see the module's header); what strict mode cannot express is a
 * `DeclarationError` naming the path, e.g. `at properties/tags: the keyword "uniqueItems" is not supported in strict mode`.
 *
 * @example Dialect.openAIOutput({ name: "triage", schema }) // Right({ type: "json_schema", json_schema: { name, schema, strict: true } })
 *
 * @since 0.2.0
 */
export const openAIOutput: (declaration: OutputDeclaration) => Either.Either<OpenAIResponseFormat, DeclarationError> = memoise(
  (declaration: OutputDeclaration) => {
    try {
      const schema = toStrict(inline(declaration.schema, true))
      return Either.right({ type: "json_schema" as const, json_schema: { name: declaration.name, schema, strict: true as const } })
    } catch (error) {
      if (error instanceof StrictProblem) return outputError(declaration, "OpenAI strict mode", `at ${error.where}: ${error.reason}`)
      return outputError(declaration, "OpenAI strict mode", String(error instanceof Error ? error.message : error))
    }
  }
)
