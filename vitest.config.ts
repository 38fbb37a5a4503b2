import { availableParallelism } from "node:os"
import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url))

/**
 * Files that need a fresh process each: a module mock (the mocked codecs must not be the copies other files
 * loaded), spies on the console and the standard streams around SDKs' import-time logging, each module imported
 * for the first time, and a CPU-time ratio that must not share a heap with other files.
 */
const isolated = [
  "packages/providers/test/wireMistakes.test.ts",
  "packages/providers/test/sdkLogging.test.ts",
  "packages/core/test/modules.test.ts",
  "packages/core/test/Agent.growth.test.ts"
]
const exclude = ["**/node_modules/**", ".stryker-tmp*/**", "reports/**"]

const resolve = {
  alias: [
    { find: /^@agentfx\/core$/, replacement: src("./packages/core/src/index.ts") },
    { find: /^@agentfx\/core\/HttpUrl$/, replacement: src("./packages/core/src/HttpUrl.ts") },
    { find: /^@agentfx\/core\/testing$/, replacement: src("./packages/core/src/testing.ts") },
    { find: /^@agentfx\/providers$/, replacement: src("./packages/providers/src/index.ts") },
    { find: /^@agentfx\/emulator$/, replacement: src("./packages/emulator/src/index.ts") },
    { find: /^@agentfx\/tools$/, replacement: src("./packages/tools/src/index.ts") },
    { find: /^@agentfx\/tools\/mcp$/, replacement: src("./packages/tools/src/Mcp.ts") },
    { find: /^@agentfx\/cli$/, replacement: src("./packages/cli/src/index.ts") }
  ]
}
const include = ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts"]
const common = { passWithNoTests: false, testTimeout: 30_000, pool: "forks", sequence: { hooks: "list" } } as const

// Tests run against the sources of sibling packages, so `pnpm test` needs no build first.
export default defineConfig({
  resolve,
  test: {
    include,
    exclude,
    ...common,
    // Vitest's default is one worker less than the cores: a single one on two, and the files then run one after
    // another while most of them wait on timers, sockets and child processes. Two at least overlap that waiting.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // A fresh process per file spent more time importing Effect, the SDKs and our sources than most files spend
    // testing. The tests share no global state (no mocks, stubs, environment writes or global listeners outside
    // `isolated`), so a worker runs file after file with what it has already imported. Isolation is one setting
    // for the whole pool; each of the `isolated` files is a project of its own, and Vitest gives each project
    // fresh workers. The projects repeat the settings rather than extend them: extending would add the root's
    // include to each project's.
    poolOptions: { forks: { isolate: false } },
    projects: [
      ...isolated.map((file) => ({ resolve, test: { ...common, name: file.replace(/^.*\/test\//, ""), include: [file], exclude } })),
      { resolve, test: { ...common, name: "shared", include, exclude: [...exclude, ...isolated] } }
    ]
  }
})
