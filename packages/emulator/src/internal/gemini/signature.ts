/**
 * Thought signatures the emulator issues like Gemini 3 (on the first call of a turn, or on the last part of an
 * answer without calls) and checks when they come back. A signature is an HMAC of the part it sits on, under a
 * per-emulator secret: nothing to remember, and a signature moved to another part or a changed call fails.
 */
import { createHmac } from "node:crypto"
import { canonical } from "../json.js"

export interface Signer {
  readonly sign: (subject: unknown) => string
  readonly verify: (subject: unknown, signature: string) => boolean
  /** The contents whose signatures it remembers now, least recently used first. */
  readonly cached: () => ReadonlyArray<string>
}

/**
 * The signatures Google's FAQ gives for history the model did not produce (built by hand, or from another
 * provider): the server takes them in place of a real one, and they are not base64.
 */
export const dummySignatures: ReadonlySet<string> = new Set(["context_engineering_is_the_way_to_go", "skip_thought_signature_validator"])

/** How many signatures a signer remembers: about a long eval suite's worth of distinct calls and answers. */
export const cachedSignatures = 4096

/**
 * A signer under `secret`. Signatures are cached per content (the canonical text of the subject): an eval suite
 * sends the same calls and answers over and over, and every request echoes the signatures of the turns before it,
 * so most signing and every check of a signature it issued are a look-up instead of an HMAC. The least recently
 * used content is forgotten first, so the cache stays at `cachedSignatures` entries however long the emulator runs.
 */
export const signer = (secret: string, capacity: number = cachedSignatures): Signer => {
  const cache = new Map<string, string>()
  const sign = (subject: unknown): string => {
    const content = canonical(subject)
    const known = cache.get(content)
    if (known !== undefined) {
      // Moved to the end: Map iterates in insertion order, so the first key is the least recently used.
      cache.delete(content)
      cache.set(content, known)
      return known
    }
    const signature = createHmac("sha256", secret).update(content).digest().subarray(0, 24).toString("base64")
    if (cache.size >= capacity) cache.delete(cache.keys().next().value!)
    cache.set(content, signature)
    return signature
  }
  return { sign, verify: (subject, signature) => dummySignatures.has(signature) || sign(subject) === signature, cached: () => [...cache.keys()] }
}

/** What a call signature covers: the call as it is on the wire (with its id when it has one). */
export const callSubject = (call: { readonly id?: string | undefined; readonly name?: string | undefined; readonly args?: unknown }): unknown => ({
  kind: "call",
  id: call.id ?? null,
  name: call.name,
  args: call.args ?? {}
})

/** Standard base64, the form Gemini's TYPE_BYTES fields accept. */
export const isBase64 = (text: string): boolean => /^[A-Za-z0-9+/]*={0,2}$/.test(text) && text.length % 4 === 0
