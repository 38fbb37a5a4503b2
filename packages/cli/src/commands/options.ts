/**
 * The options several commands share, as `Argv.OptionSpec` data. Nothing here loads Effect or a provider: these
 * modules are read for `--help` and for checking arguments, before any command runs.
 */
import * as HttpUrl from "@agentfx/core/HttpUrl"
import * as Argv from "../Argv.js"
import * as Defaults from "../Defaults.js"
import * as McpScoped from "../internal/mcpScoped.js"

/** The providers `--provider` accepts. */
export const providerNames = ["emulator", "gemini", "glm", "glm-coding", "openai"] as const

/**
 * What is wrong with `value` as an http(s) URL (checked as the providers check a base URL), or `undefined`. A user
 * name or password in it is refused before anything runs: fetch refuses such a URL, and errors would quote it.
 */
const httpUrl = (value: string, what: string): string | undefined => {
  const problem = HttpUrl.check(value)
  if (problem === undefined) return HttpUrl.holdsCredentials(value) ? `${what} cannot hold a user name or password: fetch refuses such a URL` : undefined
  return problem._tag === "Invalid" ? `${what} must be a valid URL, e.g. http://127.0.0.1:8080` : `${what} starts with http:// or https://`
}

export const provider: Argv.OptionSpec = {
  name: "provider",
  value: "NAME",
  description:
    "The model provider: emulator, gemini, glm, glm-coding or openai. Default: gemini when GEMINI_API_KEY or GOOGLE_API_KEY is set, else glm when ZAI_API_KEY is, else openai when OPENAI_API_KEY is, else the in-process emulator (offline, no network). glm-coding is Z.AI's GLM Coding Plan endpoint.",
  choices: providerNames
}

export const model: Argv.OptionSpec = {
  name: "model",
  value: "NAME",
  description: "The model name (default: the provider's, or GEMINI_MODEL / ZAI_MODEL / OPENAI_MODEL)."
}

export const baseUrl: Argv.OptionSpec = {
  name: "base-url",
  value: "URL",
  description:
    "The provider's endpoint: a proxy, a local OpenAI-compatible server, or an emulator started with `agentfx emulator` (default: the provider's, or GEMINI_BASE_URL / ZAI_BASE_URL / OPENAI_BASE_URL).",
  check: (value) => httpUrl(value, "a base URL")
}

export const system: Argv.OptionSpec = { name: "system", value: "TEXT", description: "The system instruction." }

export const maxTurns: Argv.OptionSpec = {
  name: "max-turns",
  value: "N",
  description: `Model turns per message before the run stops (default ${Defaults.maxTurns.value}).`,
  check: Argv.integer(1)
}

export const toolConcurrency: Argv.OptionSpec = {
  name: "concurrency",
  value: "N",
  description: `Tool calls of one model turn that run at once (default ${Defaults.toolConcurrency.value}; 1 runs them one by one).`,
  check: Argv.integer(1)
}

export const root: Argv.OptionSpec = {
  name: "root",
  value: "DIR",
  description: "The directory read_file and list_dir are confined to (default: the current directory)."
}

export const allowHost: Argv.OptionSpec = {
  name: "allow-host",
  value: "HOST",
  repeated: true,
  description: "A host fetch_url may fetch (exact, or *.example.com for its subdomains). Without one, fetch_url is not offered."
}

export const yes: Argv.OptionSpec = {
  name: "yes",
  alias: "y",
  description: "Approve every tool call without asking (fetch_url asks otherwise, and so does an MCP tool unless its server marks it read-only or non-destructive, and closed-world)."
}

export const mcp: Argv.OptionSpec = {
  name: "mcp",
  value: "COMMAND",
  repeated: true,
  description:
    'An MCP server to start over stdio, as one command line (quoted: --mcp "npx -y @modelcontextprotocol/server-everything"); its tools are offered beside the built-in ones. Repeatable.'
}

export const mcpUrl: Argv.OptionSpec = {
  name: "mcp-url",
  value: "URL",
  repeated: true,
  description: "An MCP server reached over Streamable HTTP; its tools are offered beside the built-in ones. Repeatable; credentials go in --mcp-header.",
  sensitive: true,
  check: (value) =>
    HttpUrl.check(value) === undefined && HttpUrl.holdsCredentials(value)
      ? 'an MCP URL cannot hold a user name or password (fetch refuses such a URL): send credentials with --mcp-header, e.g. --mcp-header "Authorization: Bearer TOKEN"'
      : httpUrl(value, "an MCP URL")
}

export const mcpHeader: Argv.OptionSpec = {
  name: "mcp-header",
  value: "[SERVER=]NAME: VALUE",
  repeated: true,
  description:
    'A header sent with every request to an --mcp-url server, e.g. "Authorization: Bearer TOKEN". With several --mcp-url servers, say which one as SERVER=NAME: VALUE (SERVER is its host and port, as errors name it). Repeatable.',
  sensitive: true,
  check: McpScoped.check(McpScoped.parseHeader)
}

