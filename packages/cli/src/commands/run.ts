import type * as Argv from "../Argv.js"
import * as options from "./options.js"
import { store as runsStore } from "./runs.js"

export const spec: Argv.Spec = {
  name: "run",
  summary: "one agent run with the built-in tools",
  description: [
    "Sends the prompt to the model with the built-in tools (clock, calculator, read_file and list_dir under --root, fetch_url for --allow-host hosts). Tool calls are shown as they start (→) and finish (←) and the answer is streamed; which provider answers is said on stderr first.",
    "A prompt that starts with - goes after --, so it is never read as an option."
  ],
  args: [{ name: "prompt", variadic: true, description: "The message to the model (several words are joined with spaces)." }],
  options: [
    ...options.agent,
    options.scenario,
    options.allowScenarioCommands,
    options.outputSchema,
    {
      name: "durable",
      description:
        "Run it as a durable run (see agentfx runs): every model turn and tool call recorded in --store, so a stopped process is resumed with agentfx runs resume; a tool that needs approval parks the run until agentfx runs approve. Built-in tools only."
    },
    { name: "run-id", value: "ID", description: "--durable: the run's id (default a new one); the same id again attaches to that run." },
    runsStore,
    {
      // The --json of every command (options.json), with more to say than its one sentence.
      name: "json",
      description:
        "Print the result as JSON on stdout (text, calls, stop reason, usage, transcript, and with --output-schema the decoded output) instead of streaming it. Non-interactive: tools that need approval are refused unless --yes."
    }
  ],
  examples: [
    'agentfx run "what is 2 + 3 * 4?"',
    'agentfx run --json --root ./notes "list the files"',
    'agentfx run --json --output-schema answer.json "what time is it in Oslo?"',
    'agentfx run -- "-5 plus 3 is?"'
  ]
}

