#!/usr/bin/env node
/**
 * The `agentfx` executable. Help, the version and argument errors are answered here, from the command specs
 * alone, before Effect is loaded: they take about as long as Node takes to start. A command that runs loads its
 * own bundled program (`programs/NAME.js`, made by scripts/bundle.mjs): its handler, Effect and what that
 * handler needs, nothing of the other commands. `agentfx tools` prints the catalogue the build computed
 * (`catalogue.json`, the same data `Builtins.catalogue` holds) and loads no program at all (unless it is asked
 * for MCP servers' tools too). A plain offline `agentfx chat` shows its first screen (the provider line, the greeting,
 * the prompt) before its program loads, and the program takes it over (internal/earlyScreen.ts).
 */
import { readFileSync } from "node:fs"
import * as NodeModule from "node:module"
import * as Argv from "./Argv.js"
import type * as Builtins from "./Builtins.js"
import { specs } from "./commands/specs.js"
import * as Color from "./internal/color.js"
import * as CatalogueText from "./internal/catalogueText.js"
import * as EarlyScreen from "./internal/earlyScreen.js"
import { exitWhenReaderGoes } from "./internal/brokenPipe.js"
import { answer } from "./internal/immediate.js"

// Node 22.1 and later keep the compiled code of the bundled programs on disk between runs (Node's own cache
// folder under the system's temporary directory); older Nodes have no such cache and start as before.
;(NodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.()

exitWhenReaderGoes(process.stdout)
exitWhenReaderGoes(process.stderr)

interface Program {
  readonly start: (argv: ReadonlyArray<string>, shown?: EarlyScreen.Shown) => void
}

const argv = process.argv.slice(2)
const parsed = Argv.parse(specs, argv)
const width = process.stdout.columns === undefined ? undefined : Math.min(process.stdout.columns, 100)
const immediate = answer(specs, parsed, Color.enabled(process.env, process.stdout.isTTY === true), width)

if (immediate !== undefined) {
  process.stderr.write(immediate.stderr)
  process.exitCode = immediate.code
  process.stdout.write(immediate.stdout)
} else if (parsed._tag === "Run" && parsed.spec.name === "tools" && !parsed.options.has("mcp") && !parsed.options.has("mcp-url")) {
  const catalogue = JSON.parse(readFileSync(new URL("catalogue.json", import.meta.url), "utf8")) as ReadonlyArray<Builtins.Entry>
  process.stdout.write(CatalogueText.render(catalogue, parsed.options.has("json")))
} else {
  const name = parsed._tag === "Run" ? parsed.spec.name : "completions"
  // A chat's first screen is up before its program loads; the program takes it over, and what is typed meanwhile.
  const early = EarlyScreen.of(parsed, process.env)
  // The terminal is raw before the prompt shows: a key pressed as soon as it is seen (Ctrl-C, a letter) is read
  // here, never handled or echoed by the terminal's own line discipline.
  const shown = early === undefined || !process.stdin.isTTY ? early : { ...early, typed: EarlyScreen.TypeAhead.start(process.stdin) }
  if (early !== undefined) {
    process.stderr.write(early.stderr)
    process.stdout.write(early.stdout)
  }
  // A URL, not a literal path: the bundler must leave this import to run time.
  const program = new URL(`programs/${name}.js`, import.meta.url).href
  ;(import(program) as Promise<Program>).then(
    (program) => program.start(argv, shown),
    (error: unknown) => {
      if (shown !== undefined) process.stdout.write("\n")
      shown?.typed?.drop()
      process.stderr.write(`agentfx: cannot load the ${name} command: ${error instanceof Error ? error.message : String(error)}\n`)
      process.exitCode = 1
    }
  )
}
