import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { agentfx } from "./support/cli.js"

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
})
