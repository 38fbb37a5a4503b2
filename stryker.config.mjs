// @ts-check
// Mutation testing (`pnpm mutation [package] [stryker options]`, see scripts/mutation.mjs and the README).
const pkg = process.env.MUTATION_PACKAGE ?? "core"

/**
 * Sources that run only as a process of their own, never in a test's: the CLI's executable (bin.ts) and the runtime
 * that ends the process with the exit code (internal/node.ts). The tests that spawn them (Executable.test.ts) run
 * a bundle in a child, which no mutant reaches; their in-process counterparts (Cli.main, internal/main.ts) are mutated.
 */
const processOnly = { cli: ["bin.ts", "internal/node.ts"] }

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
const config = {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts", related: false },
  plugins: ["@stryker-mutator/vitest-runner"],
  coverageAnalysis: "perTest",
  mutate: [
    `packages/${pkg}/src/**/*.ts`,
    `!packages/${pkg}/src/index.ts`,
    `!packages/${pkg}/src/testing.ts`,
    ...(processOnly[pkg] ?? []).map((file) => `!packages/${pkg}/src/${file}`)
  ],
  // Two cores at most: the run shares the machine.
  concurrency: 2,
  incremental: true,
  incrementalFile: `reports/mutation/${pkg}/stryker-incremental.json`,
  reporters: ["html", "json", "clear-text", "progress"],
  htmlReporter: { fileName: `reports/mutation/${pkg}/index.html` },
  jsonReporter: { fileName: `reports/mutation/${pkg}/mutation.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  tempDirName: ".stryker-tmp",
  ignorePatterns: [".stryker-tmp*", "reports", ".vitest", "coverage", "**/dist", "**/.tsbuild", "apps", "bench"],
  timeoutMS: 20_000,
  // The first run, of every test with coverage per test, is slow on a loaded machine.
  dryRunTimeoutMinutes: 30,
  thresholds: { high: 90, low: 80, break: null }
}

// One run of a plan (scripts/mutation-plan.mjs): its own sandbox and report, one worker, every mutant tested afresh
// (or, in its static phase, those the run before it did not settle).
const run = process.env.MUTATION_RUN
const planned =
  run === undefined
    ? config
    : {
        ...config,
        concurrency: 1,
        // A plan's static phase takes over the results of the run before it (scripts/mutation-plan.mjs).
        incremental: (process.env.MUTATION_INCREMENTAL ?? "") !== "",
        incrementalFile: process.env.MUTATION_INCREMENTAL || config.incrementalFile,
        ignoreStatic: process.env.MUTATION_IGNORE_STATIC === "1",
        // A run may turn coverage off (`"coverageAnalysis": "off"` in its plan). Module-level code a test reaches
        // lazily is made static by scripts/mutationPreload.mjs instead: Vitest's runner narrows a mutant's tests by
        // its first run's coverage even with coverage off (see --retest in scripts/mutation-plan.mjs).
        coverageAnalysis: /** @type {"off" | "perTest"} */ (process.env.MUTATION_COVERAGE === "off" ? "off" : "perTest"),
        reporters: ["json", "progress"],
        jsonReporter: { fileName: `reports/mutation/${pkg}/plan/${run}.json` },
        tempDirName: `.stryker-tmp-${run}`
      }

export default planned
