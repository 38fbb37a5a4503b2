import * as Mcp from "@agentfx/tools/mcp"
import { describe, expect, it } from "@effect/vitest"
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Cause, Effect, Exit, Fiber, Scope } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { clientInfo, messageOf, request, start } from "../src/internal/mcpSession.js"
import { loopback } from "./support/loopback.js"
import { logCapture, type Message, sessionServer } from "./support/mcp.js"

// One server's sessions on their own: what an error says, what a stdio server is given and what it printed, when
// the server is gone, and a session the server forgot while a request still ran on it.

const options = (name = "srv") => ({ name, startTimeout: 10_000, maxMessageBytes: 10 * 1024 * 1024, prepare: () => undefined, renewed: () => undefined })

/** A stdio server written inline, as a node program. */
const program = (source: string, extra: { readonly cwd?: string; readonly env?: Record<string, string> } = {}) =>
  Mcp.stdio(process.execPath, { args: ["-e", source], ...extra })

/** Why `server` did not start. */
const notStarted = (server: Mcp.Server) =>
  Effect.map(Effect.flip(start(server, options())), (error) => {
    expect(error._tag).toBe("NotStarted")
    return error.why
  })

/** Answers `initialize`; anything else ends it, printing `last` on stderr first. */
const answersInitializeOnly = (last: string) => `
  const rl = require("node:readline").createInterface({ input: process.stdin })
  rl.on("line", (line) => {
    const m = JSON.parse(line)
    if (m.method === "initialize") process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "once", version: "1" } } }) + "\\n")
    else if (m.id !== undefined) { process.stderr.write(${JSON.stringify(last)}); process.exit(0) }
  })
`

const listTools = Effect.fnUntraced(function* (sessions: Effect.Effect.Success<ReturnType<typeof start>>) {
  return yield* sessions.use((client) => request((signal) => client.listTools({}, { signal })))
})

describe("messageOf", () => {
  it("what is not an Error, as a string", () => {
    expect(messageOf("plain")).toBe("plain")
    expect(messageOf(42)).toBe("42")
    expect(messageOf({ message: "not an error" })).toBe("[object Object]")
  })

  it("an HTTP error's status when its message does not say it; a cause's message when the message does not hold it", () => {
    expect(messageOf(new StreamableHTTPError(503, "Error POSTing to endpoint: restarting"))).toBe("Streamable HTTP error: Error POSTing to endpoint: restarting (HTTP 503)")
    expect(messageOf(new StreamableHTTPError(404, "Error POSTing to endpoint (HTTP 404)"))).toBe("Streamable HTTP error: Error POSTing to endpoint (HTTP 404)")
    expect(messageOf(new StreamableHTTPError(undefined, "no status"))).toBe("Streamable HTTP error: no status")
    expect(messageOf(new Error("HTTP 404"))).toBe("HTTP 404")
    expect(messageOf(new Error("fetch failed", { cause: new Error("connect ECONNREFUSED 127.0.0.1:9") }))).toBe("fetch failed: connect ECONNREFUSED 127.0.0.1:9")
    expect(messageOf(new Error("failed: boom", { cause: new Error("boom") }))).toBe("failed: boom")
    expect(messageOf(new Error("failed", { cause: "not an error" }))).toBe("failed")
  })
})

