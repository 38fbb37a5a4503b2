/**
 * The chat-completions request as the servers read it, written from OpenAI's API reference, Z.AI's (GLM) and the
 * SDK's wire captures — not from any client's codec. OpenAI refuses what it does not know: an unrecognised
 * top-level argument, or a field a message of that role does not have (`reasoning_content` on an assistant
 * message is GLM's, not OpenAI's). GLM ignores unknown fields. A value of the wrong type is refused by both, each
 * in its own words; the conversation's rules are checked afterwards, in `rules.ts`.
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as AST from "effect/SchemaAST"
import * as Schema from "effect/Schema"
import { isPlainObject, kindOf } from "../json.js"

/** The server being emulated: routes under `/paas/` are GLM (Z.AI), the others OpenAI. */
export type Flavour = "glm" | "openai"

// Stryker disable next-line ObjectLiteral,BooleanLiteral: `exact` only refuses a field set to undefined, which a body parsed from JSON cannot hold
const opt = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })
// Stryker disable next-line ObjectLiteral,BooleanLiteral: as above
const nullable = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(Schema.NullOr(schema), { exact: true })
const described = <S extends Schema.Schema.AnyNoContext>(schema: S, expected: string): S => schema.annotations({ identifier: expected }) as S

const string = described(Schema.String, "a string")
const number = described(Schema.Number, "a number")
const boolean = described(Schema.Boolean, "a boolean")
const object = described(
  Schema.declare((value: unknown): value is { readonly [key: string]: unknown } => isPlainObject(value)),
  "an object"
)
const contentPart = described(Schema.Struct({ type: string, text: opt(string) }), "an object")
const content = described(Schema.Union(string, Schema.Array(contentPart)), "one of a string or array of objects")

export const ToolCall = described(
  Schema.Struct({
    id: opt(string),
    type: opt(string),
    index: opt(number),
    function: described(Schema.Struct({ name: string, arguments: opt(string) }), "an object")
  }),
  "an object"
)
export type ToolCall = typeof ToolCall.Type

export const Message = described(
  Schema.Struct({
    role: string,
    content: nullable(content),
    name: opt(string),
    tool_calls: nullable(Schema.Array(ToolCall)),
    tool_call_id: opt(string),
    reasoning_content: nullable(string),
    refusal: nullable(string)
  }),
  "an object"
)
export type Message = typeof Message.Type

export const Tool = described(
  Schema.Struct({
    type: string,
    function: opt(described(Schema.Struct({ name: string, description: opt(string), parameters: opt(object), strict: nullable(boolean) }), "an object"))
  }),
  "an object"
)
export type Tool = typeof Tool.Type

/** `response_format`: plain text, any JSON object, or JSON following a schema (OpenAI's Structured Outputs). */
export const ResponseFormat = described(
  Schema.Struct({
    type: string,
    json_schema: opt(
      described(Schema.Struct({ name: string, description: opt(string), schema: opt(object), strict: nullable(boolean) }), "an object")
    )
  }),
  "an object"
)
export type ResponseFormat = typeof ResponseFormat.Type

/** The body of `POST /chat/completions`; every other field is kept as it came (see `unknownFields`). */
export const Request = Schema.Struct({
  model: string,
  messages: Schema.Array(Message),
  tools: nullable(Schema.Array(Tool)),
  tool_choice: opt(Schema.Union(string, object)),
  stream: nullable(boolean),
  stream_options: nullable(described(Schema.Struct({ include_usage: opt(boolean) }), "an object")),
  temperature: nullable(number),
  max_tokens: nullable(number),
  max_completion_tokens: nullable(number),
  response_format: nullable(ResponseFormat)
})
export type Request = typeof Request.Type

// ---------------------------------------------------------------------------------------------------------------
// what OpenAI refuses that GLM lets through

const openAIArguments = new Set([
  "model", "messages", "tools", "tool_choice", "stream", "stream_options", "temperature", "top_p", "max_tokens",
  "max_completion_tokens", "n", "stop", "presence_penalty", "frequency_penalty", "logit_bias", "logprobs", "top_logprobs",
  "user", "seed", "response_format", "parallel_tool_calls", "reasoning_effort", "metadata", "store", "service_tier",
  "modalities", "audio", "prediction", "web_search_options", "verbosity", "prompt_cache_key", "safety_identifier", "functions", "function_call"
])

const messageFields: Readonly<Record<string, ReadonlySet<string>>> = {
  system: new Set(["role", "content", "name"]),
  developer: new Set(["role", "content", "name"]),
  user: new Set(["role", "content", "name"]),
  assistant: new Set(["role", "content", "name", "tool_calls", "refusal", "audio", "function_call"]),
  tool: new Set(["role", "content", "tool_call_id"])
}

