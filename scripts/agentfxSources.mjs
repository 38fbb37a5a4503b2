/**
 * Our packages resolved to their TypeScript sources, for esbuild: the `agentfx` bundle and the demo's process test
 * build from sources and need no `tsc` output. The entry points are read from each package's `exports` (`./testing`
 * → `./dist/testing.js` → `src/testing.ts`), so a new subpath export needs no change here.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"

const names = ["core", "providers", "emulator", "tools", "durable", "cli"]

/** `core` → `index`, `core/testing` → `testing`, … for every export of every package under `packages`. */
export const entryPoints = (packages) => {
  const entries = {}
  for (const name of names) {
    const { exports } = JSON.parse(readFileSync(join(packages, name, "package.json"), "utf8"))
    for (const [subpath, target] of Object.entries(exports)) {
      const file = /^\.\/dist\/(.+)\.js$/.exec(target.default)
      if (file === null) throw new Error(`${name}/package.json: export ${subpath} does not point into dist/`)
      entries[subpath === "." ? name : `${name}/${subpath.slice(2)}`] = file[1]
    }
  }
  return entries
}

/** An esbuild plugin resolving `@agentfx/…` imports to the sources under `packages`; an unknown one is an error. */
export const sourcesPlugin = (packages) => ({
  name: "agentfx-sources",
  setup(build) {
    const entries = entryPoints(packages)
    build.onResolve({ filter: /^@agentfx\// }, (args) => {
      const name = args.path.slice("@agentfx/".length)
      const entry = entries[name]
      if (entry === undefined) return { errors: [{ text: `unknown @agentfx package: ${args.path}` }] }
      // Our packages say "sideEffects": false; a path resolved here must say it again, or esbuild keeps every
      // module a barrel re-exports (the whole eval harness and its YAML parser for `agentfx tools`).
      return { path: join(packages, name.split("/")[0], "src", `${entry}.ts`), sideEffects: false }
    })
  }
})
