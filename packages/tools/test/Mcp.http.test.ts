import { Executor, FunctionCall } from "@agentfx/core"
import * as Mcp from "@agentfx/tools/mcp"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Exit, Fiber, Scope, TestClock, TestServices } from "effect"
import type { Handler } from "./support/loopback.js"
import { closedPort, loopback } from "./support/loopback.js"
import { sessionServer } from "./support/mcp.js"

/** A stateful Streamable HTTP server in a few lines: one tool, "a"; a DELETE (the end of the session) is never answered. */
const hungOnDelete: Handler = (request, response) => {
  if (request.method === "DELETE") return
  if (request.method === "GET") return void response.writeHead(405).end()
  let body = ""
  request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
  request.on("end", () => {
    const message = JSON.parse(body) as { id?: number; method: string; params?: { protocolVersion?: string } }
    if (message.id === undefined) return void response.writeHead(202).end()
    const result =
      message.method === "initialize"
        ? { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "hung", version: "1" } }
        : { tools: [{ name: "a", inputSchema: { type: "object" } }] }
    response.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }))
  })
}

/** `effect`, or None after 5 s of real time: only a defect makes a test wait that long. */
const withinRealSeconds = <A, E, R>(effect: Effect.Effect<A, E, R>) => TestServices.provideWithLive(effect, Effect.timeoutOption("5 seconds"))

describe("MCP over HTTP: closing", () => {
  // The test clock drives the bound on the DELETE; the server and the SDK's sockets are real.
  it.scoped("a server that never answers the session's DELETE holds up its scope's close 2 s at most", () =>
    Effect.gen(function* () {
      const server = yield* loopback({ "/mcp": hungOnDelete })
      const scope = yield* Scope.make()
      const connection = yield* Scope.extend(Mcp.connect(Mcp.http(`${server.origin}/mcp`)), scope)
      expect((yield* connection.tools).map((tool) => tool.name)).toEqual(["a"])
      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      // The DELETE has reached the server, and the close waits on it under a bound (a sleep on the test clock).
      const waiting = Effect.gen(function* () {
        while (!server.requests.includes("DELETE /mcp") || Chunk.isEmpty(yield* TestClock.sleeps())) yield* Effect.yieldNow()
      })
      expect(yield* withinRealSeconds(waiting)).toMatchObject({ _tag: "Some" })
      yield* TestClock.adjust("1999 millis")
      expect(yield* Fiber.poll(closing)).toMatchObject({ _tag: "None" })
      yield* TestClock.adjust("1 millis")
      expect(yield* withinRealSeconds(Fiber.join(closing))).toMatchObject({ _tag: "Some" })
    }))
})

describe("MCP over HTTP: closing after the server forgot a session", () => {
  it.scoped("the session opened in place of a forgotten one is ended on close, and a DELETE never answered holds the close 2 s at most", () =>
    Effect.gen(function* () {
      const sessions = sessionServer()
      const deleting: Array<string | undefined> = []
      const server = yield* loopback({
        "/mcp": (request, response, info) =>
          request.method === "DELETE" ? void deleting.push(request.headers["mcp-session-id"] as string | undefined) : sessions.handler(request, response, info)
      })
      const scope = yield* Scope.make()
      const registry = yield* Scope.extend(Mcp.registry([Mcp.http(`${server.origin}/mcp`)]), scope)
      sessions.forget()
      expect(yield* withinRealSeconds(Executor.execute(registry, FunctionCall.make({ id: "1", name: "echo", args: {} })))).toMatchObject({ _tag: "Some", value: "echo" })
      expect(sessions.opened).toEqual(["s1", "s2"])
      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      const waiting = Effect.gen(function* () {
        while (deleting.length === 0 || Chunk.isEmpty(yield* TestClock.sleeps())) yield* Effect.yieldNow()
      })
      expect(yield* withinRealSeconds(waiting)).toMatchObject({ _tag: "Some" })
      expect(deleting).toEqual(["s2"])
      yield* TestClock.adjust("1999 millis")
      expect(yield* Fiber.poll(closing)).toMatchObject({ _tag: "None" })
      yield* TestClock.adjust("1 millis")
      expect(yield* withinRealSeconds(Fiber.join(closing))).toMatchObject({ _tag: "Some" })
    }))
})

describe.concurrent("MCP over HTTP: a start that fails says why", () => {
  it.scopedLive("a 401: the status and what the server said, not that the connection closed", () =>
    Effect.gen(function* () {
      const server = yield* loopback({ "/mcp": (_, response) => void response.writeHead(401, { "content-type": "text/plain" }).end("bad token") })
      const error = yield* Effect.flip(Mcp.connect(Mcp.http(`${server.origin}/mcp`)))
      expect(error).toMatchObject({ _tag: "McpError", phase: "start", server: `127.0.0.1:${server.port}` })
      expect(error.message).toContain("bad token")
      expect(error.message).toContain("HTTP 401")
      expect(error.message).not.toContain("closed the connection")
    }))

  it.scopedLive("nothing listening: the refused connection, not that the connection closed", () =>
    Effect.gen(function* () {
      const port = yield* closedPort
      const error = yield* Effect.flip(Mcp.connect(Mcp.http(`http://127.0.0.1:${port}/mcp`)))
      expect(error).toMatchObject({ _tag: "McpError", phase: "start" })
      expect(error.message).toContain("ECONNREFUSED")
      expect(error.message).not.toContain("closed the connection")
    }))
})

describe.concurrent("MCP over HTTP: a URL may hold a credential, so errors and names never quote it", () => {
  it.scopedLive("a mistyped scheme: the error names the scheme, and the server is named by its host", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Mcp.connect(Mcp.http("htps://me:SECRET1@mcp.example.com/mcp?key=SECRET2")))
      expect(error).toMatchObject({ _tag: "McpError", phase: "start", server: "mcp.example.com" })
      expect(error.message).toBe(`mcp.example.com cannot be reached: its URL's scheme is "htps", not http or https`)
    }))

  it.scopedLive("a URL that does not parse: neither the error nor the server's name quotes it", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Mcp.connect(Mcp.http("http//me:SECRET3@mcp.example.com/mcp?key=SECRET4")))
      expect(error).toMatchObject({ _tag: "McpError", phase: "start", server: "http-server" })
      expect(JSON.stringify(error)).not.toContain("SECRET")
      expect(error.message).toBe("http-server cannot be reached: its URL does not parse")
    }))

  it.scopedLive("a user name and password in an http URL (fetch refuses them, quoting the URL): refused first, unquoted", () =>
    Effect.gen(function* () {
      const port = yield* closedPort
      const error = yield* Effect.flip(Mcp.connect(Mcp.http(`http://me:SECRET5@127.0.0.1:${port}/mcp?key=SECRET6`)))
      expect(error).toMatchObject({ _tag: "McpError", phase: "start", server: `127.0.0.1:${port}` })
      expect(JSON.stringify(error)).not.toContain("SECRET")
      expect(error.message).toContain("user name or password")
    }))
})
