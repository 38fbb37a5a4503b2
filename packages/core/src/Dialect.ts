/**
 * Compiles a declaration's JSON Schema into what each provider accepts.
 *
 * - Gemini (`parametersJsonSchema`): every `$ref` inlined and `$defs` removed; a recursive schema cannot be
 *   inlined and is a `DeclarationError`.
 * - OpenAI / GLM (`parameters`): plain JSON Schema; non-recursive references are inlined too (some
 *   OpenAI-compatible servers ignore `$defs`), recursive ones keep their `$defs`.
 *
 * Both drop `$schema`/`$id` and always produce a top-level `{type: "object", properties}`. Inlining is bounded
 * (`bounds`): a schema whose references fan out is refused as soon as its copies pass 2 MiB of JSON, not once they are made.
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
import { recursiveDefinitions, refName } from "./internal/references.js"
import type { Declaration as OutputDeclaration } from "./Output.js"

/**
 * A declaration (of a function, or of a run's output) cannot be expressed in a provider's dialect.
 *
 * @since 0.1.0
 * @category errors
 */
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

/**
 * How far inlining may take one declaration's parameters; past either bound it stops, and the declaration is a
 * `DeclarationError` that names the bound. Inlining copies a definition wherever it is referred to, so definitions
 * that each use the next twice double at every level: 2 KB of them expand to gigabytes. The bounds hold while the
 * copies are made, not after.
 *
 * - `characters` (2 Mi, 2 MiB of ASCII): the JSON produced, counted as printed with two-space indentation (as
 *   `agentfx tools` prints it; no compact form is longer). The largest real schema we know, a Kubernetes Deployment
 *   with every reference inlined, prints in 665 KB; 2 MiB is about half a million tokens, more than most models take
 *   in a whole request.
 * - `depth` (64): levels of objects and arrays, the bound on a call's arguments too.
 *
 * @since 0.2.0
 * @category bounds
 */
export const bounds = { characters: 2 * 1024 * 1024, depth: 64 } as const

/** Inlining stopped: the declaration cannot be compiled, for the reason given. */
class Refused {
  constructor(readonly reason: string) {}
}

const tooLarge = `with its references inlined the schema takes more than ${bounds.characters} characters of JSON (2 MiB), the most one declaration may take`
const tooDeep = `with its references inlined the schema nests objects and arrays more than ${bounds.depth} levels deep, the most one declaration may take`
const recursiveReason = (ref: string, field: GeminiField) => `the schema is recursive through "${ref}", which Gemini's ${field} cannot inline`

/** Where Gemini takes a schema whose references must all be inlined: a function's parameters, or a run's output. */
type GeminiField = "parametersJsonSchema" | "responseJsonSchema"

const definitionsOf = (root: JsonObject): Record<string, unknown> => ({
  ...(isPlainObject(root.definitions) ? root.definitions : {}),
  ...(isPlainObject(root.$defs) ? root.$defs : {})
})

/** Keywords dropped at every level: identifiers, and the definitions that inlining has copied where they are used. */
const dropped = new Set(["$schema", "$id", "$defs", "definitions"])

/** A map from property names (or patterns) to schemas: its keys are names (a parameter may be called "definitions"). */
const isSchemaMap = (key: string, value: unknown): value is JsonObject => (key === "properties" || key === "patternProperties") && isPlainObject(value)

/**
 * Inlines references; recursive ones are kept (with their `$defs`) when `keepRecursive`, else refused. Everything
 * produced is charged as it is made, in the characters `JSON.stringify(schema, null, 2)` prints for it: a value at
 * indentation level `depth`, a member of an object or an array on a line of its own two spaces further in.
 */
