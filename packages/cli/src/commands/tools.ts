import type * as Argv from "../Argv.js"
import * as options from "./options.js"

export const spec: Argv.Spec = {
  name: "tools",
  summary: "the built-in tools and their parameter schemas (and those of MCP servers)",
  description: [
    "Lists the built-in tools the model can call, with their descriptions, when each is offered, and its parameters' JSON Schema; with --mcp / --mcp-url, the tools of those MCP servers too, as the model will see them."
  ],
  args: [],
  options: [options.json("the list (name, description, parameters, availability)"), ...options.mcpServers]
}

