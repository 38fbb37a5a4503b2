import { availableParallelism } from "node:os"
import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url))

/**
 * Files that need a fresh worker each: a module mock (the mocked codecs or file system must not be the copies other
 * files loaded), spies on the console and the standard streams around the SDKs' import-time logging, each module imported for the
 * first time, and the CLI's OpenTelemetry export (an exporter flushed at the end of an in-process command, timed
 * against the collector it is sent to). They run in the threads pool, isolated, beside the shared forks: the forks
 * pool runs its projects' groups one after another, so as projects of their own there they ran last, one at a time,
 * with the other worker idle (17 s of a 96 s run). The CPU-time ratio (Agent.growth) runs in the shared forks: a
 * worker runs one file at a time, and its CPU time is its own process's.
 */
const isolated = [
  "packages/providers/test/wireMistakes.test.ts",
  "packages/providers/test/sdkLogging.test.ts",
  "packages/core/test/modules.test.ts",
  "packages/cli/test/Tracing.test.ts",
  "packages/tools/test/openInside.race.test.ts",
  "packages/cli/test/EmulatorListen.test.ts"
]
const include = ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "examples/test/**/*.test.ts"]
const exclude = ["**/node_modules/**", ".stryker-tmp*/**", "reports/**"]

// Tests run against the sources of sibling packages, so `pnpm test` needs no build first.
const resolve = {
  alias: [
    { find: /^@agentfx\/core$/, replacement: src("./packages/core/src/index.ts") },
    { find: /^@agentfx\/core\/HttpUrl$/, replacement: src("./packages/core/src/HttpUrl.ts") },
    { find: /^@agentfx\/core\/Spelling$/, replacement: src("./packages/core/src/Spelling.ts") },
    { find: /^@agentfx\/core\/testing$/, replacement: src("./packages/core/src/testing.ts") },
    { find: /^@agentfx\/core\/loop$/, replacement: src("./packages/core/src/loop.ts") },
    { find: /^@agentfx\/durable$/, replacement: src("./packages/durable/src/index.ts") },
    { find: /^@agentfx\/providers$/, replacement: src("./packages/providers/src/index.ts") },
    { find: /^@agentfx\/emulator$/, replacement: src("./packages/emulator/src/index.ts") },
    { find: /^@agentfx\/tools$/, replacement: src("./packages/tools/src/index.ts") },
    { find: /^@agentfx\/tools\/mcp$/, replacement: src("./packages/tools/src/Mcp.ts") },
    { find: /^@agentfx\/cli$/, replacement: src("./packages/cli/src/index.ts") }
  ]
}
// The setup file makes toEqual compare tagged errors' messages (see vitest.setup.mjs).
const common = { passWithNoTests: false, testTimeout: 30_000, pool: "forks", sequence: { hooks: "list" }, setupFiles: [src("./vitest.setup.mjs")] } as const

export default defineConfig({
  resolve,
  test: {
    include,
    exclude,
    ...common,
    // Vitest's default is one worker less than the cores: a single one on two, and the files then run one after
    // another while most of them wait on timers, sockets and child processes. Two at least overlap that waiting.
    // Three on two cores, with the shared workers below, ended both runs tried with tinypool's "Terminating worker
    // thread" and no summary.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // A fresh process per file spends more time importing Effect, the SDKs and our sources than most files spend
    // testing (collect summed 176 s of a 239 s run on two cores, against 12 s with shared workers). The tests share
    // no global state outside `isolated` (no mocks, stubs, environment writes or global listeners), so a worker
    // runs file after file with what it has already imported. This setting is the forks pool's alone: each
    // `isolated` file is a project of its own in the threads pool, which keeps Vitest's default (a fresh worker per
    // file). The projects repeat the settings rather than extend them: extending would add the root's include to
    // each project's.
    // With shared workers, a file once reached effect's FastCheck through the workspace's node_modules symlink, where
    // Node found the root's own fast-check (then 4.x, which nothing imports) without its pure-rand ("Cannot find
    // package 'pure-rand'"). The root now pins the fast-check effect uses and its pure-rand, so every path to them
    // finds the same versions.
    poolOptions: { forks: { isolate: false } },
    projects: [
      ...isolated.map((file) => ({ resolve, test: { ...common, pool: "threads" as const, name: file.replace(/^.*\/test\//, ""), include: [file], exclude } })),
      { resolve, test: { ...common, name: "shared", include, exclude: [...exclude, ...isolated] } }
    ]
  }
})