describe("a stdio server", () => {
  it.scopedLive("that does not start: why, with the last three lines it printed on stderr, trimmed", () =>
    Effect.gen(function* () {
      const why = yield* notStarted(program(`process.stderr.write("one\\ntwo\\nthree\\nfour\\n\\n"); process.exit(3)`))
      expect(why).toMatch(/ \(its stderr: two \| three \| four\)$/)
    }))

  it.scopedLive("that printed nothing: why, with no word of its stderr", () =>
    Effect.gen(function* () {
      const why = yield* notStarted(program(`process.exit(3)`))
      expect(why).toBe("MCP error -32000: Connection closed")
    }))

  it.scopedLive("that printed a long line: only its last 2,000 characters are kept", () =>
    Effect.gen(function* () {
      const why = yield* notStarted(program(`process.stderr.write("first\\n" + "y".repeat(3000) + "\\nlast\\n"); process.exit(3)`))
      expect(why).not.toContain("first")
      expect(why).toContain(" | last)")
      const ys = /y+/.exec(why)![0].length
      expect(ys).toBeGreaterThan(1900)
      expect(ys).toBeLessThan(2000)
    }))

  it.scopedLive("is given the SDK's safe environment and its own variables, nothing else of ours, in its folder", () =>
    Effect.gen(function* () {
      const folder = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentfx-mcp-cwd-")))
      yield* Effect.addFinalizer(() => Effect.sync(() => NodeFs.rmSync(folder, { recursive: true, force: true })))
      // Vitest's own variable, set in this process and not among the SDK's safe ones: it must not reach the server.
      expect(process.env.VITEST).toBeDefined()
      const report = `process.stderr.write(JSON.stringify({ own: process.env.OWN, leak: process.env.VITEST ?? null, path: process.env.PATH === ${JSON.stringify(process.env.PATH)}, cwd: process.cwd() })); process.exit(3)`
      const given = yield* notStarted(program(report, { env: { OWN: "mine" }, cwd: folder }))
      expect(given).toContain(`(its stderr: ${JSON.stringify({ own: "mine", leak: null, path: true, cwd: folder })})`)
      const inherited = yield* notStarted(program(report))
      expect(inherited).toContain(`(its stderr: ${JSON.stringify({ leak: null, path: true, cwd: process.cwd() })})`)
    }))

  it.scopedLive("that exits once started is gone, saying so with what it printed; before that it is not", () =>
    Effect.gen(function* () {
      const sessions = yield* start(program(answersInitializeOnly("bye\n")), options("weather"))
      expect(sessions.gone()).toBeUndefined()
      yield* Effect.flip(listTools(sessions))
      expect(sessions.gone()).toBe("the server weather closed the connection (its stderr: bye)")
      expect(sessions.said()).toBe(" (its stderr: bye)")
    }))
})

/** `server` on a loopback port; `status` (while set) answers every POST in its place. */
const serve = (server: ReturnType<typeof sessionServer>) =>
  Effect.gen(function* () {
    let status: number | undefined
    const http = yield* loopback({
      "/mcp": (request, response, info) => (status !== undefined && request.method === "POST" ? void response.writeHead(status).end("broken") : server.handler(request, response, info))
    })
    return { host: `127.0.0.1:${http.port}`, url: `${http.origin}/mcp`, fail: (code: number | undefined) => (status = code) }
  })

