/**
 * What `agentfx` answers without running anything — help, the version, a usage error — as text. The executable
 * prints it straight away, before Effect is loaded; `Cli.main` prints the same through `Io`.
 */
import * as Argv from "../Argv.js"
import * as HelpText from "../HelpText.js"

export const version = "0.1.0"

export interface Answer {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** The answer to `parsed` when it needs no command to run; `undefined` for `Run` and `Completions`. */
export const answer = (specs: ReadonlyArray<Argv.Spec>, parsed: Argv.Parsed, color: boolean, width?: number): Answer | undefined => {
  // Stryker disable next-line ConditionalExpression: HelpText reads a width set to undefined as one left out (100)
  const options = { color, ...(width === undefined ? {} : { width }) }
  switch (parsed._tag) {
    case "Help":
      return {
        code: 0,
        stdout: parsed.spec === undefined
          ? HelpText.root(specs, Argv.rootOptions, options)
          : HelpText.command(parsed.spec, Argv.globalOptions, Argv.usage(parsed.spec), options),
        stderr: ""
      }
    case "Version":
      return { code: 0, stdout: `agentfx ${version}\n`, stderr: "" }
    case "Invalid":
      return {
        code: 2,
        stdout: "",
        stderr: `agentfx: ${parsed.message}\n`
      }
    // Stryker disable StringLiteral,ConditionalExpression: a parse that no case names falls off the switch, undefined all the same
    case "Run":
    case "Completions":
      return undefined
    // Stryker restore StringLiteral,ConditionalExpression
  }
}
