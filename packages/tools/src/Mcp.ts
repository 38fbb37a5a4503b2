/**
 * MCP servers as a source of tools. `connect` starts a server over stdio (a command line) or reaches one over
 * Streamable HTTP (a URL, optional headers) as a scoped resource — the child process or the session is closed when
 * the scope ends, on success, failure or interruption — lists its tools and turns each into an agentfx tool whose
 * declaration is the server's own JSON Schema. Calls go to `tools/call`: the executor's timeout and interruption
 * cancel them (the SDK sends `notifications/cancelled`), `isError` results become tool errors the model sees,
 * structured content is the response when the server gives one, text otherwise.
 *
 * Names are made safe for every provider (letters, digits, `_` and `-`, 64 at most) and kept unique; with several
 * servers each tool is prefixed with its server's name (`originOf` says where a tool comes from, and why it was
 * renamed). A tool asks the `Approval` service before each call unless its server's annotations mark it read-only or
 * non-destructive, and closed-world (see `internal/mcpApproval`), as the built-in tools do. One message from a server
 * holds `maxMessageBytes` at most: a result past it fails its call with `ResultTooLarge`. A server that fails to
 * start, exits, sends a listing the SDK cannot read or does not answer in time is an `McpError` naming it, as is a
 * listing that never ends or runs past 10,000 tools or 1,000 pages; once connected, a call on a server that has gone
 * is a tool error the model sees, so a run goes on without it. An HTTP server that forgets its session (HTTP 404: it
 * restarted, the session expired) gets a new one, and the request that met the 404 is made again on it, once.
 *
 * A registry made here follows its servers: a server that announces a new tool list is listed again before the
 * agent loop's next model turn (`toRegistry`). `withServers` starts the servers a scenario file names.
 *
 * Lives at `@agentfx/tools/mcp`, apart from the package's main entry, so that nothing pays for the MCP SDK unless it
 * uses MCP.
 *
 * @example
 * ```ts
 * import { Agent } from "@agentfx/core"
 * import * as Mcp from "@agentfx/tools/mcp"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   // Started when the scope opens, stopped when it closes; the servers' own JSON Schemas.
 *   const registry = yield* Mcp.registry([Mcp.stdio("npx -y @modelcontextprotocol/server-everything"), Mcp.http("http://127.0.0.1:3000/mcp")])
 *   return yield* Agent.run({ registry, prompt: "Echo hello" })
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.2.0
 */
import { Registry, Tool } from "@agentfx/core"
import type { Json } from "@agentfx/core"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as NodePath from "node:path"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import type * as Scenario from "./Scenario.js"
import { splitCommandLine } from "./internal/commandLine.js"
import { askReason } from "./internal/mcpApproval.js"
import * as Bound from "./internal/mcpBound.js"
import { contentOf, type CallResult } from "./internal/mcpContent.js"
import * as Listing from "./internal/mcpListing.js"
import * as Origins from "./internal/mcpOrigin.js"
import { serverName } from "./internal/mcpServerName.js"
import * as Session from "./internal/mcpSession.js"
import { urlProblem } from "./internal/mcpUrl.js"
import * as YamlSource from "./internal/yamlSource.js"
import { safeName, uniqueNames } from "./internal/toolNames.js"

/**
 * Where an MCP server is.
 *
 * @since 0.2.0
 * @category models
 */
export type Server =
  | {
      readonly _tag: "Stdio"
      /** Its name in errors and, with several servers, in its tools' names (default: the command's base name). */
      readonly name?: string | undefined
      readonly command: string
      readonly args?: ReadonlyArray<string> | undefined
      /** Added to the safe default environment the SDK passes on (PATH, HOME, …); nothing else of ours leaks in. */
      readonly env?: Readonly<Record<string, string>> | undefined
      readonly cwd?: string | undefined
      /** Why the command line given to `stdio` cannot be run (an unclosed quote): `connect` fails with it, starting nothing. */
      readonly problem?: string | undefined
    }
  | {
      readonly _tag: "Http"
      readonly name?: string | undefined
      readonly url: string
      readonly headers?: Readonly<Record<string, string>> | undefined
    }

