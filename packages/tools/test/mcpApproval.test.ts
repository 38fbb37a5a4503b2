import { describe, expect, it } from "@effect/vitest"
import { askReason } from "../src/internal/mcpApproval.js"

// Whether an MCP tool asks before each call, from what its server says of it: as the built-in tools do.

describe("issue 35 item 5: askReason", () => {
  it("a tool runs without asking only when its server marks it read-only or non-destructive, and closed-world", () => {
    expect(askReason({ readOnlyHint: true, openWorldHint: false })).toBeUndefined()
    expect(askReason({ readOnlyHint: false, destructiveHint: false, openWorldHint: false })).toBeUndefined()
    // read-only outweighs a destructive hint, which only means something for a tool that is not read-only
    expect(askReason({ readOnlyHint: true, destructiveHint: true, openWorldHint: false })).toBeUndefined()
  })

  it("a destructive tool asks, and so does one reaching outside (as fetch_url does), each saying why; hints not given are the spec's cautious defaults", () => {
    expect(askReason({ readOnlyHint: false, destructiveHint: true, openWorldHint: false })).toBe("its server marks it destructive")
    expect(askReason({ readOnlyHint: true, openWorldHint: true })).toBe("its server marks it as reaching outside (open world)")
    expect(askReason({ readOnlyHint: true })).toBe("its server does not mark it closed-world")
    expect(askReason({ openWorldHint: false })).toBe("its server does not mark it read-only or non-destructive")
    expect(askReason({})).toBe("its server does not mark it read-only or non-destructive; its server does not mark it closed-world")
    expect(askReason(undefined)).toBe(askReason({}))
    expect(askReason({ destructiveHint: true, openWorldHint: true })).toBe("its server marks it destructive; its server marks it as reaching outside (open world)")
  })
})
