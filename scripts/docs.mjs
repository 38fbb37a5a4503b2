/**
 * The API reference: @effect/docgen on each published library, then one site under `docs/` (git-ignored).
 *
 * For each of core, providers, emulator, tools and durable, docgen reads the JSDoc of `src/` (`docgen.json` beside
 * the package's manifest says what it leaves out), requires `@since` on every export, type-checks every `@example`
 * with tsc and runs them all with tsx, and writes one Markdown page per module. The examples import the packages by their
 * public names; docgen rewrites the package's own name to `../../src/<subpath>`, so that path is given here one
 * shim per entry of the package's `exports` map (`docs/src/index.ts`, `docs/src/mcp.ts`, ...) — an example can only
 * reach what a user can import. Other packages' names resolve through `paths` in `docgen.json`.
 *
 * The pages are then put together under `docs/`: a home page, one page per package (its install line and entry
 * points) with its modules under it, and `_config.yml` — the source of a GitHub Pages (Jekyll, just-the-docs) site,
 * readable as Markdown as it is.
 *
 * Fails (exit 1) when docgen fails for any package (a missing `@since`, an example that does not compile or throws)
 * or prints a warning or an error; prints one line per package otherwise.
 *
 *   npx -y pnpm@10 run docs    (part of .ci/run)
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const packages = ["core", "providers", "emulator", "tools", "durable"]
const site = join(root, "docs")
// docgen's own output (pages, examples, shims) inside each package, under docs/api so that `../../src` from its
// examples folder is the shims' folder, docs/src.
const outDir = join("docs", "api")

const readJson = (path) => JSON.parse(readFileSync(path, "utf8"))

/** `docs/src/<subpath>.ts` for each entry of the exports map, re-exporting the source module it is built from. */
const writeShims = (dir, manifest) => {
  const shims = join(dir, "docs", "src")
  rmSync(shims, { recursive: true, force: true })
  mkdirSync(shims, { recursive: true })
  const entries = []
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    const built = typeof target === "string" ? target : target.default
    const source = /^\.\/dist\/(.+)\.js$/.exec(built)?.[1]
    if (source === undefined) throw new Error(`${manifest.name}: export ${subpath} is not a ./dist/*.js file: ${built}`)
    const name = subpath === "." ? "index" : subpath.replace(/^\.\//, "")
    writeFileSync(join(shims, `${name}.ts`), `export * from "../../src/${source}.js"\n`)
    entries.push({ importPath: subpath === "." ? manifest.name : `${manifest.name}/${name}`, source })
  }
  return entries
}

const docgen = (dir) => {
  const bin = join(root, "node_modules", ".bin")
  const result = spawnSync(join(bin, "docgen"), [], {
    cwd: dir,
    encoding: "utf8",
    // tsc and tsx, which docgen runs on the examples, are the workspace's.
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, FORCE_COLOR: "0", NO_COLOR: "1" }
  })
  return { status: result.status, output: `${result.stdout ?? ""}${result.stderr ?? ""}${result.error ? String(result.error) : ""}` }
}

/** Front matter lines of a docgen page, and the rest. */
const splitPage = (text) => {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text)
  if (match === null) throw new Error("a page without front matter")
  return { meta: match[1], body: text.slice(match[0].length) }
}

rmSync(site, { recursive: true, force: true })
mkdirSync(site, { recursive: true })
let failed = false
const sections = []
for (const [order, name] of packages.entries()) {
  const dir = join(root, "packages", name)
  const manifest = readJson(join(dir, "package.json"))
  const entries = writeShims(dir, manifest)
  rmSync(join(dir, outDir, "modules"), { recursive: true, force: true })
  const started = Date.now()
  const { status, output } = docgen(dir)
  // docgen leaves its examples behind when they fail to compile; nothing of them may reach the next lint or typecheck.
  rmSync(join(dir, "docs", "src"), { recursive: true, force: true })
  rmSync(join(dir, outDir, "examples"), { recursive: true, force: true })
  const lines = output.split("\n")
  const complaints = lines.filter((line) => /\b(WARN|WARNING|ERROR|FATAL)\b/.test(line))
  const examples = Number(/(\d+) example\(s\) found/.exec(output)?.[1] ?? 0)
  if (status !== 0 || complaints.length > 0 || !output.includes("Docs generation succeeded")) {
    failed = true
    console.log(`FAIL ${manifest.name}: docgen exited ${status}\n${output.trim()}`)
    continue
  }
  // One page per module, in folders as the sources are (tools' builtins/).
  const pages = readdirSync(join(dir, outDir, "modules"), { recursive: true }).filter((file) => file.endsWith(".ts.md"))
  const target = join(site, name)
  for (const page of pages) {
    const { meta, body } = splitPage(readFileSync(join(dir, outDir, "modules", page), "utf8"))
    const kept = meta.split("\n").filter((line) => !line.startsWith("parent:"))
    mkdirSync(dirname(join(target, page)), { recursive: true })
    writeFileSync(join(target, page), `---\n${[...kept, `parent: "${manifest.name}"`].join("\n")}\n---\n${body}`)
  }
  const entryList = entries.map((entry) => `- \`${entry.importPath}\` — \`src/${entry.source}.ts\``).join("\n")
  mkdirSync(target, { recursive: true })
  writeFileSync(
    join(target, "index.md"),
    [
      "---",
      `title: "${manifest.name}"`,
      `nav_order: ${order + 2}`,
      "has_children: true",
      `permalink: /${name}/`,
      "---",
      "",
      `# ${manifest.name}`,
      "",
      manifest.description,
      "",
      "```sh",
      `npm i ${manifest.name} ${Object.keys(manifest.peerDependencies ?? {}).map((peer) => `${peer}@${manifest.peerDependencies[peer].replace(/^\^/, "~")}`).join(" ")}`.trimEnd(),
      "```",
      "",
      "Entry points (each module below is a namespace of one of them, e.g. `import { Agent } from \"@agentfx/core\"`):",
      "",
      entryList,
      ""
    ].join("\n")
  )
  sections.push(`- [${manifest.name}](${name}/) — ${manifest.description}`)
  console.log(`ok   ${manifest.name}: ${pages.length} modules, ${examples} examples type-checked and run (${((Date.now() - started) / 1000).toFixed(0)} s)`)
}
if (failed) process.exit(1)

writeFileSync(
  join(site, "index.md"),
  [
    "---",
    "title: Home",
    "nav_order: 1",
    "---",
    "",
    "# agentfx API reference",
    "",
    "Generated from the JSDoc of the sources by `npx -y pnpm@10 run docs` (@effect/docgen); every example on these pages",
    "was type-checked and run when they were made. The runnable programs to copy from are in `examples/`.",
    "",
    ...sections,
    ""
  ].join("\n")
)
// The Jekyll settings of the site (GitHub Pages), for the theme docgen's pages are written for.
writeFileSync(
  join(site, "_config.yml"),
  [
    "remote_theme: mikearnaldi/just-the-docs",
    "search_enabled: true",
    "aux_links:",
    '  "agentfx on GitHub":',
    '    - "https://github.com/agentfx/agentfx"',
    ""
  ].join("\n")
)
console.log(`docs/: ${packages.length} packages`)
