/**
 * The programs a scenario file would start as MCP servers (its `mcp` entries with a `command`), and the user's consent
 * to start them. A scenario file is input like any other, and may come from anyone: its commands run with the user's
 * rights, so they start only with `--allow-scenario-commands`, or once the user has said yes on the terminal (`run`
 * and `chat`; `run --json` and `eval` ask nobody). A scenario's URLs start nothing here and need no consent.
 */
import type { Scenario } from "@agentfx/tools"
import * as Effect from "effect/Effect"
import * as NodePath from "node:path"
import { UsageError } from "../CliError.js"
import { Io } from "../Io.js"
import { escapeLines } from "./terminalText.js"

/** A program a scenario would start: its server's name, the command as written, and where the file names it. */
export interface Command {
  readonly server: string
  readonly text: string
  readonly at: string
  /** `mcp[i]`, the entry's field path. */
  readonly field: string
}

/** A word as a shell would need it written to read it back: quoted when it holds a space, a quote or nothing. */
const shellWord = (word: string): string => (word === "" || /[\s'"\\]/.test(word) ? JSON.stringify(word) : word)

/** The commands of `scenario`, in the file's order. */
export const commandsOf = (scenario: Scenario.Definition): ReadonlyArray<Command> =>
  scenario.mcp.flatMap((server, index) =>
    "command" in server
      ? [
          {
            server: server.name,
            // A command line is shown as written; a program with `args`, as the words it is given.
            text: server.args === undefined ? server.command : [server.command, ...server.args].map(shellWord).join(" "),
            at: server.line === undefined ? scenario.file : `${scenario.file}:${server.line}`,
            field: `mcp[${index}]`
          }
        ]
      : []
  )

/** The option that consents ahead of time. */
export const flag = "--allow-scenario-commands"

/** Why the commands of `scenario` were not started, as a sentence. */
export const refusal = (scenario: Scenario.Definition, commands: ReadonlyArray<Command>, why: string): string =>
  `scenario "${scenario.name}" would start ${commands.length === 1 ? "a program as an MCP server" : `${commands.length} programs as MCP servers`} (${commands
    .map((command) => `${command.server}: ${command.text}, at ${command.at}`)
    .join("; ")}): ${why}; pass ${flag} to let scenario files start programs (they run with your rights)`

/**
 * Goes on when `scenario` starts no program, or `allowed`; else asks on the terminal when `ask` (a `y` goes on), and
 * otherwise fails with a `UsageError` (exit 2) naming the scenario and each command.
 */
export const consent = (scenario: Scenario.Definition, options: { readonly allowed: boolean; readonly ask: boolean }): Effect.Effect<void, UsageError, Io> =>
  Effect.gen(function* () {
    const commands = commandsOf(scenario)
    if (commands.length === 0 || options.allowed) return
    if (!options.ask) return yield* Effect.fail(new UsageError({ message: refusal(scenario, commands, "nobody is asked here") }))
    const io = yield* Io
    const folder = NodePath.resolve(NodePath.dirname(scenario.file))
    const list = commands.map((command) => `  ${command.server}: ${command.text}\n`).join("")
    // The file's words are shown as text: escaped, so none can drive the terminal.
    const what = commands.length === 1 ? "this program as an MCP server" : "these programs as MCP servers"
    yield* io.err(escapeLines(`scenario "${scenario.name}" (${scenario.file}) starts ${what}, in ${folder}:\n${list}`))
    const answer = yield* io.readLine(`Start ${commands.length === 1 ? "it" : "them"}? [y/N] `)
    // Stryker disable next-line ConditionalExpression: another answer has no text, and the pattern never matches "undefined"
    if (answer._tag === "Line" && /^\s*y(es)?\s*$/i.test(answer.text)) return
    const why = answer._tag === "Line" ? "you did not answer yes" : answer._tag === "Interrupt" ? "you cancelled with Ctrl-C" : "nobody could answer (the input ended)"
    return yield* Effect.fail(new UsageError({ message: refusal(scenario, commands, why) }))
  })
