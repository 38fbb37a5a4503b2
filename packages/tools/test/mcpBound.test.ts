import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { LineReader, type Oversized, sizeSentence, sizeText, tooLargeAnswer, tooLargeOf } from "../src/internal/mcpBound.js"
import { McpError } from "@modelcontextprotocol/sdk/types.js"

// The bound on one MCP message: sizes as words, the answer put in place of one too large (and found again in the
// SDK's error), and the stdio reader that never holds a line past the bound.

/** A reader with bound `limit`, and what it gave. */
const reader = (limit: number) => {
  const lines: Array<string> = []
  const oversized: Array<Oversized> = []
  return { lines, oversized, reader: new LineReader(limit, { line: (text) => lines.push(text), oversized: (message) => oversized.push(message) }) }
}

describe("sizes", () => {
  it("in bytes, KiB, MiB or GiB, one decimal unless whole", () => {
    expect([0, 1, 1023, 1024, 1536, 10 * 1024 * 1024, 250 * 1000 * 1000, 3 * 1024 ** 3, 5000 * 1024 ** 3].map(sizeText)).toEqual([
      "0 bytes",
      "1 byte",
      "1023 bytes",
      "1 KiB",
      "1.5 KiB",
      "10 MiB",
      "238.4 MiB",
      "3 GiB",
      "5000 GiB"
    ])
    expect(sizeSentence({ bytes: 3 * 1024 * 1024, exact: true, limit: 1024 * 1024 })).toBe("3 MiB, more than the 1 MiB one message may hold")
    expect(sizeSentence({ bytes: 3 * 1024 * 1024, exact: false, limit: 1024 * 1024 })).toBe("more than the 1 MiB one message may hold (reading stopped there)")
  })

  it("the answer put in place of one too large is found again in the error the SDK makes of it, and nothing else is", () => {
    const size = { bytes: 5000, exact: true, limit: 1024 }
    const answer = tooLargeAnswer(7, size) as { error: { code: number; message: string; data: unknown } }
    expect(answer).toMatchObject({ jsonrpc: "2.0", id: 7, error: { message: "the answer is 4.9 KiB, more than the 1 KiB one message may hold: it was not read" } })
    expect(tooLargeOf(new McpError(answer.error.code, answer.error.message, answer.error.data))).toEqual(size)
    expect(tooLargeOf(new McpError(-32603, "internal", answer.error.data))).toBeUndefined()
    expect(tooLargeOf(new McpError(answer.error.code, "x", { agentfxTooLarge: { bytes: "5000", exact: true, limit: 1 } }))).toBeUndefined()
    expect(tooLargeOf(new McpError(answer.error.code, "x", { agentfxTooLarge: null }))).toBeUndefined()
    expect(tooLargeOf(new McpError(answer.error.code, "x", "data"))).toBeUndefined()
    expect(tooLargeOf(new McpError(answer.error.code, "x"))).toBeUndefined()
    expect(tooLargeOf(new Error("x"))).toBeUndefined()
    expect(tooLargeOf(null)).toBeUndefined()
  })
})

describe("LineReader", () => {
  it.prop("lines within the bound come out whole and in order, however the bytes are cut; blank lines and a CR before the newline are dropped", [
    fc.array(fc.string({ minLength: 1, maxLength: 20 }).filter((text) => !text.includes("\n") && text.trim() !== "" && !text.endsWith("\r")), { maxLength: 10 }),
    fc.array(fc.nat(), { maxLength: 10 })
  ], ([texts, cuts]) => {
    const { lines, oversized, reader: lineReader } = reader(64)
    const bytes = Buffer.from(texts.map((text, i) => `${text}${i % 2 === 0 ? "\r\n" : "\n"}\n`).join(""), "utf8")
    const at = [...new Set(cuts.map((cut) => Math.min(cut, bytes.length)))].sort((a, b) => a - b)
    let from = 0
    for (const cut of [...at, bytes.length]) {
      lineReader.push(bytes.subarray(from, cut))
      from = cut
    }
    expect(lines).toEqual(texts)
    expect(oversized).toEqual([])
  })

  it("a line past the bound is given as oversized at its end, with its exact size and the id found in it, and the next line is read as usual", () => {
    const { lines, oversized, reader: lineReader } = reader(10)
    const long = `{"result":"${"x".repeat(30)}","id":4}`
    lineReader.push(Buffer.from(`short\n${long.slice(0, 8)}`))
    lineReader.push(Buffer.from(long.slice(8, 20)))
    lineReader.push(Buffer.from(`${long.slice(20)}\nafter\n`))
    expect(lines).toEqual(["short", "after"])
    expect(oversized).toEqual([{ id: 4, hasMethod: false, size: { bytes: long.length, exact: true, limit: 10 } }])
    // Exactly at the bound is within it.
    lineReader.push(Buffer.from(`${"y".repeat(10)}\n{"method":"m","params":"${"z".repeat(20)}"}\n`))
    expect(lines).toEqual(["short", "after", "y".repeat(10)])
    expect(oversized[1]).toMatchObject({ id: undefined, hasMethod: true })
  })

  it("clear forgets a line begun, held or being skipped", () => {
    const { lines, oversized, reader: lineReader } = reader(10)
    lineReader.push(Buffer.from("abc"))
    lineReader.clear()
    lineReader.push(Buffer.from("def\n"))
    lineReader.push(Buffer.from("x".repeat(20)))
    lineReader.clear()
    lineReader.push(Buffer.from("ghi\n"))
    expect(lines).toEqual(["def", "ghi"])
    expect(oversized).toEqual([])
  })
})
