import { defineConfig } from "vitest/config"
import base from "./vitest.config.js"
import { fileURLToPath } from "node:url"
import { unloadableFileAsFailedTest } from "./scripts/unloadableFileAsFailedTest.mjs"

// Stryker's vitest config: only the tests of the package under mutation (MUTATION_PACKAGE, set by
// scripts/mutation.mjs), so a mutant is checked against the tests that can kill it and nothing else.
// MUTATION_TESTS (comma-separated globs) narrows that further, to iterate quickly on one file.
const pkg = process.env.MUTATION_PACKAGE ?? "core"
const tests = process.env.MUTATION_TESTS?.split(",").filter((glob) => glob !== "")
// The CLI's executable tests and its --json contracts' bundle the sources and spawn the bundle: no mutant is active in
// that child, and each bundle costs seconds. The same behaviour is tested in-process (Cli.main) by the package's other
// tests.
const spawnedOnly = ["packages/cli/test/Executable.test.ts", "packages/cli/test/Contracts.test.ts"]

// Stryker runs several of these at once, one per core: each keeps Vitest's own worker count, not the suite's.
// Each test file gets a fresh process (Vitest's default), in one project: the suite's shared workers and its
// projects of isolated files would override the narrowed include.
// A test file that fails to load counts as a failed test, and the package's modules are loaded before any test
// (scripts/unloadableFileAsFailedTest.mjs and scripts/mutationPreload.mjs say why).
const preload = fileURLToPath(new URL("./scripts/mutationPreload.mjs", import.meta.url))
export default defineConfig({
  ...base,
  test: { ...base.test, setupFiles: [...(base.test?.setupFiles ?? []), preload], reporters: ["default", unloadableFileAsFailedTest], maxWorkers: undefined, poolOptions: undefined, projects: undefined, include: tests ?? [`packages/${pkg}/test/**/*.test.ts`], exclude: [...(base.test?.exclude ?? []), ...spawnedOnly] }
})
