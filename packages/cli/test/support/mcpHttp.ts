import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { IncomingMessage, ServerResponse } from "node:http"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

/** A request as the server saw it: its method, and the headers it came with. */
export interface Seen {
  readonly method: string
  readonly headers: IncomingMessage["headers"]
}

/**
 * A Streamable HTTP MCP server in a few lines on 127.0.0.1 (stateless, JSON answers), for the test's scope: it lists
 * `tools` and answers a call with the tool's name. `gate` may answer a request itself (a refusal, a page) instead.
 */
export const mcpHttpServer = (
  options: { readonly tools?: ReadonlyArray<Record<string, unknown>>; readonly gate?: (request: IncomingMessage, response: ServerResponse) => boolean } = {}
): Effect.Effect<{ readonly url: string; readonly host: string; readonly seen: ReadonlyArray<Seen> }, never, Scope.Scope> =>
  Effect.gen(function* () {
    const seen: Array<Seen> = []
    const server = createServer((request, response) => {
      seen.push({ method: request.method ?? "", headers: request.headers })
      if (options.gate?.(request, response) === true) return
      if (request.method !== "POST") return void response.writeHead(405).end()
      let body = ""
      request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
      request.on("end", () => {
        const message = JSON.parse(body) as { id?: number; method: string; params?: { protocolVersion?: string; name?: string } }
        if (message.id === undefined) return void response.writeHead(202).end()
        const result =
          message.method === "initialize"
            ? { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "http", version: "1" } }
            : message.method === "tools/list"
              ? { tools: options.tools ?? [{ name: "ping", inputSchema: { type: "object" } }] }
              : { content: [{ type: "text", text: String(message.params?.name) }] }
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }))
      })
    })
    const port = yield* Effect.acquireRelease(
      Effect.async<number>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))),
      () =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    return { url: `http://127.0.0.1:${port}/mcp`, host: `127.0.0.1:${port}`, seen }
  })
