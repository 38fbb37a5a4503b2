/**
 * The `fetch` an MCP server's Streamable HTTP transport is given: what it reads of each message is bounded (see
 * `mcpBound`). A JSON answer past the bound is read no further and replaced by an error answer to the request that was
 * POSTed; in an event stream each event is passed on whole once it has ended, and one past the bound ends a POST's
 * stream with that error answer, or, on the stream the server opens for its own messages (a GET), is dropped with a
 * warning. The body of an error (which the SDK quotes in its error) is read up to 64 KiB and said in one line. The SDK's
 * own parsing is unchanged below the bound.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as ErrorBody from "./errorBody.js"
import { type Size, sizeSentence, tooLargeAnswer } from "./mcpBound.js"

/** A JSON-RPC request as the SDK POSTs it: its id is the one the answer must carry. */
const decodeRequest = Schema.decodeUnknownOption(Schema.parseJson(Schema.Struct({ id: Schema.Union(Schema.String, Schema.Number), method: Schema.String })))

/** The id of the request `body` holds, if it holds one (not a notification, not an answer). */
const requestIdOf = (body: unknown): string | number | undefined => (typeof body === "string" ? Option.getOrUndefined(Option.map(decodeRequest(body), (request) => request.id)) : undefined)

const mediaType = (response: Response): string => (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase()

/** `response` with another body: the headers that described the old one's length and coding dropped. */
const withBody = (response: Response, body: ConstructorParameters<typeof Response>[0], contentType?: string): Response => {
  const headers = new Headers(response.headers)
  headers.delete("content-length")
  headers.delete("content-encoding")
  if (contentType !== undefined) headers.set("content-type", contentType)
  const replaced = new Response(body, { status: response.status, statusText: response.statusText, headers })
  // The SDK names a redirect's target from the response's URL.
  Object.defineProperty(replaced, "url", { value: response.url })
  return replaced
}

/**
 * The body's first `limit` bytes and whether that was all of it; once past `limit`, the rest is not read (the stream is
 * cancelled). `total` is what was read, past `limit` when the body was longer.
 */
const readAtMost = async (body: ReadableStream<Uint8Array>, limit: number): Promise<{ readonly bytes: Uint8Array; readonly complete: boolean; readonly total: number }> => {
  const reader = body.getReader()
  const parts: Array<Uint8Array> = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return { bytes: Buffer.concat(parts), complete: true, total }
    const room = limit - total
    total += value.byteLength
    if (total > limit) {
      parts.push(value.subarray(0, room))
      await reader.cancel().catch(() => undefined)
      return { bytes: Buffer.concat(parts), complete: false, total }
    }
    parts.push(value)
  }
}

/** What is read of an error's body: it is only quoted, in one line (see `errorBody`). */
const errorBodyBytes = 64 * 1024

const encoder = new TextEncoder()

/** `message` as one server-sent event. */
const asEvent = (message: JSONRPCMessage): Uint8Array => encoder.encode(`data: ${JSON.stringify(message)}\n\n`)

const cr = 0x0d
const lf = 0x0a

/**
 * Server-sent events passed on one whole event at a time while each holds `limit` bytes at most (a blank line ends an
 * event: `\n`, `\r\n` or `\r` twice). One that holds more is never held: with `answer`, the stream ends there, that
 * event in its place (`answer` is given the size read so far); without, its bytes are counted up to its end and
 * `dropped` is told its size.
 */
export const boundedEvents = (
  limit: number,
  options: { readonly answer?: ((size: Size) => Uint8Array) | undefined; readonly dropped: (size: Size) => void }
): TransformStream<Uint8Array, Uint8Array> => {
  let held: Array<Uint8Array> = []
  let heldBytes = 0
  let skipping = false
  let skipped = 0
  let lineStart = true
  let afterCr = false
  let ended = false
  const take = (part: Uint8Array, controller: TransformStreamDefaultController<Uint8Array>) => {
    if (skipping) {
      skipped += part.byteLength
      return
    }
    if (heldBytes + part.byteLength <= limit) {
      if (part.byteLength > 0) held.push(part)
      heldBytes += part.byteLength
      return
    }
    const size = { bytes: heldBytes + part.byteLength, exact: false, limit }
    held = []
    heldBytes = 0
    if (options.answer !== undefined) {
      controller.enqueue(options.answer(size))
      // Ends what the SDK reads, and cancels the server's stream: nothing more of it is read.
      controller.terminate()
      ended = true
      return
    }
    skipping = true
    skipped = size.bytes
  }
  const endEvent = (controller: TransformStreamDefaultController<Uint8Array>) => {
    if (skipping) {
      options.dropped({ bytes: skipped, exact: true, limit })
      skipping = false
      skipped = 0
      return
    }
    for (const part of held) controller.enqueue(part)
    held = []
    heldBytes = 0
  }
  return new TransformStream({
    transform(chunk, controller) {
      let from = 0
      for (let i = 0; i < chunk.byteLength && !ended; i++) {
        const byte = chunk[i]!
        if (byte === lf && afterCr) {
          // The second half of a CRLF: its line has ended already.
          afterCr = false
          continue
        }
        if (byte !== cr && byte !== lf) {
          lineStart = false
          afterCr = false
          continue
        }
        afterCr = byte === cr
        if (!lineStart) {
          lineStart = true
          continue
        }
        take(chunk.subarray(from, i + 1), controller)
        if (ended) return
        endEvent(controller)
        from = i + 1
      }
      if (!ended) take(chunk.subarray(from), controller)
    },
    flush(controller) {
      // A stream that ends inside an event: what was held goes on as it is (the SDK decides what it is worth).
      endEvent(controller)
    }
  })
}

/** `fetch` (by default the global one) with each message an MCP server sends bounded at `limit` bytes. */
export const boundedFetch = (limit: number, dropped: (why: string) => void, base: FetchLike = globalThis.fetch): FetchLike => async (url, init) => {
  const response = await base(url, init)
  // A redirect is the SDK's to follow or refuse (its body is not read): passed on as it came.
  if (response.body === null || (response.status >= 300 && response.status < 400)) return response
  const id = requestIdOf(init?.body)
  if (response.ok && mediaType(response) === "text/event-stream") {
    const events = boundedEvents(limit, {
      answer: id === undefined ? undefined : (size) => asEvent(tooLargeAnswer(id, size)),
      dropped: (size) => dropped(`an event of ${sizeSentence(size)}, which was dropped`)
    })
    return withBody(response, response.body.pipeThrough(events))
  }
  // An error's body is quoted in the SDK's error: one line of it, from its start.
  if (!response.ok) {
    const head = await readAtMost(response.body, errorBodyBytes)
    return withBody(response, ErrorBody.summary(Buffer.from(head.bytes).toString("utf8"), response.headers.get("content-type")), "text/plain")
  }
  if (id === undefined) return response
  // A declared length past the bound is refused unread; otherwise the body is read up to the bound, then let go.
  const declared = Number(response.headers.get("content-length") ?? Number.NaN)
  if (declared > limit) {
    await response.body.cancel().catch(() => undefined)
    return withBody(response, JSON.stringify(tooLargeAnswer(id, { bytes: declared, exact: true, limit })), "application/json")
  }
  const read = await readAtMost(response.body, limit)
  if (read.complete) return withBody(response, read.bytes)
  return withBody(response, JSON.stringify(tooLargeAnswer(id, { bytes: read.total, exact: false, limit })), "application/json")
}
