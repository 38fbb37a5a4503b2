import * as Mcp from "@agentfx/tools/mcp"
import * as Logger from "effect/Logger"

/** A stdio server written inline: a node program reading JSON-RPC lines. */
export const inline = (name: string, program: string) => Mcp.stdio(process.execPath, { args: ["-e", program], name })

/** Answers `initialize` and `tools/list` (with `tools`), and runs `onCall` for `tools/call`. */
export const rawServer = (tools: string, onCall: string) => `
  const rl = require("node:readline").createInterface({ input: process.stdin })
  const reply = (id, result) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\\n")
  rl.on("line", (line) => {
    const m = JSON.parse(line)
    if (m.method === "initialize") reply(m.id, { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "raw", version: "1" } })
    else if (m.method === "tools/list") reply(m.id, ${tools})
    else if (m.method === "tools/call") { ${onCall} }
  })
`

/** A logger to provide in place of the default one, and the `LEVEL: message` lines it was given. */
export const logCapture = () => {
  const lines: Array<string> = []
  const layer = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ logLevel, message }) => {
      lines.push(`${logLevel.label}: ${Array.isArray(message) ? message.join(" ") : String(message)}`)
    })
  )
  return { lines: lines as ReadonlyArray<string>, layer }
}
