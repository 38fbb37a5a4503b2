/**
 * The tools a command offers: the built-in ones, and those of the MCP servers named with `--mcp` / `--mcp-url`,
 * connected for as long as the command's scope lasts. The MCP client is loaded only when a server is named, so a
 * command without one pays nothing for it. A server that cannot start or be listed stops the command before
 * anything runs (exit 2), with the server's name and what it said. With `--scenario FILE` the tools are the
 * scenario's: its functions (built-in ones) and the tools of the MCP servers it names. Ctrl-C while the servers
 * start stops the command (130): a server that never answers must not hold it until its start times out.
 */
import type { Tool } from "@agentfx/core"
import { Registry } from "@agentfx/core"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { Scenario as ScenarioModule } from "@agentfx/tools"
import type * as Argv from "../Argv.js"
import * as Builtins from "../Builtins.js"
import type { Interrupted } from "../CliError.js"
import { UsageError } from "../CliError.js"
import type { Io } from "../Io.js"
import { untilInterrupted } from "./untilInterrupted.js"

type ScenarioDefinition = ScenarioModule.Definition

/** A scenario's instructions and tools, for `--scenario FILE`. */
export interface FromScenario {
  readonly instructions: string
  readonly registry: Registry.Registry<FileSystem.FileSystem>
}

/**
 * `--scenario FILE`: the scenario read and resolved against the built-in tools (a function that is not one is an
 * error: nothing here could answer it), and its MCP servers started for as long as the scope lasts. With `--mocks
 * FILE` (`live`), the functions it names answer as the file says, built-in or not.
 */
export const scenario = (
  options: Argv.Values,
  builtins: ReadonlyArray<Tool.Tool<FileSystem.FileSystem>>,
  /** The command takes `--mocks` (`live`): a function that is not built in is an error that points to it. */
  mocking = false
): Effect.Effect<FromScenario | undefined, UsageError | Interrupted, FileSystem.FileSystem | Scope.Scope | Io> =>
  Effect.gen(function* () {
    const file = options.text("scenario")
    const mocksFile = options.text("mocks")
    if (file === undefined) {
      if (mocksFile !== undefined) return yield* Effect.fail(new UsageError({ message: "--mocks answers a scenario's functions: give --scenario FILE with it" }))
      return undefined
    }
    if (named(options)) return yield* Effect.fail(new UsageError({ message: "--scenario names its own MCP servers: give --mcp / --mcp-url without it" }))
    const { Mocks, Scenario } = yield* Effect.promise(() => import("@agentfx/tools"))
    const mocks = mocksFile === undefined ? {} : yield* Effect.mapError(Mocks.load(mocksFile), (error) => new UsageError({ message: error.message }))
    const builtinNames = new Set(builtins.map((tool) => tool.name))
    // A function that is not built in is declared as the scenario says, and answered by its mocks.
    const implementations = (definition: ScenarioDefinition) =>
      Registry.unsafeMake(...builtins, ...definition.functions.filter((f) => !builtinNames.has(f.name) && Object.hasOwn(mocks, f.name)).map(Builtins.standIn))
    const resolved = yield* Effect.mapError(Scenario.load(file, implementations), (error) =>
      mocking && error._tag === "MissingImplementation"
        ? new UsageError({
            message: `${error.line === undefined ? error.file : `${error.file}:${error.line}`}: scenario "${error.scenario}" declares function "${error.function}", which is not a built-in tool (${Builtins.names.join(", ")}): ${
              mocksFile === undefined ? "give its responses with --mocks FILE" : `give its responses in ${mocksFile}`
            }`
          })
        : new UsageError({ message: error.message })
    )
    const foreign = Object.keys(mocks).filter((name) => !resolved.registry.tools.has(name))
    if (foreign.length > 0) {
      return yield* Effect.fail(
        new UsageError({
          message: `${mocksFile}: mocks ${foreign.map((name) => `"${name}"`).join(", ")}, which scenario "${resolved.name}" does not declare (it declares: ${resolved.registry.names.join(", ") || "nothing"})`
        })
      )
    }
    const loaded = mocksFile === undefined ? resolved : { ...resolved, registry: Mocks.apply(resolved.registry, mocks, mocksFile) }
    if (loaded.mcp.length === 0) return { instructions: loaded.instructions, registry: loaded.registry }
    const Mcp = yield* loadMcp()
    const started = yield* untilInterrupted(Effect.mapError(Mcp.withServers(loaded), usageError))
    return { instructions: started.instructions, registry: started.registry }
  })

/** Whether the command line names an MCP server. */
export const named = (options: Argv.Values): boolean => options.list("mcp").length > 0 || options.list("mcp-url").length > 0

const loadMcp = () => Effect.promise(() => import("@agentfx/tools/mcp"))

/** Says which server failed and why, as a usage error (exit 2): nothing has run yet. */
export const usageError = (error: { readonly server: string; readonly message: string; readonly file?: string | undefined }) =>
  new UsageError({
    message: `${error.file === undefined ? "" : `${error.file}: `}MCP server ${error.server}: ${error.message.startsWith(error.server) ? error.message.slice(error.server.length).replace(/^[\s:]+/, "") : error.message}`
  })

/** The servers the command line names, connected. */
const connections = (options: Argv.Values) =>
  Effect.gen(function* () {
    const Mcp = yield* loadMcp()
    const servers = [...options.list("mcp").map((line) => Mcp.stdio(line)), ...options.list("mcp-url").map((url) => Mcp.http(url))]
    return { Mcp, connections: yield* Mcp.connectAll(servers, (server) => Mcp.connect(server)) }
  })

/** The MCP servers' tools, named so they do not clash with `reserved` (the built-in tools' names). */
export const connect = (options: Argv.Values, reserved: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<Tool.Tool>, UsageError | Interrupted, Scope.Scope | Io> =>
  Effect.gen(function* () {
    if (!named(options)) return []
    const { Mcp, connections: connected } = yield* connections(options)
    return yield* Mcp.toolsOf(connected, reserved)
  }).pipe(Effect.catchTag("McpError", (error) => Effect.fail(usageError(error))), untilInterrupted)

/**
 * The built-in tools and the MCP servers' tools in one registry, which follows the servers: in `run` and `chat` a
 * tool a server adds while a run is going is offered from the run's next model turn; in `live` from the next turn
 * boundary, on a connection resumed from the session's handle whose setup declares it.
 */
export const registry = (
  options: Argv.Values,
  builtins: ReadonlyArray<Tool.Tool<FileSystem.FileSystem>>
): Effect.Effect<Registry.Registry<FileSystem.FileSystem>, UsageError | Interrupted, Scope.Scope | Io> =>
  Effect.gen(function* () {
    if (!named(options)) return Registry.unsafeMake(...builtins)
    const { Mcp, connections: connected } = yield* connections(options)
    return yield* Mcp.toRegistry(connected, builtins)
  }).pipe(Effect.catchTag("McpError", (error) => Effect.fail(usageError(error))), untilInterrupted)