/**
 * A server started with a command line (`"npx -y @modelcontextprotocol/server-everything"`), or command and args. A
 * line that cannot be split (an unclosed quote) is kept with its `problem`: `connect` refuses it, naming the line.
 *
 * @since 0.2.0
 */
export const stdio = (command: string, options: { readonly args?: ReadonlyArray<string>; readonly name?: string; readonly env?: Readonly<Record<string, string>>; readonly cwd?: string } = {}): Server => {
  const split = options.args === undefined ? splitCommandLine(command) : Either.right([command, ...options.args])
  const { name, env, cwd } = options
  return Either.match(split, {
    // The words before the open quote name the server in the error, as they would have had the line been good.
    onLeft: ({ why, before }) => ({
      _tag: "Stdio",
      command: before[0] ?? "",
      args: before.slice(1),
      name,
      env,
      cwd,
      problem: `its command line ${JSON.stringify(command)} cannot be run: ${why}`
    }),
    onRight: (words) => ({ _tag: "Stdio", command: words[0] ?? "", args: words.slice(1), name, env, cwd })
  })
}

/**
 * A server reached over Streamable HTTP.
 *
 * @since 0.2.0
 */
export const http = (url: string, options: { readonly headers?: Readonly<Record<string, string>>; readonly name?: string } = {}): Server => ({
  _tag: "Http",
  url,
  headers: options.headers,
  name: options.name
})

/**
 * The name a server goes by in errors and, with several servers, in its tools' names: its `name`, else the host (and
 * port) of its URL, else the program its command line runs (`npx -y @scope/server-files` → `server-files`).
 *
 * @since 0.2.0
 */
export const nameOf = (server: Server): string => serverName(server)

/**
 * What went wrong with a server, and when; `file` is the scenario file that names it (`path:line`), if one does.
 *
 * @since 0.2.0
 * @category errors
 */
export class McpError extends Schema.TaggedError<McpError>()("McpError", {
  server: Schema.String,
  phase: Schema.Literal("start", "list", "call"),
  message: Schema.String,
  file: Schema.optional(Schema.String)
}) {}

/**
 * How servers are started and listed: the bounds on a start and on a listing.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /**
   * How long starting a server (the `initialize` handshake) and each page of its tool list may take (default 10 s).
   * `Duration.infinity`, or anything over 2^31−1 ms (about 24.8 days, the most a Node timer holds), means no bound.
   */
  readonly startTimeout?: Duration.DurationInput | undefined
  /**
   * How long a call may take unless the executor's own timeout is shorter (default 60 s). `Duration.infinity`, or
   * anything over 2^31−1 ms, means no bound: the executor's timeout and interruption still end a call.
   */
  readonly callTimeout?: Duration.DurationInput | undefined
  /**
   * Only these of the server's tools (by the server's own names), in the server's order; a name the server does not
   * offer, or a tool whose input schema cannot be declared, is an `McpError` when the tools are first listed. A
   * listing after the server changed its list offers those of them it still has (a warning names the ones that went).
   */
  readonly only?: ReadonlyArray<string> | undefined
  /**
   * The most one message from the server may hold, in bytes (default 10 MiB), over stdio and HTTP alike. A tool
   * result past it fails its call with `ResultTooLarge`, a tool list past it is an `McpError`, and a message of the
   * server's own past it is dropped with a warning; none of them is held in memory, and the server goes on serving.
   */
  readonly maxMessageBytes?: number | undefined
}

/**
 * A tool's result larger than `maxMessageBytes`: it was not read (or not past the bound), so the call fails with this,
 * naming the server, the tool (by the server's name for it) and the size; the server goes on serving.
 *
 * @since 0.2.0
 * @category errors
 */
export class ResultTooLarge extends Schema.TaggedError<ResultTooLarge>()("McpResultTooLarge", {
  server: Schema.String,
  tool: Schema.String,
  /** The result's size in bytes, or (`exact` false) how much was read when reading stopped, past the bound. */
  bytes: Schema.Number,
  exact: Schema.Boolean,
  limit: Schema.Number
}) {
  override get message(): string {
    return `the result of ${JSON.stringify(this.tool)} from the MCP server ${this.server} is ${Bound.sizeSentence(this)}: it was not read, and the server goes on serving`
  }
}

