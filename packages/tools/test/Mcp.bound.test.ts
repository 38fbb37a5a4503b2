import { Executor, FunctionCall, type Registry } from "@agentfx/core"
import * as Mcp from "@agentfx/tools/mcp"
import { describe, expect, it } from "@effect/vitest"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { loopback } from "./support/loopback.js"
import { inline, logCapture, rawServer, readOnly } from "./support/mcp.js"

// Issue 35 item 4: one bound on what an MCP server's message may hold, the same over stdio and Streamable HTTP. A
// result past it fails its call with a typed error naming the server, the tool and the size, is never held whole,
// and the server goes on serving.

const call = (name: string, args: Record<string, unknown> = {}, id = name) => FunctionCall.make({ id, name, args })

/** The bound the tests set: 1 MiB, so that a result past it stays cheap to send. */
const limit = 1024 * 1024

/** `big` answers `bytes` bytes of text; `small` answers "ok". */
const tools = [
  { name: "big", inputSchema: { type: "object" as const, properties: { bytes: { type: "number" } } }, annotations: readOnly },
  { name: "small", inputSchema: { type: "object" as const }, annotations: readOnly }
]

/** A Streamable HTTP server made with the SDK, answering in JSON bodies (`json`) or in event streams. */
const sdkServer = (json: boolean) =>
  loopback({
    "/mcp": (request, response) => {
      const server = new Server({ name: "sizes", version: "1.0.0" }, { capabilities: { tools: {} } })
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }))
      server.setRequestHandler(CallToolRequestSchema, (called) => ({
        content: [{ type: "text", text: called.params.name === "big" ? "x".repeat(Number(called.params.arguments?.bytes)) : "ok" }]
      }))
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: json })
      response.on("close", () => void transport.close())
      void server.connect(transport).then(() => transport.handleRequest(request, response))
    }
  })

/** What a too-large result's call failed with, as the model is told it. */
const tooLarge = (registry: Registry.Registry, bytes: number) =>
  Effect.map(Effect.flip(Executor.execute(registry, call("big", { bytes }))), (error) => {
    expect(error._tag).toBe("ExecutionFailed")
    return (error as { cause: unknown }).cause as { type: string; message: string }
  })

