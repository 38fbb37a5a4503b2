/**
 * The bound on one message from an MCP server, the same over stdio and Streamable HTTP. A message past it is never
 * held whole: its bytes are counted as they pass (a line over stdio, an event or a body over HTTP) and let go. An
 * answer past it becomes, in its place, an error answer to the same request (`tooLargeAnswer`), so the request that
 * waited for it fails at once with a typed error saying how large it was (`tooLargeOf`), and the server goes on
 * serving; a request or notification of the server's past it is dropped, with a warning.
 *
 * The SDK's stdio transport stopped at 10 MiB too, but by closing the connection, so the call failed with "the server
 * closed the connection" and every later call with it; its HTTP transport had no bound at all.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { TopLevelFields } from "./jsonRpcFields.js"

/** What one message may hold unless told otherwise: 10 MiB, the SDK's own bound over stdio. */
export const defaultMaxMessageBytes = 10 * 1024 * 1024

/** A message's size: `exact`, or at least `bytes` (reading stopped there, past the bound). */
export interface Size {
  readonly bytes: number
  readonly exact: boolean
  readonly limit: number
}

/** `1536` → `1.5 KiB`: bytes as a person reads them. */
export const sizeText = (bytes: number): string => {
  const units = ["bytes", "KiB", "MiB", "GiB"] as const
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  if (unit === 0) return bytes === 1 ? "1 byte" : `${bytes} bytes`
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`
}

/** How large a message was, against the bound, as the end of a sentence ("… is 250 MiB, more than …"). */
export const sizeSentence = (size: Size): string =>
  size.exact
    ? `${sizeText(size.bytes)}, more than the ${sizeText(size.limit)} one message may hold`
    : `more than the ${sizeText(size.limit)} one message may hold (reading stopped there)`

/** The error code of the answer put in place of one too large: in JSON-RPC's range for implementations' own. */
export const tooLargeCode = -32099

/** The error answer to request `id` put in place of an answer too large to read. */
export const tooLargeAnswer = (id: string | number, size: Size): JSONRPCMessage => ({
  jsonrpc: "2.0",
  id,
  error: { code: tooLargeCode, message: `the answer is ${sizeSentence(size)}: it was not read`, data: { agentfxTooLarge: size } }
})

/** The size of an answer that was too large, if `error` is the SDK's error for one made by `tooLargeAnswer`. */
export const tooLargeOf = (error: unknown): Size | undefined => {
  if (typeof error !== "object" || error === null || !("code" in error) || error.code !== tooLargeCode || !("data" in error)) return undefined
  const data = error.data
  if (typeof data !== "object" || data === null || !("agentfxTooLarge" in data)) return undefined
  const size = data.agentfxTooLarge as Partial<Size> | null
  return typeof size?.bytes === "number" && typeof size.exact === "boolean" && typeof size.limit === "number"
    ? { bytes: size.bytes, exact: size.exact, limit: size.limit }
    : undefined
}

/** What a message too large was, as far as its top level says: an answer (`id`, no method) or anything else. */
export interface Oversized {
  readonly id: string | number | undefined
  readonly hasMethod: boolean
  readonly size: Size
}

/**
 * Newline-delimited messages (MCP over stdio) out of chunks of bytes: each line of `limit` bytes at most is given to
 * `line`; a longer one is counted and scanned as it passes, never held, and given to `oversized` at its end.
 */
export class LineReader {
  private held: Array<Buffer> = []
  private heldBytes = 0
  private scanner: TopLevelFields | undefined
  private skipped = 0

  constructor(
    private readonly limit: number,
    private readonly on: { readonly line: (text: string) => void; readonly oversized: (message: Oversized) => void }
  ) {}

  push(chunk: Buffer): void {
    let start = 0
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start)
      const end = newline === -1 ? chunk.length : newline
      this.take(chunk, start, end)
      if (newline === -1) return
      this.endLine()
      start = newline + 1
    }
  }

  /** Forgets a line begun and not ended. */
  clear(): void {
    this.held = []
    this.heldBytes = 0
    this.scanner = undefined
    this.skipped = 0
  }

  private take(chunk: Buffer, start: number, end: number): void {
    if (this.scanner !== undefined) {
      this.scanner.feed(chunk, start, end)
      this.skipped += end - start
      return
    }
    if (this.heldBytes + end - start <= this.limit) {
      if (end > start) this.held.push(chunk.subarray(start, end))
      this.heldBytes += end - start
      return
    }
    // Past the bound: what was held is scanned and let go, and so is the rest of the line as it comes.
    const scanner = new TopLevelFields()
    for (const part of this.held) scanner.feed(part)
    scanner.feed(chunk, start, end)
    this.scanner = scanner
    this.skipped = this.heldBytes + end - start
    this.held = []
    this.heldBytes = 0
  }

  private endLine(): void {
    const scanner = this.scanner
    if (scanner !== undefined) {
      const bytes = this.skipped
      this.clear()
      this.on.oversized({ id: scanner.id, hasMethod: scanner.hasMethod, size: { bytes, exact: true, limit: this.limit } })
      return
    }
    const text = Buffer.concat(this.held).toString("utf8").replace(/\r$/, "")
    this.clear()
    if (text.trim() !== "") this.on.line(text)
  }
}
