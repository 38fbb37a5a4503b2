/**
 * Scenario files: Markdown with YAML front matter. The front matter says what the scenario is and which functions
 * the model may call; the body is the instructions (the system prompt).
 *
 * ```markdown
 * ---
 * name: valid-warranty
 * description: The customer's product is under warranty
 * version: 1
 * trigger: the e-mail asks for a repair and gives a serial number
 * available_functions:
 *   - name: check_warranty
 *     description: Looks up the warranty of a serial number
 *     parameters:
 *       type: object
 *       properties:
 *         serial_number: { type: string }
 *       required: [serial_number]
 * ---
 * You answer warranty e-mails. Check the warranty first, then ...
 * ```
 *
 * `mode: live` in the front matter runs the scenario's eval cases as Live sessions (see `EvalRunner`'s `live`),
 * unless a case says `mode: rest`.
 *
 * A scenario may also offer the tools of MCP servers, started when it runs (see `@agentfx/tools/mcp`'s
 * `withServers`): a command line (stdio) or a URL (Streamable HTTP, optional headers), each with a name, and
 * optionally only some of the server's tools (`tools`, by the server's names):
 *
 * ```yaml
 * mcp:
 *   - name: fs
 *     command: npx -y @modelcontextprotocol/server-filesystem .
 *     tools: [read_text_file, list_directory]
 *   - name: docs
 *     url: http://127.0.0.1:3000/mcp
 *     variables: [DOCS_TOKEN]
 *     headers: { Authorization: "Bearer ${DOCS_TOKEN}" }
 * ```
 *
 * A scenario may say what its final answer is: `output_schema`, a JSON Schema (see `Output.fromJsonSchema`). Its runs
 * through the scenario's dispatcher (and so its eval cases) then give that answer decoded, unless the caller gives
 * an `output` of its own:
 *
 * ```yaml
 * output_schema:
 *   type: object
 *   properties: { category: { enum: [repair, refund] }, ticketIds: { type: array, items: { type: string } } }
 *   required: [category, ticketIds]
 *   additionalProperties: false
 * ```
 *
 * `${NAME}` in `headers` and `env` values is the environment variable `NAME` (`$${NAME}` is the text itself), so
 * that secrets stay out of committed files, but only a variable the entry lists in `variables`: a scenario file may
 * come from anyone, and must not be able to send the API keys of this process (or anything else of its environment)
 * to a server of its choosing by naming them. A variable not listed, or not set, is a `ScenarioFileError` naming the
 * file, line and variable. A `command` runs in the scenario file's folder.
 *
 * Loading resolves every declared function to a registered implementation and checks that the declared
 * parameters agree with the implementation's (names, required set, types): adding a scenario, or changing which
 * functions it offers, is a file edit, never a code change.
 *
 * @example
 * ```ts
 * import { Registry } from "@agentfx/core"
 * import { Calculator, Clock, Scenario } from "@agentfx/tools"
 * import { NodeFileSystem } from "@effect/platform-node"
 * import { Effect } from "effect"
 *
 * const implementations = Registry.unsafeMake(Calculator.tool, Clock.tool)
 * const program = Effect.gen(function* () {
 *   const scenarios = yield* Scenario.loadDirectory("scenarios", implementations) // every *.md of the folder
 *   return yield* Scenario.get(scenarios, "valid-warranty")
 * }).pipe(Effect.provide(NodeFileSystem.layer))
 * ```
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as NodePath from "node:path"
import type { FunctionDeclaration } from "@agentfx/core"
import { Dialect, Json, Output, Registry, Telemetry, Tool } from "@agentfx/core"
import { splitCommandLine } from "./internal/commandLine.js"
import { diff } from "./internal/schemaDiff.js"
import * as BoundedText from "./internal/boundedText.js"
import * as YamlSource from "./internal/yamlSource.js"
import * as HttpUrl from "@agentfx/core/HttpUrl"

/**
 * The file cannot be read, has no (or broken) front matter, or a field is invalid.
 *
 * @since 0.1.0
 * @category errors
 */
