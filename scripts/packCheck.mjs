/**
 * The install path a user takes, from the tarballs: packs every published package with `pnpm pack` (which rewrites
 * `workspace:*` to the version) and checks
 *
 * - each tarball: no workspace: range left; LICENSE, README.md, CHANGELOG.md and the built entry points inside;
 *   `publint` and `attw` (ES modules only, as the packages are) find no problem;
 * - the CLI alone: no dependencies but the optional native SQLite driver of durable runs (better-sqlite3, which
 *   compiles on install where no prebuilt binary is reachable), `npm i -g` of its tarball installs one package of at
 *   most 30 MB beside that driver, whose `agentfx --help` works (and whose `run --durable`, the driver not built or
 *   left out, says in one line what it lacks), and `npx ./agentfx-cli-x.y.z.tgz --help` works;
 * - all of them installed with npm into an empty folder: each library imports (no dev-only import), and the
 *   installed `agentfx` runs as a user runs it: `--help`, `tools`, an offline `run`, a mistyped option;
 * - the READMEs as a newcomer follows them (the root one, then each package's), each in an empty folder of its own:
 *   every block marked `<!-- runnable -->`, in order —
 *   `sh` blocks line by line (the `@agentfx/…` names, not published yet, stand for their tarballs; everything else
 *   comes from the registry), `ts` blocks typechecked against what was installed and then run with node. They run
 *   offline: a local OTLP collector stands in for the tracing backend (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), and
 *   the spans of a block that traces must reach it.
 *
 * Prints one line per check and exits 1 if any failed.
 *
 *   npx -y pnpm@10 pack:check      (builds first; part of .ci/run)
 */
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const packages = ["core", "emulator", "providers", "tools", "durable", "cli"]
const work = mkdtempSync(join(tmpdir(), "agentfx-pack-"))
const tarballs = join(work, "tarballs")
const app = join(work, "app")
const bin = (name) => join(root, "node_modules", ".bin", name)
const maxCliBytes = 30 * 1024 * 1024

let failed = false
const check = (name, ok, detail = "") => {
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${!ok && detail !== "" ? `\n${detail}` : ""}`)
  if (!ok) failed = true
}

/** No key and no colour: what runs here runs offline, as on a newcomer's machine. */
const env = { ...process.env, NO_COLOR: "1" }
for (const key of ["GEMINI_API_KEY", "GOOGLE_API_KEY", "ZAI_API_KEY", "OPENAI_API_KEY", "GEMINI_BASE_URL", "FORCE_COLOR"]) delete env[key]

/** A child run to its end without blocking this process (the collector below answers meanwhile). */
const run = (command, args, options) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { env, ...options, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk))
    child.on("error", (error) => resolve({ status: null, stdout, stderr: `${stderr}${error.message}` }))
    child.on("close", (status) => resolve({ status, stdout, stderr }))
  })

const emptyProject = (folder) => {
  mkdirSync(folder, { recursive: true })
  writeFileSync(join(folder, "package.json"), JSON.stringify({ name: "agentfx-pack-check", private: true, type: "module" }))
}

const du = (folder) => Number(execFileSync("du", ["-sb", folder], { encoding: "utf8" }).split("\t")[0])

/** The blocks marked runnable, in order: `{ lang, code, line }`. */
const runnableBlocks = (markdown) =>
  [...markdown.matchAll(/<!-- runnable -->\n\s*```(\w+)\n([\s\S]*?)\n```/g)].map((match) => ({
    lang: match[1],
    code: match[2],
    line: markdown.slice(0, match.index).split("\n").length
  }))

/** An OTLP/HTTP collector on a free loopback port that keeps what it receives. */
const collector = async () => {
  const received = []
  const server = createServer((request, response) => {
    let body = ""
    request.setEncoding("utf8").on("data", (chunk) => (body += chunk))
    request.on("end", () => {
      received.push({ path: request.url, body })
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { url: `http://127.0.0.1:${server.address().port}/v1/traces`, received, close: () => server.close() }
}

