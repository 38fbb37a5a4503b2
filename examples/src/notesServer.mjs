/**
 * A small MCP server over stdio, for the `mcp` example: two notes and one tool, `read_note`. Any MCP server works
 * the same way (`npx -y @modelcontextprotocol/server-filesystem DIR`, for one); this one keeps the example offline.
 *
 *   node examples/src/notesServer.mjs      (speaks MCP on stdin/stdout; the example starts it)
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"

const notes = new Map([
  ["groceries", "milk, eggs, rye bread"],
  ["ideas", "a kettle that tweets"]
])

const server = new Server({ name: "notes", version: "1.0.0" }, { capabilities: { tools: {} } })

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: "read_note",
      description: `Reads a note by title (${[...notes.keys()].join(", ")})`,
      inputSchema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
      // Read-only and closed-world: agentfx runs such an MCP tool without asking (any other asks before each call).
      annotations: { readOnlyHint: true, openWorldHint: false }
    }
  ]
}))

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const title = String(request.params.arguments?.title ?? "")
  const text = notes.get(title)
  return text === undefined
    ? { content: [{ type: "text", text: `no note called "${title}"` }], isError: true }
    : { content: [{ type: "text", text }] }
})

await server.connect(new StdioServerTransport())
