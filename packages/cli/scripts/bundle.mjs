/**
 * Bundles the `agentfx` executable: dist/bin.js holds the command specs alone (it answers --help and argument
 * errors), and dist/programs/NAME.js each command with everything it reaches — our packages from their
 * sources, effect, the provider SDKs in chunks loaded when a provider is built. Node starts a few large files
 * much faster than a thousand small ones, and a command loads nothing another command needs. It is one build, split
 * into chunks (dist/chunks/): what several commands use is one file they share, so the package holds one copy of
 * each dependency and needs none installed beside it.
 *
 *   node packages/cli/scripts/bundle.mjs [OUTDIR [PROGRAM …]]   (part of `npx -y pnpm@10 build`; OUTDIR defaults to dist)
 *
 * Naming programs (`run chat`, …) builds those alone besides bin.js, catalogue.json and contracts/.
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
 * The programs, one per command (`handlers/NAME.ts`) plus `completions` (the runtime alone), as virtual entry
 * points: each is its handler and the runtime, nothing else.
 */
const programSource = (name) =>
  name === "completions"
    ? 'import { run } from "./src/internal/node.ts"\nexport const start = (argv) => run(argv, () => Promise.reject(new Error("no command")))\n'
    : `import { handler } from "./src/handlers/${name}.ts"\nimport { run } from "./src/internal/node.ts"\nexport const start = (argv, shown) => run(argv, () => Promise.resolve({ handler }), shown)\n`

const programsPlugin = {
  name: "agentfx-programs",
  setup(build) {
    build.onResolve({ filter: /^agentfx-program:/ }, (args) => ({ path: args.path.slice("agentfx-program:".length), namespace: "agentfx-program" }))
    build.onLoad({ filter: /.*/, namespace: "agentfx-program" }, (args) => ({ contents: programSource(args.path), resolveDir: cli, loader: "js" }))
  }
}

/**
 * bin.js and every program in one build, split: code two entry points share is one chunk under chunks/, loaded by
 * those that import it, so the package holds one copy of everything. esbuild keeps in an entry point's own file
 * only the code that entry alone reaches, and each program imports only the chunks its own code needs: `tools`
 * still loads no eval harness, a command no provider SDK until it builds a provider (a dynamic import).
 */
const programs = (outdir, names) => ({
  ...common,
  plugins: [sources, programsPlugin],
  entryPoints: { bin: "src/bin.ts", ...Object.fromEntries(names.map((name) => [`programs/${name}`, `agentfx-program:${name}`])) },
  outdir,
  chunkNames: "chunks/[name]-[hash]",
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

/**
 * dist/contracts/NAME.schema.json: the JSON Schema of each `--json` document (`Contracts.jsonSchemas`), published
 * as `@agentfx/cli/contracts/NAME.schema.json` so that a script can check what it reads without this package's code.
 */
const contracts = async (outdir) => {
  const result = await build({
    ...common,
    metafile: false,
    write: false,
    stdin: {
      contents: 'import { jsonSchemas } from "./src/Contracts.ts"\nprocess.stdout.write(JSON.stringify(jsonSchemas()))\n',
      resolveDir: cli,
      sourcefile: "contracts.js",
      loader: "js"
    },
    outfile: "contracts.mjs"
  })
  const schemas = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-"], { input: result.outputFiles[0].text, encoding: "utf8" }))
  // The folder is also where tsc puts the contracts' modules (dist/contracts/*.js, which the package's index
  // imports): only the JSON Schemas of an earlier build are replaced, and only they are published (see `files`).
  await mkdir(`${outdir}/contracts`, { recursive: true })
  for (const file of await readdir(`${outdir}/contracts`)) if (file.endsWith(".schema.json")) await rm(`${outdir}/contracts/${file}`)
  for (const [name, schema] of Object.entries(schemas)) await writeFile(`${outdir}/contracts/${name}.schema.json`, `${JSON.stringify(schema, null, 2)}\n`)
}

export const bundle = async (outdir = `${cli}dist`, only = []) => {
  const handlers = (await readdir(`${cli}src/handlers`)).filter((file) => file.endsWith(".ts")).map((file) => file.slice(0, -3))
  const all = [...handlers, "completions"]
  const unknown = only.filter((name) => !all.includes(name))
  if (unknown.length > 0) throw new Error(`bundle: no program ${unknown.join(", ")} (the programs are ${all.join(", ")})`)
  await rm(`${outdir}/programs`, { recursive: true, force: true })
  await rm(`${outdir}/chunks`, { recursive: true, force: true })
  await mkdir(outdir, { recursive: true })
  const results = [await build(programs(outdir, only.length === 0 ? all : only)), await catalogue(outdir), await contracts(outdir)]
  await chmod(`${outdir}/bin.js`, 0o755)
  if (process.env.AGENTFX_BUNDLE_META !== undefined) {
    await writeFile(process.env.AGENTFX_BUNDLE_META, JSON.stringify(results.flatMap((result) => (result?.metafile === undefined ? [] : [result.metafile]))))
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [outdir, ...only] = process.argv.slice(2)
  await bundle(outdir === undefined ? undefined : resolve(outdir), only)
}
