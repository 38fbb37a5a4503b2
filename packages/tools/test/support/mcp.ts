import * as Mcp from "@agentfx/tools/mcp"
import * as Logger from "effect/Logger"
import * as fs from "node:fs"
import type { ServerResponse } from "node:http"
import type { Handler } from "./loopback.js"

/** A stdio server written inline: a node program reading JSON-RPC lines. */
export const inline = (name: string, program: string) => Mcp.stdio(process.execPath, { args: ["-e", program], name })

/** What a test server says of its tools' effects unless a tool says otherwise: read-only and closed-world. */
export const readOnly = { readOnlyHint: true, openWorldHint: false } as const

/**
 * Answers `initialize` and `tools/list` (with `tools`), and runs `onCall` for `tools/call`. Each tool listed is
 * annotated `readOnly` unless it gives annotations of its own: its calls run without asking for approval.
 */
export const rawServer = (tools: string, onCall: string) => `
  const rl = require("node:readline").createInterface({ input: process.stdin })
  const annotated = (result) => (result && Array.isArray(result.tools) ? { ...result, tools: result.tools.map((tool) => (tool && typeof tool === "object" ? { annotations: ${JSON.stringify(readOnly)}, ...tool } : tool)) } : result)
  const reply = (id, result) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result: annotated(result) }) + "\\n")
  rl.on("line", (line) => {
    const m = JSON.parse(line)
    if (m.method === "initialize") reply(m.id, { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "raw", version: "1" } })
    else if (m.method === "tools/list") reply(m.id, ${tools})
    else if (m.method === "tools/call") { ${onCall} }
  })
`

/**
 * The ids of the running processes whose command line contains `mark` (read from /proc: the suite runs on Linux). A
 * zombie has an empty command line: a process that has exited is not counted, reaped or not.
 */
export const processesWith = (mark: string): ReadonlyArray<string> =>
  fs.readdirSync("/proc").filter((entry) => {
    if (!/^\d+$/.test(entry)) return false
    try {
      return fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(mark)
    } catch {
      return false // gone while the list was read
    }
  })

/** A logger to provide in place of the default one, and the `LEVEL: message` lines it was given. */
export const logCapture = () => {
  const lines: Array<string> = []
  const layer = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ logLevel, message }) => {
      lines.push(`${logLevel.label}: ${Array.isArray(message) ? message.join(" ") : String(message)}`)
    })
  )
  return { lines: lines as ReadonlyArray<string>, layer }
}

/** A JSON-RPC request or notification as a session server reads it. */
export interface Message {
  readonly id?: number
  readonly method: string
  readonly params?: { readonly protocolVersion?: string; readonly cursor?: string; readonly name?: string; readonly arguments?: Record<string, unknown> }
}

/** A Streamable HTTP MCP server that keeps sessions and can forget them, as a restart or an expiry would. */
export interface SessionServer {
  readonly handler: Handler
  /** Forgets every session it holds (a stateless server: answers 404 to everything from now on). */
  readonly forget: () => void
  /** While `on`, answers `initialize` with 503: no new session can be opened. */
  readonly refuse: (on: boolean) => void
  /** The id of each session opened (`s1`, `s2`, …), in order: one per `initialize`. */
  readonly opened: ReadonlyArray<string>
  /** `session method [cursor]` of every POST that carried a request, in order, whatever it was answered. */
  readonly requests: ReadonlyArray<string>
  /** `session tool` of each call run. */
  readonly calls: ReadonlyArray<string>
  /** The session id of each DELETE. */
  readonly deleted: ReadonlyArray<string>
}

/**
 * A Streamable HTTP MCP server in a few lines, whose tools (`tools`, `pageSize` to a page; read-only) each answer with
 * their own name. A request carrying a session id it does not know is answered 404, as the spec says; `before` sees every
 * request and notification first (and may `forget`). `holdNotFound` holds the first 404 answers until that many are
 * waiting, then gives them all at once (and later ones at once): requests that fail together. `stateless`: no session
 * ids at all. `delay` holds the answer to a call, then gives it or a 404.
 */
export const sessionServer = (
  options: {
    readonly tools?: ReadonlyArray<string>
    readonly pageSize?: number
    readonly before?: (message: Message, server: SessionServer) => void
    readonly holdNotFound?: number
    readonly stateless?: boolean
    /** A tool call it answers only once the promise returned resolves, as it says (`undefined`: at once). */
    readonly delay?: (message: Message) => Promise<"answer" | "not found"> | undefined
  } = {}
): SessionServer => {
  const tools = options.tools ?? ["echo"]
  const pageSize = options.pageSize ?? tools.length
  const sessions = new Set<string>()
  let forgotten = false
  let refusing = false
  const opened: Array<string> = []
  const requests: Array<string> = []
  const calls: Array<string> = []
  const deleted: Array<string> = []
  const held: Array<() => void> = []
  let released = false
  const notFound = (response: ServerResponse) => {
    held.push(() => response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null })))
    if (held.length >= (options.holdNotFound ?? 1) || released) {
      released = true
      held.splice(0).forEach((answer) => answer())
    }
  }
  const server: SessionServer = {
    handler: (request, response) => {
      const session = request.headers["mcp-session-id"] as string | undefined
      if (request.method === "GET") return void response.writeHead(405).end()
      if (request.method === "DELETE") {
        deleted.push(session ?? "")
        if (session !== undefined) sessions.delete(session)
        return void response.writeHead(200).end()
      }
      let body = ""
      request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
      request.on("end", () => {
        const message = JSON.parse(body) as Message
        if (message.id !== undefined) requests.push(`${session ?? "-"} ${message.method}${message.params?.cursor === undefined ? "" : ` ${message.params.cursor}`}`)
        options.before?.(message, server)
        if (options.stateless === true ? forgotten : message.method !== "initialize" && !sessions.has(session ?? "")) return notFound(response)
        if (message.id === undefined) return void response.writeHead(202).end()
        const reply = (result: unknown, headers: Record<string, string> = {}) =>
          response.writeHead(200, { "content-type": "application/json", ...headers }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }))
        if (message.method === "initialize" && refusing) return void response.writeHead(503, { "content-type": "text/plain" }).end("restarting")
        if (message.method === "initialize") {
          const id = `s${opened.length + 1}`
          opened.push(id)
          sessions.add(id)
          return reply(
            { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "sessions", version: "1" } },
            options.stateless === true ? {} : { "mcp-session-id": id }
          )
        }
        if (message.method === "tools/list") {
          const from = Number(message.params?.cursor ?? 0)
          const next = from + pageSize < tools.length ? { nextCursor: String(from + pageSize) } : {}
          return reply({ tools: tools.slice(from, from + pageSize).map((name) => ({ name, inputSchema: { type: "object" }, annotations: readOnly })), ...next })
        }
        calls.push(`${session ?? "-"} ${message.params?.name}`)
        const answer = () => reply({ content: [{ type: "text", text: String(message.params?.name) }] })
        const wait = options.delay?.(message)
        return wait === undefined ? answer() : void wait.then((how) => (how === "answer" ? answer() : notFound(response)))
      })
    },
    forget: () => {
      forgotten = true
      sessions.clear()
    },
    refuse: (on) => {
      refusing = on
    },
    opened,
    requests,
    calls,
    deleted
  }
  return server
}
