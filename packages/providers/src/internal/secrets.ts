import * as Redacted from "effect/Redacted"

/** Encodings shorter than this are not scrubbed: they would match ordinary text. */
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

/**
 * Removes API keys from text that came from elsewhere (an SDK error message or log line, a server's error body)
 * before it becomes part of a ModelError or a log: some servers echo the key they were sent, plain or encoded,
 * and errors end up in logs and transcripts.
 */
export const scrubber = (...keys: ReadonlyArray<Redacted.Redacted<string> | string>): ((text: string) => string) => {
  const secrets = keys
    .map((key) => (typeof key === "string" ? key : Redacted.value(key)))
    .filter((key) => key.length > 0)
    .flatMap((key) => (key.length < shortest ? [key] : spellings(key)))
  // Stryker disable next-line ConditionalExpression: without keys the reduce below returns the text as it is; this spares the closure
  if (secrets.length === 0) return (text) => text
  return (text) => secrets.reduce((acc, secret) => (acc.includes(secret) ? acc.split(secret).join("[redacted]") : acc), text)
}
