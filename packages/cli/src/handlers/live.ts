/** `agentfx live`: the interactive chat over a live connection (Gemini Live, or the emulator's Live endpoint). */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Builtins from "../Builtins.js"
import type { Handler } from "../commands/Command.js"
import type { Name } from "../LiveProvider.js"
import * as LiveProvider from "../LiveProvider.js"
import * as LiveRepl from "../LiveRepl.js"
import { Io } from "../Io.js"
import * as AgentOptions from "../internal/agentOptions.js"
import * as McpTools from "../internal/mcpTools.js"
import { untilInterrupted } from "../internal/untilInterrupted.js"

export const handler: Handler = ({ options }) =>
  Effect.gen(function* () {
    const io = yield* Io
    const root = yield* AgentOptions.directory("--root", options.text("root") ?? ".")
    const allowHosts = yield* AgentOptions.allowHosts(options)
    const settings = AgentOptions.settings(options)
    const choice = yield* LiveProvider.choose(options.text("provider") as Name | undefined)
    const autoApprove = options.has("yes")
    const connectTimeout = Duration.millis(options.millis("connect-timeout") ?? Duration.toMillis(LiveProvider.defaultConnectTimeout))
    yield* Effect.scoped(
      Effect.gen(function* () {
        const builtins = Builtins.tools({ root, allowHosts, approval: !autoApprove })
        // Files are read before anything connects: a scenario or mocks file that cannot be used is a usage error.
        // Starting MCP servers can take a while, and nothing reads Ctrl-C yet: it stops the command (exit 130).
        const scenario = yield* untilInterrupted(McpTools.scenario(options, builtins, true, "live"))
        yield* io.err(`${yield* LiveProvider.announce(choice, settings)}\n`)
        const registry = scenario === undefined ? yield* untilInterrupted(McpTools.registry(options, builtins)) : scenario.registry
        yield* LiveRepl.run({
          registry,
          system: options.text("system") ?? scenario?.instructions,
          concurrency: options.number("concurrency"),
          bounds: { firstByteTimeout: options.millis("first-byte-timeout"), idleTimeout: options.millis("idle-timeout"), turnTimeout: options.millis("turn-timeout") },
          autoApprove,
          startFailed: LiveProvider.startFailed(choice, yield* LiveProvider.keyVariable(choice)),
          target: yield* LiveProvider.target(choice, settings),
          connectTimeout
        })
      }).pipe(Effect.provide(LiveProvider.layer(choice, settings, connectTimeout)))
    )
  })
