import * as Argv from "../Argv.js"
import * as Defaults from "../Defaults.js"
import * as options from "./options.js"

export const spec: Argv.Spec = {
  name: "emulator",
  summary: "the local emulator of the Gemini (REST and Live) and OpenAI-compatible APIs, for any client",
  description: [
    "Starts the provider emulator on 127.0.0.1 — Gemini REST, the Gemini Live WebSocket and OpenAI-compatible chat completions (OpenAI and GLM routes), answered by the offline rule model — and prints its base URLs and the API key to use, until Ctrl-C. Point any agentfx command or SDK at it to run without a real model."
  ],
  args: [],
  options: [
    { name: "port", value: "PORT", description: `The port on 127.0.0.1 (default ${Defaults.emulatorPort.value}).`, check: Argv.integer(0, 65535) },
    options.json("the base URLs and key, on one line, once it listens")
  ]
}

