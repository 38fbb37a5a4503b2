import { Executor, FunctionCall } from "@agentfx/core"
import * as Mcp from "@agentfx/tools/mcp"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { loopback } from "./support/loopback.js"
import { logCapture, sessionServer } from "./support/mcp.js"

const call = (name: string, id = name) => FunctionCall.make({ id, name, args: {} })

/** `server` on a loopback port, reached at a URL whose query holds a credential no error may quote. */
const serve = (server: { readonly handler: Parameters<typeof loopback>[0][string] }) =>
  Effect.map(loopback({ "/mcp": server.handler }), (http) => ({ host: `127.0.0.1:${http.port}`, url: `${http.origin}/mcp?key=SECRET` }))

/** Runs `test` with the log captured, handing it the `LEVEL: message` lines so far (each test checks its own). */
const logged = <A, E, R>(test: (lines: ReadonlyArray<string>) => Effect.Effect<A, E, R>) => {
  const logs = logCapture()
  return Effect.provide(test(logs.lines), logs.layer)
}

/** The warning a reopened session is logged with (the host only: the URL's query may hold a credential). */
const reopened = (host: string) => `WARN: ${host} forgot its session (HTTP 404): a new session was opened`

describe.concurrent("MCP over HTTP: a session the server forgot (HTTP 404) is opened again", () => {
  it.scopedLive("a call that meets a 404 runs once, on a new session, and later calls stay on that session", () =>
    logged((warnings) =>
      Effect.gen(function* () {
        const server = sessionServer()
        const { host, url } = yield* serve(server)
        const registry = yield* Mcp.registry([Mcp.http(url)])
        expect(yield* Executor.execute(registry, call("echo", "1"))).toBe("echo")
        server.forget()
        expect(yield* Executor.execute(registry, call("echo", "2"))).toBe("echo")
        expect(yield* Executor.execute(registry, call("echo", "3"))).toBe("echo")
        expect(server.opened).toEqual(["s1", "s2"])
        // The call that met the 404 was not run on the forgotten session: it ran once, on the new one.
        expect(server.calls).toEqual(["s1 echo", "s2 echo", "s2 echo"])
        expect(server.requests.filter((request) => request.endsWith("tools/call"))).toEqual(["s1 tools/call", "s1 tools/call", "s2 tools/call", "s2 tools/call"])
        // The new session's tools are listed before the next turn: they may not be the forgotten session's.
        expect((yield* registry.source!.current).names).toEqual(["echo"])
        expect(server.requests.filter((request) => request.endsWith("tools/list"))).toEqual(["s1 tools/list", "s2 tools/list"])
        expect(warnings).toEqual([reopened(host)])
      })
    ))

  it.scopedLive("several calls that meet a 404 together open one new session between them", () =>
    logged((warnings) =>
      Effect.gen(function* () {
        // The 404s are given only once all four calls have reached the server: all four fail on the forgotten session.
        const server = sessionServer({ holdNotFound: 4 })
        const { host, url } = yield* serve(server)
        const registry = yield* Mcp.registry([Mcp.http(url)])
        server.forget()
        const results = yield* Effect.forEach(["1", "2", "3", "4"], (id) => Executor.execute(registry, call("echo", id)), { concurrency: "unbounded" })
        expect(results).toEqual(["echo", "echo", "echo", "echo"])
        expect(server.opened).toEqual(["s1", "s2"])
        expect(server.calls).toEqual(["s2 echo", "s2 echo", "s2 echo", "s2 echo"])
        expect(warnings).toEqual([reopened(host)])
      })
    ))

  it.scopedLive("a new session that cannot be opened fails the calls that waited on it, once; a later call tries again", () =>
    logged((warnings) =>
      Effect.gen(function* () {
        const server = sessionServer({ holdNotFound: 3 })
        const { host, url } = yield* serve(server)
        const registry = yield* Mcp.registry([Mcp.http(url)])
        server.forget()
        server.refuse(true)
        const failed = yield* Effect.forEach(["1", "2", "3"], (id) => Effect.flip(Executor.execute(registry, call("echo", id))), { concurrency: "unbounded" })
        for (const error of failed) {
          expect(error).toMatchObject({ _tag: "ExecutionFailed" })
          expect(JSON.stringify(error)).toContain(`${host} forgot its session (HTTP 404) and a new one could not be opened`)
          expect(JSON.stringify(error)).toContain("restarting")
        }
        const initializes = () => server.requests.filter((request) => request.endsWith("initialize")).length
        expect(initializes()).toBe(2)
        // A session that could not be opened is an error of the calls, not a warning.
        expect(warnings).toEqual([])
        server.refuse(false)
        expect(yield* Executor.execute(registry, call("echo", "4"))).toBe("echo")
        expect(initializes()).toBe(3)
        expect(server.opened).toEqual(["s1", "s2"])
        expect(server.calls).toEqual(["s2 echo"])
        expect(warnings).toEqual([reopened(host)])
      })
    ))

  it.scopedLive("a listing that meets a 404 halfway is listed again from its first page, on a new session", () =>
    logged((warnings) =>
      Effect.gen(function* () {
        let forgot = false
        const server = sessionServer({
          tools: ["a", "b", "c"],
          pageSize: 1,
          before: (message, server) => {
            if (message.method === "tools/list" && message.params?.cursor !== undefined && !forgot) {
              forgot = true
              server.forget()
            }
          }
        })
        const { host, url } = yield* serve(server)
        const connection = yield* Mcp.connect(Mcp.http(url))
        expect(warnings).toEqual([reopened(host)])
        const listings = server.requests.filter((request) => request.includes("tools/list"))
        expect(listings).toEqual(["s1 tools/list", "s1 tools/list 1", "s2 tools/list", "s2 tools/list 1", "s2 tools/list 2"])
        // A new session counts as a change of the tool list: listed again (on it) before the next turn.
        expect(connection.listedVersion()).toBeLessThan(connection.version())
        expect((yield* connection.tools).map((tool) => tool.name)).toEqual(["a", "b", "c"])
        expect(server.requests.filter((request) => request.includes("tools/list")).slice(listings.length)).toEqual(["s2 tools/list", "s2 tools/list 1", "s2 tools/list 2"])
      })
    ))

  it.scopedLive("closing the scope ends the current session (DELETE with its id), not the one the server forgot", () =>
    logged((warnings) =>
      Effect.gen(function* () {
        const server = sessionServer()
        const { host, url } = yield* serve(server)
        const scope = yield* Scope.make()
        const registry = yield* Scope.extend(Mcp.registry([Mcp.http(url)]), scope)
        server.forget()
        expect(yield* Executor.execute(registry, call("echo"))).toBe("echo")
        yield* Scope.close(scope, Exit.void)
        expect(server.deleted).toEqual(["s2"])
        expect(warnings).toEqual([reopened(host)])
      })
    ))

  it.scopedLive("a new session forgotten at once too: the call is a tool error naming the server's host only, and it was not run", () =>
    logged((warnings) =>
      Effect.gen(function* () {
        const server = sessionServer({ before: (message, server) => message.method === "tools/call" && server.forget() })
        const { host, url } = yield* serve(server)
        const registry = yield* Mcp.registry([Mcp.http(url)])
        const failed = yield* Effect.flip(Executor.execute(registry, call("echo")))
        expect(failed).toMatchObject({ _tag: "ExecutionFailed" })
        const message = JSON.stringify(failed)
        expect(message).toContain(host)
        expect(message).toContain("404")
        expect(message).not.toContain("SECRET")
        expect(message).not.toContain("/mcp")
        // One new session for the call, not one after another.
        expect(server.opened).toEqual(["s1", "s2"])
        expect(server.calls).toEqual([])
        expect(warnings).toEqual([reopened(host)])
      })
    ))

  it.scopedLive("a new session forgotten at once too: the listing is an McpError at list naming the server's host only", () =>
    logged((warnings) =>
      Effect.gen(function* () {
        const server = sessionServer({ before: (message, server) => message.method === "tools/list" && server.forget() })
        const { host, url } = yield* serve(server)
        const error = yield* Effect.flip(Mcp.connect(Mcp.http(url)))
        expect(error).toMatchObject({ _tag: "McpError", phase: "list", server: host })
        expect(error.message).toContain(host)
        expect(error.message).toContain("404")
        expect(JSON.stringify(error)).not.toContain("SECRET")
        expect(error.message).not.toContain("/mcp")
        expect(server.opened).toEqual(["s1", "s2"])
        expect(warnings).toEqual([reopened(host)])
      })
    ))

  it.scopedLive("a 404 to a request that carried no session id (a server without sessions) is an error, not a new session", () =>
    logged((warnings) =>
      Effect.gen(function* () {
        const server = sessionServer({ stateless: true })
        const { url } = yield* serve(server)
        const registry = yield* Mcp.registry([Mcp.http(url)])
        server.forget()
        const failed = yield* Effect.flip(Executor.execute(registry, call("echo")))
        expect(failed).toMatchObject({ _tag: "ExecutionFailed" })
        expect(JSON.stringify(failed)).toContain("404")
        expect(server.opened).toEqual(["s1"])
        // Not even tried: no second initialize.
        expect(server.requests.filter((request) => request.endsWith("initialize"))).toHaveLength(1)
        expect(warnings).toEqual([])
      })
    ))
})
