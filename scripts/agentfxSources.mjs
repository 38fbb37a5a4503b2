/**
 * Our packages resolved to their TypeScript sources, for esbuild: the `agentfx` bundle and the demo's process test
 * build from sources and need no `tsc` output. The entry points are read from each package's `exports` (`./testing`
 * → `./dist/testing.js` → `src/testing.ts`), so a new subpath export needs no change here.
 */
import { readFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
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

/**
 * Each entry point's namespaces (`export * as Tool from "./Tool.js"` → `Tool` → `Tool`): every entry of our packages
 * is such a barrel, read once.
 */
const barrels = (packages, entries) => {
  const namespaces = {}
  for (const [name, entry] of Object.entries(entries)) {
    const source = readFileSync(join(packages, name.split("/")[0], "src", `${entry}.ts`), "utf8")
    namespaces[name] = Object.fromEntries([...source.matchAll(/^export \* as (\w+) from "\.\/([\w/.]+)\.js"/gm)].map((match) => [match[1], match[2]]))
  }
  return namespaces
}

const importFrom = /^import\s*\{([^}]*)\}\s*from\s*"@agentfx\/([\w/-]+)"/gm

/**
 * `import { Tool, Registry as R } from "@agentfx/core"` as `import * as Tool from "@agentfx-module/core/Tool"` and so
 * on, for every name the barrel re-exports as a namespace (other names, and `type` ones, stay as they were). Through
 * a barrel, esbuild keeps every module the barrel re-exports in the chunk of whoever imports one of them, even with
 * `sideEffects: false`: a chat loaded the eval harness and its YAML parser for the four built-in tools.
 */
const direct = (source, namespaces) =>
  source.replace(importFrom, (whole, list, name) => {
    const known = namespaces[name]
    if (known === undefined) return whole
    const kept = []
    const modules = []
    for (const raw of list.split(",")) {
      const specifier = raw.trim()
      if (specifier === "") continue
      const [imported, local = imported] = specifier.split(/\s+as\s+/)
      if (!imported.startsWith("type ") && known[imported] !== undefined) modules.push(`import * as ${local} from "@agentfx-module/${name.split("/")[0]}/${known[imported]}"`)
      else kept.push(specifier)
    }
    if (modules.length === 0) return whole
    return [...(kept.length === 0 ? [] : [`import { ${kept.join(", ")} } from "@agentfx/${name}"`]), ...modules].join("; ")
  })

/** An esbuild plugin resolving `@agentfx/…` imports to the sources under `packages`; an unknown one is an error. */
export const sourcesPlugin = (packages) => ({
  name: "agentfx-sources",
  setup(build) {
    const entries = entryPoints(packages)
    const namespaces = barrels(packages, entries)
    build.onResolve({ filter: /^@agentfx-module\// }, (args) => {
      const [name, ...module] = args.path.slice("@agentfx-module/".length).split("/")
      return { path: join(packages, name, "src", `${module.join("/")}.ts`), sideEffects: false }
    })
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(packages) || args.path.includes("node_modules")) return undefined
      return { contents: direct(await readFile(args.path, "utf8"), namespaces), loader: "ts" }
    })
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
