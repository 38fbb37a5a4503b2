/** `agentfx chat`: the interactive REPL, with an optional named session. */
import * as Effect from "effect/Effect"
import * as Builtins from "../Builtins.js"
import type { Handler } from "../commands/Command.js"
import * as Repl from "../Repl.js"
import * as SessionFile from "../SessionFile.js"
import * as AgentOptions from "../internal/agentOptions.js"
import * as McpTools from "../internal/mcpTools.js"
import { withModelEarly } from "../internal/withModel.js"

export const handler: Handler = ({ options }) =>
  Effect.scoped(Effect.gen(function* () {
    const args = yield* AgentOptions.read(options)
    const name = options.text("session")
    const path = name === undefined ? undefined : yield* SessionFile.pathOf(name)
    // A session that cannot be resumed ends the command before the provider is even chosen.
    const named = name === undefined || path === undefined ? undefined : { name, path, saved: yield* SessionFile.load(path) }
    const builtins = Builtins.tools({ root: args.root, allowHosts: args.allowHost, approval: !args.yes })
    const scenario = yield* McpTools.scenario(options, builtins)
    const repl = Repl.run({
      registry: scenario === undefined ? yield* McpTools.registry(options, builtins) : scenario.registry,
      system: args.system ?? scenario?.instructions,
      maxTurns: args.maxTurns,
      concurrency: args.concurrency,
      request: args.request,
      autoApprove: args.yes,
      session: named
    })
    yield* withModelEarly(args.provider, args.settings, () => repl)
  }))
