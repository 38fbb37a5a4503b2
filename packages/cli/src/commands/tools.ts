import { Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Builtins from "../Builtins.js"
import { Io } from "../Io.js"

const json = Options.boolean("json").pipe(Options.withDescription("Print the list as JSON: name, description, parameters (JSON Schema), availability."))

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

export const command = Command.make("tools", { json }, (args) =>
  Effect.flatMap(Io, (io) =>
    io.out(`${args.json ? JSON.stringify(Builtins.catalogue, null, 2) : pretty(Builtins.catalogue)}\n`)
  )
).pipe(Command.withDescription("Lists the built-in tools the model can call, with their descriptions and parameter JSON Schemas."))
