/**
 * The Gemini REST request as the server reads it: the proto messages of `generativelanguage.v1beta` in their
 * JSON mapping, written from the API reference and the SDK's wire captures — not from any client's codec, so a
 * client's mistake is not repeated here. Like the real server (a proto parser), a field it does not know is an
 * error ("Unknown name … Cannot find field."), and a value of the wrong type is "Invalid value at …". Open-ended
 * values (a `google.protobuf.Struct`, a JSON Schema) are left as JSON; the conversation's rules are checked
 * afterwards, in `rules.ts`.
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as AST from "effect/SchemaAST"
import * as Schema from "effect/Schema"
import { isPlainObject } from "../json.js"

const typeName = (name: string) => `type.googleapis.com/google.ai.generativelanguage.v1beta.${name}`

/** A proto message: only these fields, each optional as in proto3 unless `required` is used. */
export const message = <Fields extends Schema.Struct.Fields>(name: string, fields: Fields) =>
  Schema.Struct(fields).annotations({ identifier: typeName(name) })

export const opt = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

export const string = Schema.String.annotations({ identifier: "TYPE_STRING" })
export const bool = Schema.Boolean.annotations({ identifier: "TYPE_BOOL" })
const float = Schema.Number.annotations({ identifier: "TYPE_FLOAT" })
const int32 = Schema.Number.annotations({ identifier: "TYPE_INT32" })
/** `google.protobuf.Struct`: any JSON object. */
export const struct = Schema.declare((value: unknown): value is { readonly [key: string]: unknown } => isPlainObject(value), {
  identifier: "type.googleapis.com/google.protobuf.Struct"
})
/** `google.protobuf.Value`: any JSON value (a JSON Schema, say). */
export const value = Schema.Unknown
export const repeated = <S extends Schema.Schema.Any>(schema: S) => Schema.Array(schema)
export const enumOf = <const Values extends ReadonlyArray<string>>(name: string, ...values: Values) =>
  Schema.Literal(...values).annotations({ identifier: typeName(name) })

export const Blob = message("Blob", { mimeType: opt(string), data: opt(string), displayName: opt(string) })

export const FileData = message("FileData", { mimeType: opt(string), fileUri: opt(string), displayName: opt(string) })

export const FunctionCall = message("FunctionCall", {
  id: opt(string),
  name: opt(string),
  args: opt(struct),
  partialArgs: opt(repeated(value)),
  willContinue: opt(bool)
})
export type FunctionCall = typeof FunctionCall.Type

export const Scheduling = enumOf("FunctionResponse.Scheduling", "SCHEDULING_UNSPECIFIED", "SILENT", "WHEN_IDLE", "INTERRUPT")

/** `response` is read as any JSON here: that it must be an object is a rule with its own message (rules.ts). */
export const FunctionResponse = message("FunctionResponse", {
  id: opt(string),
  name: opt(string),
  response: opt(value),
  parts: opt(repeated(value)),
  willContinue: opt(bool),
  scheduling: opt(Scheduling)
})
export type FunctionResponse = typeof FunctionResponse.Type

export const Part = message("Part", {
  text: opt(string),
  thought: opt(bool),
  thoughtSignature: opt(string),
  inlineData: opt(Blob),
  fileData: opt(FileData),
  functionCall: opt(FunctionCall),
  functionResponse: opt(FunctionResponse),
  executableCode: opt(struct),
  codeExecutionResult: opt(struct),
  videoMetadata: opt(struct),
  partMetadata: opt(struct),
  mediaResolution: opt(value),
  toolCall: opt(struct),
  toolResponse: opt(struct)
})
export type Part = typeof Part.Type

export const Content = message("Content", { role: opt(string), parts: opt(repeated(Part)) })
export type Content = typeof Content.Type

export const Behavior = enumOf("FunctionDeclaration.Behavior", "UNSPECIFIED", "BLOCKING", "NON_BLOCKING")

