// `pnpm mutation [core|providers|tools|…] [stryker options]`: Stryker over one package's sources, with that
// package's tests only. Incremental: a re-run tests only the mutants whose code or tests changed.
// Examples: `pnpm mutation`, `pnpm mutation providers`, `pnpm mutation core --mutate packages/core/src/Dialect.ts`.
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

const args = process.argv.slice(2).filter((arg) => arg !== "--")
const pkg = args[0] !== undefined && !args[0].startsWith("-") ? args.shift() : (process.env.MUTATION_PACKAGE ?? "core")
if (!existsSync(`packages/${pkg}/src`)) {
  console.error(`mutation: no package "${pkg}" (packages/${pkg}/src does not exist)`)
  process.exit(2)
}
const stryker = join(dirname(createRequire(import.meta.url).resolve("@stryker-mutator/core/package.json")), "bin/stryker.js")
const { status } = spawnSync(process.execPath, [stryker, "run", "stryker.config.mjs", ...args], {
  stdio: "inherit",
  env: { ...process.env, MUTATION_PACKAGE: pkg }
})
process.exit(status ?? 1)
