/**
 * A run's typed final answer: `Agent.run({ output: Schema })`. The run calls tools as usual; its final model turn
 * (the one without calls) must be JSON that decodes with the Schema, and the result's `output` is the decoded value.
 *
 * What the model is told: every request carries the output's `Declaration` (a name and the neutral JSON Schema).
 * A provider with a JSON mode that enforces the schema uses it (Gemini `responseJsonSchema`, OpenAI strict
 * `json_schema`); otherwise the schema travels in the system instruction (`instructions`), with the provider's JSON
 * mode when it has one (GLM `json_object`). See `LanguageModel.Service.outputMode`.
 *
 * What the loop does with a final answer: `decode` reads the JSON out of the text (past code fences and prose
 * around it), takes it back from a provider's strict form (`Dialect.openAIOutput`), and decodes it with the Schema.
 * An answer that does not decode stays in the transcript as the model said it, followed by a user turn that says
 * what failed and at which path (`correction`); the model is asked again. That is valid for every provider (a model
 * text turn followed by a user turn). After `maxOutputRetries` corrections (default 2, so three answers in all) the
 * run fails with `OutputInvalid`, carrying the issues, the last answer's text and the transcript. A run that ends
 * without a final answer (`maxTurns` reached, a stop condition) fails with `OutputMissing`.
 *
 * @example
 * ```ts
 * import { Agent, Registry } from "@agentfx/core"
 * import { Scripted } from "@agentfx/core/testing"
 * import { Effect, Schema } from "effect"
 *
 * const Triage = Schema.Struct({ category: Schema.Literal("repair", "refund"), serials: Schema.Array(Schema.String) })
 *
 * const program = Effect.gen(function* () {
 *   const result = yield* Agent.run({ registry: Registry.empty, prompt: "My kettle SN-1 stopped heating.", output: Triage })
 *   return result.output // typed: { category: "repair" | "refund"; serials: ReadonlyArray<string> }
 * })
 *
 * // the first answer does not decode: the model is told what failed, at which path, and answers again
 * const model = Scripted.layer([{ text: '{"category": "broken"}' }, { text: '{"category": "repair", "serials": ["SN-1"]}' }])
 * Effect.runPromise(program.pipe(Effect.provide(model))).then(console.log) // { category: 'repair', serials: [ 'SN-1' ] }
 * ```
 *
 * @since 0.2.0
 */
import * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import { DeclarationError, normaliseOutput } from "./Dialect.js"
import { refusal } from "./internal/effectVersion.js"
import { issuesOf } from "./internal/json.js"
import { SchemaProblem, toSchema } from "./internal/jsonSchemaDecoder.js"
import { restore } from "./internal/strictSchema.js"
import type { JsonObject } from "./Json.js"
import { isPlainObject } from "./Json.js"
import * as Transcript from "./Transcript.js"
import * as Turn from "./Turn.js"

/**
 * What a request says of the final answer it wants: a name (`[A-Za-z0-9_-]`, at most 64 characters) and the JSON
 * Schema of the answer, neutral (references inlined except recursive ones; providers compile it to their dialect).
 *
 * @since 0.2.0
 * @category models
 */
export interface Declaration {
  readonly name: string
  readonly schema: JsonObject
}

/**
 * How a model takes a request's output: `"schema"`, its JSON mode enforces the JSON Schema (Gemini
 * `responseJsonSchema`, OpenAI strict `json_schema`); `"json"`, it answers JSON but is told the schema in its
 * instructions (GLM `json_object`); `"instructions"`, it is only told. The loop adds the instructions unless the mode
 * is `"schema"`.
 *
 * @since 0.2.0
 * @category models
 */
export type Mode = "schema" | "json" | "instructions"

/**
 * One problem with the final answer, at a path such as `serials[1]` (empty for the whole answer).
 *
 * @since 0.2.0
 * @category schemas
 */
export const Issue = Schema.Struct({ path: Schema.String, message: Schema.String })
/**
 * @since 0.2.0
 * @category models
 */
export interface Issue extends Schema.Schema.Type<typeof Issue> {}

/**
 * The default `maxOutputRetries`: two corrections, so three final answers in all.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultMaxRetries = 2

const issueLine = (issue: Issue): string => (issue.path === "" ? issue.message : `${issue.path}: ${issue.message}`)

/**
 * The final answer still did not decode with the output Schema after every correction: the issues of the last
 * answer, its text, how many final answers were given, and the transcript (every answer and correction in it), so
 * the conversation can be continued.
 *
 * @since 0.2.0
 * @category errors
 */