describe.concurrent("issue 35 item 4: a tool result past maxMessageBytes", () => {
  it.scopedLive("over Streamable HTTP, answered as JSON: McpResultTooLarge naming the server, the tool and the size; the next call is served", () =>
    Effect.gen(function* () {
      const http = yield* sdkServer(true)
      const registry = yield* Mcp.registry([Mcp.http(`${http.origin}/mcp`, { name: "sizes" })], { maxMessageBytes: limit })
      const cause = yield* tooLarge(registry, 3 * limit)
      // The SDK's server says how long its JSON answer is: refused unread, at that size.
      expect(cause).toEqual({
        type: "McpResultTooLarge",
        message: `the result of "big" from the MCP server sizes is 3.0 MiB, more than the 1 MiB one message may hold: it was not read, and the server goes on serving`
      })
      expect(yield* Executor.execute(registry, call("small"))).toBe("ok")
      // Just under the bound (the JSON around the text takes some): read and given whole.
      expect(String(yield* Executor.execute(registry, call("big", { bytes: limit - 200 })))).toHaveLength(limit - 200)
    }))

  it.scopedLive("over Streamable HTTP, answered in an event stream: the stream is cut at the bound, the call fails the same way, the next one is served", () =>
    Effect.gen(function* () {
      const http = yield* sdkServer(false)
      const registry = yield* Mcp.registry([Mcp.http(`${http.origin}/mcp`, { name: "sizes" })], { maxMessageBytes: limit })
      const cause = yield* tooLarge(registry, 3 * limit)
      expect(cause).toEqual({
        type: "McpResultTooLarge",
        message: `the result of "big" from the MCP server sizes is more than the 1 MiB one message may hold (reading stopped there): it was not read, and the server goes on serving`
      })
      expect(yield* Executor.execute(registry, call("small"))).toBe("ok")
      expect(String(yield* Executor.execute(registry, call("big", { bytes: limit - 200 })))).toHaveLength(limit - 200)
    }))

  it.scopedLive("over stdio: the line is counted to its end, never held, and the call fails with its exact size; the server is not closed", () =>
    Effect.gen(function* () {
      // The answer's id comes after its result, as the SDK's servers write it: found all the same.
      const server = inline(
        "lines",
        rawServer(
          JSON.stringify({ tools }),
          `const text = m.params.name === "big" ? "x".repeat(m.params.arguments.bytes) : "ok"; process.stdout.write(JSON.stringify({ result: { content: [{ type: "text", text }] }, jsonrpc: "2.0", id: m.id }) + "\\n")`
        )
      )
      const registry = yield* Mcp.registry([server], { maxMessageBytes: limit })
      const cause = yield* tooLarge(registry, 3 * limit)
      const bytes = JSON.stringify({ result: { content: [{ type: "text", text: "x".repeat(3 * limit) }] }, jsonrpc: "2.0", id: 0 }).length
      expect(cause).toEqual({
        type: "McpResultTooLarge",
        message: `the result of "big" from the MCP server lines is ${(bytes / limit).toFixed(1)} MiB, more than the 1 MiB one message may hold: it was not read, and the server goes on serving`
      })
      expect(yield* Executor.execute(registry, call("small"))).toBe("ok")
      expect(String(yield* Executor.execute(registry, call("big", { bytes: limit - 200 })))).toHaveLength(limit - 200)
    }))

  it.scopedLive("over stdio by default (10 MiB): the call fails with the typed error, not with the server closing the connection", () =>
    Effect.gen(function* () {
      const server = inline("default", rawServer(JSON.stringify({ tools }), `reply(m.id, { content: [{ type: "text", text: "x".repeat(m.params.arguments?.bytes ?? 2) }] })`))
      const registry = yield* Mcp.registry([server])
      const cause = yield* tooLarge(registry, 11 * limit)
      expect(cause.type).toBe("McpResultTooLarge")
      expect(cause.message).toContain("more than the 10 MiB one message may hold")
      expect(yield* Executor.execute(registry, call("small"))).toBe("xx")
    }))
})

describe.concurrent("issue 35 item 4: other messages past maxMessageBytes", () => {
  it.scopedLive("a tool list past the bound is an McpError at list, saying its size", () =>
    Effect.gen(function* () {
      const long = `{ tools: [{ name: "a", description: "d".repeat(${2 * limit}), inputSchema: { type: "object" } }] }`
      const error = yield* Effect.flip(Mcp.connect(inline("wordy", rawServer(long, "")), { maxMessageBytes: limit }))
      expect(error).toMatchObject({ _tag: "McpError", server: "wordy", phase: "list" })
      expect(error.message).toMatch(/^wordy sent a tool list that cannot be read: the answer is 2\.0 MiB, more than the 1 MiB one message may hold: it was not read$/)
    }))

  it.scopedLive("a notification of the server's past the bound is dropped with a warning; the call it came with is answered", () =>
    Effect.gen(function* () {
      const log = logCapture()
      const noisy = `process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "n".repeat(${2 * limit}) } }) + "\\n"); reply(m.id, { content: [{ type: "text", text: "after" }] })`
      const registry = yield* Effect.provide(Mcp.registry([inline("noisy", rawServer(JSON.stringify({ tools }), noisy))], { maxMessageBytes: limit }), log.layer)
      expect(yield* Effect.provide(Executor.execute(registry, call("small")), log.layer)).toBe("after")
      expect(log.lines).toEqual([expect.stringMatching(/^WARN: noisy sent a message of 2\.0 MiB, more than the 1 MiB one message may hold, which was dropped$/)])
    }))
})
