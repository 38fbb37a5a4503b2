/**
 * The install path a user takes, from the tarballs: packs every published package with `pnpm pack` (which rewrites
 * `workspace:*` to the version), checks each tarball (no workspace: range left, LICENSE and the built entry points
 * inside), installs them all with npm into an empty folder, then imports each library from there (no dev-only
 * import) and runs the installed `agentfx` as a user would: `--help`, `tools`, an offline `run`, a mistyped option.
 * Prints one line per check and exits 1 on the first failure.
 *
 *   npx -y pnpm@10 pack:check      (builds first; part of .ci/run)
 */
import { execFileSync, spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const packages = ["core", "emulator", "providers", "tools", "durable", "cli"]
const work = mkdtempSync(join(tmpdir(), "agentfx-pack-"))
const tarballs = join(work, "tarballs")
const app = join(work, "app")

let failed = false
const check = (name, ok, detail = "") => {
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${!ok && detail !== "" ? `\n${detail}` : ""}`)
  if (!ok) failed = true
}

try {
  for (const name of packages) {
    execFileSync("npx", ["-y", "pnpm@10", "pack", "--pack-destination", tarballs], { cwd: join(root, "packages", name), stdio: ["ignore", "ignore", "inherit"] })
  }
  const files = readdirSync(tarballs).filter((file) => file.endsWith(".tgz"))
  check(`${packages.length} tarballs packed`, files.length === packages.length, files.join(", "))
  for (const file of files) {
    const listing = execFileSync("tar", ["-tzf", join(tarballs, file)], { encoding: "utf8" }).split("\n")
    const manifest = execFileSync("tar", ["-xzOf", join(tarballs, file), "package/package.json"], { encoding: "utf8" })
    check(`${file}: no workspace: range left`, !manifest.includes("workspace:"), manifest)
    check(`${file}: LICENSE and dist/index.js inside`, listing.includes("package/LICENSE") && listing.includes("package/dist/index.js"), listing.join("\n"))
  }

  execFileSync("mkdir", ["-p", app])
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "agentfx-pack-check", private: true, type: "module" }))
  const install = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...files.map((file) => join(tarballs, file))], {
    cwd: app,
    encoding: "utf8"
  })
  check("npm install of the tarballs into an empty folder", install.status === 0, install.stderr)

  // No key: the installed command runs offline against its emulator, as on a newcomer's machine.
  const env = { ...process.env, NO_COLOR: "1" }
  for (const key of ["GEMINI_API_KEY", "GOOGLE_API_KEY", "ZAI_API_KEY", "OPENAI_API_KEY", "GEMINI_BASE_URL", "FORCE_COLOR"]) delete env[key]
  for (const entry of ["@agentfx/core", "@agentfx/core/testing", "@agentfx/core/loop", "@agentfx/emulator", "@agentfx/providers", "@agentfx/tools", "@agentfx/durable", "@agentfx/cli"]) {
    const imported = spawnSync(process.execPath, ["--input-type=module", "-e", `await import(${JSON.stringify(entry)})`], { cwd: app, env, encoding: "utf8" })
    check(`import ${entry} from the installed packages`, imported.status === 0 && imported.stdout === "" && imported.stderr === "", imported.stderr)
  }

  // The bin as npm linked it, executed directly: its exec bit came through.
  const agentfx = (...args) => spawnSync(join(app, "node_modules", ".bin", "agentfx"), args, { cwd: app, env, encoding: "utf8", input: "" })
  const help = agentfx("--help")
  check("agentfx --help: exit 0, usage on stdout", help.status === 0 && help.stdout.includes("Usage: agentfx") && help.stderr === "", `${help.status}\n${help.stdout}${help.stderr}`)
  const tools = agentfx("tools", "--json")
  check("agentfx tools --json: exit 0, the catalogue as JSON", tools.status === 0 && Array.isArray(JSON.parse(tools.stdout || "null")), `${tools.status}\n${tools.stderr}`)
  const run = agentfx("run", "what is 2 + 3?")
  check("agentfx run, offline: exit 0, an answer on stdout", run.status === 0 && run.stdout.includes("5"), `${run.status}\n${run.stdout}${run.stderr}`)
  // The durable engine from the installed packages: the SQLite store's native module found where npm put it.
  const durable = agentfx("--log-level", "error", "run", "--durable", "--store", join(app, "runs.db"), "what is 2 + 3?")
  check("agentfx run --durable, offline: exit 0, an answer on stdout, the run in its store", durable.status === 0 && durable.stdout.includes("5"), `${durable.status}\n${durable.stdout}${durable.stderr}`)
  const dashes = agentfx("--", "--version")
  check("agentfx -- --version (as a package script passes it): agentfx 0.1.0", dashes.status === 0 && dashes.stdout === "agentfx 0.1.0\n", `${dashes.status}\n${dashes.stdout}${dashes.stderr}`)
  const typo = agentfx("run", "--jsno", "hi")
  check("agentfx run --jsno: exit 2, did you mean --json", typo.status === 2 && typo.stderr.includes("did you mean --json"), `${typo.status}\n${typo.stderr}`)
} catch (error) {
  check("pack check ran to the end", false, error instanceof Error ? error.message : String(error))
} finally {
  rmSync(work, { recursive: true, force: true })
}
console.log(failed ? "pack check: failed" : "pack check: the tarballs install and agentfx runs from them")
process.exit(failed ? 1 : 0)
