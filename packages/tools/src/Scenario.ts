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
 *     headers: { Authorization: "Bearer ${DOCS_TOKEN}" }
 * ```
 *
 * `${NAME}` in `headers` and `env` values is the environment variable `NAME` (`$${NAME}` is the text itself), so
 * that secrets stay out of committed files; one that is not set is a `ScenarioFileError` naming the file, line and
 * variable. A `command` runs in the scenario file's folder.
 *
 * Loading resolves every declared function to a registered implementation and checks that the declared
 * parameters agree with the implementation's (names, required set, types): adding a scenario, or changing which
 * functions it offers, is a file edit, never a code change.
 *
 * @example
 * const scenarios = yield* Scenario.loadDirectory("scenarios", implementations)   // needs FileSystem
 * const scenario = Scenario.get(scenarios, "valid-warranty")
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as NodePath from "node:path"
import type { FunctionDeclaration } from "@agentfx/core"
import { Dialect, Json, Registry, Telemetry, Tool } from "@agentfx/core"
import { diff } from "./internal/schemaDiff.js"
import * as BoundedText from "./internal/boundedText.js"
import * as YamlSource from "./internal/yamlSource.js"
import * as HttpUrl from "@agentfx/core/HttpUrl"

/** The file cannot be read, has no (or broken) front matter, or a field is invalid. */
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

/** A declared function has no registered implementation. */
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

/** A declared function's parameters disagree with its implementation's; `differences` lists every one. */
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

/** Two scenario files use the same `name`. */
export class DuplicateScenario extends Schema.TaggedError<DuplicateScenario>()("DuplicateScenario", {
  name: Schema.String,
  files: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `scenario "${this.name}" is defined twice: ${this.files.join(" and ")}`
  }
}

/** Everything that can make loading scenarios fail. */
export type ScenarioError = ScenarioFileError | MissingImplementation | SchemaDrift | DuplicateScenario

/** No scenario has the name asked for. */
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

/** One entry of `available_functions`. */
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

/** An MCP server's `url`: an absolute http(s) URL. */
const ServerUrl = Schema.String.pipe(Schema.filter((url) => HttpUrl.isHttp(url) || "an http(s) URL"))

/**
 * One entry of `mcp`, as written: one struct rather than a union of the two kinds, so that a typo is reported as an
 * unknown field instead of as the other kind's missing one; which fields go together is checked after.
 */
export const McpServerSpec = Schema.Struct({
  name: ServerName,
  /** A command line (split like a shell would), or the program when `args` is given. */
  command: Schema.optional(nonEmpty("the command")),
  args: Schema.optional(Schema.Array(Schema.String)),
  env: Schema.optional(StringMap),
  url: Schema.optional(ServerUrl),
  headers: Schema.optional(StringMap),
  tools: Schema.optional(ToolNames)
})

/** The front matter of a scenario file, as written. */
export const FrontMatter = Schema.Struct({
  name: Schema.String.pipe(
    Schema.filter((name) => /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || "a scenario name holds letters, digits, '.', '_' and '-' and starts with a letter or digit")
  ),
  description: Schema.String,
  version: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
  trigger: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))),
  available_functions: Schema.Array(FunctionSpec),
  mcp: Schema.optional(Schema.Array(McpServerSpec)),
  mode: Schema.optional(Schema.Literal("rest", "live"))
})
export interface FrontMatter extends Schema.Schema.Type<typeof FrontMatter> {}

/** A declared function: what the model is told, and where it was declared. */
export interface DeclaredFunction extends FunctionDeclaration.FunctionDeclaration {
  readonly line?: number | undefined
}

/** An MCP server a scenario names, and where: started with a command (stdio) or reached at a URL. */
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
    return Either.right({ name, command, args, env, tools, line })
  }
  if (url !== undefined) {
    if (args !== undefined) return Either.left({ field: "args", reason: "`args` go with `command`, not with `url`" })
    if (env !== undefined) return Either.left({ field: "env", reason: "`env` goes with `command`, not with `url`" })
    return Either.right({ name, url, headers, tools, line })
  }
  return Either.left({ reason: "give `command` (a server started over stdio) or `url` (Streamable HTTP)" })
}

/** A parsed scenario file, not yet resolved against implementations. */
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
  /** `live`: its eval cases run as Live sessions unless a case says otherwise (see `EvalCase`'s `mode`). */
  readonly mode?: "rest" | "live" | undefined
}

/**
 * A scenario resolved against implementations. `registry` holds exactly the declared functions, in declared
 * order, each with the scenario's description and parameters and the implementation's handler.
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

/** Where `${NAME}` in an MCP entry's `headers` and `env` values is looked up. */
export type Environment = Readonly<Record<string, string | undefined>>

/**
 * `value` with each `${NAME}` replaced by the variable's value (`$${NAME}` is a literal `${NAME}`), or the name of
 * the first variable that is not set.
 */
export const expandVariables = (value: string, env: Environment): Either.Either<string, string> => {
  let missing: string | undefined
  const expanded = value.replace(/\$(\$)?\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, escaped: string | undefined, name: string) => {
    if (escaped !== undefined) return whole.slice(1)
    const found = env[name]
    if (found === undefined) missing ??= name
    // Stryker disable next-line StringLiteral: with a variable missing, the expanded text is dropped for the error
    return found ?? ""
  })
  return missing === undefined ? Either.right(expanded) : Either.left(missing)
}

/**
 * Parses a scenario file's text; `file` names it in errors. `${NAME}` in an MCP entry's `headers` and `env` values
 * is taken from `env` (default: the process's environment), so that secrets stay out of the file; a variable that is
 * not set is a `ScenarioFileError` naming it.
 */
export const parse = (text: string, file: string, env: Environment = process.env): Either.Either<Definition, ScenarioFileError> =>
  Either.gen(function* () {
    const fail = (problem: YamlSource.Problem) => Either.left(new ScenarioFileError({ file, ...dropUndefined(problem) }))
    const { yaml, yamlLine, body } = yield* splitFrontMatter(text, file)
    const source = yield* Either.orElse(YamlSource.parse(yaml, yamlLine - 1), fail)
    if (typeof source.value !== "object" || source.value === null || Array.isArray(source.value)) {
      return yield* fail({ line: yamlLine, reason: "the front matter must be a YAML mapping of fields (name, description, available_functions, ...)" })
    }
    const front = yield* Either.orElse(YamlSource.decode(FrontMatter, source), fail)
    const functions: Array<DeclaredFunction> = []
    for (const [index, spec] of front.available_functions.entries()) {
      const line = source.lineOf(["available_functions", index])
      const field = `available_functions[${index}]`
      if (functions.some((f) => f.name === spec.name)) {
        return yield* fail({ line, field: `${field}.name`, reason: `"${spec.name}" is declared twice` })
      }
      const parameters = yield* Either.orElse(
        Dialect.normalise({ name: spec.name, description: spec.description, parameters: spec.parameters ?? emptyParameters }),
        (error) => fail({ line: source.lineOf(["available_functions", index, "parameters"]), field: `${field}.parameters`, reason: error.reason })
      )
      const properties = Json.isPlainObject(parameters.properties) ? parameters.properties : {}
      const required = Array.isArray(parameters.required) ? parameters.required : []
      const unknownRequired = required.filter((name) => typeof name !== "string" || !Object.hasOwn(properties, name))
      if (unknownRequired.length > 0) {
        return yield* fail({
          line: source.lineOf(["available_functions", index, "parameters", "required"]),
          field: `${field}.parameters.required`,
          reason: `lists ${unknownRequired.map((name) => JSON.stringify(name)).join(", ")}, which ${unknownRequired.length === 1 ? "is not a property" : "are not properties"}`
        })
      }
      functions.push({ name: spec.name, description: spec.description, parameters, line })
    }
    const mcp: Array<McpServer> = []
    for (const [index, server] of (front.mcp ?? []).entries()) {
      const line = source.lineOf(["mcp", index])
      if (mcp.some((other) => other.name === server.name)) {
        return yield* fail({ line, field: `mcp[${index}].name`, reason: `a server named "${server.name}" is already listed` })
      }
      const entry = yield* Either.orElse(mcpServerOf(server, line), (problem) =>
        fail({
          // Stryker disable next-line ConditionalExpression: lineOf of a path that leaves the document is the line of its last node, the entry's
          line: problem.field === undefined ? line : source.lineOf(["mcp", index, problem.field]),
          field: problem.field === undefined ? `mcp[${index}]` : `mcp[${index}].${problem.field}`,
          reason: problem.reason
        })
      )
      const expand = (field: "headers" | "env", values: Readonly<Record<string, string>> | undefined) =>
        values === undefined
          ? Either.right(undefined)
          : Either.map(
              Either.all(
                Object.entries(values).map(([key, value]) =>
                  Either.match(expandVariables(value, env), {
                    onLeft: (name) =>
                      fail({
                        line: source.lineOf(["mcp", index, field, key]),
                        field: `mcp[${index}].${field}.${key}`,
                        reason: `the environment variable ${name} is not set`
                      }),
                    onRight: (expanded) => Either.right([key, expanded] as const)
                  })
                )
              ),
              (pairs) => Object.fromEntries(pairs)
            )
      // The entry holds `headers` or `env` already, undefined when not given: expanding keeps that.
      mcp.push("url" in entry ? { ...entry, headers: yield* expand("headers", entry.headers) } : { ...entry, env: yield* expand("env", entry.env) })
    }
    if (body === "") {
      return yield* fail({ line: yamlLine + yaml.split("\n").length + 1, reason: "the body is empty: it holds the scenario's instructions (the system prompt)" })
    }
    const trigger = front.trigger === undefined ? [] : typeof front.trigger === "string" ? [front.trigger] : front.trigger
    return {
      file,
      name: front.name,
      description: front.description,
      // As written: YAML reads `version: 1.10` as the number 1.1.
      version: typeof front.version === "number" ? (source.textOf(["version"]) ?? String(front.version)) : front.version,
      trigger,
      functions,
      mcp,
      instructions: body,
      ...(front.mode === undefined ? {} : { mode: front.mode })
    }
  })

const dropUndefined = (problem: YamlSource.Problem) => ({
  reason: problem.reason,
  ...(problem.line === undefined ? {} : { line: problem.line }),
  ...(problem.field === undefined ? {} : { field: problem.field })
})

/**
 * Resolves every declared function to its implementation in `implementations`. A function without one is
 * `MissingImplementation`; parameters that disagree with the implementation's declaration are `SchemaDrift`.
 */
export const resolve = <R>(
  definition: Definition,
  implementations: Registry.Registry<R>
): Either.Either<Scenario<R>, MissingImplementation | SchemaDrift> =>
  Either.gen(function* () {
    const tools: Array<Tool.Tool<R>> = []
    for (const declared of definition.functions) {
      const implementation = implementations.tools.get(declared.name)
      const at = { file: definition.file, scenario: definition.name, function: declared.name, ...(declared.line === undefined ? {} : { line: declared.line }) }
      if (implementation === undefined) {
        return yield* Either.left(new MissingImplementation({ ...at, available: implementations.names }))
      }
      const differences = diff(declared.parameters, implementation.declaration.parameters)
      if (differences.length > 0) return yield* Either.left(new SchemaDrift({ ...at, differences }))
      tools.push(redeclare(implementation, declared))
    }
    return { ...definition, registry: Registry.unsafeMake(...tools) }
  })

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

/** Implementations to resolve against: one registry, or one per scenario (e.g. built-ins plus stand-ins). */
export type Implementations<R> = Registry.Registry<R> | ((definition: Definition) => Registry.Registry<R>)

/** Limits on reading scenario files. */
export interface LoadOptions {
  /** Largest scenario file read (default 4 MiB); larger ones, and anything not a regular file, are refused unread. */
  readonly maxBytes?: number
}

/** Reads, parses and resolves one scenario file. */
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
 * Loads every `*.md` file of a directory (not recursive, sorted by file name; `README.md` is skipped), each
 * resolved against `implementations`. Two files with one scenario name are `DuplicateScenario`.
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

/** The scenario named `name`, or `UnknownScenario`. */
export const get = <R>(scenarios: Iterable<Scenario<R>>, name: string): Either.Either<Scenario<R>, UnknownScenario> => {
  const all = [...scenarios]
  const found = all.find((scenario) => scenario.name === name)
  return found === undefined ? Either.left(new UnknownScenario({ name, available: all.map((s) => s.name) })) : Either.right(found)
}
