import { availableParallelism } from "node:os"
import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url))

// Tests run against the sources of sibling packages, so `pnpm test` needs no build first.
export default defineConfig({
  resolve: {
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
  },
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts"],
    exclude: ["**/node_modules/**", ".stryker-tmp*/**", "reports/**"],
    passWithNoTests: false,
    testTimeout: 30_000,
    pool: "forks",
    sequence: { hooks: "list" },
    // Vitest's default is one worker less than the cores: a single one on two, and the files then run one after
    // another while most of them wait on timers, sockets and child processes. Two at least overlap that waiting.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Each file gets a fresh process (Vitest's default). Sharing workers between files (`isolate: false`) cut the
    // import time from about 140 s to 35 s, but once more files shared them, two full runs failed in different
    // files: a package resolved through the workspace's symlink in one file and not in another ("Cannot find
    // package 'pure-rand'"), and the CLI's tracing test. A faster suite that is sometimes red is not faster.
  }
})
