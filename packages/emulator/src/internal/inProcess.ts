/**
 * The emulator reached without a socket: a `fetch` that hands each request to the same handler the HTTP server
 * uses, and turns what the handler writes into a web `Response`. Offline eval suites send thousands of requests
 * to an emulator in their own process; over 127.0.0.1 each paid for undici, the kernel and two HTTP parsers —
 * more than the emulator and the SDK together. What the handler answers is unchanged: status, headers, the body
 * byte for byte, streamed frames as they are written, and the failures a socket shows (a dropped connection is
 * undici's `fetch failed` before the headers and `terminated` after; an abort is an `AbortError`).
 */
import type { IncomingHttpHeaders } from "node:http"
import type { Incoming, Reply } from "./exchange.js"

/** What the handler gets for one in-process request. */
export interface Request {
  readonly method: string
  /** Path and query, as a server sees `req.url`. */
  readonly url: string
  readonly req: Incoming
  readonly res: Reply
  readonly body: string
}

const abortError = (): DOMException => new DOMException("This operation was aborted", "AbortError")
// The errors undici gives for a connection closed by the server, before and after the response head.
const refused = (): TypeError => new TypeError("fetch failed", { cause: new Error("other side closed") })
const terminated = (): TypeError => new TypeError("terminated", { cause: new Error("other side closed") })

/**
 * The request's headers as a server reads them: names in lower case. A `Headers` (what the SDKs pass) is read as it
 * is; anything else goes through one, which checks names and values as `fetch` would.
 */
const headersOf = (init: RequestInit | undefined): IncomingHttpHeaders => {
  const given = init?.headers
  const headers: IncomingHttpHeaders = {}
  ;(given instanceof Headers ? given : new Headers(given)).forEach((value, name) => {
    headers[name] = value
  })
  return headers
}

const bodyOf = (body: RequestInit["body"]): string | undefined => {
  if (body === undefined || body === null) return ""
  if (typeof body === "string") return body
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8")
  if (body instanceof ArrayBuffer) return Buffer.from(body).toString("utf8")
  return undefined
}

/**
 * A `fetch` into `handle`. `open` holds the replies still in progress, so that stopping the emulator can end
 * them as it closes its connections.
 */
export const fetchInto = (handle: (request: Request) => void, open: Set<() => void>): typeof globalThis.fetch =>
  (input, init) =>
    new Promise<Response>((resolve, reject) => {
      if (input instanceof Request) return reject(new TypeError("the in-process emulator takes a URL and RequestInit, not a Request"))
      const body = bodyOf(init?.body)
      if (body === undefined) return reject(new TypeError("the in-process emulator takes a string or byte body"))
      const signal = init?.signal ?? undefined
      if (signal?.aborted === true) return reject(abortError())
      const url = new URL(typeof input === "string" ? input : input.href)

      const encoder = new TextEncoder()
      const closeListeners: Array<() => void> = []
      let status = 0
      let headers: Record<string, string> = {}
      let buffered: Array<string> = []
      let controller: ReadableStreamDefaultController<Uint8Array> | undefined
      let headersSent = false
      let finished = false
      let destroyed = false

      const close = () => {
        open.delete(stop)
        signal?.removeEventListener("abort", onAbort)
        for (const listener of closeListeners) listener()
      }
      /** The connection is gone: the client sees `error` (or `before` when no head had reached it yet). */
      const destroy = (error: () => unknown, before: () => unknown = error) => {
        if (destroyed || finished) return
        destroyed = true
        if (!headersSent) reject(before())
        else controller?.error(error())
        close()
      }
      /**
       * Hands the response to the client in a macrotask of its own, as a socket's data arrives: resolved at once,
       * a whole eval suite of in-process requests ran as one chain of microtasks, and the event loop never turned
       * while it ran (no timer fired: not a case's timeout, not a deadline; a stopped server's socket stayed open).
       */
      const deliver = (response: Response) =>
        setImmediate(() => {
          if (signal?.aborted === true) reject(abortError())
          else resolve(response)
        })
      const onAbort = () => destroy(abortError)
      const stop = () => destroy(terminated, refused)
      signal?.addEventListener("abort", onAbort, { once: true })
      open.add(stop)

      /** Sends the head with a streamed body: from here on, writes reach the client as they are made. */
      const flush = () => {
        if (headersSent || destroyed) return
        headersSent = true
        const early = buffered
        buffered = []
        const stream = new ReadableStream<Uint8Array>({
          start: (c) => {
            controller = c
            for (const text of early) c.enqueue(encoder.encode(text))
          },
          cancel: () => destroy(abortError)
        })
        deliver(new Response(stream, { status, headers }))
      }

      const res: Reply = {
        writeHead: (code, head) => {
          status = code
          headers = { ...head }
        },
        flushHeaders: flush,
        write: (text) => {
          if (destroyed || finished) return
          if (controller === undefined) buffered.push(text)
          else controller.enqueue(encoder.encode(text))
        },
        end: () => {
          if (destroyed || finished) return
          finished = true
          if (headersSent) controller?.close()
          else {
            // A whole body at once: what a server sends with a length, and the cheapest Response to build.
            const text = buffered.join("")
            headersSent = true
            deliver(new Response(text, { status, headers: { ...headers, "content-length": String(Buffer.byteLength(text)) } }))
          }
          close()
        },
        destroy: () => destroy(terminated, refused),
        on: (_event, listener) => {
          closeListeners.push(listener)
        },
        get destroyed() {
          return destroyed
        },
        get headersSent() {
          return headersSent
        },
        get writableFinished() {
          return finished
        }
      }
      const req: Incoming = { headers: headersOf(init), socket: { destroy: res.destroy } }
      handle({ method: (init?.method ?? "GET").toUpperCase(), url: `${url.pathname}${url.search}`, req, res, body })
    })