export class ScenarioFileError extends Schema.TaggedError<ScenarioFileError>()("ScenarioFileError", {
  file: Schema.String,
  line: Schema.optional(Schema.Number),
  field: Schema.optional(Schema.String),
  reason: Schema.String
}) {
  override get message(): string {
    return `${YamlSource.where(this.file, this.line)}: ${this.field === undefined ? "" : `${this.field}: `}${this.reason}`
  }
}

/**
 * A declared function has no registered implementation.
 *
 * @since 0.1.0
 * @category errors
 */
export class MissingImplementation extends Schema.TaggedError<MissingImplementation>()("MissingImplementation", {
  file: Schema.String,
  line: Schema.optional(Schema.Number),
  scenario: Schema.String,
  function: Schema.String,
  available: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `${YamlSource.where(this.file, this.line)}: scenario "${this.scenario}" declares function "${this.function}", which has no registered implementation (registered: ${this.available.length === 0 ? "none" : this.available.join(", ")})`
  }
}

/**
 * A declared function's parameters disagree with its implementation's; `differences` lists every one.
 *
 * @since 0.1.0
 * @category errors
 */
export class SchemaDrift extends Schema.TaggedError<SchemaDrift>()("SchemaDrift", {
  file: Schema.String,
  line: Schema.optional(Schema.Number),
  scenario: Schema.String,
  function: Schema.String,
  differences: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `${YamlSource.where(this.file, this.line)}: the parameters of "${this.function}" in scenario "${this.scenario}" disagree with its implementation: ${this.differences.join("; ")}`
  }
}

/**
 * Two scenario files use the same `name`.
 *
 * @since 0.1.0
 * @category errors
 */
export class DuplicateScenario extends Schema.TaggedError<DuplicateScenario>()("DuplicateScenario", {
  name: Schema.String,
  files: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `scenario "${this.name}" is defined twice: ${this.files.join(" and ")}`
  }
}

/**
 * Everything that can make loading scenarios fail.
 *
 * @since 0.1.0
 * @category models
 */
export type ScenarioError = ScenarioFileError | MissingImplementation | SchemaDrift | DuplicateScenario

/**
 * No scenario has the name asked for.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnknownScenario extends Schema.TaggedError<UnknownScenario>()("UnknownScenario", {
  name: Schema.String,
  available: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `unknown scenario "${this.name}" (known: ${this.available.length === 0 ? "none" : this.available.join(", ")})`
  }
}

const FunctionName = Schema.String.pipe(
  Schema.filter((name) => Either.isRight(Tool.validateName(name)) || "a function name starts with a letter or _, holds only letters, digits, _ and -, and is at most 64 characters")
)

/**
 * One entry of `available_functions`.
 *
 * @since 0.1.0
 */
export const FunctionSpec = Schema.Struct({
  name: FunctionName,
  description: Schema.String,
  parameters: Schema.optional(Json.JsonObject)
})

const nonEmpty = (what: string) => Schema.String.pipe(Schema.filter((text) => text.trim() !== "" || `${what} must not be empty`))

/** The server's name: in errors, and in its tools' names when a scenario names several servers. */
const ServerName = Schema.String.pipe(
  Schema.filter((name) => /^[A-Za-z][A-Za-z0-9_-]{0,31}$/.test(name) || "a server name starts with a letter and holds at most 32 letters, digits, _ and -")
)

/** Only these of the server's tools, by the server's own names. */
const ToolNames = Schema.Array(nonEmpty("a tool name")).pipe(
  Schema.filter((names) => names.length > 0 || "list at least one tool, or leave `tools` out to offer them all"),
  Schema.filter((names) => new Set(names).size === names.length || "a tool is listed twice")
)

const StringMap = Schema.Record({ key: Schema.String, value: Schema.String })

