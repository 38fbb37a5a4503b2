/**
 * A `fetch` for the SDKs that stops reading a response body past a byte limit, streamed or not: an endless or
 * huge answer (a misbehaving proxy, a runaway stream) fails the request instead of growing memory until the
 * process dies. Wraps the body, so the SDK's own parsing is unchanged below the limit.
 */
import { ModelError } from "@agentfx/core"

/** What every layer reads at most from one response unless told otherwise: 32 MiB. */
export const defaultMaxResponseBytes = 32 * 1024 * 1024

/** Thrown into the SDK's read of the body; found again by `tooLarge` in whatever the SDK throws. */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the response is larger than the limit of ${limit} bytes`)
  }
}

const describeLimit = (limit: number): string =>
  limit % (1024 * 1024) === 0 ? `${limit / (1024 * 1024)} MiB` : limit % 1024 === 0 ? `${limit / 1024} KiB` : `${limit} bytes`

/** `fetch` with the body capped at `limit` bytes (a declared `content-length` above it is refused unread). */
export const capped = (limit: number, base: typeof globalThis.fetch = globalThis.fetch): typeof globalThis.fetch =>
  async (input, init) => {
    const response = await base(input, init)
    const declared = Number(response.headers.get("content-length") ?? Number.NaN)
    if (declared > limit) {
      await response.body?.cancel().catch(() => undefined)
      throw new BodyTooLarge(limit)
    }
    if (response.body === null) return response
    // A declared length is all the client reads of an uncompressed body (more is a protocol error): nothing to
    // count. A compressed one can decode to far more than it declares.
    const encoding = response.headers.get("content-encoding")
    if (declared <= limit && (encoding === null || encoding === "identity")) return response
    let total = 0
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          total += chunk.byteLength
          // Erroring the stream cancels the source: the connection is closed, nothing more is read.
          if (total > limit) controller.error(new BodyTooLarge(limit))
          else controller.enqueue(chunk)
        }
      })
    )
    const wrapped = new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers })
    Object.defineProperty(wrapped, "url", { value: response.url })
    return wrapped
  }

/** The typed error for a capped body, if `error` (or something in its cause chain) is one. */
export const tooLarge = (error: unknown): ModelError.MalformedResponse | undefined => {
  // Stryker disable next-line ConditionalExpression: past the end of the chain `current` stays undefined, so going on to depth 8 finds nothing more
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 8; depth++) {
    if (current instanceof BodyTooLarge) {
      return new ModelError.MalformedResponse({
        message: `the response is larger than the limit of ${describeLimit(current.limit)} (maxResponseBytes); it was not read further`
      })
    }
    // Stryker disable next-line ConditionalExpression: a primitive's `cause` reads as undefined too; the test keeps `in` off primitives, where it throws
    current = typeof current === "object" && "cause" in current ? (current as { cause?: unknown }).cause : undefined
  }
  return undefined
}
