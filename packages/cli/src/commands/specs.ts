/**
 * Every command's spec, in the order `agentfx --help` lists them. A command named NAME has its spec in
 * `commands/NAME.ts` and its handler in `handlers/NAME.ts` (exporting `handler`): adding one is those two files,
 * a line here and a line in Cli.ts's handler table — the executable's build finds the handler by its name.
 */
import type * as Argv from "../Argv.js"
import * as chat from "./chat.js"
import * as emulator from "./emulator.js"
import * as evals from "./eval.js"
import * as live from "./live.js"
import * as run from "./run.js"
import * as runs from "./runs.js"
import * as tools from "./tools.js"

export const specs: ReadonlyArray<Argv.Spec> = [run.spec, chat.spec, live.spec, evals.spec, tools.spec, emulator.spec, runs.spec]
