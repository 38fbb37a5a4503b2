import { describe, expect, it } from "@effect/vitest"
import { contentOf } from "../src/internal/mcpContent.js"

// What the model sees of an MCP tool result.

describe("contentOf", () => {
  it("the structured content when there is one, unless the result is an error", () => {
    expect(contentOf({ structuredContent: { celsius: 20 }, content: [{ type: "text", text: "20 °C" }] })).toEqual({ celsius: 20 })
    expect(contentOf({ structuredContent: { celsius: 20 }, content: [{ type: "text", text: "failed" }], isError: true })).toBe("failed")
    expect(contentOf({ structuredContent: { a: 1 }, isError: false })).toEqual({ a: 1 })
    // An error with nothing else to say says it in its structured content, not in an empty message.
    expect(contentOf({ structuredContent: { code: 3 }, content: [], isError: true })).toEqual({ code: 3 })
    expect(contentOf({ structuredContent: { code: 3 }, isError: true })).toEqual({ code: 3 })
    expect(contentOf({ content: [], isError: true })).toBe("")
  })

  it("all text: the pieces joined by new lines; nothing: an empty text", () => {
    expect(contentOf({ content: [{ type: "text", text: "one" }, { type: "text", text: "two" }] })).toBe("one\ntwo")
    expect(contentOf({})).toBe("")
    expect(contentOf({ content: [] })).toBe("")
  })

  it("mixed content: each piece described, media by type and size, resources by URI, the unknown by type", () => {
    const data = "a".repeat(8)
    // Strict, so a resource link without a name or a type has no such key (not one holding undefined).
    expect(contentOf({
      content: [
        { type: "text", text: "see" },
        { type: "image", data, mimeType: "image/png" },
        { type: "audio", data: "a".repeat(4), mimeType: "audio/wav" },
        { type: "resource_link", uri: "file:///a.txt" },
        { type: "resource_link", uri: "file:///b.txt", name: "b", mimeType: "text/plain" },
        { type: "resource", resource: { uri: "file:///c.txt", text: "cee", mimeType: "text/plain" } },
        { type: "resource", resource: { uri: "file:///d.bin", blob: data, mimeType: "application/octet-stream" } },
        { type: "resource", resource: { uri: "file:///e.bin" } },
        { type: "hologram" }
      ]
    })).toStrictEqual([
      "see",
      { type: "image", mimeType: "image/png", bytes: 6 },
      { type: "audio", mimeType: "audio/wav", bytes: 3 },
      { type: "resource_link", uri: "file:///a.txt" },
      { type: "resource_link", uri: "file:///b.txt", name: "b", mimeType: "text/plain" },
      { type: "resource", uri: "file:///c.txt", text: "cee" },
      { type: "resource", uri: "file:///d.bin", mimeType: "application/octet-stream", bytes: 6 },
      { type: "resource", uri: "file:///e.bin", mimeType: undefined, bytes: 0 },
      { type: "hologram" }
    ])
  })
})
