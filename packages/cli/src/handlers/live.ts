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

export const handler: Handler = ({ options }) =>
  Effect.gen(function* () {
    const io = yield* Io
    const root = yield* AgentOptions.directory("--root", options.text("root") ?? ".")
    const settings = AgentOptions.settings(options)
    const choice = yield* LiveProvider.choose(options.text("provider") as Name | undefined)
    const autoApprove = options.has("yes")
    const connectTimeout = Duration.millis(options.millis("connect-timeout") ?? Duration.toMillis(LiveProvider.defaultConnectTimeout))
    yield* Effect.scoped(
      Effect.gen(function* () {
        const builtins = Builtins.tools({ root, allowHosts: options.list("allow-host"), approval: !autoApprove })
        // Files are read before anything connects: a scenario or mocks file that cannot be used is a usage error.
        const scenario = yield* McpTools.scenario(options, builtins, true)
        yield* io.err(`${yield* LiveProvider.announce(choice, settings)}\n`)
        yield* LiveRepl.run({
          registry: scenario === undefined ? yield* McpTools.registry(options, builtins) : scenario.registry,
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
