/**
 * The tools a command offers: the built-in ones, and those of the MCP servers named with `--mcp` / `--mcp-url`
 * (only the ones `--mcp-tools` lists, when it lists some), connected for as long as the command's scope lasts. The MCP client is loaded only when a server is named, so a
 * command without one pays nothing for it. A server that cannot start or be listed stops the command before
 * anything runs (exit 2), with the server's name and what it said. With `--scenario FILE` the tools are the
 * scenario's: its functions (built-in ones) and the tools of the MCP servers it names.
 */
import type { Tool } from "@agentfx/core"
import { Registry } from "@agentfx/core"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Mcp from "@agentfx/tools/mcp"
import type { Scenario as ScenarioModule } from "@agentfx/tools"
import type * as Argv from "../Argv.js"
import * as Builtins from "../Builtins.js"
import { UsageError } from "../CliError.js"
import { Io } from "../Io.js"
import * as McpScoped from "./mcpScoped.js"
import * as ScenarioCommands from "./scenarioCommands.js"
import { escapeLines } from "./terminalText.js"

type ScenarioDefinition = ScenarioModule.Definition

/** A scenario's instructions and tools, for `--scenario FILE`. */
export interface FromScenario {
  readonly instructions: string
  readonly registry: Registry.Registry<FileSystem.FileSystem>
  /** The Schema of the final answer, from the scenario's `output_schema`. */
  readonly output?: Schema.Schema<unknown> | undefined
}

/**
 * `--scenario FILE`: the scenario read and resolved against the built-in tools (a function that is not one is an
 * error: nothing here could answer it), and its MCP servers started for as long as the scope lasts. The programs it
 * names start only with `--allow-scenario-commands`, or once the user said yes on the terminal (when `ask`). With
 * `--mocks FILE` (`live`), the functions it names answer as the file says, built-in or not. Only `run` gives a typed
 * answer: `chat` and `live` refuse a scenario with `output_schema`, before any server starts.
 */
export const scenario = (
  options: Argv.Values,
  builtins: ReadonlyArray<Tool.Tool<FileSystem.FileSystem>>,
  ask: boolean,
  /**
   * The command: `live` takes `--mocks` (a function that is not built in is an error that points to it); `chat` and
   * `live` give text answers (a scenario with `output_schema` is refused there rather than its schema left unused).
   */
  command: "run" | "chat" | "live"
): Effect.Effect<FromScenario | undefined, UsageError, FileSystem.FileSystem | Scope.Scope | Io> =>
  Effect.gen(function* () {
    const file = options.text("scenario")
    const mocksFile = options.text("mocks")
    if (file === undefined) {
      if (mocksFile !== undefined) return yield* Effect.fail(new UsageError({ message: "--mocks answers a scenario's functions: give --scenario FILE with it" }))
      return undefined
    }
    if (named(options)) return yield* Effect.fail(new UsageError({ message: "--scenario names its own MCP servers: give --mcp, --mcp-url, --mcp-header and --mcp-tools without it" }))
    const { Mocks, Scenario } = yield* Effect.promise(() => import("@agentfx/tools"))
    const mocks = mocksFile === undefined ? {} : yield* Effect.mapError(Mocks.load(mocksFile), (error) => new UsageError({ message: error.message }))
    const builtinNames = new Set(builtins.map((tool) => tool.name))
    // A function that is not built in is declared as the scenario says, and answered by its mocks.
    const implementations = (definition: ScenarioDefinition) =>
      Registry.unsafeMake(...builtins, ...definition.functions.filter((f) => !builtinNames.has(f.name) && Object.hasOwn(mocks, f.name)).map(Builtins.standIn))
    const resolved = yield* Effect.mapError(Scenario.load(file, implementations), (error) =>
      command === "live" && error._tag === "MissingImplementation"
        ? new UsageError({
            message: `${error.line === undefined ? error.file : `${error.file}:${error.line}`}: scenario "${error.scenario}" declares function "${error.function}", which is not a built-in tool (${Builtins.names.join(", ")}): ${
              mocksFile === undefined ? "give its responses with --mocks FILE" : `give its responses in ${mocksFile}`
            }`
          })
        : new UsageError({ message: error.message })
    )
    if (command !== "run" && resolved.output !== undefined) {
      return yield* Effect.fail(
        new UsageError({
          message: `${file}: output_schema: scenario "${resolved.name}" says what its final answer is, and agentfx ${command} gives text answers: use the scenario with agentfx run (--json prints the decoded answer)`
        })
      )
    }
    const foreign = Object.keys(mocks).filter((name) => !resolved.registry.tools.has(name))
    if (foreign.length > 0) {
      return yield* Effect.fail(
        new UsageError({
          message: `${mocksFile}: mocks ${foreign.map((name) => `"${name}"`).join(", ")}, which scenario "${resolved.name}" does not declare (it declares: ${resolved.registry.names.join(", ") || "nothing"})`
        })
      )
    }
    const loaded = mocksFile === undefined ? resolved : { ...resolved, registry: Mocks.apply(resolved.registry, mocks, mocksFile) }
    const output = loaded.output === undefined ? {} : { output: loaded.output }
    // Stryker disable next-line ConditionalExpression: withServers gives a scenario without servers back as it is; this spares loading the MCP client
    if (loaded.mcp.length === 0) return { instructions: loaded.instructions, registry: loaded.registry, ...output }
    yield* ScenarioCommands.consent(loaded, { allowed: options.has("allow-scenario-commands"), ask })
    const mcp = yield* loadMcp()
    const started = yield* Effect.mapError(mcp.withServers(loaded, connectOptions(options)), usageError)
    return { instructions: started.instructions, registry: started.registry, ...output }
  })