/** The environment variables an entry's `${NAME}`s may name. */
const VariableNames = Schema.Array(
  Schema.String.pipe(Schema.filter((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || "a variable name holds letters, digits and _, and does not start with a digit"))
).pipe(Schema.filter((names) => new Set(names).size === names.length || "a variable is listed twice"))

/** An MCP server's `url`: an absolute http(s) URL. */
const ServerUrl = Schema.String.pipe(Schema.filter((url) => HttpUrl.isHttp(url) || "an http(s) URL"))

/**
 * One entry of `mcp`, as written: one struct rather than a union of the two kinds, so that a typo is reported as an
 * unknown field instead of as the other kind's missing one; which fields go together is checked after.
 *
 * @since 0.1.0
 */
export const McpServerSpec = Schema.Struct({
  name: ServerName,
  /** A command line (split like a shell would), or the program when `args` is given. */
  command: Schema.optional(nonEmpty("the command")),
  args: Schema.optional(Schema.Array(Schema.String)),
  env: Schema.optional(StringMap),
  url: Schema.optional(ServerUrl),
  headers: Schema.optional(StringMap),
  tools: Schema.optional(ToolNames),
  /** The environment variables `${NAME}` may name in `headers` and `env`: no other is read. */
  variables: Schema.optional(VariableNames)
})

/**
 * The front matter of a scenario file, as written.
 *
 * @since 0.1.0
 */
export const FrontMatter = Schema.Struct({
  name: Schema.String.pipe(
    Schema.filter((name) => /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || "a scenario name holds letters, digits, '.', '_' and '-' and starts with a letter or digit")
  ),
  description: Schema.String,
  version: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
  trigger: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))),
  available_functions: Schema.Array(FunctionSpec),
  mcp: Schema.optional(Schema.Array(McpServerSpec)),
  /** The JSON Schema of the final answer a run of the scenario gives (typed output). */
  output_schema: Schema.optional(Json.JsonObject),
  /** `live`: its eval cases run as Live sessions unless a case says otherwise. */
  mode: Schema.optional(Schema.Literal("rest", "live"))
})
/**
 * The front matter of a scenario file (the type of the `FrontMatter` schema).
 *
 * @since 0.1.0
 * @category models
 */
export interface FrontMatter extends Schema.Schema.Type<typeof FrontMatter> {}

/**
 * A declared function: what the model is told, and where it was declared.
 *
 * @since 0.1.0
 * @category models
 */
export interface DeclaredFunction extends FunctionDeclaration.FunctionDeclaration {
  readonly line?: number | undefined
}

/**
 * An MCP server a scenario names, and where: started with a command (stdio) or reached at a URL.
 *
 * @since 0.1.0
 * @category models
 */
export type McpServer =
  | {
      readonly name: string
      readonly command: string
      readonly args?: ReadonlyArray<string> | undefined
      readonly env?: Readonly<Record<string, string>> | undefined
      readonly tools?: ReadonlyArray<string> | undefined
      readonly line?: number | undefined
    }
  | {
      readonly name: string
      readonly url: string
      readonly headers?: Readonly<Record<string, string>> | undefined
      readonly tools?: ReadonlyArray<string> | undefined
      readonly line?: number | undefined
    }

