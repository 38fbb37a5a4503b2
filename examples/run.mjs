/**
 * Runs one example by name, with tsx, the packages' public names resolved to their sources (tsconfig.run.json),
 * so no build is needed first:
 *
 *   npx -y pnpm@10 example scripted      (or gemini, glm, executor, live, mcp, evals, telemetry)
 *
 * Without a name, or with an unknown one, lists the examples (exit 2 for an unknown name).
 */
import { spawn } from "node:child_process"
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const here = fileURLToPath(new URL(".", import.meta.url))
const names = readdirSync(join(here, "src"))
  .filter((file) => file.endsWith(".ts"))
  .map((file) => file.replace(/\.ts$/, ""))
  .sort()
const [name] = process.argv.slice(2)
if (name === undefined || !names.includes(name)) {
  const usage = `usage: npx -y pnpm@10 example NAME, one of: ${names.join(", ")}`
  if (name === undefined) {
    console.log(usage)
    process.exit(0)
  }
  console.error(`unknown example "${name}"; ${usage}`)
  process.exit(2)
}
const tsx = join(here, "..", "node_modules", ".bin", "tsx")
const child = spawn(tsx, ["--tsconfig", join(here, "tsconfig.run.json"), join(here, "src", `${name}.ts`)], { stdio: "inherit" })
child.on("exit", (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)))