export class OutputInvalid extends Schema.TaggedError<OutputInvalid>()("OutputInvalid", {
  issues: Schema.Array(Issue),
  text: Schema.String,
  attempts: Schema.Number,
  transcript: Transcript.Transcript
}) {
  override get message(): string {
    const [first, ...rest] = this.issues
    const more = rest.length === 0 ? "" : ` (and ${rest.length} more)`
    return `the final answer does not match the output schema after ${this.attempts} attempt${this.attempts === 1 ? "" : "s"}: ${first === undefined ? "no issue recorded" : issueLine(first)}${more}`
  }

  /** Every issue of the last answer, one per line (what `--verbose` prints). */
  get details(): string {
    return this.issues.map(issueLine).join("\n")
  }
}

/**
 * Why a run ended without a final answer.
 *
 * @since 0.2.0
 * @category schemas
 */
export const StopReason = Schema.Union(
  Schema.TaggedStruct("MaxTurns", { maxTurns: Schema.Number }),
  Schema.TaggedStruct("ToolCalled", { name: Schema.String }),
  Schema.TaggedStruct("RepeatedCall", { name: Schema.String, times: Schema.Number })
)

/**
 * A run given `output` ended before the model's final answer (at `maxTurns`, or a stop condition said stop), so
 * there is no value to decode. The transcript is complete (every call answered): resume it as `history`.
 *
 * @since 0.2.0
 * @category errors
 */
export class OutputMissing extends Schema.TaggedError<OutputMissing>()("OutputMissing", {
  stopReason: StopReason,
  turns: Schema.Number,
  transcript: Transcript.Transcript
}) {
  override get message(): string {
    const reason = this.stopReason
    const why =
      reason._tag === "MaxTurns"
        ? `maxTurns (${reason.maxTurns}) was reached`
        : reason._tag === "ToolCalled"
          ? `the stop condition on "${reason.name}" was met`
          : `"${reason.name}" was called ${reason.times} times in a row`
    return `the run ended without a final answer to decode: ${why}`
  }
}

/**
 * An output JSON Schema that cannot be decoded with (`fromJsonSchema`): a keyword whose check is not made, a
 * reference that resolves nowhere, a malformed keyword. `path` is where, e.g. `properties/serials/items`.
 *
 * @since 0.2.0
 * @category errors
 */
export class InvalidOutputSchema extends Schema.TaggedError<InvalidOutputSchema>()("InvalidOutputSchema", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return this.path === "" ? this.reason : `at ${this.path}: ${this.reason}`
  }
}

// ---------------------------------------------------------------------------------------------------------------
// declaring

/** The Schema's identifier or title (a class's name), as a name OpenAI accepts; `output` without one. */
const nameOf = (schema: Schema.Schema.AnyNoContext): string => {
  const asts = SchemaAST.isTransformation(schema.ast) ? [schema.ast, schema.ast.to] : [schema.ast]
  for (const ast of asts) {
    for (const annotation of [SchemaAST.getIdentifierAnnotation(ast), SchemaAST.getTitleAnnotation(ast)]) {
      const cleaned = annotation._tag === "Some" ? annotation.value.replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 64) : ""
      if (cleaned !== "") return cleaned
    }
  }
  return "output"
}

const declared = new WeakMap<Schema.Schema.AnyNoContext, Either.Either<Declaration, DeclarationError>>()