const inline = (root: JsonObject, keepRecursive: boolean, field: GeminiField = "parametersJsonSchema"): JsonObject => {
  const definitions = definitionsOf(root)
  const recursive = recursiveDefinitions(definitions)
  const kept = new Set<string>()
  let produced = 0
  const charge = (characters: number) => {
    produced += characters
    if (produced > bounds.characters) throw new Refused(tooLarge)
  }
  /** A member's line up to its value, at indentation level `depth`: a comma after the first, a line break, the indentation, the key and `: `. */
  const memberLine = (index: number, depth: number, key: string | undefined) =>
    (index > 0 ? 1 : 0) + 1 + 2 * depth + (key === undefined ? 0 : JSON.stringify(key).length + 2)
  /** The end of a container at indentation level `depth` holding `size` members: its own line, or only the bracket when empty. */
  const closing = (size: number, depth: number) => (size > 0 ? 1 + 2 * depth + 1 : 1)
  /** An object or array at `depth` holding `entries` (keys for an object, undefined for an array), each value made by `make` a level further in. */
  const container = <K extends string | undefined, A>(depth: number, entries: ReadonlyArray<readonly [K, A]>, make: (key: K, value: A, depth: number) => unknown) => {
    if (depth >= bounds.depth) throw new Refused(tooDeep)
    charge(1)
    const made: Array<unknown> = []
    for (const [index, [key, value]] of entries.entries()) {
      charge(memberLine(index, depth + 1, key))
      made.push(make(key, value, depth + 1))
    }
    charge(closing(entries.length, depth))
    return made
  }
  const object = <A>(depth: number, entries: ReadonlyArray<readonly [string, A]>, make: (key: string, value: A, depth: number) => unknown): JsonObject => {
    const values = container(depth, entries, make)
    // Each key defined as the object's own: an assignment to a property or keyword called "__proto__" would set the
    // prototype instead, and the parameter would vanish from the declaration.
    return Object.fromEntries(entries.map(([key], index) => [key, values[index]]))
  }
  const schemaMember = (key: string, value: unknown, depth: number): unknown => (isSchemaMap(key, value) ? visitMap(value, depth) : visit(value, depth))
  const visit = (node: unknown, depth: number): unknown => {
    if (Array.isArray(node)) return container(depth, node.map((item: unknown) => [undefined, item] as const), (_, item, at) => visit(item, at))
    if (!isPlainObject(node)) {
      // A schema built in code may hold what JSON leaves out (undefined): it costs nothing printed.
      charge(JSON.stringify(node)?.length ?? 0)
      return node
    }
    const ref = node.$ref
    if (typeof ref === "string") {
      const name = refName(ref)
      // Own keys only: a reference to "constructor" must not resolve to Object's.
      if (name === undefined || !Object.hasOwn(definitions, name) || definitions[name] === undefined) throw new Refused(`unresolvable reference ${ref}`)
      const target = definitions[name]
      const siblings = schemaEntries(node).filter(([key]) => key !== "$ref")
      if (recursive.has(name)) {
        if (!keepRecursive) throw new Refused(recursiveReason(name, field))
        kept.add(name)
        return object(depth, [["$ref", `#/$defs/${name}`] as const, ...siblings], schemaMember)
      }
      const resolved = visit(target, depth)
      // Sibling keywords (a description) are kept beside the definition's own, and win over them.
      return isPlainObject(resolved) && siblings.length > 0 ? { ...resolved, ...object(depth, siblings, schemaMember) } : resolved
    }
    return object(depth, schemaEntries(node), schemaMember)
  }
  const visitMap = (map: JsonObject, depth: number): JsonObject => object(depth, Object.entries(map), (_, schema, at) => visit(schema, at))
  const schema = visit(root, 0) as JsonObject
  if (kept.size === 0) return schema
  // Every kept definition is emitted, expanded the same way, in `$defs`: one more member of the root (whose closing
  // line is already counted). Visiting one may keep more, which the loop then reaches (a Set is iterated in
  // insertion order, new members included).
  charge(memberLine(1, 1, "$defs") + 1)
  const $defs: Array<readonly [string, unknown]> = []
  for (const name of kept) {
    charge(memberLine($defs.length, 2, name))
    $defs.push([name, visit(definitions[name], 2)])
  }
  charge(closing(kept.size, 1))
  return { ...schema, $defs: Object.fromEntries($defs) }
}

/** A schema object's entries, less the keywords dropped everywhere. */
const schemaEntries = (node: JsonObject): ReadonlyArray<readonly [string, unknown]> => Object.entries(node).filter(([key]) => !dropped.has(key))

const asObjectSchema = (schema: JsonObject): JsonObject => {
  const isEmptyStruct =
    Array.isArray(schema.anyOf) &&
    schema.anyOf.length === 2 &&
    schema.anyOf.every((s) => isPlainObject(s) && Object.keys(s).length === 1 && (s.type === "object" || s.type === "array"))
  if (isEmptyStruct || Object.keys(schema).length === 0) return { type: "object", properties: {} }
  // Stryker disable next-line ConditionalExpression: a schema of another type is refused next, with or without properties
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
    // Anything else thrown comes from a schema built in code that is not JSON (a BigInt): said as it was thrown.
    return fail(error instanceof Refused ? error.reason : String(error))
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
export const gemini: (declaration: FunctionDeclaration) => Either.Either<GeminiDeclaration, DeclarationError> = memoise((declaration: FunctionDeclaration) =>
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
 * @example
 * ```ts
 * import { Dialect } from "@agentfx/core"
 * import { Either } from "effect"
 *
 * const schema = {
 *   type: "object",
 *   properties: { item: { $ref: "#/$defs/Item" } },
 *   required: ["item"],
 *   $defs: { Item: { type: "object", properties: { serial: { type: "string" } }, required: ["serial"] } }
 * }
 * console.log(JSON.stringify(Either.getOrThrow(Dialect.geminiOutput({ name: "triage", schema }))))
 * // {"type":"object","properties":{"item":{"type":"object","properties":{"serial":{"type":"string"}},"required":["serial"]}},"required":["item"]}
 * ```
 *
 * @since 0.2.0
 */
export const geminiOutput: (declaration: OutputDeclaration) => Either.Either<JsonObject, DeclarationError> = memoise((declaration: OutputDeclaration) => {
  try {
    return Either.right(inline(declaration.schema, false, "responseJsonSchema"))
  } catch (error) {
    return outputError(
      declaration,
      "Gemini",
      error instanceof Refused ? error.reason : String(error instanceof Error ? error.message : error)
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
 * @example
 * ```ts
 * import { Dialect } from "@agentfx/core"
 * import { Either } from "effect"
 *
 * const schema = { type: "object", properties: { serial: { type: "string" } }, required: ["serial"] }
 * console.log(JSON.stringify(Either.getOrThrow(Dialect.openAIOutput({ name: "triage", schema }))))
 * // {"type":"json_schema","json_schema":{"name":"triage","schema":{"type":"object","properties":{"serial":{"type":"string"}},"required":["serial"],"additionalProperties":false},"strict":true}}
 *
 * const tags = Dialect.openAIOutput({ name: "tags", schema: { type: "array", items: { type: "string" }, uniqueItems: true } })
 * if (Either.isLeft(tags)) console.log(tags.left.message)
 * // output "tags" cannot be declared for OpenAI strict mode: at <root>: the keyword "uniqueItems" is not supported in strict mode
 * ```
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
      // Inlining's bounds refuse with a reason, as for tools (it is not an Error: String() of it said "[object Object]").
      return outputError(declaration, "OpenAI strict mode", error instanceof Refused ? error.reason : String(error instanceof Error ? error.message : error))
    }
  }
)
