import type * as Argv from "../Argv.js"
import * as Defaults from "../Defaults.js"
import * as options from "./options.js"

/** Where durable runs are kept when `--store` is not given. */
export const defaultStore = Defaults.store.value

/** `--store`: where durable runs are kept (shared by `run --durable` and `chat --durable`). */
export const store: Argv.OptionSpec = {
  name: "store",
  value: "PATH|URL",
  description: "Where durable runs are kept: a SQLite file (default .agentfx/runs.db, run by one process at a time) or a postgres:// URL (several processes)."
}

export const actions = ["list", "show", "resume", "approve", "cancel"] as const

export const spec: Argv.Spec = {
  name: "runs",
  summary: "durable runs: list, show ID, resume ID, approve ID CALL, cancel ID",
  description: [
    "The durable runs of the store (see run --durable): list them; show one (its state, the calls it waits for, its events); resume one that a stopped process left (this process runs it to its end, or to the next approval); approve or deny (--deny REASON) a call it waits for, then run the rest; cancel it.",
    "resume and approve run the agent: give them the tool options the run had (--root, --allow-host, --yes)."
  ],
  args: [{ name: "action", variadic: true, description: "list | show ID | resume ID | approve ID CALL | cancel ID" }],
  options: [
    store,
    { name: "deny", value: "REASON", description: "approve: deny the call instead, with this reason (the model is told it)." },
    ...options.agent.filter((option) => option.name !== "mcp" && option.name !== "mcp-url"),
    options.json("the runs, the run, or its outcome")
  ],
  examples: ["agentfx runs list", "agentfx runs show mail-42 --json", "agentfx runs approve mail-42 call_0_0", "agentfx runs approve mail-42 call_0_0 --deny 'not under warranty'"]
}
