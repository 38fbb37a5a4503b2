import * as Redacted from "effect/Redacted"

/** Spellings and prefixes of a key shorter than this are not scrubbed: they would match ordinary text. */
const shortest = 8

/**
 * The spellings of `key` that can show up in text: as is, URL-encoded, and base64 / base64url of the key and
 * of `Bearer <key>` (an echoed `Authorization` header). Base64 is matched by the characters that depend only
 * on the key, at each of the three alignments it can have inside a longer encoded text.
 */
export const spellings = (key: string): ReadonlyArray<string> => {
  const variants = new Set([key, encodeURIComponent(key)])
  for (const plain of [key, `Bearer ${key}`, `x-goog-api-key: ${key}`]) {
    // Stryker disable next-line StringLiteral: Buffer.from reads a string as UTF-8 when no encoding is named
    const bytes = Buffer.from(plain, "utf8")
    // Stryker disable next-line EqualityOperator: a fourth alignment (skip 3) is skip 0 one group on, already inside its encoding
    for (let skip = 0; skip < 3; skip++) {
      // Bytes `skip..` start a 3-byte group when the text before them had (3 - skip) % 3 bytes more.
      const aligned = bytes.subarray(skip)
      const whole = aligned.subarray(0, aligned.length - (aligned.length % 3))
      // The group before, which mixes in unknown bytes, is left out: only whole groups of the key are fixed.
      variants.add(whole.toString("base64"))
      variants.add(whole.toString("base64url"))
    }
  }
  // Stryker disable next-line ConditionalExpression: with a key of 8 characters or more every spelling has 8 or more (6 bytes of whole groups encode to 8); the filter states the rule for any caller
  return [...variants].filter((variant) => variant.length >= shortest).sort((a, b) => b.length - a.length)
}

/** `text` as a regular expression that matches it literally. */
const literal = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * A pattern for the plain spellings of a key (as written, URL-encoded) in any letter case, and for any prefix of
 * them of `shortest` characters or more: servers echo a key upper-cased, or its first characters ("the key
 * AIzaSyD-k3y… is invalid"). The spellings are laid out as a tree of their characters, each character after the
 * first `shortest` optional with all that follows it, so the longest prefix present is what matches (siblings
 * differ in their character, so at most one of them goes on).
 */
const prefixPattern = (plains: ReadonlyArray<string>): string => {
  interface Node extends Map<string, Node> {}
  const root: Node = new Map()
  for (const plain of plains) {
    let node = root
    for (const char of plain.split("")) {
      const next: Node = node.get(char) ?? new Map()
      node.set(char, next)
      node = next
    }
  }
  const emit = (node: Node, depth: number): string => {
    if (node.size === 0) return ""
    const branches = [...node].map(([char, next]) => `${literal(char)}${emit(next, depth + 1)}`)
    const group = branches.length === 1 ? branches[0]! : `(?:${branches.join("|")})`
    return depth < shortest ? group : `(?:${group})?`
  }
  return emit(root, 0)
}

/**
 * Removes API keys from text that came from elsewhere (an SDK error message or log line, a server's error body)
 * before it becomes part of a ModelError or a log: some servers echo the key they were sent, plain or encoded,
 * and errors end up in logs, eval reports, transcripts and traces.
 *
 * A key of 8 characters or more is removed as written and URL-encoded in any letter case, and so is any prefix
 * of those of 8 characters or more; its base64 spellings (see `spellings`) as they are. A key shorter than that
 * is removed only whole and as written: its parts would match ordinary text. Eight characters is also where a
 * prefix is common to every key of a kind (`sk-proj-`): such text is removed too, which costs nothing.
 */
export const scrubber = (...keys: ReadonlyArray<Redacted.Redacted<string> | string>): ((text: string) => string) => {
  const patterns = keys
    .map((key) => (typeof key === "string" ? key : Redacted.value(key)))
    .filter((key) => key.length > 0)
    .flatMap((key) => {
      if (key.length < shortest) return [{ length: key.length, pattern: new RegExp(literal(key), "g") }]
      const plain = [key, encodeURIComponent(key)]
      const encoded = spellings(key).filter((spelling) => !plain.includes(spelling))
      return [
        { length: Math.max(...plain.map((spelling) => spelling.length)), pattern: new RegExp(prefixPattern(plain), "gi") },
        ...encoded.map((spelling) => ({ length: spelling.length, pattern: new RegExp(literal(spelling), "g") }))
      ]
    })
    // Longest first, so that a longer spelling is not cut by a shorter one inside it.
    .sort((a, b) => b.length - a.length)
    .map(({ pattern }) => pattern)
  // Stryker disable next-line ConditionalExpression: without keys the reduce below returns the text as it is; this spares the closure
  if (patterns.length === 0) return (text) => text
  return (text) => patterns.reduce((acc, pattern) => acc.replace(pattern, "[redacted]"), text)
}
