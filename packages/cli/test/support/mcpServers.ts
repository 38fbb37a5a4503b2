/** Small MCP servers over stdio: each as a command and its arguments (a scenario's `mcp` entry), and as the one command line `--mcp` takes. */

export interface Server {
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** The command line, quoted, as `--mcp` takes it. */
  readonly line: string
}

const server = (lines: ReadonlyArray<string>): Server => {
  const program = lines.join(" ")
  return { command: process.execPath, args: ["-e", program], line: `${JSON.stringify(process.execPath)} -e ${JSON.stringify(program)}` }
}

/** A server offering `shout` (one string argument, `word`), listed `times` times. */
const shouting = (times: number): Server =>
  server([
    'const rl = require("node:readline").createInterface({ input: process.stdin });',
    'const reply = (id, result) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result }) + String.fromCharCode(10));',
    'const shout = { name: "shout", description: "Shouts a word", inputSchema: { type: "object", properties: { word: { type: "string" } } } };',
    'rl.on("line", (line) => { const m = JSON.parse(line);',
    'if (m.method === "initialize") reply(m.id, { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "twice", version: "1" } });',
    `else if (m.method === "tools/list") reply(m.id, { tools: Array(${times}).fill(shout) });`,
    'else if (m.method === "tools/call") reply(m.id, { content: [{ type: "text", text: "HEY!" }] }); });'
  ])

/**
 * A server that lists its `shout` tool twice: the MCP layer offers the first listing and logs a warning about the
 * other, so a command that connects to it always has a log line to print.
 */
export const repeating = shouting(2)

/** A server that lists its `shout` tool once: a command that connects to it has nothing to log. */
export const shouter = shouting(1)

/**
 * A server that never answers, and says it has started by connecting to 127.0.0.1:`port`: a command starting it
 * waits (for the MCP client's own timeout) from then on, and a test knows when without a clock.
 */
export const silent = (port: number): Server => server([`require("node:net").connect(${port}, "127.0.0.1");`, "process.stdin.resume();"])

/** A scenario file named `shouter` whose functions are the built-in calculator and `server`'s `shout`. */
export const scenarioWith = (mcp: Server): string => `---
name: shouter
description: Shouts through an MCP server
available_functions:
  - name: calculator
    description: Evaluates an arithmetic expression
    parameters: { type: object, properties: { expression: { type: string } }, required: [expression] }
mcp:
  - name: twice
    command: ${JSON.stringify(mcp.command)}
    args: ${JSON.stringify(mcp.args)}
    tools: [shout]
---
Shout what the user says.
`

/** The scenario with the repeating server. */
export const shoutScenario = scenarioWith(repeating)

/** A case of the shouter scenario that the offline rule model passes (it calls no function). */
export const shoutCase = `- id: greets
  scenario: shouter
  input: hello
  expected_function_calls: []
`
