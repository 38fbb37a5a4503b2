/** `agentfx tools`: the built-in tools (and those of the MCP servers named), as text or (--json) as data. */
import * as Effect from "effect/Effect"
import * as Builtins from "../Builtins.js"
import type { Handler } from "../commands/Command.js"
import * as CatalogueText from "../internal/catalogueText.js"
import * as McpTools from "../internal/mcpTools.js"
import { Io } from "../Io.js"
import { untilInterrupted } from "../internal/untilInterrupted.js"

export const handler: Handler = ({ options }) =>
  Effect.scoped(
    // Starting MCP servers can take a while: Ctrl-C stops it (exit 130).
    untilInterrupted(Effect.gen(function* () {
      const io = yield* Io
      const mcp = yield* McpTools.connect(options, Builtins.names)
      const entries: ReadonlyArray<Builtins.Entry> = mcp.map(({ tool, availability }) => ({
        name: tool.name,
        description: tool.description,
        parameters: tool.declaration.parameters,
        availability
      }))
      yield* io.out(CatalogueText.render([...Builtins.catalogue, ...entries], options.has("json")))
    }))
  )
