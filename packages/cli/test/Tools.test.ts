import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { basename } from "node:path"
import * as Builtins from "../src/Builtins.js"
import { agentfx } from "./support/cli.js"
import { shouter } from "./support/mcpServers.js"

const names = ["clock", "calculator", "read_file", "list_dir", "fetch_url"]

describe("agentfx tools", () => {
  it.scopedLive("lists every built-in tool with its description and parameter JSON Schema", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(["tools"])
      expect(result.code).toBe(0)
      const headings = result.stdout.split("\n").filter((line) => /^\w+ — /.test(line)).map((line) => line.split(" — ")[0])
      expect(headings).toEqual(names)
      expect(result.stdout).toContain("read_file — Reads a UTF-8 text file")
      expect(result.stdout).toContain("offered: only with --allow-host HOST (repeatable); asks for approval before each call unless --yes")
      expect(result.stdout).toMatch(/calculator — [^\n]+\n {2}offered: always\n {2}parameters:\n {4}\{\n {6}"type": "object"/)
    })
  )

  it.scopedLive("--json gives the same list as data", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(["tools", "--json"])
      expect(result.code).toBe(0)
      const tools = JSON.parse(result.stdout) as Array<{ name: string; description: string; parameters: { type: string; required?: Array<string>; properties: Record<string, unknown> } }>
      expect(tools.map((tool) => tool.name)).toEqual(names)
      const readFile = tools.find((tool) => tool.name === "read_file")!
      expect(readFile.parameters.type).toBe("object")
      expect(readFile.parameters.required).toEqual(["path"])
      expect(Object.keys(tools.find((tool) => tool.name === "fetch_url")!.parameters.properties)).toEqual(["url"])
      for (const tool of tools) expect(tool.description.length).toBeGreaterThan(10)
    })
  )

  it.live("--mcp: each of the server's tools follows the built-in ones, with its description, parameters and when it is offered", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(["tools", "--json", "--mcp", shouter.line])
      expect(result.code).toBe(0)
      const tools = JSON.parse(result.stdout) as Array<unknown>
      expect(tools.slice(names.length)).toStrictEqual([
        {
          name: "shout",
          description: "Shouts a word",
          parameters: { type: "object", properties: { word: { type: "string" } } },
          availability:
            `from the MCP server ${basename(process.execPath)}; asks for approval before each call unless --yes: its server does not mark it read-only or non-destructive; its server does not mark it closed-world`
        }
      ])
    }))
})

describe("the built-in tools module", () => {
  const named = (options: Builtins.Options) => Builtins.tools(options).map((tool) => [tool.name, tool.needsApproval({})])
  const always = [["clock", false], ["calculator", false], ["read_file", false], ["list_dir", false]]

  it("fetch_url only with an allowed host or fetchAlways, asking first unless approval is false", () => {
    expect([
      named({ root: ".", allowHosts: [] }),
      named({ root: ".", allowHosts: [], fetchAlways: false }),
      named({ root: ".", allowHosts: [], fetchAlways: true }),
      named({ root: ".", allowHosts: ["example.com"] }),
      named({ root: ".", allowHosts: ["example.com"], approval: false })
    ]).toStrictEqual([always, always, [...always, ["fetch_url", true]], [...always, ["fetch_url", true]], [...always, ["fetch_url", false]]])
  })

  it("names, the catalogue agentfx tools lists and a registry of the tools each name the five in order; each says when it is offered, fetch_url in the CLI's words", () => {
    const descriptions = Object.fromEntries(Builtins.tools({ root: ".", allowHosts: [], fetchAlways: true }).map((tool) => [tool.name, tool.description]))
    expect([Builtins.names, Builtins.registry({ root: ".", allowHosts: ["example.com"] }).names]).toStrictEqual([names, names])
    expect(Builtins.registry({ root: ".", allowHosts: [] }).names).toStrictEqual(names.slice(0, 4))
    const confined = "always; confined to --root (default: the current directory)"
    expect(Builtins.catalogue.map((entry) => [entry.name, entry.description, entry.availability])).toStrictEqual([
      ["clock", descriptions["clock"], "always"],
      ["calculator", descriptions["calculator"], "always"],
      ["read_file", descriptions["read_file"], confined],
      ["list_dir", descriptions["list_dir"], confined],
      [
        "fetch_url",
        "Fetches a web page or API response with an HTTP GET to an allowed host. Returns status, content type and body text.",
        "only with --allow-host HOST (repeatable); asks for approval before each call unless --yes"
      ]
    ])
    // The catalogue says fetch_url in the CLI's own words: the tool's description names the hosts it was made with ("hosts: none").
    expect(descriptions["fetch_url"]).not.toBe(Builtins.catalogue[4]!.description)
  })

  it.effect("a stand-in is declared as the scenario declares it, and every call fails saying to mock it", () =>
    Effect.gen(function* () {
      const declaration = { name: "notify", description: "Notifies someone", parameters: { type: "object", properties: { message: { type: "string" } }, required: ["message"] } }
      const tool = Builtins.standIn(declaration as never)
      expect([tool.name, tool.description, tool.declaration.parameters]).toStrictEqual(["notify", "Notifies someone", declaration.parameters])
      const failure = yield* Effect.flip(tool.run({ message: "hi" }, { callId: "c1", name: "notify" } as never))
      expect([failure.defect, (failure.cause as { readonly message: string }).message, Builtins.notImplementedMessage("notify")]).toStrictEqual([
        false,
        Builtins.notImplementedMessage("notify"),
        '"notify" is not a built-in tool of the agentfx CLI, so it has no implementation here: mock this function in the eval case (mock_function_responses.notify)'
      ])
    }))
})
