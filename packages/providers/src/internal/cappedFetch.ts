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

/**
 * `body` as a stream that hands on the source's chunks as they are (the same arrays, the same boundaries: no copy,
 * no re-chunking) while counting their bytes, and fails with `BodyTooLarge` past `limit`, cancelling the source: the
 * connection is closed, nothing more is read. It reads only when its own reader asks (no read-ahead), one read of
 * the source per chunk: where piping through a TransformStream ran the pipe's machinery and two queues per chunk.
 */
const countedBody = (body: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array> => {
  const source = body.getReader()
  let total = 0
  return new ReadableStream<Uint8Array>(
    {
      pull: async (controller) => {
        const { done, value } = await source.read()
        if (done) return controller.close()
        total += value.byteLength
        if (total <= limit) return controller.enqueue(value)
        controller.error(new BodyTooLarge(limit))
        await source.cancel().catch(() => undefined)
      },
      cancel: (reason) => source.cancel(reason)
    },
    { highWaterMark: 0 }
  )
}

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
    const counted = countedBody(response.body, limit)
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
