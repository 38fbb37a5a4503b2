/** `agentfx tools`: the built-in tools, as text or (--json) as data. */
import * as Effect from "effect/Effect"
import * as Builtins from "../Builtins.js"
import type { Handler } from "../commands/Command.js"
import { Io } from "../Io.js"

const indent = (text: string, by: string) => text.split("\n").map((line) => by + line).join("\n")

/** The catalogue as `agentfx tools` prints it. */
export const pretty = (entries: ReadonlyArray<Builtins.Entry>): string =>
  entries
    .map((entry) =>
      [
        `${entry.name} — ${entry.description}`,
        `  offered: ${entry.availability}`,
        "  parameters:",
        indent(JSON.stringify(entry.parameters, null, 2), "    ")
      ].join("\n")
    )
    .join("\n\n")

export const handler: Handler = ({ options }) =>
  Effect.flatMap(Io, (io) => io.out(`${options.has("json") ? JSON.stringify(Builtins.catalogue, null, 2) : pretty(Builtins.catalogue)}\n`))
