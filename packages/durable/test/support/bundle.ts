/**
 * The child runner bundled once per test file (esbuild, our packages from their sources): a process then starts in
 * a fifth of the CPU time tsx takes to load the same modules one by one, and the kill tests start dozens.
 * better-sqlite3 stays outside, loaded from where @effect/sql-sqlite-node finds it (its native part is built there).
 */
import { build, type PluginBuild } from "esbuild"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { sourcesPlugin } from "../../../../scripts/agentfxSources.mjs"

const here = path.dirname(fileURLToPath(import.meta.url))
const durable = path.resolve(here, "../..")

let built: Promise<string> | undefined

/** The bundle's path, built on the first call. */
export const childBundle = (): Promise<string> => {
  built ??= (async () => {
    const sqlite = createRequire(createRequire(path.join(durable, "package.json")).resolve("@effect/sql-sqlite-node/package.json")).resolve("better-sqlite3")
    // In a temporary folder: everything is inside the bundle but better-sqlite3, which it names by its path.
    const outfile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "durable-child-")), "child.mjs")
    await build({
      entryPoints: [path.join(here, "child.ts")],
      absWorkingDir: durable,
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20.19",
      outfile,
      // CommonJS dependencies inside an ES module still call require().
      banner: { js: 'import { createRequire as __agentfxRequire } from "node:module"; const require = __agentfxRequire(import.meta.url);' },
      plugins: [
        sourcesPlugin(path.resolve(durable, "..")),
        { name: "native", setup: (b: PluginBuild) => void b.onResolve({ filter: /^better-sqlite3$/ }, () => ({ path: sqlite, external: true })) }
      ],
      external: ["pg-native"],
      logLevel: "warning"
    })
    return outfile
  })()
  return built
}
