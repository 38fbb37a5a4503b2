/**
 * @agentfx/cli — the `agentfx` command (`Cli.main`), and the pieces it is built from: the command line as data
 * (`Argv`, `HelpText`), the terminal service (`Io`), provider selection (`Provider`, `LiveProvider`, and the emulator behind it offline: `Offline`), the built-in
 * tools (`Builtins`), the chat REPLs (`Repl`, and `LiveRepl` over a live connection), the terminal approval (`TerminalApproval`), run rendering (`Screen`), the `--json` output contracts (`Contracts`), the defaults that reach a wire or a user (`Defaults`),
 * session files and their locks (`SessionFile`, `SessionLock`), eval input checks (`EvalInput`) and eval runs with progress (`EvalProgress`).
 *
 * @since 0.1.0
 */
export * as Argv from "./Argv.js"
export * as Builtins from "./Builtins.js"
export * as Cli from "./Cli.js"
export * as CliError from "./CliError.js"
export * as Contracts from "./Contracts.js"
export * as Defaults from "./Defaults.js"
export * as EvalInput from "./EvalInput.js"
export * as EvalProgress from "./EvalProgress.js"
export * as HelpText from "./HelpText.js"
export * as Io from "./Io.js"
export * as LiveProvider from "./LiveProvider.js"
export * as LiveRepl from "./LiveRepl.js"
export * as Offline from "./Offline.js"
export * as Provider from "./Provider.js"
export * as Repl from "./Repl.js"
export * as Screen from "./Screen.js"
export * as SessionFile from "./SessionFile.js"
export * as SessionLock from "./SessionLock.js"
export * as TerminalApproval from "./TerminalApproval.js"
