/** `agentfx chat`: the interactive REPL, with an optional named session. */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Builtins from "../Builtins.js"
import type { Handler } from "../commands/Command.js"
import * as Repl from "../Repl.js"
import { Io } from "../Io.js"
import * as SessionFile from "../SessionFile.js"
import * as SessionLock from "../SessionLock.js"
import * as AgentOptions from "../internal/agentOptions.js"
import * as McpTools from "../internal/mcpTools.js"
import { untilInterrupted } from "../internal/untilInterrupted.js"
import { withModel, withModelEarly } from "../internal/withModel.js"
import type * as Argv from "../Argv.js"
import { UsageError } from "../CliError.js"
import { defaultStore } from "../commands/runs.js"

/** A stale lock taken over is said, so a user who killed a chat knows why it was not refused. */
const announceTakeOver = (name: string) => (lock: SessionLock.Lock) =>
  Option.match(lock.tookOver, {
    onNone: () => Effect.void,
    onSome: (holder) =>
      Effect.flatMap(Io, (io) =>
        io.err(`session ${name}: took over the lock left by pid ${holder.pid} (since ${holder.startedAt}), which no longer runs\n`)
      )
  })

/** `--durable`: the durable engine is loaded for it alone. */
const durable = (options: Argv.Values, args: AgentOptions.AgentArgs) =>
  Effect.gen(function* () {
    if (options.has("mcp") || options.has("mcp-url") || options.has("scenario")) {
      return yield* Effect.fail(new UsageError({ message: "--durable chats take the built-in tools only: not with --mcp, --mcp-url or --scenario" }))
    }
    const DurableChat = yield* Effect.promise(() => import("../internal/durableChat.js"))
    yield* withModel(args.provider, args.settings, () => DurableChat.run(options.text("session") ?? "chat", options.text("store") ?? defaultStore, args))
  })

/** What the chat needs before its first prompt: the session locked and loaded, the tools (MCP servers started). */
const prepare = (options: Argv.Values, args: AgentOptions.AgentArgs) =>
  Effect.gen(function* () {
    const name = options.text("session")
    const path = name === undefined ? undefined : yield* SessionFile.pathOf(name)
    // Held until the command ends, however it ends; taken before the file is read, so two chats never interleave.
    if (name !== undefined && path !== undefined) yield* SessionLock.acquire(name, path).pipe(Effect.tap(announceTakeOver(name)))
    // A session that cannot be resumed ends the command before the provider is even chosen.
    const named = name === undefined || path === undefined ? undefined : { name, path, saved: yield* SessionFile.load(path) }
    const builtins = Builtins.tools({ root: args.root, allowHosts: args.allowHost, approval: !args.yes })
    const scenario = yield* McpTools.scenario(options, builtins, true, "chat")
    const registry = scenario === undefined ? yield* McpTools.registry(options, builtins) : scenario.registry
    return { named, scenario, registry }
  })

export const handler: Handler = ({ options }) =>
  Effect.scoped(Effect.gen(function* () {
    const args = yield* AgentOptions.read(options)
    if (options.has("durable")) return yield* durable(options, args)
    // Until the first prompt nothing reads Ctrl-C: it stops the command (exit 130). The chat then gives it its own meaning.
    const { named, scenario, registry } = yield* untilInterrupted(prepare(options, args))
    const repl = Repl.run({
      registry,
      system: args.system ?? scenario?.instructions,
      maxTurns: args.maxTurns,
      concurrency: args.concurrency,
      request: args.request,
      autoApprove: args.yes,
      session: named
    })
    yield* withModelEarly(args.provider, args.settings, () => repl)
  }))
