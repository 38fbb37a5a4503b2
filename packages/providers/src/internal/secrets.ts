import * as Redacted from "effect/Redacted"

/**
 * Removes API keys from text that came from elsewhere (an SDK error message, a server's error body) before it
 * becomes part of a ModelError: some servers echo the key they were sent, and errors end up in logs and transcripts.
 */
export const scrubber = (...keys: ReadonlyArray<Redacted.Redacted<string> | string>): ((text: string) => string) => {
  const secrets = keys
    .map((key) => (typeof key === "string" ? key : Redacted.value(key)))
    .filter((key) => key.length > 0)
  if (secrets.length === 0) return (text) => text
  return (text) => secrets.reduce((acc, secret) => acc.split(secret).join("[redacted]"), text)
}