/** Whether the command line names an MCP server, or says something about one. */
export const named = (options: Argv.Values): boolean => ["mcp", "mcp-url", "mcp-header", "mcp-tools"].some((option) => options.list(option).length > 0)

const loadMcp = () => Effect.promise(() => import("@agentfx/tools/mcp"))

/** Says which server failed and why, as a usage error (exit 2): nothing has run yet. */
export const usageError = (error: { readonly server: string; readonly message: string; readonly file?: string | undefined }) => {
  // The MCP layer's messages start with the server's name ("node did not start: …"): said once, before them.
  const subject = `${error.server} `
  const why = error.message.startsWith(subject) ? error.message.slice(subject.length) : error.message
  return new UsageError({ message: `${error.file === undefined ? "" : `${error.file}: `}MCP server ${error.server}: ${why}` })
}

/** How the servers are connected: `--mcp-max-bytes`. */
export const connectOptions = (options: Argv.Values) => ({ maxMessageBytes: options.bytes("mcp-max-bytes") })

/** The values of an option already checked with `parse`. */
const parsedList = <A>(options: Argv.Values, option: string, parse: (text: string) => McpScoped.Parsed<A>): ReadonlyArray<McpScoped.Scoped<A>> =>
  options.list(option).flatMap((text) => {
    const parsed = parse(text)
    // Stryker disable next-line ConditionalExpression: the option's check (Argv) refused every value that does not parse
    return parsed._tag === "Ok" ? [parsed.scoped] : []
  })

/** The `--mcp-url` servers, each with the `--mcp-header`s for it; a header for no server, or given twice, is refused. */
const httpServers = (mcp: typeof Mcp, options: Argv.Values): Effect.Effect<ReadonlyArray<Mcp.Server>, UsageError> => {
  const urls = options.list("mcp-url")
  const names = urls.map((url) => mcp.nameOf(mcp.http(url)))
  const assigned = McpScoped.assign("--mcp-header", parsedList(options, "mcp-header", McpScoped.parseHeader), names, "--mcp-url servers")
  if (assigned._tag === "Bad") return Effect.fail(new UsageError({ message: assigned.problem }))
  const servers: Array<Mcp.Server> = []
  for (const [i, url] of urls.entries()) {
    const headers = assigned.byServer.get(i) ?? []
    const twice = headers.find((header, j) => headers.findIndex((other) => other.name.toLowerCase() === header.name.toLowerCase()) !== j)
    if (twice !== undefined) return Effect.fail(new UsageError({ message: `--mcp-header gives ${twice.name} twice for ${names[i]}` }))
    servers.push(mcp.http(url, { headers: Object.fromEntries(headers.map((header) => [header.name, header.value])) }))
  }
  return Effect.succeed(servers)
}