/** OpenAI's refusal of a field it does not know, if the body has one (GLM accepts them). */
export const unknownFields = (body: { readonly [key: string]: unknown }): { message: string; param: string | null } | undefined => {
  for (const key of Object.keys(body)) {
    if (!openAIArguments.has(key)) return { message: `Unrecognized request argument supplied: ${key}`, param: null }
  }
  const messages: unknown = body.messages
  if (!Array.isArray(messages)) return undefined
  for (const [i, message] of messages.entries()) {
    if (!isPlainObject(message) || typeof message.role !== "string") continue
    const allowed = messageFields[message.role]
    const extra = allowed === undefined ? undefined : Object.keys(message).find((key) => !allowed.has(key))
    if (extra !== undefined) return { message: `Additional properties are not allowed ('${extra}' was unexpected) - 'messages.${i}'`, param: `messages.[${i}]` }
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------------------------
// type errors, in each server's words

const jsonPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((acc, key) => (typeof key === "number" ? `${acc}[${key}]` : acc === "" ? String(key) : `${acc}.${String(key)}`), "")

/**
 * What a schema expects, in the servers' words: its description; an array; for a union without one (a nullable
 * field, or `tool_choice`'s string or object) its first member's, as `NullOr` puts the non-null member first.
 */
const expectedOf = (ast: AST.AST): string =>
  Option.getOrElse(AST.getIdentifierAnnotation(ast), () =>
    // Stryker disable next-line ConditionalExpression,StringLiteral: every schema here that is neither an array nor a union is described, so "a valid value" is a last resort no body reaches
    AST.isTupleType(ast) ? "an array" : AST.isUnion(ast) ? expectedOf(ast.types[0]!) : "a valid value"
  )

const issuesOf = (issues: ParseResult.Composite["issues"]): ReadonlyArray<ParseResult.ParseIssue> =>
  Array.isArray(issues) ? (issues as ReadonlyArray<ParseResult.ParseIssue>) : [issues as ParseResult.ParseIssue]

/** A field left out, or a value of the wrong kind: what was expected and what came. */
type Problem =
  | { readonly path: ReadonlyArray<PropertyKey>; readonly missing: true }
  | { readonly path: ReadonlyArray<PropertyKey>; readonly missing: false; readonly expected: string; readonly actual: unknown }

const problemOf = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey> = []): Problem => {
  switch (issue._tag) {
    case "Pointer":
      return problemOf(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path as PropertyKey])])
    case "Missing":
      return { path, missing: true }
    case "Composite": {
      // A struct or an array failed inside (handed a value of the wrong kind, they fail with a Type issue instead),
      // or the member of a union that takes the value's kind did (a nullable array of tool calls): the first problem
      // there. A union no member of which takes the value's kind fails as a whole.
      const inner = issuesOf(issue.issues).find((member) => member._tag !== "Type")
      return inner !== undefined ? problemOf(inner, path) : { path, missing: false, expected: expectedOf(issue.ast), actual: issue.actual }
    }
    case "Type":
      return { path, missing: false, expected: expectedOf(issue.ast), actual: issue.actual }
    // Stryker disable ConditionalExpression,StringLiteral,ObjectLiteral,BooleanLiteral: the request's schemas have no refinement and no transformation, preserve extra fields (OpenAI's refusal of them is unknownFields') and are not effectful, so no body reaches these cases
    case "Refinement":
    case "Transformation":
      return problemOf(issue.issue, path)
    case "Unexpected":
    case "Forbidden":
      return { path, missing: false, expected: "a valid value", actual: issue.actual }
  }
}

// Stryker restore all
// Stryker disable next-line StringLiteral: "first" is also Effect's default
const decode = Schema.decodeUnknownEither(Request, { errors: "first", onExcessProperty: "preserve" })

/** The body read as a chat-completions request, or the 400 the server answers a body it cannot read with. */
export const decodeRequest = (
  body: unknown,
  flavour: Flavour
): Either.Either<Request & { readonly [key: string]: unknown }, { message: string; param: string | null }> => {
  if (!isPlainObject(body)) {
    return Either.left({ message: flavour === "glm" ? "请求参数非法: the body must be a JSON object" : `Invalid type for body: expected an object, but got ${kindOf(body)} instead.`, param: null })
  }
  if (flavour === "openai") {
    const unknown = unknownFields(body)
    if (unknown !== undefined) return Either.left(unknown)
  }
  return Either.mapLeft(decode(body), (error) => {
    const problem = problemOf(error.issue)
    const param = jsonPath(problem.path)
    if (flavour === "glm") return { message: `${param} 参数非法: ${problem.missing ? "required" : `expected ${problem.expected}`}`, param }
    return problem.missing
      ? { message: `Missing required parameter: '${param}'.`, param }
      : { message: `Invalid type for '${param}': expected ${problem.expected}, but got ${kindOf(problem.actual)} instead.`, param }
  })
}