/** The entry as one of the two kinds, or what is wrong with its fields together (`field` below `mcp[i]`). */
const mcpServerOf = (spec: Schema.Schema.Type<typeof McpServerSpec>, line: number | undefined): Either.Either<McpServer, { field?: string; reason: string }> => {
  const { name, command, args, env, url, headers, tools } = spec
  if (command !== undefined && url !== undefined) return Either.left({ reason: "give `command` (a server started over stdio) or `url` (Streamable HTTP), not both" })
  if (command !== undefined) {
    if (headers !== undefined) return Either.left({ field: "headers", reason: "`headers` go with `url`, not with `command`" })
    // Without `args` the command is a whole line, split when the server starts: a line that cannot be split is refused here.
    const split = args === undefined ? splitCommandLine(command) : Either.right([])
    if (Either.isLeft(split)) return Either.left({ field: "command", reason: `the command line ${JSON.stringify(command)} cannot be run: ${split.left.why}` })
    return Either.right({ name, command, args, env, tools, line })
  }
  if (url !== undefined) {
    if (args !== undefined) return Either.left({ field: "args", reason: "`args` go with `command`, not with `url`" })
    if (env !== undefined) return Either.left({ field: "env", reason: "`env` goes with `command`, not with `url`" })
    return Either.right({ name, url, headers, tools, line })
  }
  return Either.left({ reason: "give `command` (a server started over stdio) or `url` (Streamable HTTP)" })
}

/**
 * A parsed scenario file, not yet resolved against implementations.
 *
 * @since 0.1.0
 * @category models
 */
export interface Definition {
  readonly file: string
  readonly name: string
  readonly description: string
  readonly version?: string | undefined
  /** When the scenario applies (a string in the file becomes a one-element list). */
  readonly trigger: ReadonlyArray<string>
  readonly functions: ReadonlyArray<DeclaredFunction>
  /** MCP servers whose tools the scenario offers too, once they are started (`Mcp.withServers`). */
  readonly mcp: ReadonlyArray<McpServer>
  /** The Markdown body: the system prompt. */
  readonly instructions: string
  /** The Schema of the final answer, from `output_schema`: a run through the dispatcher gives it decoded. */
  readonly output?: Schema.Schema<unknown> | undefined
  /** `live`: its eval cases run as Live sessions unless a case says otherwise (see `EvalCase`'s `mode`). */
  readonly mode?: "rest" | "live" | undefined
}

/**
 * A scenario resolved against implementations. `registry` holds exactly the declared functions, in declared
 * order, each with the scenario's description and parameters and the implementation's handler.
 *
 * @since 0.1.0
 * @category models
 */
export interface Scenario<out R = never> extends Definition {
  readonly registry: Registry.Registry<R>
}

const emptyParameters: Json.JsonObject = { type: "object", properties: {} }

/** Splits the front matter from the body; lines are 1-based file lines. */
const splitFrontMatter = (
  text: string,
  file: string
): Either.Either<{ yaml: string; yamlLine: number; body: string }, ScenarioFileError> => {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/)
  // `split` gives at least one element.
  if (lines[0]!.trimEnd() !== "---") {
    return Either.left(new ScenarioFileError({ file, line: 1, reason: "the file must start with YAML front matter: a line holding only `---`" }))
  }
  const close = lines.findIndex((line, i) => i > 0 && (line.trimEnd() === "---" || line.trimEnd() === "..."))
  if (close === -1) {
    return Either.left(new ScenarioFileError({ file, line: 1, reason: "the front matter is never closed by a line holding only `---`" }))
  }
  return Either.right({ yaml: lines.slice(1, close).join("\n"), yamlLine: 2, body: lines.slice(close + 1).join("\n").trim() })
}

/**
 * Where `${NAME}` in an MCP entry's `headers` and `env` values is looked up.
 *
 * @since 0.1.0
 * @category models
 */
export type Environment = Readonly<Record<string, string | undefined>>

/**
 * Why a `${NAME}` cannot be expanded: the entry does not list it, or it is not set.
 *
 * @since 0.2.0
 * @category models
 */
export interface Unexpanded {
  readonly name: string
  readonly listed: boolean
}

/**
 * `value` with each `${NAME}` replaced by the variable's value (`$${NAME}` is a literal `${NAME}`), or the first
 * variable that cannot be: one not in `allowed` (none is read then), or one that is not set.
 *
 * @since 0.1.0
 */
