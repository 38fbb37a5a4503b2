import { defineConfig } from "vitest/config"
import base from "./vitest.config.js"

// Stryker's vitest config: only the tests of the package under mutation (MUTATION_PACKAGE, set by
// scripts/mutation.mjs), so a mutant is checked against the tests that can kill it and nothing else.
const pkg = process.env.MUTATION_PACKAGE ?? "core"

export default defineConfig({ ...base, test: { ...base.test, include: [`packages/${pkg}/test/**/*.test.ts`] } })
