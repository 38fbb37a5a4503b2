/**
 * The built-in tools' catalogue as `agentfx tools` prints it. Plain text from plain data, with no Effect: the
 * executable prints the catalogue the build computed (dist/catalogue.json) through it without loading a runtime.
 */
import type { Entry } from "../Builtins.js"
import { escapeName, escapeLines } from "./terminalText.js"

const indent = (text: string, by: string) => text.split("\n").map((line) => by + line).join("\n")

/** The catalogue as text: each tool, where it is offered, its parameters' JSON Schema. */
export const pretty = (entries: ReadonlyArray<Entry>): string =>
  entries
    .map((entry) =>
      [
        `${escapeName(entry.name)} — ${escapeLines(entry.description)}`,
        `  offered: ${entry.availability}`,
        "  parameters:",
        indent(escapeLines(JSON.stringify(entry.parameters, null, 2)), "    ")
      ].join("\n")
    )
    .join("\n\n")

/** What `agentfx tools` prints, `--json` or not. */
export const render = (entries: ReadonlyArray<Entry>, json: boolean): string =>
  `${json ? JSON.stringify(entries, null, 2) : pretty(entries)}\n`