/** The servers the command line names, connected, each offering only the tools `--mcp-tools` lists for it, if any. */
const connections = (options: Argv.Values) =>
  Effect.gen(function* () {
    const mcp = yield* loadMcp()
    const servers = [...options.list("mcp").map((line) => mcp.stdio(line)), ...(yield* httpServers(mcp, options))]
    const only = McpScoped.assign("--mcp-tools", parsedList(options, "mcp-tools", McpScoped.parseTools), servers.map(mcp.nameOf), "MCP servers")
    if (only._tag === "Bad") return yield* Effect.fail(new UsageError({ message: only.problem }))
    const connected = yield* mcp.connectAll(servers.map((server, i) => [server, only.byServer.get(i)?.flat()] as const), ([server, tools]) =>
      mcp.connect(server, { ...connectOptions(options), only: tools === undefined ? undefined : [...new Set(tools)] })
    )
    return { mcp, connections: connected }
  })

/**
 * Where an MCP tool comes from and whether it asks, for `agentfx tools`: its server, its name there when it is offered
 * under another and why, and why it asks for approval (or that its server says it need not).
 */
const availability = (mcp: typeof Mcp, tool: Tool.Tool): string => {
  const origin = mcp.originOf(tool)
  // Stryker disable next-line ConditionalExpression: every tool toolsOf gives has its origin; the type cannot say so
  if (origin === undefined) return "from an MCP server named with --mcp / --mcp-url"
  const renamed = origin.renamed === undefined ? "" : ` (its tool ${JSON.stringify(origin.tool)}, ${origin.renamed})`
  const asks =
    origin.asks === undefined
      ? "runs without asking: its server marks it read-only or non-destructive, and closed-world"
      : `asks for approval before each call unless --yes: ${origin.asks}`
  return `from the MCP server ${origin.server}${renamed}; ${asks}`
}

/** With one server, each tool offered under another name than its server's, and why: a clash with a built-in, most often. */
const renameNotes = (mcp: typeof Mcp, connected: ReadonlyArray<Mcp.Connection>, tools: Iterable<Tool.Tool<unknown>>): ReadonlyArray<string> =>
  connected.length !== 1
    ? []
    : [...tools].flatMap((tool) => {
        const origin = mcp.originOf(tool)
        return origin?.renamed === undefined ? [] : [`MCP server ${origin.server}: its tool ${JSON.stringify(origin.tool)} is offered as ${tool.name} (${origin.renamed})`]
      })

/**
 * The MCP servers' tools, named so they do not clash with `reserved` (the built-in tools' names), each with where it
 * comes from and whether it asks (`availability`).
 */
export const connect = (
  options: Argv.Values,
  reserved: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<{ readonly tool: Tool.Tool; readonly availability: string }>, UsageError, Scope.Scope> =>
  Effect.gen(function* () {
    // Stryker disable next-line ConditionalExpression: connecting no server gives no tool too; this spares loading the MCP client
    if (!named(options)) return []
    const { mcp, connections: connected } = yield* connections(options)
    const tools = yield* mcp.toolsOf(connected, reserved)
    return tools.map((tool) => ({ tool, availability: availability(mcp, tool) }))
  }).pipe(Effect.catchTag("McpError", (error) => Effect.fail(usageError(error))))

/**
 * The built-in tools and the MCP servers' tools in one registry, which follows the servers: in `run` and `chat` a
 * tool a server adds while a run is going is offered from the run's next model turn; in `live` from the next turn
 * boundary, on a connection resumed from the session's handle whose setup declares it. A tool offered under another
 * name than its server's (a clash with a built-in tool's) is said on stderr, with why.
 */
export const registry = (
  options: Argv.Values,
  builtins: ReadonlyArray<Tool.Tool<FileSystem.FileSystem>>
): Effect.Effect<Registry.Registry<FileSystem.FileSystem>, UsageError, Scope.Scope | Io> =>
  Effect.gen(function* () {
    // Stryker disable next-line ConditionalExpression: no server gives the built-in tools too; this spares loading the MCP client
    if (!named(options)) return Registry.unsafeMake(...builtins)
    const { mcp, connections: connected } = yield* connections(options)
    const made = yield* mcp.toRegistry(connected, builtins)
    const io = yield* Io
    // Names come from the servers: escaped before the terminal shows them.
    for (const note of renameNotes(mcp, connected, made.tools.values())) yield* io.err(`${escapeLines(note)}\n`)
    return made
  }).pipe(Effect.catchTag("McpError", (error) => Effect.fail(usageError(error))))
