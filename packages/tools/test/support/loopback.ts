import * as Effect from "effect/Effect"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export interface Loopback {
  readonly origin: string
  readonly port: number
  /** `METHOD /path` of every request received, in order. */
  readonly requests: ReadonlyArray<string>
}

export type Handler = (request: IncomingMessage, response: ServerResponse, server: Loopback) => void

const listen = (server: Server): Effect.Effect<number> =>
  Effect.async((resume) => {
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))
  })

const close = (server: Server): Effect.Effect<void> =>
  Effect.async((resume) => {
    server.closeAllConnections()
    server.close(() => resume(Effect.void))
  })

/** A loopback HTTP server on 127.0.0.1 (a free port), closed with its scope. Unknown paths answer 404. */
export const loopback = (routes: Readonly<Record<string, Handler>>) =>
  Effect.gen(function* () {
    const requests: Array<string> = []
    const info = { origin: "", port: 0, requests }
    const server = createServer((request, response) => {
      requests.push(`${request.method} ${request.url}`)
      const handler = routes[new URL(request.url ?? "/", "http://x").pathname]
      if (handler === undefined) response.writeHead(404).end("no route")
      else handler(request, response, info)
    })
    const port = yield* Effect.acquireRelease(listen(server), () => close(server))
    info.port = port
    info.origin = `http://127.0.0.1:${port}`
    return info as Loopback
  })

/** A loopback port with nothing listening on it. */
export const closedPort: Effect.Effect<number> = Effect.gen(function* () {
  const server = createServer()
  const port = yield* listen(server)
  yield* close(server)
  return port
})
