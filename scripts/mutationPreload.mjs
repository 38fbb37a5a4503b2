// @ts-check
/**
 * A setup file of mutation runs only (vitest.mutation.config.ts): every module of the package under mutation is
 * loaded before any test starts.
 *
 * Why: Stryker's Vitest runner counts code that runs while a test runs as covered by that test alone. A module that a
 * test loads lazily — the CLI loads a command's handler, and what it imports, when the command runs — has its
 * module-level code run during the first test that loads it, so Stryker takes that code's mutants for ordinary ones
 * covered by that one test, and runs each with that test alone, switched on after the module was loaded unmutated:
 * such a mutant "survives" without ever having been in effect (the eval selection's table of option names, made
 * empty, fails two tests when applied by hand). Loaded here, outside any test, the same code is static: Stryker runs
 * its mutants against every test of the run, each with the module loaded as mutated.
 */
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const pkg = process.env.MUTATION_PACKAGE ?? "core"
const src = fileURLToPath(new URL(`../packages/${pkg}/src/`, import.meta.url))
// Sources that run as a process of their own (stryker.config.mjs leaves them out of every run too).
const processOnly = new Set(["bin.ts", join("internal", "node.ts")])

/** @type {(dir: string) => ReadonlyArray<string>} */
const sources = (dir) =>
  readdirSync(join(src, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [join(dir, entry.name)] : []
  )

for (const file of sources("")) if (!processOnly.has(file)) await import(pathToFileURL(join(src, file)).href)