/**
 * Where an MCP tool comes from, for people (the model is told none of it): see `originOf`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Origin {
  /** The server's name (see `nameOf`). */
  readonly server: string
  /** The server's own name for the tool. */
  readonly tool: string
  /** Why it asks for approval before each call (from the server's annotations), if it does. */
  readonly asks?: string | undefined
  /** Why it is offered under another name than the server's (made safe, prefixed), if it is. */
  readonly renamed?: string | undefined
}

/**
 * Where a tool made here comes from: its server, its name there, why it asks for approval and why it was renamed;
 * `undefined` for a tool made elsewhere (or copied from one made here).
 *
 * @since 0.2.0
 */
export const originOf = (tool: Tool.Any): Origin | undefined => Origins.originOf(tool)

/**
 * A connected server.
 *
 * @since 0.2.0
 * @category models
 */
export interface Connection {
  readonly name: string
  /**
   * Its tools, listed again when the server said its list changed since they were last listed successfully: a
   * listing that fails or is interrupted leaves them to be listed again next time.
   */
  readonly tools: Effect.Effect<ReadonlyArray<Tool.Tool>, McpError>
  /**
   * Tools the server offers that cannot be declared (a schema no provider accepts), and why, at the last listing: each
   * is left out of `tools` with a logged warning.
   */
  readonly skipped: Effect.Effect<ReadonlyArray<{ readonly name: string; readonly reason: string }>>
  /** How many times the server said its tool list changed: a cheap check for "list again?" before every turn. */
  readonly version: () => number
  /** The `version` its tools were last listed at successfully. */
  readonly listedVersion: () => number
}

/** Node's timers hold 2^31−1 ms at most: a longer delay (or Infinity) fires after 1 ms, so it is clamped to that. */
const timerMillis = (input: Duration.DurationInput): number => Math.min(Duration.toMillis(Duration.decode(input)), 2 ** 31 - 1)

/**
 * Connects to `server` for as long as the scope lasts.
 *
 * @since 0.2.0
 */
