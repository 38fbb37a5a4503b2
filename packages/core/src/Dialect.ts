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
import { recursiveDefinitions, refName } from "./internal/references.js"

/** A declaration cannot be expressed in a provider's dialect. */
export class DeclarationError extends Schema.TaggedError<DeclarationError>()("DeclarationError", {
  name: Schema.String,
  dialect: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `function "${this.name}" cannot be declared for ${this.dialect}: ${this.reason}`
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
  // Every kept definition is emitted, expanded the same way. Visiting one may keep more, which the loop then reaches
  // (a Set is iterated in insertion order, new members included): one pass, where going over all of them again after
  // each addition took time in the square of their number.
  const $defs: Record<string, unknown> = {}
  for (const name of kept) $defs[name] = visit(definitions[name])
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

/** @example Dialect.gemini(declaration) // Right({ name, description, parametersJsonSchema }) */
export const gemini: (declaration: FunctionDeclaration) => Either.Either<GeminiDeclaration, DeclarationError> = memoise((declaration) =>
  Either.map(compile(declaration, "gemini"), (parametersJsonSchema) => ({
    name: declaration.name,
    description: declaration.description,
    parametersJsonSchema
  }))
)

/** @example Dialect.openAI(declaration) // Right({ type: "function", function: { name, description, parameters } }) */
export const openAI: (declaration: FunctionDeclaration) => Either.Either<OpenAITool, DeclarationError> = memoise((declaration) =>
  Either.map(compile(declaration, "openai"), (parameters) => ({
    type: "function" as const,
    function: { name: declaration.name, description: declaration.description, parameters }
  }))
)
