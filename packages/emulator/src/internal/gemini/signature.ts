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
}

/**
 * The signatures Google's FAQ gives for history the model did not produce (built by hand, or from another
 * provider): the server takes them in place of a real one, and they are not base64.
 */
export const dummySignatures: ReadonlySet<string> = new Set(["context_engineering_is_the_way_to_go", "skip_thought_signature_validator"])

export const signer = (secret: string): Signer => {
  const sign = (subject: unknown): string =>
    createHmac("sha256", secret).update(canonical(subject)).digest().subarray(0, 24).toString("base64")
  return { sign, verify: (subject, signature) => dummySignatures.has(signature) || sign(subject) === signature }
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