export const connect = (server: Server, options: Options = {}): Effect.Effect<Connection, McpError, Scope.Scope> =>
  Effect.gen(function* () {
    const name = serverName(server)
    const startTimeout = timerMillis(options.startTimeout ?? "10 seconds")
    const callTimeout = timerMillis(options.callTimeout ?? "60 seconds")
    if (server._tag === "Http") {
      const problem = urlProblem(server.url)
      if (problem !== undefined) return yield* Effect.fail(new McpError({ server: name, phase: "start", message: `${name} cannot be reached: ${problem}` }))
    } else if (server.problem !== undefined) {
      return yield* Effect.fail(new McpError({ server: name, phase: "start", message: server.problem }))
    } else if (server.command.trim() === "") {
      return yield* Effect.fail(new McpError({ server: name, phase: "start", message: "no command to start the server with" }))
    }
    let version = 0
    const maxMessageBytes = options.maxMessageBytes ?? Bound.defaultMaxMessageBytes
    const sessions = yield* Effect.mapError(
      Session.start(server, {
        name,
        startTimeout,
        maxMessageBytes,
        prepare: (client) =>
          client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
            version++
          }),
        // A new session may offer other tools: they are listed again before the next turn, as after a change.
        renewed: () => {
          version++
        }
      }),
      (error) => new McpError({ server: name, phase: "start", message: `${name} did not start: ${error.why}` })
    )
    /** A failed request as the error it is: a server that has gone says so rather than how the request failed. */
    const why = (error: Session.RequestFailed | Session.SessionLost | Listing.ListingProblem, what: string) =>
      error._tag === "RequestFailed" ? `${what}: ${sessions.gone() ?? `${Session.messageOf(error.error)}${sessions.said()}`}` : error.message

    // Stryker disable next-line ArrayDeclaration: the first listing sets it before anything can read it
    let skipped: ReadonlyArray<{ readonly name: string; readonly reason: string }> = []
    // Calls are run by the executor as promises: run in the runtime the server was connected in (its logger, its
    // services), interrupted when the executor aborts them.
    const runtime = yield* Effect.runtime<never>()

    const callOf = (original: string) => async (args: Record<string, unknown>, context: { readonly signal: AbortSignal }): Promise<unknown> => {
      const gone = sessions.gone()
      if (gone !== undefined) throw new Error(gone)
      const call = sessions.use((client) =>
        Session.request((signal) => client.callTool({ name: original, arguments: args }, undefined, { signal, timeout: callTimeout }) as Promise<CallResult>)
      )
      const result = await Runtime.runPromise(runtime)(Effect.either(call), { signal: context.signal })
      if (Either.isLeft(result)) {
        const tooLarge = result.left._tag === "RequestFailed" ? Bound.tooLargeOf(result.left.error) : undefined
        if (tooLarge !== undefined) throw new ResultTooLarge({ server: name, tool: original, ...tooLarge })
        throw new Error(why(result.left, name))
      }
      const content = contentOf(result.right)
      if (result.right.isError === true) throw new Error(typeof content === "string" ? content : JSON.stringify(content))
      return content
    }

    /** Safe names given so far, by the server's tool name: a tool keeps its name for as long as the connection lasts. */
    const safeNames = new Map<string, string>()

    // A listing whose session the server forgot is made again from its first page: a cursor may hold only in the
    // session that gave it.
    const allPages = sessions.use((client) =>
      // Stryker disable next-line ConditionalExpression: a cursor of undefined is left out of the request's JSON all the same
      Listing.allPages(name, (cursor) => Session.request((signal) => client.listTools(cursor === undefined ? {} : { cursor }, { timeout: startTimeout, signal })))
    )

    const list = (first: boolean) => Effect.gen(function* () {
      const listed = yield* Effect.flatMap(allPages, (pages) => Listing.offered(name, pages, options.only, first)).pipe(
        Effect.mapError((error) => new McpError({ server: name, phase: "list", message: why(error, `${name} sent a tool list that cannot be read`) }))
      )
      const fresh = [...new Set(listed.map((tool) => tool.name).filter((original) => !safeNames.has(original)))]
      const given = [...safeNames.values()]
      uniqueNames([...given, ...fresh]).slice(given.length).forEach((safe, i) => safeNames.set(fresh[i]!, safe))
      const names = listed.map((tool) => safeNames.get(tool.name)!)
      const tools: Array<Tool.Tool> = []
      const refused: Array<{ name: string; reason: string }> = []
      listed.forEach((tool, i) => {
        // The server's word on the tool's effects decides whether it asks first, as the built-in tools do.
        const asks = askReason(tool.annotations)
        const built = Tool.fromFunction(names[i]!, {
          description: tool.description ?? "",
          parameters: tool.inputSchema as Json.JsonObject,
          run: callOf(tool.name),
          needsApproval: asks !== undefined
        })
        const renamed =
          names[i] === tool.name ? undefined : names[i] === safeName(tool.name) ? "made a name every provider accepts" : "made a name every provider accepts, and unique among the server's tools"
        Either.match(built, {
          onLeft: (error) => refused.push({ name: tool.name, reason: error.reason }),
          onRight: (built) => tools.push(Origins.remember(built, { server: name, tool: tool.name, asks, renamed }))
        })
      })
      const wantedButRefused = refused.filter((tool) => options.only?.includes(tool.name) === true)
      if (wantedButRefused.length > 0 && first) {
        return yield* Effect.fail(
          new McpError({
            server: name,
            phase: "list",
            message: `${name} offers ${wantedButRefused.map((tool) => `${JSON.stringify(tool.name)}, which cannot be declared (${tool.reason})`).join("; ")}`
          })
        )
      }
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: the result is not read, kept or not
      yield* Effect.forEach(refused, (tool) => Effect.logWarning(`${name} offers ${JSON.stringify(tool.name)}, left out: it cannot be declared (${tool.reason})`), { discard: true })
      skipped = refused
      return tools as ReadonlyArray<Tool.Tool>
    })

    // The version is read before listing: a change announced while the list is on its way is listed next time. Only
    // a listing that succeeds moves `listedAt`, so one that fails or is interrupted is tried again.
    let listedAt = version
    let current = yield* list(true)
    return {
      name,
      tools: Effect.suspend(() => {
        const at = version
        if (at === listedAt) return Effect.succeed(current)
        return Effect.tap(list(false), (tools) =>
          Effect.sync(() => {
            // Two runs may list at once: the listing of the later version wins.
            if (at >= listedAt) {
              current = tools
              listedAt = at
            }
          })
        )
      }),
      skipped: Effect.sync(() => skipped),
      version: () => version,
      listedVersion: () => listedAt
    }
  })

