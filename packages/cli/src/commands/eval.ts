import * as Argv from "../Argv.js"
import * as EvalOptions from "./evalOptions.js"
import * as Defaults from "../Defaults.js"
import * as options from "./options.js"

/** Digits with at most one point (never below 0, and nothing else Number reads: a sign, spaces, an exponent, hex), at most 1. */
const fraction = (value: string): string | undefined =>
  /^\d*\.?\d+$/.test(value) && Number(value) <= 1 ? undefined : "a fraction between 0 and 1 is needed, e.g. 0.9"

export const spec: Argv.Spec = {
  name: "eval",
  summary: "eval cases against scenario files; reports, and an exit code from the pass rate",
  description: [
    "Checks every case file and scenario file first and lists every problem at once (exit 2, nothing run). Then runs each case through the agent loop with its scenario's instructions and functions, validates its calls against expected_function_calls, shows progress on a terminal, prints the report (a line per passing case; the calls and failures of each case that did not pass), and exits with 1 when the pass rate is below --threshold.",
    "Offline (no API key, or --provider emulator) each case needs the model's turns under x-cassette: a list of steps ({ text: ... } or { calls: [{ name, args }] }) replayed by position. A case without one is answered by the offline rule model, which only handles plain requests for the built-in tools.",
    "The built-in tools run for real unless a case mocks them; every other function a scenario declares must be mocked by each case that expects a call to it (mock_function_responses)."
  ],
  args: [{ name: "cases-dir", description: "A directory of eval case files (*.yaml / *.yml, searched recursively)." }],
  options: [
    { name: "scenarios", value: "DIR", required: true, description: "The directory of scenario files (Markdown with YAML front matter; README.md is skipped)." },
    options.provider,
    options.model,
    options.baseUrl,
    options.maxTurns,
    ...options.modelRequest,
    options.root,
    options.allowHost,
    { ...options.mcpMaxBytes, description: `${options.mcpMaxBytes.description} For the MCP servers the scenarios name.` },
    {
      ...options.allowScenarioCommands,
      description:
        "Start the programs the scenario files of the cases name as MCP servers (their mcp entries with a command). A scenario file may come from anyone and its programs run with your rights: without this flag, each is a problem of the input (exit 2, nothing run)."
    },
    {
      ...options.yes,
      description:
        "Approve the calls of tools that ask first: an MCP tool its server does not mark read-only or non-destructive, and closed-world. An eval asks nobody, so without --yes such a call is refused and the model is told."
    },
    { name: "concurrency", value: "N", description: `Cases running at once (default ${Defaults.evalConcurrency.value}).`, check: Argv.integer(1) },
    ...EvalOptions.options,
    { name: "threshold", value: "FRACTION", description: `The pass rate (0 to 1) below which the command exits with 1 (default ${Defaults.threshold.value}).`, check: fraction },
    options.json("the report (the same as --report-json -)"),
    { name: "report-json", value: "FILE", description: "Also write the report as JSON to FILE (- for stdout)." },
    { name: "junit", value: "FILE", description: "Also write the report as JUnit XML to FILE (- for stdout)." }
  ],
  examples: [
    "agentfx eval apps/demo/evals --scenarios apps/demo/scenarios",
    "agentfx eval cases --scenarios scenarios --junit report.xml --threshold 0.9",
    "agentfx eval cases --scenarios scenarios -t kettle --tag smoke --bail"
  ]
}

