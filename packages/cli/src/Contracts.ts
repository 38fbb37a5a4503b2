/**
 * The public contract of each command's `--json` output: one Effect Schema per document (in `contracts/`, one file
 * per command), and their JSON Schema form, which the build writes into the package as
 * `@agentfx/cli/contracts/NAME.schema.json`. A document holds exactly the keys its schema lists: no key beyond them
 * and none missing (`exact`), so a field added, renamed or dropped is a change of its schema first.
 *
 * @example
 * const run = Contracts.decode(Contracts.Run.Run)(stdout) // throws a ParseError naming the first difference
 *
 * @since 0.1.0
 */
import * as JSONSchema from "effect/JSONSchema"
import type { ParseOptions } from "effect/SchemaAST"
import * as Schema from "effect/Schema"
import * as Emulator from "./contracts/emulator.js"
import * as Eval from "./contracts/eval.js"
import * as Run from "./contracts/run.js"
import * as Runs from "./contracts/runs.js"
import * as Tools from "./contracts/tools.js"

export * as Emulator from "./contracts/emulator.js"
export * as Eval from "./contracts/eval.js"
export * as Run from "./contracts/run.js"
export * as Runs from "./contracts/runs.js"
export * as Shared from "./contracts/shared.js"
export * as Tools from "./contracts/tools.js"

/**
 * Every document, by the name of its JSON Schema file (`contracts/NAME.schema.json`), with the commands that print it.
 *
 * @since 0.1.0
 */
export const documents = {
  run: { schema: Run.Run, printedBy: ["run --json"] },
  "runs-outcome": { schema: Runs.Outcome, printedBy: ["run --durable --json", "runs resume --json", "runs approve --json"] },
  "runs-list": { schema: Runs.List, printedBy: ["runs list --json"] },
  "runs-show": { schema: Runs.Show, printedBy: ["runs show --json"] },
  eval: { schema: Eval.Report, printedBy: ["eval --json", "eval --report-json FILE"] },
  tools: { schema: Tools.Tools, printedBy: ["tools --json"] },
  emulator: { schema: Emulator.Emulator, printedBy: ["emulator --json"] }
} as const satisfies Record<string, { readonly schema: Schema.Schema.AnyNoContext; readonly printedBy: ReadonlyArray<string> }>

/**
 * The names of the documents.
 *
 * @since 0.1.0
 */
export type Name = keyof typeof documents

/**
 * How a document is checked against its contract: a key the schema does not list is an error, and so is a key it
 * lists that is missing (even one whose value may be anything).
 *
 * @since 0.1.0
 */
export const exact: ParseOptions = { exact: true, onExcessProperty: "error", errors: "all" }

/**
 * Reads a document's text against its contract, exactly; throws a `ParseError` that names every difference.
 *
 * @since 0.1.0
 */
export const decode =
  <A, I>(schema: Schema.Schema<A, I, never>) =>
  (text: string): A =>
    Schema.decodeUnknownSync(Schema.parseJson(schema), exact)(text)

/**
 * The JSON Schema (draft-07) of each document, as the build writes it to `contracts/NAME.schema.json`.
 *
 * @since 0.1.0
 */
export const jsonSchemas = (): Record<Name, JSONSchema.JsonSchema7Root> =>
  Object.fromEntries(
    Object.entries(documents).map(([name, document]: [string, { readonly schema: Schema.Schema.AnyNoContext }]) => [name, JSONSchema.make(document.schema)])
  ) as Record<Name, JSONSchema.JsonSchema7Root>