/**
 * The tools of every server in one registry (each server connected for as long as the scope lasts). With several
 * servers each tool is named `<server>_<tool>`, so that names stay unique and say where a tool comes from. The
 * registry follows the servers' tool lists: see `toRegistry`.
 *
 * @since 0.2.0
 */
export const registry = (servers: ReadonlyArray<Server>, options: Options = {}): Effect.Effect<Registry.Registry, McpError, Scope.Scope> =>
  Effect.flatMap(connectAll(servers, (server) => connect(server, options)), (connections) => toRegistry(connections))

/**
 * Connects every server at once (with `start`, `connect` by default), in a scope of their own inside the caller's:
 * when one fails (or the start is interrupted), those already started are closed before the error is returned, not
 * when the caller's scope ends.
 *
 * @since 0.2.0
 */
export const connectAll = <A, E>(
  servers: ReadonlyArray<A>,
  start: (server: A) => Effect.Effect<Connection, E, Scope.Scope>
): Effect.Effect<ReadonlyArray<Connection>, E, Scope.Scope> =>
  Effect.gen(function* () {
    const child = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.parallel)
    return yield* Effect.forEach(servers, start, { concurrency: "unbounded" }).pipe(
      Scope.extend(child),
      Effect.onExit((exit) => (Exit.isFailure(exit) ? Scope.close(child, exit) : Effect.void))
    )
  })

/**
 * The current tools of `connections` (re-listing servers whose list changed), named uniquely: with several servers
 * as `<server>_<tool>`; with one, a tool whose name is `reserved` (taken by other tools it will sit beside) is
 * prefixed the same way.
 *
 * @since 0.2.0
 */
export const toolsOf = (
  connections: ReadonlyArray<Connection>,
  reserved: ReadonlyArray<string> = [],
  /**
   * Names given by earlier calls, keyed by connection index and tool name (`toRegistry` keeps one per registry): a
   * tool keeps its name from one listing to the next, and only tools not named yet get new ones.
   */
  given: Map<string, string> = new Map()
): Effect.Effect<ReadonlyArray<Tool.Tool>, McpError> =>
  Effect.gen(function* () {
    const lists = yield* Effect.forEach(connections, (connection) => connection.tools)
    const taken = new Set(reserved)
    const entries = lists.flatMap((tools, i) =>
      tools.map((tool) => {
        const prefixed = connections.length > 1 ? "prefixed with its server's name, as every tool is with several servers" : taken.has(tool.name) ? `prefixed with its server's name: another tool is named ${tool.name}` : undefined
        return { tool, key: `${i}\u0000${tool.name}`, name: prefixed === undefined ? tool.name : `${connections[i]!.name}_${tool.name}`, prefixed }
      })
    )
    const fresh = entries.filter((entry) => !given.has(entry.key))
    const before = [...reserved, ...given.values()]
    uniqueNames([...before, ...fresh.map((entry) => entry.name)]).slice(before.length).forEach((name, i) => given.set(fresh[i]!.key, name))
    return entries.map((entry) => {
      const name = given.get(entry.key)!
      if (name === entry.tool.name) return entry.tool
      // A name given on an earlier listing, or made unique after the prefix, says so too.
      const why = entry.prefixed === undefined || name !== entry.name ? [entry.prefixed, "made unique among the tools offered"] : [entry.prefixed]
      const origin = Origins.originOf(entry.tool)
      const copy = renamed(entry.tool, name)
      return origin === undefined ? copy : Origins.remember(copy, { ...origin, renamed: [origin.renamed, ...why].filter((part) => part !== undefined).join("; ") })
    })
  })