export const expandVariables = (value: string, env: Environment, allowed: ReadonlyArray<string>): Either.Either<string, Unexpanded> => {
  let refused: Unexpanded | undefined
  const expanded = value.replace(/\$(\$)?\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, escaped: string | undefined, name: string) => {
    if (escaped !== undefined) return whole.slice(1)
    const listed = allowed.includes(name)
    const found = listed ? env[name] : undefined
    if (found === undefined) refused ??= { name, listed }
    // Stryker disable next-line StringLiteral: with a variable refused, the expanded text is dropped for the error
    return found ?? ""
  })
  return refused === undefined ? Either.right(expanded) : Either.left(refused)
}

/** Why a `${NAME}` was refused, as a `ScenarioFileError`'s reason. */
const unexpandedReason = ({ name, listed }: Unexpanded): string =>
  listed
    ? `the environment variable ${name} is not set`
    : `\${${name}} names a variable this entry does not list in \`variables\`: only the variables an entry lists are read from the environment`

/** The front matter with its lists of entries undecoded: each entry is decoded on its own, so one bad entry does not hide the next. */
const Top = Schema.Struct({
  ...FrontMatter.fields,
  available_functions: Schema.Array(Schema.Unknown),
  mcp: Schema.optional(Schema.Array(Schema.Unknown))
})

/**
 * Every problem of a scenario file's text, or its definition (see `parse`): what the YAML holds, field by field and
 * entry by entry (in the file's order), then what the entries mean together (a function declared twice, parameters
 * that cannot be declared, an MCP entry's fields, its variables), then the body. Only a file without front matter,
 * or whose YAML cannot be read, stops at its one problem.
 *
 * @since 0.2.0
 */
