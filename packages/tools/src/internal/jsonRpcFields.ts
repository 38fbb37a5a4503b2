/**
 * The `id` of a JSON-RPC message, and whether it has a `method`, read from its bytes as they stream past without
 * keeping them: a message too large to hold can still be told apart (an answer to which request, or a request or
 * notification of the server's) and answered for. Only the top level's keys are looked at; strings and nesting are
 * tracked so that an `"id"` inside a result is never taken for the message's own.
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

const quote = 0x22
const backslash = 0x5c
const openBrace = 0x7b
const closeBrace = 0x7d
const openBracket = 0x5b
const closeBracket = 0x5d
const comma = 0x2c
const colon = 0x3a

const isSpace = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d

/** Longer keys are none of the ones looked for, and longer ids are none a client sends: neither is kept past this. */
const keptBytes = 256

/** A JSON string or number as written (the bytes between the quotes of a string, quotes added back). */
const decodeValue = Schema.decodeUnknownOption(Schema.parseJson(Schema.Union(Schema.String, Schema.Number)))

const textOf = (bytes: ReadonlyArray<number>, quoted: boolean): string | number | undefined => {
  const raw = Buffer.from(bytes).toString("utf8")
  return Option.getOrUndefined(decodeValue(quoted ? `"${raw}"` : raw))
}

export class TopLevelFields {
  /** The message's `id` (a string or a number), once read. */
  id: string | number | undefined = undefined
  /** Whether the message has a `method`: a request or a notification, not an answer. */
  hasMethod = false

  private depth = 0
  private inString = false
  private escaped = false
  /** At the top level, whether the next string is a key. */
  private expectKey = false
  /** At the top level, whether a value comes next (after a key's `:`). */
  private expectValue = false
  private lastKey: string | undefined
  /** The bytes of the top-level string (a key, or the id) being read; undefined for any other string. */
  private captured: Array<number> | undefined
  private capturing: "key" | "id" | undefined
  /** The bytes of an `id` written as a number (or a literal), while it is read. */
  private bare: Array<number> | undefined

  /** Reads `bytes[from, to)`. */
  feed(bytes: Uint8Array, from = 0, to = bytes.length): void {
    for (let i = from; i < to; i++) {
      const byte = bytes[i]!
      if (this.inString) {
        if (this.escaped) this.escaped = false
        else if (byte === backslash) this.escaped = true
        else if (byte === quote) {
          this.inString = false
          this.endString()
          continue
        }
        if (this.captured !== undefined && this.captured.length <= keptBytes) this.captured.push(byte)
        continue
      }
      if (this.bare !== undefined) {
        if (byte !== comma && byte !== closeBrace && !isSpace(byte)) {
          if (this.bare.length <= keptBytes) this.bare.push(byte)
          continue
        }
        const value = this.bare.length <= keptBytes ? textOf(this.bare, false) : undefined
        this.id = typeof value === "number" ? value : undefined
        this.bare = undefined
      }
      this.structure(byte)
    }
  }

  private structure(byte: number): void {
    const top = this.depth === 1
    switch (byte) {
      case quote:
        this.inString = true
        if (top && this.expectKey) this.capturing = "key"
        else if (top && this.expectValue && this.lastKey === "id") this.capturing = "id"
        else this.capturing = undefined
        this.captured = this.capturing === undefined ? undefined : []
        this.expectValue = false
        return
      case openBrace:
      case openBracket:
        this.depth++
        this.expectKey = this.depth === 1 && byte === openBrace
        if (top) this.expectValue = false
        return
      case closeBrace:
      case closeBracket:
        this.depth--
        return
      case comma:
        if (top) this.expectKey = true
        return
      case colon:
        if (top) this.expectValue = true
        return
      default:
        if (top && this.expectValue && !isSpace(byte)) {
          this.expectValue = false
          // A number, or null, true, false: only a number is an id a client sends.
          if (this.lastKey === "id") this.bare = [byte]
        }
    }
  }

  private endString(): void {
    const captured = this.captured
    const kept = captured !== undefined && captured.length <= keptBytes
    if (this.capturing === "key") {
      const key = kept ? textOf(captured, true) : undefined
      this.lastKey = typeof key === "string" ? key : undefined
      if (this.lastKey === "method") this.hasMethod = true
      this.expectKey = false
    } else if (this.capturing === "id") {
      const value = kept ? textOf(captured, true) : undefined
      this.id = typeof value === "string" ? value : undefined
    }
    this.captured = undefined
    this.capturing = undefined
  }
}
