import * as Effect from "effect/Effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

/** Answers one request however the test wants; the request body has been read. */
export type Answer = (request: IncomingMessage, response: ServerResponse) => void

export interface Misbehaving {
  origin: string
  /** What the next requests get (until set again). */
  answer: Answer
  /** Requests received (`METHOD path`). */
  readonly requests: Array<string>
  /** Their bodies, as text, in the same order. */
  readonly bodies: Array<string>
}

/**
 * A local HTTP server on 127.0.0.1 that answers as told, for the SDKs to meet what real servers and proxies
 * sometimes send: an HTML page with status 200, broken JSON, a body that never ends. Closed with its scope.
 */
export const misbehaving = Effect.acquireRelease(
  Effect.async<{ readonly state: Misbehaving; readonly close: () => void }>((resume) => {
    const state: Misbehaving = { origin: "", answer: (_, response) => response.writeHead(500).end(), requests: [], bodies: [] }
    const server = createServer((request, response) => {
      state.requests.push(`${request.method} ${request.url}`)
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        state.bodies.push(Buffer.concat(chunks).toString("utf8"))
        state.answer(request, response)
      })
    })
    server.listen(0, "127.0.0.1", () => {
      state.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      resume(Effect.succeed({ state, close: () => (server.closeAllConnections(), server.close()) }))
    })
  }),
  ({ close }) => Effect.sync(close)
).pipe(Effect.map(({ state }) => state))

/** An event-stream answer with these raw `data:` payloads. */
export const events = (...payloads: ReadonlyArray<string>): Answer => (_, response) => {
  response.writeHead(200, { "content-type": "text/event-stream" })
  response.end(payloads.map((payload) => `data: ${payload}\n\n`).join(""))
}

/** A 200 with this body and content type. */
export const body = (text: string, contentType: string): Answer => (_, response) => {
  response.writeHead(200, { "content-type": contentType })
  response.end(text)
}

/** The key the request carried (`Authorization: Bearer` or `x-goog-api-key`), as the server saw it. */
export const keyOf = (request: IncomingMessage): string =>
  String(request.headers["x-goog-api-key"] ?? request.headers.authorization ?? "").replace(/^Bearer /, "")
