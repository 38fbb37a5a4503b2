import { describe, expect, it } from "@effect/vitest"
import { Context } from "effect"
import * as Core from "../src/index.js"
import * as Testing from "../src/testing.js"

describe("service tags", () => {
  it("every Context.Tag key in core is unique", () => {
    const keys: Array<string> = []
    const visit = (module: Record<string, unknown>) => {
      for (const value of Object.values(module)) {
        if (Context.isTag(value)) keys.push(value.key)
      }
    }
    for (const module of Object.values(Core)) visit(module as Record<string, unknown>)
    for (const module of Object.values(Testing)) visit(module as Record<string, unknown>)
    expect(keys.length).toBeGreaterThanOrEqual(3)
    expect(new Set(keys).size).toBe(keys.length)
    expect(keys.every((key) => key.startsWith("@agentfx/core/"))).toBe(true)
  })
})