describe("an HTTP server", () => {
  it.scopedLive("is told who connects: this package at its version", () =>
    Effect.gen(function* () {
      const initializes: Array<unknown> = []
      const server = sessionServer({ before: (message) => message.method === "initialize" && initializes.push((message.params as Record<string, unknown>).clientInfo) })
      const { url } = yield* serve(server)
      yield* start(Mcp.http(url), options())
      const manifest = JSON.parse(NodeFs.readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
      expect(initializes).toEqual([{ name: "agentfx", version: manifest.version }])
      expect(clientInfo.version).toBe(manifest.version)
    }))

  it.scopedLive("has printed nothing", () =>
    Effect.gen(function* () {
      const { url } = yield* serve(sessionServer())
      const sessions = yield* start(Mcp.http(url), options())
      expect(sessions.said()).toBe("")
      expect(sessions.gone()).toBeUndefined()
    }))

  it.scopedLive("named otherwise than its host is named with its host in a lost session's message; named as its host, once", () => {
    const log = logCapture()
    return Effect.gen(function* () {
      const forgetful = () => sessionServer({ before: (message, server) => message.method === "tools/list" && server.forget() })
      const named = yield* serve(forgetful())
      const lost = yield* Effect.flip(listTools(yield* start(Mcp.http(named.url), options("docs"))))
      expect(lost).toMatchObject({ _tag: "SessionLost" })
      expect((lost as { message: string }).message).toMatch(new RegExp(`^docs \\(${named.host.replace(".", "\\.")}\\) forgot its session \\(HTTP 404\\) twice in a row`))
      const byHost = yield* serve(forgetful())
      const again = yield* Effect.flip(listTools(yield* start(Mcp.http(byHost.url), options(byHost.host))))
      expect((again as { message: string }).message.startsWith(`${byHost.host} forgot its session`)).toBe(true)
      // Each new session is told in a warning, the server named the same way.
      expect(log.lines).toEqual([
        `WARN: docs (${named.host}) forgot its session (HTTP 404): a new session was opened`,
        `WARN: ${byHost.host} forgot its session (HTTP 404): a new session was opened`
      ])
    }).pipe(Effect.provide(log.layer))
  })

  it.scopedLive("an HTTP error other than 404 fails the request; no new session is opened", () =>
    Effect.gen(function* () {
      const server = sessionServer()
      const { url, fail } = yield* serve(server)
      const sessions = yield* start(Mcp.http(url), options())
      fail(500)
      const failed = yield* Effect.flip(listTools(sessions))
      expect(failed).toMatchObject({ _tag: "RequestFailed" })
      expect(messageOf((failed as { error: unknown }).error)).toContain("(HTTP 500)")
      fail(undefined)
      expect((yield* listTools(sessions)).tools.map((tool) => tool.name)).toEqual(["echo"])
      expect(server.opened).toEqual(["s1"])
    }))

  it.scopedLive("a request still running on a session the server forgot gets its answer: the session is closed once it has", () =>
    Effect.provide(Effect.gen(function* () {
      let arrived!: () => void
      const slowArrived = new Promise<void>((resolve) => (arrived = resolve))
      let release!: () => void
      const gate = new Promise<"answer">((resolve) => (release = () => resolve("answer")))
      const server = sessionServer({ tools: ["slow", "echo"], delay: (message: Message) => (message.params?.name === "slow" ? (arrived(), gate) : undefined) })
      const { url } = yield* serve(server)
      let renewed = 0
      const scope = yield* Scope.make()
      const sessions = yield* Scope.extend(start(Mcp.http(url), { ...options(), renewed: () => void renewed++ }), scope)
      const call = (name: string) => sessions.use((client) => request((signal) => client.callTool({ name, arguments: {} }, undefined, { signal })))
      const slow = yield* Effect.fork(call("slow"))
      yield* Effect.promise(() => slowArrived)
      server.forget()
      yield* call("echo")
      expect(server.opened).toEqual(["s1", "s2"])
      expect(renewed).toBe(1)
      release()
      const answer = yield* Fiber.await(slow)
      expect(Exit.isSuccess(answer) && answer.value.content).toEqual([{ type: "text", text: "slow" }])
      expect(server.calls).toEqual(["s1 slow", "s2 echo"])
      // The forgotten session was let go once its request ended, without a DELETE: only the current one is ended.
      yield* Scope.close(scope, Exit.void)
      expect(server.deleted).toEqual(["s2"])
    }), logCapture().layer))

  it.scopedLive("a 404 that comes while the connection is being closed fails its request: no new session is opened then", () =>
    Effect.gen(function* () {
      let arrived!: () => void
      const callArrived = new Promise<void>((resolve) => (arrived = resolve))
      let answer!: () => void
      const gate = new Promise<"not found">((resolve) => (answer = () => resolve("not found")))
      let settled!: () => void
      const callSettled = new Promise<void>((resolve) => (settled = resolve))
      const server = sessionServer({ delay: () => (arrived(), gate) })
      // The close has begun when the session's DELETE comes: the call's 404 is given then, and the DELETE answered
      // only once the call has ended (its answer would let the close go on, aborting the call first).
      const http = yield* loopback({
        "/mcp": (request, response, info) => {
          if (request.method !== "DELETE") return server.handler(request, response, info)
          answer()
          void callSettled.then(() => server.handler(request, response, info))
        }
      })
      const scope = yield* Scope.make()
      const sessions = yield* Scope.extend(start(Mcp.http(`${http.origin}/mcp`), options()), scope)
      const call = yield* Effect.fork(sessions.use((client) => request((signal) => client.callTool({ name: "echo", arguments: {} }, undefined, { signal }))))
      yield* Effect.promise(() => callArrived)
      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      const failed = yield* Fiber.await(call)
      settled()
      yield* Fiber.join(closing)
      expect(Exit.isFailure(failed) && Cause.squash(failed.cause)).toMatchObject({
        _tag: "SessionLost",
        message: `srv (127.0.0.1:${http.port}) forgot its session (HTTP 404) as its connection was being closed`
      })
      expect(server.opened).toEqual(["s1"])
      expect(server.deleted).toEqual(["s1"])
    }))
})