/**
 * The current tools of `connections`, after `alongside` (tools of other sources, e.g. built-ins, whose names the
 * servers' tools then avoid), as one registry that follows the servers: when one says its tool list changed, the
 * agent loop lists it again before its next model turn, so a run sees tools added while it runs. Until then, no
 * server is asked anything. A listing that fails is the source's failure: the loop logs it, keeps the tools it has
 * and lists again before its next turn. A tool keeps its name across listings.
 *
 * @since 0.2.0
 */
export const toRegistry = <R = never>(
  connections: ReadonlyArray<Connection>,
  alongside: ReadonlyArray<Tool.Tool<R>> = []
): Effect.Effect<Registry.Registry<R>, McpError> =>
  Effect.gen(function* () {
    const reserved = alongside.map((tool) => tool.name)
    const given = new Map<string, string>()
    // The names are unique by construction (each listing once per name, `toolsOf` avoiding `reserved`); a clash all
    // the same is this source's typed failure, not a defect that would end the run refreshing it.
    const build = Effect.flatMap(toolsOf(connections, reserved, given), (tools) =>
      Effect.mapError(
        Registry.make(...alongside, ...tools),
        (error) => new McpError({ server: connections.map((connection) => connection.name).join(", "), phase: "list", message: error.message })
      )
    )
    // Stryker disable next-line ConditionalExpression,ArithmeticOperator: the sum over one connection is its version; a difference moves whenever a sum does (versions only grow)
    const version = connections.length === 1 ? connections[0]!.version : () => connections.reduce((sum, connection) => sum + connection.version(), 0)
    // Read before listing: a change announced meanwhile makes the first run that uses the registry list again.
    const at = version()
    return Registry.dynamic(yield* build, { version, current: build }, at)
  })

/** The tool under another (already safe) name. */
const renamed = (tool: Tool.Tool, name: string): Tool.Tool => ({ ...tool, name, declaration: { ...tool.declaration, name } })

/**
 * The `Server` a scenario's `mcp` entry describes; `file`, the scenario file, makes its folder the working directory
 * of a command (so that `node ./server.js` means the server beside the file, wherever the process runs).
 *
 * @since 0.2.0
 */
export const fromScenario = (server: Scenario.McpServer, file?: string): Server =>
  "url" in server
    ? http(server.url, { name: server.name, headers: server.headers })
    : stdio(server.command, { name: server.name, args: server.args, env: server.env, cwd: file === undefined ? undefined : NodePath.resolve(NodePath.dirname(file)) })

/**
 * `scenario` with the tools of the MCP servers it names (its `mcp` entries), started for as long as the scope lasts,
 * after its own functions: each server's tools, or only those its entry lists (a name the server does not offer is
 * an `McpError`). With one server its tools keep their names unless one clashes with a declared function; with
 * several, each is named `<server>_<tool>`. A command runs in the scenario file's folder. Errors name the scenario
 * file and line; when one server fails, those
 * already started are stopped before the error is returned. A scenario without servers is returned as it is.
 *
 * @since 0.2.0
 */
export const withServers = <R>(scenario: Scenario.Scenario<R>, options: Omit<Options, "only"> = {}): Effect.Effect<Scenario.Scenario<R>, McpError, Scope.Scope> =>
  scenario.mcp.length === 0
    ? Effect.succeed(scenario)
    : Effect.gen(function* () {
        const connections = yield* connectAll(scenario.mcp, (server) =>
          Effect.mapError(
            connect(fromScenario(server, scenario.file), { ...options, only: server.tools }),
            (error) =>
              new McpError({ server: error.server, phase: error.phase, message: error.message, file: YamlSource.where(scenario.file, server.line) })
          )
        )
        const registry = yield* toRegistry(connections, [...scenario.registry.tools.values()])
        return { ...scenario, registry }
      })
