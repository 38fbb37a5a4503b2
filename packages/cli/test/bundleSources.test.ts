/**
 * The bundle's resolution of our packages (scripts/agentfxSources.mjs): a command that imports one namespace of a
 * package loads that module and what it imports, not every module the package's index re-exports.
 */
import { describe, expect, it } from "@effect/vitest"
import { build } from "esbuild"
import type { Metafile } from "esbuild"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { sourcesPlugin } from "../../../scripts/agentfxSources.mjs"

const packages = fileURLToPath(new URL("../..", import.meta.url))
const cli = fileURLToPath(new URL("..", import.meta.url))

/** The source files whose code is in `entry`'s output or in the chunks it imports statically. */
const loadedBy = (metafile: Metafile, entry: string): ReadonlyArray<string> => {
  const outputs = metafile.outputs
  const start = Object.keys(outputs).find((file) => outputs[file]!.entryPoint === entry)
  if (start === undefined) throw new Error(`no output for ${entry}`)
  const seen = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    for (const imported of outputs[file]!.imports) if (imported.kind === "import-statement" && !imported.external) visit(imported.path)
  }
  visit(start)
  return [...seen].flatMap((file) => Object.entries(outputs[file]!.inputs).filter(([, input]) => input.bytesInOutput > 0).map(([input]) => input))
}

describe("the bundle's sources", () => {
  it("a command importing the built-in tools from @agentfx/tools loads those modules, not the eval harness or the YAML parser another command uses", async () => {
    // Two commands in one split build, as scripts/bundle.mjs builds them: the built-in tools, and eval.
    const result = await build({
      absWorkingDir: cli,
      entryPoints: ["src/Builtins.ts", "src/handlers/eval.ts"],
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20.19",
      outdir: path.join(os.tmpdir(), "agentfx-bundle-sources"),
      write: false,
      metafile: true,
      logLevel: "silent",
      plugins: [sourcesPlugin(packages)]
    })
    const builtins = loadedBy(result.metafile, "src/Builtins.ts")
    const named = (suffix: string) => builtins.some((input) => input.endsWith(suffix))
    expect(["tools/src/builtins/Calculator.ts", "tools/src/builtins/Files.ts", "core/src/Tool.ts"].filter((file) => !named(file))).toEqual([])
    expect(["tools/src/EvalRunner.ts", "tools/src/Scenario.ts", "tools/src/Cassette.ts", "core/src/LiveAgent.ts"].filter(named)).toEqual([])
    expect(builtins.filter((input) => input.includes("/yaml/"))).toEqual([])
    // eval still gets what it imports.
    expect(loadedBy(result.metafile, "src/handlers/eval.ts").some((input) => input.endsWith("tools/src/EvalReport.ts"))).toBe(true)
  }, 120_000)
})
