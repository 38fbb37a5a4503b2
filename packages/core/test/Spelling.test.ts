import { describe, expect, it } from "@effect/vitest"
import * as Spelling from "@agentfx/core/Spelling"

describe("Spelling", () => {
  it("distance counts insertions, deletions, substitutions and swaps of neighbours", () => {
    expect(Spelling.distance("functon_name", "function_name")).toBe(1)
    expect(Spelling.distance("jsno", "json")).toBe(1)
    expect(Spelling.distance("kitten", "sitting")).toBe(3)
    expect(Spelling.distance("", "abc")).toBe(3)
    expect(Spelling.distance("same", "same")).toBe(0)
  })

  it("closest allows two edits from five letters on, one below, and prefers a candidate the word starts", () => {
    expect(Spelling.closest("functon_name", ["arguments", "function_name"])).toBe("function_name")
    expect(Spelling.closest("sys", ["yes", "json"])).toBeUndefined()
    expect(Spelling.closest("jsno", ["json", "junit"])).toBe("json")
    expect(Spelling.closest("valid-waranty", ["invalid-warranty", "valid-warranty"])).toBe("valid-warranty")
    expect(Spelling.closest("conc", ["concurrency", "cone"])).toBe("concurrency")
    expect(Spelling.closest("xyzzy", [])).toBeUndefined()
  })

  it("didYouMean ends a message with the suggestion, or with nothing", () => {
    expect(Spelling.didYouMean("serial_numbr", ["serial_number", "model"])).toBe(' (did you mean "serial_number"?)')
    expect(Spelling.didYouMean("zzz", ["serial_number"])).toBe("")
  })

  it("a suggestion comes within 1 edit for a word under 5 letters, 2 from 5 on, and for a prefix of 3 letters or more", () => {
    const names = ["json", "verbose", "concurrency"]
    expect(Spelling.closest("jsn", names)).toBe("json")
    expect(Spelling.closest("jn", names)).toBeUndefined()
    expect(Spelling.closest("verbos", names)).toBe("verbose")
    expect(Spelling.closest("vrbse", names)).toBe("verbose")
    expect(Spelling.closest("vrbs", names)).toBeUndefined()
    expect(Spelling.closest("concurency", names)).toBe("concurrency")
    expect(Spelling.closest("cncurrncy", names)).toBe("concurrency")
    expect(Spelling.closest("cncrrncy", names)).toBeUndefined()
    expect(Spelling.closest("con", names)).toBe("concurrency")
    expect(Spelling.closest("co", names)).toBeUndefined()
  })
})
