/**
 * A tolerant parser for JSON text that is still arriving: the best value a prefix of a JSON text stands for, so
 * `Agent.stream` can show a typed answer as it streams (`OutputDelta`). It never throws. On a complete JSON text it
 * gives exactly what `JSON.parse` gives; on a prefix, what is complete so far: a string cut in the middle is kept
 * up to the cut, an object keeps its complete members (and a last member whose value has started), an array its
 * elements, while a token that cannot be told yet (`tru`, `-`, `1e`, a key without its value) is left out.
 *
 * Bounded: at most `maxDepth` levels of nesting are read (what is deeper is left out), and a text longer than
 * `maxChars` is not read at all (`undefined`), so a runaway answer costs a bounded amount per delta.
 *
 * A leading code fence (```json) and white space are skipped; a text that does not start a JSON value after them
 * (prose) gives `undefined`.
 */

export interface PartialLimits {
  readonly maxDepth: number
  readonly maxChars: number
}

export const defaultPartialLimits: PartialLimits = { maxDepth: 64, maxChars: 1_000_000 }

/** What a read gives when it has nothing usable (a value that has not started, or cannot be told yet). */
const nothing: unique symbol = Symbol("nothing")
/** What a read gives for a value nested past `maxDepth`: read over, and left out. */
const skipped: unique symbol = Symbol("skipped")
type Read = unknown

const numberToken = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y

class Reader {
  /** Set once the text ran out: every value being read from then on is cut short. */
  ended = false
  position = 0

  constructor(
    readonly text: string,
    readonly maxDepth: number
  ) {}

  skipSpace(): void {
    const text = this.text
    let at = this.position
    while (at < text.length) {
      const c = text.charCodeAt(at)
      // space, tab, line feed, carriage return: JSON's white space
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break
      at++
    }
    this.position = at
    if (at >= text.length) this.ended = true
  }

  value(depth: number): Read | typeof nothing | typeof skipped {
    this.skipSpace()
    if (this.ended) return nothing
    const c = this.text[this.position]
    if (c === "{") return depth >= this.maxDepth ? this.skipNested() : this.object(depth + 1)
    if (c === "[") return depth >= this.maxDepth ? this.skipNested() : this.array(depth + 1)
    if (c === '"') return this.string()
    if (c === "t") return this.literal("true", true)
    if (c === "f") return this.literal("false", false)
    if (c === "n") return this.literal("null", null)
    return this.number()
  }

  literal(word: string, value: unknown): Read | typeof nothing {
    const rest = this.text.slice(this.position, this.position + word.length)
    if (rest === word) {
      this.position += word.length
      return value
    }
    // A word cut by the end of the text cannot be told yet; anything else is not JSON.
    if (this.position + rest.length >= this.text.length && word.startsWith(rest)) this.ended = true
    return nothing
  }

  number(): Read | typeof nothing {
    numberToken.lastIndex = this.position
    const match = numberToken.exec(this.text)
    if (match === null) {
      this.ended = true
      return nothing
    }
    const end = this.position + match[0].length
    // Digits up to the end of the text may go on ("12" of "123"): kept, as the best value so far. A token whose
    // end is not a number yet ("1.", "-", "1e") did not match in full and is left out.
    if (end >= this.text.length) this.ended = true
    else if (/[.eE\d+-]/.test(this.text[end]!)) {
      this.ended = true
      return nothing
    }
    this.position = end
    return Number(match[0])
  }

  /** A string: the whole of it, or (cut by the end of the text) its characters up to the cut. */
  string(): Read | typeof nothing {
    const text = this.text
    const start = this.position
    let at = start + 1
    while (at < text.length) {
      const c = text[at]
      if (c === '"') {
        this.position = at + 1
        return parseString(text.slice(start, at + 1))
      }
      if (c === "\\") at += 2
      else at++
    }
    this.ended = true
    // Cut: drop an escape the cut broke (`\`, `\u12`), then read what is left as a whole string.
    let body = text.slice(start + 1)
    const brokenEscape = /\\(?:u[0-9a-fA-F]{0,3})?$/.exec(body)
    if (brokenEscape !== null && isEscapeStart(body, brokenEscape.index)) body = body.slice(0, brokenEscape.index)
    const parsed = parseString(`"${body}"`)
    return parsed === nothing ? nothing : parsed
  }

