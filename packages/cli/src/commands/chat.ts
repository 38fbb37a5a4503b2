import type * as Argv from "../Argv.js"
import * as options from "./options.js"
import { store as runsStore } from "./runs.js"

export const spec: Argv.Spec = {
  name: "chat",
  summary: "an interactive session; --session NAME saves and resumes it",
  description: [
    "An interactive chat on stdin/stdout with the built-in tools (see agentfx tools): replies streamed, tool calls shown, and fetch_url asks before it runs (unless --yes). Ctrl-C cancels the current reply, not the session; Ctrl-C twice at an empty prompt, /exit or Ctrl-D quits.",
    "In the chat: /save FILE, /load FILE, /system TEXT, /tools, /help, /exit."
  ],
  args: [],
  options: [
    ...options.agent,
    { ...options.scenario, description: `${options.scenario.description} A scenario with output_schema is refused: the chat answers in text.` },
    options.allowScenarioCommands,
    {
      name: "session",
      value: "NAME",
      description:
        "Keep the conversation in .agentfx/sessions/NAME.json (AGENTFX_SESSIONS_DIR moves the directory): resumed when it exists, saved after every message.",
      check: (name) =>
        /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name) && !name.includes("..")
          ? undefined
          : "a session name holds letters, digits, '.', '_' and '-', and starts with a letter or digit"
    },
    {
      name: "durable",
      description:
        "Each message a durable run in --store (see agentfx runs), under the --session name (default chat): a chat killed mid-answer is resumed, that answer first, by the next chat --durable on the session. Built-in tools only."
    },
    runsStore
  ],
  examples: ["agentfx chat", "agentfx chat --session work --system \"Answer in one line.\"", "agentfx chat --durable --session work"]
}

