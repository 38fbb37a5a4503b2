import { Registry } from "@agentfx/core"
import { Scenario } from "@agentfx/tools"
import * as Mcp from "@agentfx/tools/mcp"
import { NodeFileSystem } from "@effect/platform-node"
import * as FileSystem from "@effect/platform/FileSystem"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as NodePath from "node:path"
import { fanOut, tooLarge } from "./support/fanOut.js"
import { inline, logCapture, rawServer } from "./support/mcp.js"

// A schema whose definitions each use the next twice, 24 levels deep: 2.3 KB that took 746 MB and 41 s to inline
// when it came in a scenario file, and held `agentfx tools --mcp` past 60 s when an MCP server listed it. Inlining
// now stops at Dialect.bounds (2 MiB of JSON), on both paths a schema from outside takes.

/** A server offering `fan_out`, whose input schema fans out 24 levels, and `ping`. */
const server = () =>
  inline("fan", rawServer(`{ tools: [{ name: "fan_out", inputSchema: ${JSON.stringify(fanOut(24))} }, { name: "ping", inputSchema: { type: "object" } }] }`, ""))

describe.concurrent("a $ref fan-out of 24 levels from outside is refused at the inlining bound", () => {
  it.scoped("in a scenario file: a ScenarioFileError at the function's parameters, naming the function and saying the 2 MiB bound", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const file = NodePath.join(yield* fs.makeTempDirectoryScoped({ prefix: "agentfx-fan-out-" }), "fan-out.md")
      const parameters = JSON.stringify(fanOut(24))
      yield* fs.writeFileString(file, `---\nname: fan-out\ndescription: d\navailable_functions:\n  - name: fan_out\n    description: x\n    parameters: ${parameters}\n---\nBody.\n`)
      const error = yield* Effect.flip(Scenario.load(file, Registry.empty))
      expect(error).toEqual(new Scenario.ScenarioFileError({ file, line: 7, field: "available_functions[0].parameters", reason: `function "fan_out": ${tooLarge}` }))
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scopedLive("in an MCP listing: the tool is left out with a warning naming it, its server and the bound; the others are offered", () =>
    Effect.gen(function* () {
      const log = logCapture()
      const connection = yield* Effect.provide(Mcp.connect(server()), log.layer)
      expect(log.lines).toEqual([`WARN: fan offers "fan_out", left out: it cannot be declared (${tooLarge})`])
      expect((yield* connection.tools).map((tool) => tool.name)).toEqual(["ping"])
      expect(yield* connection.skipped).toEqual([{ name: "fan_out", reason: tooLarge }])
    }))

  it.scopedLive("in an MCP listing that names the tool in `only`: an McpError at list naming the tool and the bound", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Mcp.connect(server(), { only: ["fan_out"] }))
      expect(error).toMatchObject({ _tag: "McpError", server: "fan", phase: "list" })
      expect(error.message).toBe(`fan offers "fan_out", which cannot be declared (${tooLarge})`)
    }))
})