export const check = (
  text: string,
  file: string,
  env: Environment = process.env
): Either.Either<Definition, readonly [ScenarioFileError, ...Array<ScenarioFileError>]> => {
  const problem = (p: YamlSource.Problem) => new ScenarioFileError({ file, ...dropUndefined(p) })
  const one = (p: YamlSource.Problem | ScenarioFileError) => Either.left([p instanceof ScenarioFileError ? p : problem(p)] as const)
  const split = splitFrontMatter(text, file)
  if (Either.isLeft(split)) return one(split.left)
  const { yaml, yamlLine, body } = split.right
  const parsed = YamlSource.parse(yaml, yamlLine - 1)
  if (Either.isLeft(parsed)) return one(parsed.left)
  const source = parsed.right
  if (typeof source.value !== "object" || source.value === null || Array.isArray(source.value)) {
    return one({ line: yamlLine, reason: "the front matter must be a YAML mapping of fields (name, description, available_functions, ...)" })
  }
  const decodeProblems: Array<YamlSource.Problem> = []
  const decoded = <A, I>(schema: Schema.Schema<A, I>, at: ReadonlyArray<PropertyKey>): A | undefined => {
    const entry = at.reduce<unknown>((value, key) => (value as Record<PropertyKey, unknown>)[key], source.value)
    const sub: YamlSource.Source = { value: entry, lineOf: (path) => source.lineOf([...at, ...path]), textOf: (path) => source.textOf([...at, ...path]) }
    return Either.match(YamlSource.decodeAll(schema, sub, at), { onLeft: (all) => void decodeProblems.push(...all), onRight: (value) => value })
  }
  const top = decoded(Top, [])
  // The entries are decoded even when another field of the front matter is wrong, so that all their problems show.
  const entries = (key: string): ReadonlyArray<unknown> => {
    const list = (source.value as Record<string, unknown>)[key]
    return Array.isArray(list) ? list : []
  }
  const specs = entries("available_functions").flatMap((_, index) => {
    const spec = decoded(FunctionSpec, ["available_functions", index])
    return spec === undefined ? [] : [{ spec, index }]
  })
  const servers = entries("mcp").flatMap((_, index) => {
    const server = decoded(McpServerSpec, ["mcp", index])
    return server === undefined ? [] : [{ server, index }]
  })
  const problems: Array<YamlSource.Problem> = [...decodeProblems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0))]

  const functions: Array<DeclaredFunction> = []
  for (const { spec, index } of specs) {
    const line = source.lineOf(["available_functions", index])
    const field = `available_functions[${index}]`
    if (functions.some((f) => f.name === spec.name)) {
      problems.push({ line, field: `${field}.name`, reason: `"${spec.name}" is declared twice` })
      continue
    }
    const normalised = Dialect.normalise({ name: spec.name, description: spec.description, parameters: spec.parameters ?? emptyParameters })
    if (Either.isLeft(normalised)) {
      problems.push({ line: source.lineOf(["available_functions", index, "parameters"]), field: `${field}.parameters`, reason: `function "${spec.name}": ${normalised.left.reason}` })
      continue
    }
    const parameters = normalised.right
    const properties = Json.isPlainObject(parameters.properties) ? parameters.properties : {}
    const required = Array.isArray(parameters.required) ? parameters.required : []
    const unknownRequired = required.filter((name) => typeof name !== "string" || !Object.hasOwn(properties, name))
    if (unknownRequired.length > 0) {
      problems.push({
        line: source.lineOf(["available_functions", index, "parameters", "required"]),
        field: `${field}.parameters.required`,
        reason: `lists ${unknownRequired.map((name) => JSON.stringify(name)).join(", ")}, which ${unknownRequired.length === 1 ? "is not a property" : "are not properties"}`
      })
      continue
    }
    functions.push({ name: spec.name, description: spec.description, parameters, line })
  }

  const mcp: Array<McpServer> = []
  const named = new Set<string>()
  for (const { server, index } of servers) {
    const line = source.lineOf(["mcp", index])
    if (named.has(server.name)) {
      problems.push({ line, field: `mcp[${index}].name`, reason: `a server named "${server.name}" is already listed` })
      continue
    }
    named.add(server.name)
    const entry = mcpServerOf(server, line)
    if (Either.isLeft(entry)) {
      const { field, reason } = entry.left
      // Stryker disable next-line ConditionalExpression: lineOf of a path that leaves the document is the line of its last node, the entry's
      problems.push({ line: field === undefined ? line : source.lineOf(["mcp", index, field]), field: field === undefined ? `mcp[${index}]` : `mcp[${index}].${field}`, reason })
      continue
    }
    const expand = (field: "headers" | "env", values: Readonly<Record<string, string>> | undefined): Readonly<Record<string, string>> | undefined => {
      if (values === undefined) return undefined
      const expanded: Record<string, string> = {}
      for (const [key, value] of Object.entries(values)) {
        Either.match(expandVariables(value, env, server.variables ?? []), {
          onLeft: (refused) => problems.push({ line: source.lineOf(["mcp", index, field, key]), field: `mcp[${index}].${field}.${key}`, reason: unexpandedReason(refused) }),
          onRight: (text) => (expanded[key] = text)
        })
      }
      return expanded
    }
    // The entry holds `headers` or `env` already, undefined when not given: expanding keeps that.
    const kind = entry.right
    mcp.push("url" in kind ? { ...kind, headers: expand("headers", kind.headers) } : { ...kind, env: expand("env", kind.env) })
  }

  const output = top?.output_schema === undefined ? undefined : outputOf(top.output_schema)
  if (output !== undefined && Either.isLeft(output)) problems.push({ line: source.lineOf(["output_schema"]), field: "output_schema", reason: output.left })
  if (body === "") {
    problems.push({ line: yamlLine + yaml.split("\n").length + 1, reason: "the body is empty: it holds the scenario's instructions (the system prompt)" })
  }
  const [first, ...rest] = problems
  if (first !== undefined || top === undefined) return Either.left([problem(first!), ...rest.map(problem)])
  const trigger = top.trigger === undefined ? [] : typeof top.trigger === "string" ? [top.trigger] : top.trigger
  return Either.right({
    file,
    name: top.name,
    description: top.description,
    // As written: YAML reads `version: 1.10` as the number 1.1.
    version: typeof top.version === "number" ? (source.textOf(["version"]) ?? String(top.version)) : top.version,
    trigger,
    functions,
    mcp,
    instructions: body,
    ...(output === undefined || Either.isLeft(output) ? {} : { output: output.right }),
    ...(top.mode === undefined ? {} : { mode: top.mode })
  })
}