/** The `Schema.type` enum; lower-case names are accepted too, as the API does in practice. */
const SchemaType = enumOf(
  "Type",
  ...["TYPE_UNSPECIFIED", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"],
  ...["string", "number", "integer", "boolean", "array", "object", "null"]
)
/** An int64 in the JSON mapping: a number or a decimal string. */
const int64 = Schema.Union(Schema.Number, Schema.String.pipe(Schema.pattern(/^-?\d+$/))).annotations({ identifier: "TYPE_INT64" })
const double = Schema.Number.annotations({ identifier: "TYPE_DOUBLE" })

/** The OpenAPI 3.0 subset `Schema` of `parameters` and `response`, as decoded (the fields the proto has). */
export interface OpenApiSchema {
  readonly [field: string]: unknown
  readonly properties?: { readonly [name: string]: OpenApiSchema }
  readonly items?: OpenApiSchema
  readonly anyOf?: ReadonlyArray<OpenApiSchema>
}

/**
 * A proto `map<string, V>` read as the server reads it: its entries, so that a problem inside one is reported at
 * `properties[<position>].value`, as Google's parser prints it; decoded back to an object.
 */
const mapOf = (entry: Schema.Schema<OpenApiSchema, unknown>): Schema.Schema<{ readonly [name: string]: OpenApiSchema }, unknown> =>
  Schema.transform(
    Schema.transform(struct, Schema.Array(Schema.Struct({ key: Schema.String, value: entry })), {
      strict: false,
      decode: (object) => Object.entries(object).map(([key, value]) => ({ key, value })),
      encode: (entries) => Object.fromEntries(entries.map(({ key, value }) => [key, value]))
    }),
    struct,
    {
      strict: false,
      decode: (entries) => Object.fromEntries(entries.map(({ key, value }) => [key, value])),
      encode: (object) => Object.entries(object).map(([key, value]) => ({ key, value }))
    }
  ) as unknown as Schema.Schema<{ readonly [name: string]: OpenApiSchema }, unknown>

/**
 * `google.ai.generativelanguage.v1beta.Schema`: only these fields (the SDK's `Schema` type lists the same), so the
 * JSON Schema keywords it lacks (`additionalProperties`, `$schema`, `$ref`, `$defs`, `const`, `oneOf`, …) are
 * "Unknown name" errors, as on the real API. Full JSON Schema goes in `parametersJsonSchema`.
 */
export const OpenApi: Schema.Schema<OpenApiSchema, unknown> = message("Schema", {
  type: opt(SchemaType),
  format: opt(string),
  title: opt(string),
  description: opt(string),
  nullable: opt(bool),
  enum: opt(repeated(string)),
  maxItems: opt(int64),
  minItems: opt(int64),
  properties: opt(mapOf(Schema.suspend(() => OpenApi))),
  required: opt(repeated(string)),
  minProperties: opt(int64),
  maxProperties: opt(int64),
  minLength: opt(int64),
  maxLength: opt(int64),
  pattern: opt(string),
  example: opt(value),
  anyOf: opt(repeated(Schema.suspend(() => OpenApi))),
  propertyOrdering: opt(repeated(string)),
  default: opt(value),
  items: opt(Schema.suspend(() => OpenApi)),
  minimum: opt(double),
  maximum: opt(double)
}) as unknown as Schema.Schema<OpenApiSchema, unknown>

export const FunctionDeclaration = message("FunctionDeclaration", {
  name: opt(string),
  description: opt(string),
  parameters: opt(OpenApi),
  parametersJsonSchema: opt(value),
  response: opt(OpenApi),
  responseJsonSchema: opt(value),
  behavior: opt(Behavior)
})
export type FunctionDeclaration = typeof FunctionDeclaration.Type

export const Tool = message("Tool", {
  functionDeclarations: opt(repeated(FunctionDeclaration)),
  googleSearch: opt(struct),
  googleSearchRetrieval: opt(struct),
  codeExecution: opt(struct),
  urlContext: opt(struct),
  retrieval: opt(struct),
  googleMaps: opt(struct),
  computerUse: opt(struct),
  fileSearch: opt(struct),
  enterpriseWebSearch: opt(struct),
  mcpServers: opt(repeated(value))
})
export type Tool = typeof Tool.Type

export const Mode = enumOf("FunctionCallingConfig.Mode", "MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED")

export const FunctionCallingConfig = message("FunctionCallingConfig", {
  mode: opt(Mode),
  allowedFunctionNames: opt(repeated(string)),
  streamFunctionCallArguments: opt(bool)
})

export const ToolConfig = message("ToolConfig", {
  functionCallingConfig: opt(FunctionCallingConfig),
  retrievalConfig: opt(struct),
  includeServerSideToolInvocations: opt(bool)
})

export const GenerationConfig = message("GenerationConfig", {
  temperature: opt(float),
  topP: opt(float),
  topK: opt(float),
  candidateCount: opt(int32),
  maxOutputTokens: opt(int32),
  stopSequences: opt(repeated(string)),
  responseMimeType: opt(string),
  responseSchema: opt(value),
  responseJsonSchema: opt(value),
  responseModalities: opt(repeated(string)),
  presencePenalty: opt(float),
  frequencyPenalty: opt(float),
  seed: opt(int32),
  responseLogprobs: opt(bool),
  logprobs: opt(int32),
  thinkingConfig: opt(struct),
  mediaResolution: opt(string),
  speechConfig: opt(struct),
  audioTimestamp: opt(bool),
  enableAffectiveDialog: opt(bool),
  enableEnhancedCivicAnswers: opt(bool),
  routingConfig: opt(struct),
  modelSelectionConfig: opt(struct)
})

/** The body of `generateContent` / `streamGenerateContent` (the model is in the path). */
// Stryker disable next-line StringLiteral: a request that is no object is refused as "Expected an object", without its type's name
export const Request = message("GenerateContentRequest", {
  contents: opt(repeated(Content)),
  systemInstruction: opt(Content),
  tools: opt(repeated(Tool)),
  toolConfig: opt(ToolConfig),
  safetySettings: opt(repeated(struct)),
  generationConfig: opt(GenerationConfig),
  cachedContent: opt(string)
})
export type Request = typeof Request.Type

// ---------------------------------------------------------------------------------------------------------------
// the proto parser's messages

const snake = (key: string): string => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)

