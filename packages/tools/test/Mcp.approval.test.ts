import { Approval, Executor, FunctionCall } from "@agentfx/core"
import * as Mcp from "@agentfx/tools/mcp"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { inline, rawServer } from "./support/mcp.js"

// Issue 35 item 5: an MCP tool asks before each call as the built-in tools do, by what its server says of it, and
// says where it comes from and why it was renamed.

const require = createRequire(import.meta.url)
const filesystemBin = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")), "dist", "index.js")

describe.concurrent("issue 35 item 5: MCP tools and approval", () => {
  it.scopedLive("server-filesystem: move_file and write_file (destructive) ask, its read tools do not; without an Approval service a move is refused and nothing moves", () =>
    Effect.gen(function* () {
      const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "agentfx-mcp-")))
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      fs.writeFileSync(path.join(dir, "a.txt"), "a\n")
      const registry = yield* Mcp.registry([Mcp.stdio(process.execPath, { args: [filesystemBin, dir], name: "fs" })])
      const asks = (name: string) => registry.tools.get(name)!.needsApproval({})
      expect(["move_file", "write_file", "edit_file"].map(asks)).toEqual([true, true, true])
      expect(["read_text_file", "list_directory", "create_directory"].map(asks)).toEqual([false, false, false])
      expect(Mcp.originOf(registry.tools.get("move_file")!)).toEqual({ server: "fs", tool: "move_file", asks: "its server marks it destructive", renamed: undefined })
      const move = FunctionCall.make({ id: "1", name: "move_file", args: { source: path.join(dir, "a.txt"), destination: path.join(dir, "b.txt") } })
      const refused = yield* Effect.flip(Executor.execute(registry, move))
      expect(refused).toMatchObject({ _tag: "ApprovalDenied", name: "move_file" })
      expect(fs.readdirSync(dir)).toEqual(["a.txt"])
      yield* Effect.provide(Executor.execute(registry, move), Approval.allowAll)
      expect(fs.readdirSync(dir)).toEqual(["b.txt"])
    }))

  it.scopedLive("a tool without annotations asks (the spec's defaults); one marked read-only and closed-world does not", () =>
    Effect.gen(function* () {
      const listing = JSON.stringify({
        tools: [
          { name: "bare", inputSchema: { type: "object" }, annotations: {} },
          { name: "safe", inputSchema: { type: "object" }, annotations: { readOnlyHint: true, openWorldHint: false } },
          { name: "outside", inputSchema: { type: "object" }, annotations: { readOnlyHint: true, openWorldHint: true } }
        ]
      })
      const registry = yield* Mcp.registry([inline("hints", rawServer(listing, `reply(m.id, { content: [{ type: "text", text: m.params.name }] })`))])
      expect(registry.names.map((name) => [name, registry.tools.get(name)!.needsApproval({})])).toEqual([
        ["bare", true],
        ["safe", false],
        ["outside", true]
      ])
      expect(yield* Executor.execute(registry, FunctionCall.make({ id: "1", name: "safe", args: {} }))).toBe("safe")
      expect(yield* Effect.flip(Executor.execute(registry, FunctionCall.make({ id: "2", name: "outside", args: {} })))).toMatchObject({ _tag: "ApprovalDenied" })
    }))
})

describe.concurrent("issue 35 item 5: where an MCP tool comes from", () => {
  const server = (name: string, tools: ReadonlyArray<string>) =>
    inline(name, rawServer(JSON.stringify({ tools: tools.map((tool) => ({ name: tool, inputSchema: { type: "object" } })) }), ""))

  it.scopedLive("its server and its own name; why it was renamed: a name made safe, a clash with another tool, several servers", () =>
    Effect.gen(function* () {
      const one = yield* Mcp.connect(server("solo", ["forecast.today", "read_file", "echo"]))
      const alone = yield* Mcp.toolsOf([one], ["read_file"])
      expect(alone.map((tool) => [tool.name, Mcp.originOf(tool)?.renamed])).toEqual([
        ["forecast_today", "made a name every provider accepts"],
        ["solo_read_file", "prefixed with its server's name: another tool is named read_file"],
        ["echo", undefined]
      ])
      expect(Mcp.originOf(alone[1]!)).toMatchObject({ server: "solo", tool: "read_file" })
      const two = yield* Mcp.toolsOf([one, yield* Mcp.connect(server("other", ["echo"]))])
      expect(two.map((tool) => [tool.name, Mcp.originOf(tool)?.server, Mcp.originOf(tool)?.renamed])).toEqual([
        ["solo_forecast_today", "solo", "made a name every provider accepts; prefixed with its server's name, as every tool is with several servers"],
        ["solo_read_file", "solo", "prefixed with its server's name, as every tool is with several servers"],
        ["solo_echo", "solo", "prefixed with its server's name, as every tool is with several servers"],
        ["other_echo", "other", "prefixed with its server's name, as every tool is with several servers"]
      ])
      // A tool made elsewhere has no origin here.
      expect(Mcp.originOf({ ...alone[2]! })).toBeUndefined()
    }))
})
