import { describe, expect, it } from "@effect/vitest"
import { readdirSync } from "node:fs"
import { fileURLToPath } from "node:url"

// Each module of core is imported inside a test, not at this file's import: a module whose top level throws (a
// default built from a broken constant) then fails a test here instead of only failing other files' imports.
const src = fileURLToPath(new URL("../src/", import.meta.url))
const modules = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts")).sort()

describe("core's modules", () => {
  it.each(modules)("%s loads", async (file) => {
    // The path is known only at run time, so Vite cannot analyse the import; it is told so, rather than warning on stderr.
    const path = `../src/${file.replace(/\.ts$/, ".js")}`
    const loaded: unknown = await import(/* @vite-ignore */ path)
    expect(typeof loaded).toBe("object")
  })
})
