import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const packages = fileURLToPath(new URL("../../", import.meta.url))

const sources = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []
  )

const importsOf = (file: string): Array<string> =>
  [...readFileSync(file, "utf8").matchAll(/(?:^|\n)\s*(?:import|export)[^"'\n]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)].map((match) => match[1] ?? match[2]!)

describe("package boundaries (the emulator is a check only if it shares nothing with the clients)", () => {
  it("no file of @agentfx/providers imports a server, or the emulator", () => {
    const files = sources(join(packages, "providers/src"))
    expect(files.length).toBeGreaterThan(10)
    const offending = files.flatMap((file) =>
      importsOf(file)
        .filter((from) => /^(node:)?(http|https|net)$|^ws$|^@agentfx\/emulator|\/emulator\//.test(from))
        .map((from) => `${file}: ${from}`)
    )
    expect(offending).toEqual([])
  })

  it("no file of @agentfx/emulator imports a provider layer or an SDK", () => {
    const files = sources(join(packages, "emulator/src"))
    expect(files.length).toBeGreaterThan(10)
    const offending = files.flatMap((file) =>
      importsOf(file)
        .filter((from) => /^@agentfx\/providers|\/providers\/|^@google\/genai|^openai(\/|$)/.test(from))
        .map((from) => `${file}: ${from}`)
    )
    expect(offending).toEqual([])
  })

  it("the check sees imports: it finds the emulator's own imports of core", () => {
    const imports = sources(join(packages, "emulator/src")).flatMap(importsOf)
    expect(imports).toContain("@agentfx/core")
    expect(imports).toContain("node:http")
  })
})