  object(depth: number): Read | typeof nothing {
    const out: Record<string, unknown> = {}
    this.position++
    for (let first = true; ; first = false) {
      this.skipSpace()
      if (this.ended) return out
      if (this.text[this.position] === "}") {
        this.position++
        return out
      }
      if (!first) {
        if (this.text[this.position] !== ",") return this.invalid(out)
        this.position++
        this.skipSpace()
        if (this.ended) return out
      }
      if (this.text[this.position] !== '"') return this.invalid(out)
      const key = this.string()
      if (this.ended || typeof key !== "string") return out
      this.skipSpace()
      if (this.ended) return out
      if (this.text[this.position] !== ":") return this.invalid(out)
      this.position++
      const value = this.value(depth)
      if (value !== nothing && value !== skipped) define(out, key, value)
      if (this.ended) return out
      if (value === nothing) return this.invalid(out)
    }
  }

  array(depth: number): Read | typeof nothing {
    const out: Array<unknown> = []
    this.position++
    for (let first = true; ; first = false) {
      this.skipSpace()
      if (this.ended) return out
      if (this.text[this.position] === "]") {
        this.position++
        return out
      }
      if (!first) {
        if (this.text[this.position] !== ",") return this.invalid(out)
        this.position++
      }
      const value = this.value(depth)
      if (value !== nothing && value !== skipped) out.push(value)
      if (this.ended) return out
      if (value === nothing) return this.invalid(out)
    }
  }

  /** Past `maxDepth`: the nested value is skipped (strings respected) and left out; reading stops if it is cut. */
  skipNested(): typeof skipped {
    const text = this.text
    let depth = 0
    let at = this.position
    while (at < text.length) {
      const c = text[at]
      if (c === '"') {
        at++
        while (at < text.length && text[at] !== '"') at += text[at] === "\\" ? 2 : 1
      } else if (c === "{" || c === "[") depth++
      else if (c === "}" || c === "]") {
        depth--
        if (depth === 0) {
          this.position = at + 1
          return skipped
        }
      }
      at++
    }
    this.ended = true
    return skipped
  }

  /** Text that is not JSON: reading stops with what was read. */
  invalid<A>(partial: A): A {
    this.ended = true
    return partial
  }
}

/** Whether the backslash at `index` starts an escape (it is not itself escaped by the one before it). */
const isEscapeStart = (body: string, index: number): boolean => {
  let backslashes = 0
  for (let at = index - 1; at >= 0 && body[at] === "\\"; at--) backslashes++
  return backslashes % 2 === 0
}

const parseString = (quoted: string): string | typeof nothing => {
  try {
    return JSON.parse(quoted) as string
  } catch {
    return nothing
  }
}

/** As `JSON.parse` sets a member: an own property, even for the key `__proto__`. */
const define = (object: Record<string, unknown>, key: string, value: unknown): void => {
  if (key === "__proto__") Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
  else object[key] = value
}

/** Where the JSON starts: past white space and an opening code fence (```json). */
const startOf = (text: string): number => {
  const fence = /^\s*```[A-Za-z]*[ \t]*(?:\r?\n|$)/.exec(text)
  return fence === null ? 0 : fence[0].length
}

/**
 * The value a prefix of a JSON text stands for so far, or `undefined` when it does not start one (yet). Never
 * throws; on a complete JSON text, equal to `JSON.parse`.
 *
 * @example
 * parsePartial('{"category": "valid-warr') // { category: "valid-warr" }
 * parsePartial('{"serials": ["SN-1", "SN') // { serials: ["SN-1", "SN"] }
 */
export const parsePartial = (text: string, limits: PartialLimits = defaultPartialLimits): unknown => {
  if (text.length > limits.maxChars) return undefined
  const reader = new Reader(text, limits.maxDepth)
  reader.position = startOf(text)
  const value = reader.value(0)
  return value === nothing || value === skipped ? undefined : value
}