try {
  for (const name of packages) {
    execFileSync("npx", ["-y", "pnpm@10", "pack", "--pack-destination", tarballs], { cwd: join(root, "packages", name), stdio: ["ignore", "ignore", "inherit"] })
  }
  const files = readdirSync(tarballs).filter((file) => file.endsWith(".tgz"))
  check(`${packages.length} tarballs packed`, files.length === packages.length, files.join(", "))
  const tarball = Object.fromEntries(packages.map((name) => [name, join(tarballs, files.find((file) => file.startsWith(`agentfx-${name}-`)))]))

  for (const name of packages) {
    const file = tarball[name]
    const listing = execFileSync("tar", ["-tzf", file], { encoding: "utf8" }).split("\n")
    const manifest = execFileSync("tar", ["-xzOf", file, "package/package.json"], { encoding: "utf8" })
    const entry = name === "cli" ? "package/dist/bin.js" : "package/dist/index.js"
    check(`${name}: no workspace: range left`, !manifest.includes("workspace:"), manifest)
    const wanted = ["package/LICENSE", "package/README.md", "package/CHANGELOG.md", entry]
    check(`${name}: ${wanted.map((path) => path.slice("package/".length)).join(", ")} inside`, wanted.every((path) => listing.includes(path)), listing.join("\n"))
    const publint = spawnSync(bin("publint"), ["run", "--strict", file], { encoding: "utf8" })
    check(`${name}: publint finds nothing`, publint.status === 0 && publint.stdout.includes("All good!"), `${publint.stdout}${publint.stderr}`)
    // ES modules only, as DESIGN.md says: the node10 and require() resolutions are out of scope, not problems (the
    // profile leaves them out of attw's exit code; the JSON report lists them all, so the exit code is what counts).
    const attw = spawnSync(bin("attw"), ["--profile", "esm-only", "--no-color", file], { encoding: "utf8" })
    const untyped = attw.stdout.includes("This package does not contain types.")
    check(`${name}: attw finds no problem${untyped ? " (a command: no types to check)" : ""}`, attw.status === 0 && (untyped ? name === "cli" : attw.stdout.includes("🟢")), `${attw.stdout}${attw.stderr}`)
  }

  // The build leaves tsc's contract modules beside their JSON Schemas (the workspace's index imports them); the
  // tarball holds the schemas alone.
  const cliListing = execFileSync("tar", ["-tzf", tarball.cli], { encoding: "utf8" }).split("\n").filter((path) => path.startsWith("package/dist/contracts/"))
  check(
    `cli: dist/contracts/ holds the ${cliListing.length} JSON Schemas and nothing else`,
    cliListing.length > 0 && cliListing.every((path) => path.endsWith(".schema.json")),
    cliListing.join("\n")
  )

  // The CLI is one self-contained package: what it bundles it does not depend on.
  const cliManifest = JSON.parse(execFileSync("tar", ["-xzOf", tarball.cli, "package/package.json"], { encoding: "utf8" }))
  check(
    "cli: no runtime dependencies but the optional better-sqlite3",
    Object.keys({ ...cliManifest.dependencies, ...cliManifest.peerDependencies }).length === 0 && JSON.stringify(Object.keys(cliManifest.optionalDependencies ?? {})) === '["better-sqlite3"]',
    JSON.stringify(cliManifest, null, 2)
  )
  // A global install gets the optional driver whatever it is told: npm ignores --omit=optional when it installs a
  // tarball globally (npm/cli#8284). Where the driver's prebuilt binary is not reachable npm compiles it, and where
  // that fails it leaves the driver out. Installed here with install scripts off, as where the binary was neither
  // fetched nor built: the command, and beside it the driver's files without a binary.
  const withoutOptional = { ...env, npm_config_omit: "optional" }
  const global = join(work, "global")
  const installGlobal = spawnSync("npm", ["install", "--global", "--ignore-scripts", "--prefix", global, "--no-audit", "--no-fund", "--loglevel=error", tarball.cli], { encoding: "utf8" })
  check("npm i -g of the cli tarball (install scripts off: better-sqlite3 not built)", installGlobal.status === 0, installGlobal.stderr)
  const tree = JSON.parse(spawnSync("npm", ["ls", "--global", "--prefix", global, "--all", "--json"], { encoding: "utf8" }).stdout || "{}")
  const topLevel = Object.keys(tree.dependencies ?? {})
  const cliDependencies = Object.keys(tree.dependencies?.["@agentfx/cli"]?.dependencies ?? {})
  check(
    "npm i -g of the cli: one package, whose only dependency is the optional better-sqlite3",
    JSON.stringify(topLevel) === '["@agentfx/cli"]' && JSON.stringify(cliDependencies) === '["better-sqlite3"]',
    JSON.stringify(tree, null, 2).slice(0, 2000)
  )
  const cliFolder = join(global, "lib", "node_modules", "@agentfx", "cli")
  const size = du(cliFolder) - du(join(cliFolder, "node_modules"))
  const total = du(join(global, "lib", "node_modules"))
  check(`npm i -g of the cli: the command ${(size / 1024 / 1024).toFixed(1)} MB on disk, at most 30 MB (${(total / 1024 / 1024).toFixed(1)} MB with the driver unbuilt)`, size <= maxCliBytes)
  const globalHelp = spawnSync(join(global, "bin", "agentfx"), ["--help"], { env, encoding: "utf8" })
  check("the globally installed agentfx --help: exit 0, usage on stdout", globalHelp.status === 0 && globalHelp.stdout.includes("Usage: agentfx"), `${globalHelp.status}\n${globalHelp.stderr}`)
  // Its error is one line naming the driver (after the status lines run prints on stderr before a run: the provider,
  // the run), both with the driver unbuilt and with it left out, as npm leaves an optional dependency that failed.
  const durableWithout = (what, advice) => {
    const ran = spawnSync(join(global, "bin", "agentfx"), ["run", "--durable", "--store", join(work, "global-runs.db"), "hi"], { env, encoding: "utf8" })
    const errors = ran.stderr.split("\n").filter((line) => line.startsWith("agentfx: "))
    check(
      `the globally installed agentfx with better-sqlite3 ${what}: run --durable exits 2, its error one line naming the driver`,
      ran.status === 2 && ran.stdout === "" && errors.length === 1 && errors[0].includes("better-sqlite3") && errors[0].includes(advice) && ran.stderr.endsWith(`${errors[0]}\n`),
      `${ran.status}\n${ran.stdout}${ran.stderr}`
    )
  }
  durableWithout("not built", "npm rebuild better-sqlite3")
  rmSync(join(cliFolder, "node_modules", "better-sqlite3"), { recursive: true, force: true })
  durableWithout("left out", "npm i better-sqlite3@12")
  const npxFolder = join(work, "npx")
  emptyProject(npxFolder)
  execFileSync("cp", [tarball.cli, npxFolder])
  const npx = spawnSync("npx", ["--yes", `./${files.find((file) => file.startsWith("agentfx-cli-"))}`, "--help"], { cwd: npxFolder, env: withoutOptional, encoding: "utf8" })
  check("npx ./agentfx-cli-x.y.z.tgz --help: exit 0, usage on stdout", npx.status === 0 && npx.stdout.includes("Usage: agentfx"), `${npx.status}\n${npx.stdout}${npx.stderr}`)

  emptyProject(app)
  const install = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...packages.map((name) => tarball[name])], { cwd: app, encoding: "utf8" })
  check("npm install of the tarballs into an empty folder", install.status === 0, install.stderr)
  for (const entry of ["@agentfx/core", "@agentfx/core/testing", "@agentfx/core/loop", "@agentfx/emulator", "@agentfx/providers", "@agentfx/tools", "@agentfx/tools/mcp", "@agentfx/durable"]) {
    const imported = spawnSync(process.execPath, ["--input-type=module", "-e", `await import(${JSON.stringify(entry)})`], { cwd: app, env, encoding: "utf8" })
    check(`import ${entry} from the installed packages`, imported.status === 0 && imported.stdout === "" && imported.stderr === "", imported.stderr)
  }

  // The bin as npm linked it, executed directly: its exec bit came through.
  const agentfx = (...args) => spawnSync(join(app, "node_modules", ".bin", "agentfx"), args, { cwd: app, env, encoding: "utf8", input: "" })
  const help = agentfx("--help")
  check("agentfx --help: exit 0, usage on stdout", help.status === 0 && help.stdout.includes("Usage: agentfx") && help.stderr === "", `${help.status}\n${help.stdout}${help.stderr}`)
  const tools = agentfx("tools", "--json")
  check("agentfx tools --json: exit 0, the catalogue as JSON", tools.status === 0 && Array.isArray(JSON.parse(tools.stdout || "null")), `${tools.status}\n${tools.stderr}`)
  const offline = agentfx("run", "what is 2 + 3?")
  check("agentfx run, offline: exit 0, an answer on stdout", offline.status === 0 && offline.stdout.includes("5"), `${offline.status}\n${offline.stdout}${offline.stderr}`)
  // The durable engine from the installed packages: the SQLite store's native module found where npm put it.
  const durable = agentfx("--log-level", "error", "run", "--durable", "--store", join(app, "runs.db"), "what is 2 + 3?")
  check("agentfx run --durable, offline: exit 0, an answer on stdout, the run in its store", durable.status === 0 && durable.stdout.includes("5"), `${durable.status}\n${durable.stdout}${durable.stderr}`)
  const dashes = agentfx("--", "--version")
  check("agentfx -- --version (as a package script passes it): agentfx 0.1.0", dashes.status === 0 && dashes.stdout === "agentfx 0.1.0\n", `${dashes.status}\n${dashes.stdout}${dashes.stderr}`)
  // The --json contracts: each JSON Schema the package publishes resolves by its public name, and the installed
  // agentfx's own output has the keys its schema requires and no other (at the top: the Effect Schemas, read
  // exactly, check the rest in the tests).
  const contracts = JSON.parse(readFileSync(join(root, "packages", "cli", "package.json"), "utf8")).publishConfig.exports
  const schemaOf = (subpath) => {
    const resolved = spawnSync(process.execPath, ["--input-type=module", "-e", `process.stdout.write(import.meta.resolve(${JSON.stringify(`@agentfx/cli/${subpath.slice(2)}`)}))`], { cwd: app, env, encoding: "utf8" })
    return resolved.status === 0 ? JSON.parse(readFileSync(fileURLToPath(resolved.stdout), "utf8")) : undefined
  }
  const published = Object.keys(contracts).filter((subpath) => subpath.startsWith("./contracts/"))
  check(
    `@agentfx/cli/contracts/*.schema.json: ${published.length} JSON Schemas resolve from the installed package`,
    published.length > 0 && published.every((subpath) => schemaOf(subpath)?.$schema === "http://json-schema.org/draft-07/schema#"),
    published.join("\n")
  )
  const toolsSchema = schemaOf("./contracts/tools.schema.json")
  const toolSchema = toolsSchema?.$defs?.Tool
  const firstTool = tools.status === 0 ? JSON.parse(tools.stdout)[0] : undefined
  check(
    "agentfx tools --json: each tool has the keys tools.schema.json requires, and no other",
    toolSchema !== undefined && firstTool !== undefined && JSON.stringify(Object.keys(firstTool).sort()) === JSON.stringify([...toolSchema.required].sort()) && toolSchema.additionalProperties === false,
    JSON.stringify({ toolSchema, firstTool }, null, 2)
  )
  const typo = agentfx("run", "--jsno", "hi")
  check("agentfx run --jsno: exit 2, did you mean --json", typo.status === 2 && typo.stderr.includes("did you mean --json"), `${typo.status}\n${typo.stderr}`)

  // The READMEs, each followed in an empty folder of its own: the root one, then each package's (the tarball's).
  const readmes = ["README.md", ...packages.map((name) => `packages/${name}/README.md`)]
  const otlp = await collector()
  try {
    for (const [n, readme] of readmes.entries()) {
      const folder = join(work, `readme-${n}`)
      emptyProject(folder)
      const blocks = runnableBlocks(readFileSync(join(root, readme), "utf8"))
      check(`${readme}: runnable blocks (${blocks.map((block) => `${block.lang} at line ${block.line}`).join(", ") || "none"})`, blocks.length > 0 || readme.includes("/cli/"))
      for (const [index, block] of blocks.entries()) {
        const where = `${readme} line ${block.line}`
        if (block.lang === "sh") {
          for (const line of block.code.split("\n").filter((line) => line.trim() !== "" && !line.trim().startsWith("#"))) {
            const local = line.replace(/@agentfx\/([a-z]+)(?=\s|$)/g, (name, pkg) => tarball[pkg] ?? name)
            const result = await run("bash", ["-c", local], { cwd: folder })
            check(`${where}: ${line}`, result.status === 0, `${local}\n${result.stdout}${result.stderr}`)
          }
        } else if (block.lang === "ts") {
          const file = `block-${index}`
          writeFileSync(join(folder, `${file}.mts`), `${block.code}\n`)
          writeFileSync(join(folder, `${file}.mjs`), `${block.code}\n`)
          const tsc = await run(process.execPath, [
            join(root, "node_modules", "typescript", "bin", "tsc"),
            ...["--noEmit", "--strict", "--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext", "--skipLibCheck"],
            ...["--types", "node", "--typeRoots", join(root, "node_modules", "@types"), `${file}.mts`]
          ], { cwd: folder })
          check(`${where}: the ts block typechecks against the installed packages`, tsc.status === 0, `${tsc.stdout}${tsc.stderr}`)
          const node = await run(process.execPath, [`${file}.mjs`], { cwd: folder, env: { ...env, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlp.url } })
          check(`${where}: the ts block runs, exit 0, nothing on stderr`, node.status === 0 && node.stderr === "", `${node.status}\n${node.stdout}${node.stderr}`)
          if (block.code.includes("OtlpTracer")) {
            const spans = otlp.received.map((request) => request.body).join("\n")
            check(`${where}: its spans reached the collector (invoke_agent, chat, execute_tool)`, ["invoke_agent", "chat", "execute_tool"].every((span) => spans.includes(span)), spans.slice(0, 2000))
          }
        } else {
          check(`${where}: a runnable block is sh or ts`, false, block.lang)
        }
      }
    }
  } finally {
    otlp.close()
  }
} catch (error) {
  check("pack check ran to the end", false, error instanceof Error ? error.message : String(error))
} finally {
  rmSync(work, { recursive: true, force: true })
}
console.log(failed ? "pack check: failed" : "pack check: the tarballs install, agentfx runs from them, and the READMEs' runnable blocks run")
process.exit(failed ? 1 : 0)
