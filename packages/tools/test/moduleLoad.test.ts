/**
 * Every module of the package loads. Imported inside a test, not at the top: a module that throws while it is built
 * (a Schema at module level, say) then fails a test here, instead of leaving every test file that imports it with
 * no test run at all, which mutation testing would count as a mutant nobody caught.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync } from "node:fs"
import { fileURLToPath } from "node:url"

const src = fileURLToPath(new URL("../src/", import.meta.url))
const modules = readdirSync(src, { recursive: true, encoding: "utf8" })
  .filter((path) => path.endsWith(".ts"))
  .sort()

describe("the tools modules load", () => {
  it("finds the package's modules", () => {
    expect(modules.length).toBeGreaterThanOrEqual(27)
  })

  for (const path of modules) {
    it(`${path} loads and exports something`, async () => {
      const module: Record<string, unknown> = await import(`${src}${path}`)
      expect(Object.keys(module).length).toBeGreaterThan(0)
    })
  }
})