/**
 * The declaration of an output Schema: its JSON Schema (the encoded side, as JSON crosses the wire) and a name (the
 * Schema's identifier or title, else `output`). A Schema with no JSON Schema form, or made by another copy of effect,
 * is a `DeclarationError`. Kept per Schema, so every request of a run (and of a chat) shares one declaration.
 *
 * @example
 * ```ts
 * import { Output } from "@agentfx/core"
 * import { Either, Schema } from "effect"
 *
 * const Triage = Schema.Struct({ category: Schema.Literal("repair", "refund") }).annotations({ identifier: "Triage" })
 *
 * const declaration = Output.declare(Triage)
 * if (Either.isRight(declaration)) console.log(declaration.right.name, declaration.right.schema.type) // Triage object
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const declare = (schema: Schema.Schema.AnyNoContext): Either.Either<Declaration, DeclarationError> => {
  const known = declared.get(schema)
  if (known !== undefined) return known
  const fail = (reason: string) => Either.left(new DeclarationError({ name: "output", dialect: "JSON Schema", reason, kind: "output" }))
  const refused = refusal(schema, "Schema")
  let declaration: Either.Either<Declaration, DeclarationError>
  if (refused !== undefined) declaration = fail(`its Schema ${refused}`)
  else {
    try {
      declaration = Either.right({ name: nameOf(schema), schema: normaliseOutput(JSONSchema.make(schema) as unknown as JsonObject) })
    } catch (error) {
      declaration = fail(`its Schema has no JSON Schema form: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  declared.set(schema, declaration)
  return declaration
}

/**
 * An output Schema from a JSON Schema (a file's, say): it decodes what the JSON Schema accepts, and declares the JSON
 * Schema as it was given. Keywords it would not check are an `InvalidOutputSchema` naming the path, never skipped.
 *
 * @example
 * ```ts
 * import { Agent, Output, Registry } from "@agentfx/core"
 * import { Scripted } from "@agentfx/core/testing"
 * import { Effect, Either } from "effect"
 *
 * const output = Output.fromJsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] })
 * if (Either.isRight(output)) {
 *   const program = Agent.run({ registry: Registry.empty, prompt: "Where is it sunny?", output: output.right })
 *   const model = Scripted.layer([{ text: '{"city": "Lisbon"}' }])
 *   Effect.runPromise(program.pipe(Effect.provide(model))).then((result) => console.log(result.output)) // { city: 'Lisbon' }
 * }
 *
 * // a keyword whose check would not be made is refused, with where it is
 * const refused = Output.fromJsonSchema({ type: "object", properties: { tags: { type: "array", uniqueItems: true } } })
 * if (Either.isLeft(refused)) console.log(refused.left.message)
 * // at properties/tags: the keyword "uniqueItems" is not supported (it would not be checked)
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromJsonSchema = (jsonSchema: unknown): Either.Either<Schema.Schema<unknown>, InvalidOutputSchema> => {
  if (!isPlainObject(jsonSchema)) return Either.left(new InvalidOutputSchema({ path: "", reason: "a JSON Schema must be a JSON object" }))
  try {
    const schema = toSchema(jsonSchema)
    const title = typeof jsonSchema.title === "string" ? { title: jsonSchema.title } : {}
    return Either.right(schema.annotations({ jsonSchema: jsonSchema as object, ...title }))
  } catch (error) {
    if (error instanceof SchemaProblem) return Either.left(new InvalidOutputSchema({ path: error.path.join("/"), reason: error.reason }))
    throw error
  }
}

/**
 * What the model is told of the output when its JSON mode does not enforce the schema: added to the system
 * instruction by the loop.
 *
 * @since 0.2.0
 * @category constructors
 */
export const instructions = (declaration: Declaration): string =>
  "When you give your final answer (the turn in which you call no function), answer with one JSON value and nothing " +
  `else — no prose around it, no code fences — that matches this JSON Schema (named "${declaration.name}"):\n` +
  JSON.stringify(declaration.schema)

// ---------------------------------------------------------------------------------------------------------------
// decoding

/** The first complete JSON value that starts at `from` (an object or an array), or undefined. */
const valueAt = (text: string, from: number): string | undefined => {
  let depth = 0
  for (let at = from; at < text.length; at++) {
    const c = text[at]
    if (c === '"') {
      for (at++; at < text.length && text[at] !== '"'; at++) if (text[at] === "\\") at++
    } else if (c === "{" || c === "[") depth++
    else if (c === "}" || c === "]") {
      depth--
      if (depth === 0) return text.slice(from, at + 1)
    }
  }
  return undefined
}

const tryParse = (text: string): Either.Either<unknown, string> => {
  try {
    return Either.right(JSON.parse(text))
  } catch (error) {
    return Either.left(error instanceof Error ? error.message : String(error))
  }
}

