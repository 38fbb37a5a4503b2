import * as Argv from "../Argv.js"
import * as Defaults from "../Defaults.js"
import * as options from "./options.js"

/** The providers that speak a live protocol. */
export const liveProviderNames = ["emulator", "gemini"] as const

export const spec: Argv.Spec = {
  name: "live",
  summary: "a text chat over Gemini Live (WebSocket): calls shown as they start, finish or get cancelled",
  description: [
    "An interactive chat over a live connection with the built-in tools (see agentfx tools), or a scenario's functions and instructions (--scenario). The server drives: calls run as soon as they arrive and are answered by id; a call the server cancels is interrupted and never answered; when the connection goes away (goAway, a dropped socket) the session resumes on a new one with the last resumption handle, and says so. Ctrl-C stops the current turn and its calls, not the session; Ctrl-C twice at an empty prompt, /exit or Ctrl-D quits. While the connection is set up a status line on stderr says where it goes; Ctrl-C then stops the command, and --connect-timeout bounds the wait.",
    "Gemini Live when GEMINI_API_KEY or GOOGLE_API_KEY is set (GEMINI_LIVE_MODEL names the model), else the in-process emulator's Live endpoint with its offline rule model. In the chat: /tools, /help, /exit."
  ],
  args: [],
  options: [
    {
      name: "provider",
      value: "NAME",
      description: "emulator or gemini. Default: gemini when GEMINI_API_KEY or GOOGLE_API_KEY is set, else the in-process emulator (offline, no network).",
      choices: liveProviderNames
    },
    { ...options.model, description: "The Live model (default gemini-live-2.5-flash-preview, or GEMINI_LIVE_MODEL)." },
    options.baseUrl,
    options.system,
    options.toolConcurrency,
    { ...options.firstByteTimeout, description: "How long to wait for the model's first reply to a message before the turn is stopped (default: no limit; e.g. 30s)." },
    {
      ...options.idleTimeout,
      description: "How long the model may stay silent mid-turn (time a tool runs does not count) before the turn is stopped (default: no limit)."
    },
    { ...options.turnTimeout, description: "The most one turn may take, from the message to the model's last word, before it is stopped (default 10m)." },
    { ...options.maxResponseBytes, description: "The largest frame read from the live connection; a larger one ends the connection (default 32MiB)." },
    {
      name: "connect-timeout",
      value: "DURATION",
      description: `How long to wait for the live connection to be set up, retries included, before the command fails (default ${Defaults.connectTimeout.value}). Ctrl-C stops the wait.`,
      check: Argv.duration
    },
    {
      ...options.scenario,
      description:
        "A scenario file (Markdown with YAML front matter): its instructions are the system instruction (unless --system) and its functions the tools — built-in ones run for real, the others answer as --mocks says — with the tools of the MCP servers it names, started first. Not with --mcp / --mcp-url. A scenario with output_schema is refused: a Live session answers in text."
    },
    {
      name: "mocks",
      value: "FILE",
      description:
        "With --scenario: a YAML file of mock responses per function (as an eval case's mock_function_responses: a response or error, or a list of them, each with an optional when the arguments must contain); the functions it names answer as it says."
    },
    options.root,
    options.allowHost,
    options.yes,
    ...options.mcpServers
  ],
  examples: [
    "agentfx live",
    'agentfx live --system "Answer in one sentence." --root ./notes',
    "agentfx live --scenario apps/demo/smart-home/smart-home.md --mocks apps/demo/smart-home/mocks.yaml"
  ]
}