/** A proto field path as the server prints it: `contents[2].parts[0].function_response`. */
export const protoPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((acc, key) => (typeof key === "number" ? `${acc}[${key}]` : acc === "" ? snake(String(key)) : `${acc}.${snake(String(key))}`), "")

/** The type a value failed as: its schema's name, or a repeated field's element's (an array has none of its own). */
const nameOf = (ast: AST.AST): string =>
  Option.getOrElse(AST.getIdentifierAnnotation(ast), () =>
    // Stryker disable next-line ConditionalExpression,StringLiteral: every schema of the REST and Live wires but an array is named, so "TYPE_MESSAGE" is a last resort no body reaches
    AST.isTupleType(ast) ? nameOf(ast.rest[0]!.type) : "TYPE_MESSAGE"
  )

const first = (issues: ParseResult.Composite["issues"]): ParseResult.ParseIssue =>
  Array.isArray(issues) ? (issues as ReadonlyArray<ParseResult.ParseIssue>)[0]! : (issues as ParseResult.ParseIssue)

/** The first problem of a failed decode, worded as Gemini's proto parser words it. */
// Stryker disable next-line StringLiteral: the root only names a required field left out, and no field of a REST request is required (Live's setup, which has one, gives its own root)
export const describeIssue = (issue: ParseResult.ParseIssue, root = "GenerateContentRequest", path: ReadonlyArray<PropertyKey> = []): string => {
  switch (issue._tag) {
    case "Pointer":
      return describeIssue(issue.issue, root, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path as PropertyKey])])
    case "Unexpected": {
      const name = String(path[path.length - 1])
      const at = protoPath(path.slice(0, -1))
      return `Invalid JSON payload received. Unknown name "${name}"${at === "" ? "" : ` at '${at}'`}: Cannot find field.`
    }
    case "Missing":
      return `* ${root}.${protoPath(path)}: ${snake(String(path[path.length - 1]))} is required.\n`
    case "Composite":
      // A value of the wrong kind for a message or an enum fails as a whole: report it like a scalar.
      return isPlainObject(issue.actual) || Array.isArray(issue.actual) ? describeIssue(first(issue.issues), root, path) : invalidValue(issue.ast, issue.actual, path)
    case "Type":
      return invalidValue(issue.ast, issue.actual, path)
    // Stryker disable next-line StringLiteral: the wires' one refinement (an int64's pattern) sits in a named union, which is reported whole before it
    case "Refinement":
    case "Transformation":
      return describeIssue(issue.issue, root, path)
    // Stryker disable next-line ConditionalExpression,StringLiteral: a forbidden issue comes only from an effectful schema decoded synchronously, and the wires have none
    case "Forbidden":
      // Stryker disable next-line StringLiteral: as above
      return `Invalid JSON payload received at '${protoPath(path)}'.`
  }
}

const invalidValue = (ast: AST.AST, actual: unknown, path: ReadonlyArray<PropertyKey>): string => {
  const at = protoPath(path)
  // Stryker disable next-line StringLiteral: a body parsed from JSON holds no undefined, the one value JSON.stringify gives nothing for here
  const shown = JSON.stringify(actual) ?? "null"
  return at === "" ? `Invalid JSON payload received. Expected an object, got ${shown}.` : `Invalid value at '${at}' (${nameOf(ast)}), ${shown}`
}

// Stryker disable next-line StringLiteral: "first" is also Effect's default
const decode = Schema.decodeUnknownEither(Request, { errors: "first", onExcessProperty: "error" })

/** The body read as a `GenerateContentRequest`, or the 400 message Gemini answers a body it cannot read with. */
export const decodeRequest = (body: unknown): Either.Either<Request, string> =>
  Either.mapLeft(decode(body), (error) => describeIssue(error.issue))