/**
 * Parses a scenario file's text; `file` names it in errors. `${NAME}` in an MCP entry's `headers` and `env` values
 * is taken from `env` (default: the process's environment), so that secrets stay out of the file, when the entry lists
 * `NAME` in its `variables`; a variable not listed, or not set, is a `ScenarioFileError` naming it. The error is the
 * first problem `check` finds.
 *
 * @since 0.1.0
 */
export const parse = (text: string, file: string, env: Environment = process.env): Either.Either<Definition, ScenarioFileError> =>
  Either.mapLeft(check(text, file, env), (problems) => problems[0])

/** The output Schema of a scenario's `output_schema`, or why the JSON Schema cannot be used. */
const outputOf = (jsonSchema: Json.JsonObject): Either.Either<Schema.Schema<unknown>, string> => {
  const schema = Output.fromJsonSchema(jsonSchema)
  if (Either.isLeft(schema)) return Either.left(schema.left.message)
  const declared = Output.declare(schema.right)
  return Either.isLeft(declared) ? Either.left(declared.left.reason) : Either.right(schema.right)
}

const dropUndefined = (problem: YamlSource.Problem) => ({
  reason: problem.reason,
  ...(problem.line === undefined ? {} : { line: problem.line }),
  ...(problem.field === undefined ? {} : { field: problem.field })
})

/**
 * Resolves every declared function to its implementation in `implementations`. A function without one is
 * `MissingImplementation`; parameters that disagree with the implementation's declaration are `SchemaDrift`.
 *
 * @since 0.1.0
 */
export const resolve = <R>(
  definition: Definition,
  implementations: Registry.Registry<R>
): Either.Either<Scenario<R>, MissingImplementation | SchemaDrift> => Either.mapLeft(resolveEach(definition, implementations), (problems) => problems[0])

/** Like `resolve`, with every function that cannot be resolved, not only the first. */
const resolveEach = <R>(
  definition: Definition,
  implementations: Registry.Registry<R>
): Either.Either<Scenario<R>, readonly [MissingImplementation | SchemaDrift, ...Array<MissingImplementation | SchemaDrift>]> => {
  const tools: Array<Tool.Tool<R>> = []
  const problems: Array<MissingImplementation | SchemaDrift> = []
  for (const declared of definition.functions) {
    const implementation = implementations.tools.get(declared.name)
    const at = { file: definition.file, scenario: definition.name, function: declared.name, ...(declared.line === undefined ? {} : { line: declared.line }) }
    if (implementation === undefined) {
      problems.push(new MissingImplementation({ ...at, available: implementations.names }))
      continue
    }
    const differences = diff(declared.parameters, implementation.declaration.parameters)
    if (differences.length > 0) problems.push(new SchemaDrift({ ...at, differences }))
    else tools.push(redeclare(implementation, declared))
  }
  const [first, ...rest] = problems
  return first === undefined ? Either.right({ ...definition, registry: Registry.unsafeMake(...tools) }) : Either.left([first, ...rest])
}

/** The implementation's handler under the scenario's declaration (its descriptions are what the model reads). */
const redeclare = <R>(tool: Tool.Tool<R>, declared: DeclaredFunction): Tool.Tool<R> => ({
  name: tool.name,
  description: declared.description,
  declaration: { name: declared.name, description: declared.description, parameters: declared.parameters },
  timeout: tool.timeout,
  decode: tool.decode,
  needsApproval: tool.needsApproval,
  run: tool.run
})

