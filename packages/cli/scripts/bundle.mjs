/**
 * Bundles the `agentfx` executable: dist/bin.js holds the command specs alone (it answers --help and argument
 * errors), and dist/programs/NAME.js each command with everything it reaches — our packages from their
 * sources, effect, the provider SDKs in chunks of their own, loaded when a provider is built. Node starts a few
 * large files much faster than a thousand small ones, and a command loads nothing another command needs.
 *
 *   node packages/cli/scripts/bundle.mjs [OUTDIR [PROGRAM …]]   (part of `npx -y pnpm@10 build`; OUTDIR defaults to dist)
 *
 * Naming programs (`run chat`, …) builds those alone besides bin.js and catalogue.json: the executable's tests
 * start four commands, and each program is a whole bundle of its own (about 3 s of CPU here).
 */
import { build } from "esbuild"
import { execFileSync } from "node:child_process"
import { chmod, mkdir, readdir, rm, writeFile } from "node:fs/promises"
import { resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { sourcesPlugin } from "../../../scripts/agentfxSources.mjs"

const cli = fileURLToPath(new URL("..", import.meta.url))
const packages = fileURLToPath(new URL("../..", import.meta.url))

const sources = sourcesPlugin(packages)

const common = {
  absWorkingDir: cli,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  // Whitespace and syntax only: names stay readable in a stack trace, with no source maps to ship.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "linked",
  // CommonJS dependencies inside an ES module still call require().
  banner: { js: 'import { createRequire as __agentfxRequire } from "node:module"; const require = __agentfxRequire(import.meta.url);' },
  plugins: [sources],
  // better-sqlite3 (durable runs' SQLite store) is native: loaded at run time from the installed package.
  external: ["better-sqlite3", "pg-native"],
  logLevel: "warning",
  metafile: true
}

/**
 * One program per command (`handlers/NAME.ts`), plus `completions`: its handler and the runtime, built on its
 * own so that nothing of another command comes along (a shared build lets the eval harness ride along with
 * `agentfx tools` through the package barrels). Inside a program, what it imports dynamically — the provider
 * SDKs — stays in chunks of its own, loaded when a provider is built.
 */
const program = (outdir, name) => ({
  ...common,
  stdin: {
    contents:
      name === "completions"
        ? 'import { run } from "./src/internal/node.ts"\nexport const start = (argv) => run(argv, () => Promise.reject(new Error("no command")))\n'
        : `import { handler } from "./src/handlers/${name}.ts"\nimport { run } from "./src/internal/node.ts"\nexport const start = (argv) => run(argv, () => Promise.resolve({ handler }))\n`,
    resolveDir: cli,
    sourcefile: `programs/${name}.js`,
    loader: "js"
  },
  outdir: `${outdir}/programs`,
  entryNames: name,
  chunkNames: `${name}/[name]-[hash]`,
  splitting: true
})

/**
 * dist/catalogue.json: `Builtins.catalogue` (the built-in tools and their JSON Schemas), computed once here so
 * that `agentfx tools` prints it without loading Effect. The catalogue is static data: the same on every run.
 */
const catalogue = async (outdir) => {
  const result = await build({
    ...common,
    metafile: false,
    write: false,
    stdin: {
      contents: 'import { catalogue } from "./src/Builtins.ts"\nprocess.stdout.write(JSON.stringify(catalogue))\n',
      resolveDir: cli,
      sourcefile: "catalogue.js",
      loader: "js"
    },
    outfile: "catalogue.mjs"
  })
  const json = execFileSync(process.execPath, ["--input-type=module", "-"], { input: result.outputFiles[0].text, encoding: "utf8" })
  await writeFile(`${outdir}/catalogue.json`, json)
}

export const bundle = async (outdir = `${cli}dist`, only = []) => {
  const handlers = (await readdir(`${cli}src/handlers`)).filter((file) => file.endsWith(".ts")).map((file) => file.slice(0, -3))
  const all = [...handlers, "completions"]
  const unknown = only.filter((name) => !all.includes(name))
  if (unknown.length > 0) throw new Error(`bundle: no program ${unknown.join(", ")} (the programs are ${all.join(", ")})`)
  await rm(`${outdir}/programs`, { recursive: true, force: true })
  await mkdir(outdir, { recursive: true })
  // One build after another: each esbuild build already runs on every core, and builds started together contend
  // (on two cores, all nine at once took 18 s and 35 s of CPU; one after another 10–12 s and 19–22 s).
  const builds = [
    () => build({ ...common, entryPoints: { bin: "src/bin.ts" }, outdir }),
    ...(only.length === 0 ? all : only).map((name) => () => build(program(outdir, name))),
    () => catalogue(outdir)
  ]
  const results = []
  for (const next of builds) results.push(await next())
  await chmod(`${outdir}/bin.js`, 0o755)
  if (process.env.AGENTFX_BUNDLE_META !== undefined) {
    await writeFile(process.env.AGENTFX_BUNDLE_META, JSON.stringify(results.flatMap((result) => (result?.metafile === undefined ? [] : [result.metafile]))))
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [outdir, ...only] = process.argv.slice(2)
  await bundle(outdir === undefined ? undefined : resolve(outdir), only)
}
