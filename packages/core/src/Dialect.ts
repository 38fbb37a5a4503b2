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

const refName = (ref: string): string | undefined => {
  const match = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref)
  return match?.[1]?.replace(/~1/g, "/").replace(/~0/g, "~")
}

/** Inlines references; returns the recursive references it had to keep when `keepRecursive`. */
const inline = (root: JsonObject, keepRecursive: boolean): { schema: JsonObject; kept: Set<string> } => {
  const definitions = definitionsOf(root)
  const kept = new Set<string>()
  const visit = (node: unknown, expanding: ReadonlyArray<string>): unknown => {
    if (Array.isArray(node)) return node.map((item) => visit(item, expanding))
    if (!isPlainObject(node)) return node
    const ref = node.$ref
    if (typeof ref === "string") {
      const name = refName(ref)
      const target = name === undefined ? undefined : definitions[name]
      if (name === undefined || target === undefined) throw new Error(`unresolvable reference ${ref}`)
      const { $ref: _ref, ...siblings } = node
      if (expanding.includes(name)) {
        if (!keepRecursive) throw new Recursive(name)
        kept.add(name)
        return { $ref: `#/$defs/${name}`, ...visitObject(siblings, expanding) }
      }
      const resolved = visit(target, [...expanding, name])
      return isPlainObject(resolved) ? { ...resolved, ...visitObject(siblings, expanding) } : resolved
    }
    return visitObject(node, expanding)
  }
  const visitObject = (node: JsonObject, expanding: ReadonlyArray<string>): JsonObject => {
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(node)) {
      if (key === "$schema" || key === "$id" || key === "$defs" || key === "definitions") continue
      out[key] = visit(value, expanding)
    }
    return out
  }
  const schema = visit(root, []) as JsonObject
  if (kept.size === 0) return { schema, kept }
  // Keep every definition reachable from a recursive one, expanded the same way.
  const $defs: Record<string, unknown> = {}
  const pending = [...kept]
  while (pending.length > 0) {
    const name = pending.pop()!
    if (name in $defs) continue
    $defs[name] = visit(definitions[name], [name])
    for (const next of kept) if (!(next in $defs)) pending.push(next)
  }
  return { schema: { ...schema, $defs }, kept }
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
    const { schema } = inline(declaration.parameters, dialect === "openai")
    const object = asObjectSchema(schema)
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

/** @example Dialect.gemini(declaration) // Right({ name, description, parametersJsonSchema }) */
export const gemini = (declaration: FunctionDeclaration): Either.Either<GeminiDeclaration, DeclarationError> =>
  Either.map(compile(declaration, "gemini"), (parametersJsonSchema) => ({
    name: declaration.name,
    description: declaration.description,
    parametersJsonSchema
  }))

/** @example Dialect.openAI(declaration) // Right({ type: "function", function: { name, description, parameters } }) */
export const openAI = (declaration: FunctionDeclaration): Either.Either<OpenAITool, DeclarationError> =>
  Either.map(compile(declaration, "openai"), (parameters) => ({
    type: "function" as const,
    function: { name: declaration.name, description: declaration.description, parameters }
  }))