/**
 * Implementations to resolve against: one registry, or one per scenario (e.g. built-ins plus stand-ins).
 *
 * @since 0.1.0
 * @category models
 */
export type Implementations<R> = Registry.Registry<R> | ((definition: Definition) => Registry.Registry<R>)

/**
 * Limits on reading scenario files.
 *
 * @since 0.1.0
 * @category models
 */
export interface LoadOptions {
  /** Largest scenario file read (default 4 MiB); larger ones, and anything not a regular file, are refused unread. */
  readonly maxBytes?: number
}

/**
 * Reads, parses and resolves one scenario file.
 *
 * @since 0.1.0
 */
export const load = <R>(
  file: string,
  implementations: Implementations<R>,
  options: LoadOptions = {}
): Effect.Effect<Scenario<R>, ScenarioFileError | MissingImplementation | SchemaDrift, FileSystem.FileSystem> =>
  Telemetry.span("Scenario.load", { file }, () =>
    Effect.gen(function* () {
      const text = yield* Effect.mapError(BoundedText.read(file, options.maxBytes ?? BoundedText.defaultMaxBytes), (reason) => new ScenarioFileError({ file, reason }))
      const definition = yield* parse(text, file)
      return yield* resolve(definition, typeof implementations === "function" ? implementations(definition) : implementations)
    })
  )

/**
 * Reads, parses and resolves one scenario file, with every problem it has (`check`'s, then each function that cannot
 * be resolved) instead of the first.
 *
 * @since 0.2.0
 */
export const loadChecked = <R>(
  file: string,
  implementations: Implementations<R>,
  options: LoadOptions = {}
): Effect.Effect<Scenario<R>, readonly [ScenarioFileError | MissingImplementation | SchemaDrift, ...Array<ScenarioFileError | MissingImplementation | SchemaDrift>], FileSystem.FileSystem> =>
  Telemetry.span("Scenario.load", { file }, () =>
    Effect.gen(function* () {
      const text = yield* Effect.mapError(BoundedText.read(file, options.maxBytes ?? BoundedText.defaultMaxBytes), (reason) => [new ScenarioFileError({ file, reason })] as const)
      const definition = yield* check(text, file)
      return yield* resolveEach(definition, typeof implementations === "function" ? implementations(definition) : implementations)
    })
  )

/**
 * Loads every `*.md` file of a directory (not recursive, sorted by file name; `README.md` is skipped), each
 * resolved against `implementations`. Two files with one scenario name are `DuplicateScenario`.
 *
 * @since 0.1.0
 */
export const loadDirectory = <R>(
  directory: string,
  implementations: Implementations<R>,
  options: LoadOptions = {}
): Effect.Effect<ReadonlyArray<Scenario<R>>, ScenarioError, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const names = yield* Effect.mapError(
      fs.readDirectory(directory),
      (error) => new ScenarioFileError({ file: directory, reason: `the scenario directory cannot be read: ${error.message}` })
    )
    const files = names.filter((name) => name.toLowerCase().endsWith(".md") && name.toLowerCase() !== "readme.md").sort()
    const scenarios: Array<Scenario<R>> = []
    for (const name of files) {
      const scenario = yield* load(NodePath.join(directory, name), implementations, options)
      const twin = scenarios.find((s) => s.name === scenario.name)
      if (twin !== undefined) return yield* Effect.fail(new DuplicateScenario({ name: scenario.name, files: [twin.file, scenario.file] }))
      scenarios.push(scenario)
    }
    return scenarios
  })

/**
 * The scenario named `name`, or `UnknownScenario`.
 *
 * @since 0.1.0
 */
export const get = <R>(scenarios: Iterable<Scenario<R>>, name: string): Either.Either<Scenario<R>, UnknownScenario> => {
  const all = [...scenarios]
  const found = all.find((scenario) => scenario.name === name)
  return found === undefined ? Either.left(new UnknownScenario({ name, available: all.map((s) => s.name) })) : Either.right(found)
}