/**
 * The JSON of a final answer: the whole text, else the content of its first code fence, else the first object or
 * array in it (prose before or after it is left out). `Left` says why none is there.
 *
 * @example
 * ```ts
 * import { Output } from "@agentfx/core"
 * import { Either } from "effect"
 *
 * console.log(Either.getOrThrow(Output.extractJson('Here you are:\n```json\n{"a": 1}\n```'))) // { a: 1 }
 * console.log(Either.getOrThrow(Output.extractJson("The answer is [1, 2], as asked."))) // [ 1, 2 ]
 * console.log(Either.isLeft(Output.extractJson("no JSON here"))) // true
 * ```
 *
 * @since 0.2.0
 * @category decoding
 */
export const extractJson = (text: string): Either.Either<unknown, string> => {
  const trimmed = text.trim()
  if (trimmed === "") return Either.left("the answer is empty: it must be one JSON value")
  const whole = tryParse(trimmed)
  if (Either.isRight(whole)) return whole
  const fenced = /```[A-Za-z]*[ \t]*\r?\n([\s\S]*?)```/.exec(trimmed)?.[1]
  if (fenced !== undefined && Either.isRight(tryParse(fenced))) return tryParse(fenced)
  const start = trimmed.search(/[[{]/)
  const value = start === -1 ? undefined : valueAt(trimmed, start)
  if (value !== undefined && Either.isRight(tryParse(value))) return tryParse(value)
  return Either.left(`the answer is not JSON (${whole.left})`)
}

const decoders = new WeakMap<Schema.Schema.AnyNoContext, (value: unknown) => Either.Either<unknown, ParseResult.ParseError>>()

/**
 * A final answer's text decoded with the output Schema: its JSON (see `extractJson`), taken back from a provider's
 * strict form, then decoded (excess properties are issues, as for tool arguments). `Left`: one issue per failing
 * path, as the correction tells them.
 *
 * @example
 * ```ts
 * import { Output } from "@agentfx/core"
 * import { Either, Schema } from "effect"
 *
 * const Triage = Schema.Struct({ category: Schema.Literal("repair", "refund"), serials: Schema.Array(Schema.String) })
 * const declaration = Either.getOrThrow(Output.declare(Triage))
 *
 * const good = Output.decode(Triage, declaration, '```json\n{"category": "repair", "serials": ["SN-1"]}\n```')
 * console.log(Either.getOrThrow(good)) // { category: 'repair', serials: [ 'SN-1' ] }
 *
 * const bad = Output.decode(Triage, declaration, '{"category": "repair", "serials": [1]}')
 * if (Either.isLeft(bad)) console.log(bad.left) // [ { path: 'serials[0]', message: 'Expected string, actual 1' } ]
 * ```
 *
 * @since 0.2.0
 * @category decoding
 */
export const decode = <A, I>(
  schema: Schema.Schema<A, I, never>,
  declaration: Declaration,
  text: string
): Either.Either<A, ReadonlyArray<Issue>> => {
  const json = extractJson(text)
  if (Either.isLeft(json)) return Either.left([{ path: "", message: json.left }])
  let decodeWith = decoders.get(schema)
  if (decodeWith === undefined) {
    decodeWith = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })
    decoders.set(schema, decodeWith)
  }
  return Either.mapLeft(decodeWith(restore(declaration.schema, json.right)), issuesOf) as Either.Either<A, ReadonlyArray<Issue>>
}

/**
 * The metadata that marks a correction turn (a user turn the loop wrote, not the user).
 *
 * @since 0.2.0
 * @category constants
 */
export const correctionMetadata = { agentfxOutputCorrection: true } as const

/**
 * The user turn that follows a final answer that did not decode: what failed, at which path, and what to do.
 *
 * @since 0.2.0
 * @category constructors
 */
export const correction = (issues: ReadonlyArray<Issue>): Turn.Turn => ({
  role: "user",
  parts: [
    Turn.Text.make({
      text:
        "Your final answer could not be used: it must be one JSON value matching the JSON Schema you were given, with " +
        `nothing around it. What failed:\n${issues.map((issue) => `- ${issue.path === "" ? "the answer" : issue.path}: ${issue.message}`).join("\n")}\n` +
        "Answer again with the corrected JSON only.",
      metadata: correctionMetadata
    })
  ]
})

/**
 * Whether a turn is a correction the loop wrote after a final answer that did not decode.
 *
 * @since 0.2.0
 * @category predicates
 */
export const isCorrection = (turn: Turn.Turn): boolean =>
  turn.role === "user" && turn.parts.some((part) => part._tag === "Text" && part.metadata?.agentfxOutputCorrection === true)