export const mcpTools: Argv.OptionSpec = {
  name: "mcp-tools",
  value: "[SERVER=]TOOL,TOOL",
  repeated: true,
  description:
    "Offer only these of an MCP server's tools (its own names for them); a name it does not offer stops the command. With several servers, say which one as SERVER=TOOL,TOOL (SERVER as errors and agentfx tools name it). Repeatable.",
  check: McpScoped.check(McpScoped.parseTools)
}

export const mcpMaxBytes: Argv.OptionSpec = {
  name: "mcp-max-bytes",
  value: "SIZE",
  description:
    `The most one message from an MCP server may hold, a tool's result or a page of its tool list (default ${Defaults.mcpMaxBytes.value}; e.g. 1MiB, 500KB). A larger result is not read: its call fails with an error naming the server, the tool and the size, and the server goes on serving.`,
  check: Argv.bytes
}

export const scenario: Argv.OptionSpec = {
  name: "scenario",
  value: "FILE",
  description:
    "A scenario file (Markdown with YAML front matter): its instructions are the system instruction (unless --system) and its functions the tools — each must be a built-in one — with the tools of the MCP servers it names, started first. Not with --mcp / --mcp-url."
}

export const allowScenarioCommands: Argv.OptionSpec = {
  name: "allow-scenario-commands",
  description:
    "Start the programs a scenario file names as MCP servers (its mcp entries with a command) without asking. A scenario file may come from anyone and its programs run with your rights: without this flag run and chat ask on the terminal first, and run --json and eval do not start them (exit 2)."
}

export const firstByteTimeout: Argv.OptionSpec = {
  name: "first-byte-timeout",
  value: "DURATION",
  description:
    `How long to wait for the first part of a streamed answer before the attempt fails and is retried (default ${Defaults.firstByteTimeout.value}; e.g. 30s, 500ms).`,
  check: Argv.duration
}

export const idleTimeout: Argv.OptionSpec = {
  name: "idle-timeout",
  value: "DURATION",
  description:
    `How long a streamed answer may pause between two parts before the attempt fails and is retried (default ${Defaults.idleTimeout.value}): a stalled stream is cut, a slow steady one goes on.`,
  check: Argv.duration
}

export const turnTimeout: Argv.OptionSpec = {
  name: "turn-timeout",
  value: "DURATION",
  description: `The most one model answer may take, streamed or not, before the attempt fails and is retried (default ${Defaults.turnTimeout.value}).`,
  check: Argv.duration
}

export const runTimeout: Argv.OptionSpec = {
  name: "run-timeout",
  value: "DURATION",
  description:
    `The most a run may wait on the model in all — every answer and every wait between retries, over all its turns — before it fails (default ${Defaults.runTimeout.value}; chat: per message; eval: per case). Time tools run does not count.`,
  check: Argv.duration
}

export const maxResponseBytes: Argv.OptionSpec = {
  name: "max-response-bytes",
  value: "SIZE",
  description: `The most read from one model response, streamed or not; a larger one fails the attempt (default ${Defaults.maxResponseBytes.value}; e.g. 4MiB, 500KB, 1048576).`,
  check: Argv.bytes
}

export const temperature: Argv.OptionSpec = {
  name: "temperature",
  value: "T",
  description: "The sampling temperature, 0 to 2 (default: none is sent, so the model's own default applies).",
  check: Argv.decimal(0, 2)
}

/** The bounds on model answers and on a run's waiting for them, the same on every command that runs the agent loop. */
export const timeouts: ReadonlyArray<Argv.OptionSpec> = [firstByteTimeout, idleTimeout, turnTimeout, runTimeout]

/** How the model is asked: bounds, size cap, temperature. */
export const modelRequest: ReadonlyArray<Argv.OptionSpec> = [...timeouts, maxResponseBytes, temperature]

/** Where MCP tools come from, and how much is read of what the servers send. */
export const mcpServers: ReadonlyArray<Argv.OptionSpec> = [mcp, mcpUrl, mcpHeader, mcpTools, mcpMaxBytes]

/** The options of `run` and `chat` that choose the model and the tools. */
export const agent: ReadonlyArray<Argv.OptionSpec> = [
  provider,
  model,
  baseUrl,
  system,
  maxTurns,
  toolConcurrency,
  ...modelRequest,
  root,
  allowHost,
  yes,
  ...mcpServers
]

export const outputSchema: Argv.OptionSpec = {
  name: "output-schema",
  value: "FILE",
  description:
    "A JSON Schema file: the model's final answer must be JSON that matches it (default: the --scenario's output_schema, if it has one). An answer that does not is sent back with what failed, twice at most, then the run fails (exit 1). With --json, the decoded answer is the result's output."
}

/** `--json`: the same meaning everywhere — machine-readable output on stdout, and nothing else there. */
export const json = (what: string): Argv.OptionSpec => ({ name: "json", description: `Print ${what} as JSON on stdout (and nothing else there).` })

