/**
 * `agentfx tools --json`: the tools the model is offered — the built-in ones, then those of the MCP servers named.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { JsonObject } from "./shared.js"

/**
 * One tool, as the model sees it, and when it is offered.
 *
 * @since 0.1.0
 */
export const Tool = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  /** The JSON Schema of its arguments, as declared to the model. */
  parameters: JsonObject,
  /** When it is offered and whether it asks first (an MCP tool: its server, and why). */
  availability: Schema.String
}).annotations({ identifier: "Tool" })

/**
 * What `agentfx tools --json` prints.
 *
 * @since 0.1.0
 */
export const Tools = Schema.Array(Tool).annotations({ identifier: "Tools", title: "agentfx tools --json" })
