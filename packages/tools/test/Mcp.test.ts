import { Agent, Executor, FunctionCall, Registry, Tool } from "@agentfx/core"
import { Scripted } from "@agentfx/core/testing"
import { Scenario } from "@agentfx/tools"
import * as Mcp from "@agentfx/tools/mcp"
import { describe, expect, it } from "@effect/vitest"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Either, Fiber, Logger, Schema } from "effect"
import * as fs from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { createRequire } from "node:module"
import { safeName, uniqueNames } from "../src/internal/toolNames.js"
import { inline, processesWith, rawServer, readOnly } from "./support/mcp.js"

const require = createRequire(import.meta.url)
const binOf = (pkg: string) => path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "dist", "index.js")
const everything = Mcp.stdio(process.execPath, { args: [binOf("@modelcontextprotocol/server-everything"), "stdio"], name: "everything" })

const call = (name: string, args: Record<string, unknown>, id = name) => FunctionCall.make({ id, name, args })

describe.concurrent("MCP tools: @modelcontextprotocol/server-everything over stdio", () => {
  it.scopedLive("every tool is listed with the server's own schema, and callable through Agent.run", () =>
    Effect.gen(function* () {
      const connection = yield* Mcp.connect(everything)
      const tools = yield* connection.tools
      const names = tools.map((tool) => tool.name)
      expect(names).toEqual(expect.arrayContaining(["echo", "get-sum", "get-structured-content", "get-tiny-image", "trigger-long-running-operation"]))
      expect(yield* connection.skipped).toEqual([])
      const echo = tools.find((tool) => tool.name === "echo")!
      expect(echo.declaration.parameters).toMatchObject({ type: "object", properties: { message: { type: "string", description: "Message to echo" } }, required: ["message"] })
      const registry = yield* Mcp.toRegistry([connection])
      const result = yield* Agent.run({ registry, prompt: "try them" }).pipe(
        Effect.provide(
          Scripted.layer([
            {
              calls: [
                { name: "echo", args: { message: "hello" } },
                { name: "get-sum", args: { a: 2, b: 40 } },
                { name: "get-structured-content", args: { location: "Chicago" } },
                { name: "get-tiny-image", args: {} },
                { name: "trigger-long-running-operation", args: { duration: 0.2, steps: 2 } },
                { name: "get-sum", args: { a: "two" } }
              ]
            },
            { text: "done" }
          ])
        )
      )
      expect(result.text).toBe("done")
      const byName = (name: string) => result.calls.filter((record) => record.name === name)
      expect(Either.getOrNull(byName("echo")[0]!.result)).toBe("Echo: hello")
      expect(Either.getOrNull(byName("get-sum")[0]!.result)).toBe("The sum of 2 and 40 is 42.")
      expect(Either.getOrNull(byName("get-structured-content")[0]!.result)).toMatchObject({ temperature: expect.any(Number) })
      expect(Either.getOrNull(byName("get-tiny-image")[0]!.result)).toEqual(expect.arrayContaining([expect.objectContaining({ type: "image", mimeType: "image/png" })]))
      expect(String(Either.getOrNull(byName("trigger-long-running-operation")[0]!.result))).toContain("completed")
      // Arguments the server refuses come back as a tool error the model sees.
      const bad = byName("get-sum")[1]!.result
      expect(Either.isLeft(bad)).toBe(true)
    }))

  it.scopedLive("a call interrupted by the executor's timeout is cancelled, and the server goes on serving", () =>
    Effect.gen(function* () {
      const registry = yield* Mcp.registry([everything])
      const slow = yield* Effect.either(Executor.execute(registry, call("trigger-long-running-operation", { duration: 30, steps: 30 }), { timeout: "300 millis" }))
      expect(slow).toMatchObject({ _tag: "Left", left: { _tag: "ToolTimeout" } })
      const echo = yield* Executor.execute(registry, call("echo", { message: "still here" }))
      expect(echo).toBe("Echo: still here")
    }))
})

describe.concurrent("MCP tools: @modelcontextprotocol/server-filesystem on a temporary folder", () => {
  it.scopedLive("reads and lists inside the folder; a path outside it is a tool error", () =>
    Effect.gen(function* () {
      const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "agentfx-mcp-")))
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      fs.writeFileSync(path.join(dir, "notes.txt"), "buy milk\n")
      const registry = yield* Mcp.registry([Mcp.stdio(process.execPath, { args: [binOf("@modelcontextprotocol/server-filesystem"), dir] })])
      expect(registry.names).toEqual(expect.arrayContaining(["read_text_file", "list_directory"]))
      // The server gives structured content: that is what the model sees.
      expect(yield* Executor.execute(registry, call("read_text_file", { path: path.join(dir, "notes.txt") }))).toEqual({ content: "buy milk\n" })
      expect(JSON.stringify(yield* Executor.execute(registry, call("list_directory", { path: dir })))).toContain("notes.txt")
      const outside = yield* Effect.either(Executor.execute(registry, call("read_text_file", { path: "/etc/hostname" })))
      expect(outside).toMatchObject({ _tag: "Left", left: { _tag: "ExecutionFailed" } })
    }))
})

describe.concurrent("MCP tools: Streamable HTTP", () => {
  it.scopedLive("a server started with the SDK on 127.0.0.1: listed and called with the headers given", () =>
    Effect.gen(function* () {
      const seen: Array<string | undefined> = []
      const http = createServer(async (request, response) => {
        seen.push(request.headers["x-team"] as string | undefined)
        const server = new Server({ name: "weather", version: "1.0.0" }, { capabilities: { tools: {} } })
        server.setRequestHandler(ListToolsRequestSchema, () => ({
          tools: [{ name: "forecast.today", description: "Today's forecast", inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, annotations: readOnly }]
        }))
        server.setRequestHandler(CallToolRequestSchema, (call) => ({
          content: [{ type: "text", text: `Sunny in ${String((call.params.arguments as { city: string }).city)}` }]
        }))
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
        response.on("close", () => void transport.close())
        await server.connect(transport)
        await transport.handleRequest(request, response)
      })
      const port = yield* Effect.acquireRelease(
        Effect.async<number>((resume) => void http.listen(0, "127.0.0.1", () => resume(Effect.succeed((http.address() as AddressInfo).port)))),
        () => Effect.async<void>((resume) => void http.close(() => resume(Effect.void)))
      )
      const registry = yield* Mcp.registry([Mcp.http(`http://127.0.0.1:${port}/mcp`, { headers: { "x-team": "blue" } })])
      // The dot is not a name every provider accepts.
      expect(registry.names).toEqual(["forecast_today"])
      expect(yield* Executor.execute(registry, call("forecast_today", { city: "Oslo" }))).toBe("Sunny in Oslo")
      expect(seen.length).toBeGreaterThan(0)
      expect(seen.every((team) => team === "blue")).toBe(true)
    }))

  it.scopedLive("several servers: each tool is prefixed with its server's name", () =>
    Effect.gen(function* () {
      const a = inline("alpha", rawServer(`{ tools: [{ name: "ping", inputSchema: { type: "object" } }] }`, `reply(m.id, { content: [{ type: "text", text: "a" }] })`))
      const b = inline("beta", rawServer(`{ tools: [{ name: "ping", inputSchema: { type: "object" } }] }`, `reply(m.id, { content: [{ type: "text", text: "b" }] })`))
      const registry = yield* Mcp.registry([a, b])
      expect(registry.names).toEqual(["alpha_ping", "beta_ping"])
      expect(yield* Executor.execute(registry, call("beta_ping", {}))).toBe("b")
    }))
})

describe.concurrent("MCP tools: list changes", () => {
  it.scopedLive("after notifications/tools/list_changed the tools are listed again", () =>
    Effect.gen(function* () {
      const server = inline(
        "growing",
        rawServer(
          `{ tools: globalThis.grown ? [{ name: "first", inputSchema: { type: "object" } }, { name: "second", inputSchema: { type: "object" } }] : [{ name: "first", inputSchema: { type: "object" } }] }`,
          `globalThis.grown = true; reply(m.id, { content: [{ type: "text", text: "grown" }] }); process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }) + "\\n")`
        )
      )
      const connection = yield* Mcp.connect(server)
      expect((yield* Mcp.toRegistry([connection])).names).toEqual(["first"])
      expect(yield* Executor.execute(yield* Mcp.toRegistry([connection]), call("first", {}))).toBe("grown")
      // The notification follows the answer on the same pipe: wait until it is read.
      while (connection.version() === connection.listedVersion()) yield* Effect.yieldNow()
      expect((yield* Mcp.toRegistry([connection])).names).toEqual(["first", "second"])
      expect(connection.listedVersion()).toBe(connection.version())
    }))

  /** A server whose tool list is `lists[n]` after `n` calls (it announces each change before it answers). */
  const changing = (name: string, lists: ReadonlyArray<ReadonlyArray<string>>, unreadableListing = 0) =>
    inline(
      name,
      rawServer(
        `(globalThis.lists = (globalThis.lists ?? 0) + 1) === ${unreadableListing} ? { tools: "busy" } : { tools: ${JSON.stringify(lists)}[Math.min(globalThis.calls ?? 0, ${lists.length - 1})].map((name) => ({ name, inputSchema: { type: "object" } })) }`,
        `globalThis.calls = (globalThis.calls ?? 0) + 1; process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }) + "\\n"); reply(m.id, { content: [{ type: "text", text: m.params.name }] })`
      )
    )

  /** Calls `name` and waits until the change the server announced with it has been read. */
  const callAndWait = (registry: { readonly source?: { readonly version: () => number } | undefined }, run: Effect.Effect<unknown, unknown>) =>
    Effect.gen(function* () {
      const before = registry.source!.version()
      yield* run
      while (registry.source!.version() === before) yield* Effect.yieldNow()
    })

  it.scopedLive("a tool keeps its name when a tool whose name comes out the same appears before it", () =>
    Effect.gen(function* () {
      const registry = yield* Mcp.registry([changing("names", [["a.b"], ["a_b", "a.b"]])])
      expect(registry.names).toEqual(["a_b"])
      yield* callAndWait(registry, Executor.execute(registry, call("a_b", {})))
      const after = yield* registry.source!.current
      expect(after.declarations.map((d) => d.name)).toEqual(["a_b_2", "a_b"])
      // "a_b" is still the server's "a.b": the model's earlier calls mean the same tool.
      expect(yield* Executor.execute(after, call("a_b", {}))).toBe("a.b")
      expect(yield* Executor.execute(after, call("a_b_2", {}))).toBe("a_b")
    }))

  it.scopedLive("several servers: a tool keeps its prefixed name across listings", () =>
    Effect.gen(function* () {
      const connections = [yield* Mcp.connect(changing("alpha", [["x.y"], ["x_y", "x.y"]])), yield* Mcp.connect(changing("beta", [["z"]]))]
      const registry = yield* Mcp.toRegistry(connections)
      expect(registry.names).toEqual(["alpha_x_y", "beta_z"])
      yield* callAndWait(registry, Executor.execute(registry, call("alpha_x_y", {})))
      const after = yield* registry.source!.current
      expect(after.names).toEqual(["alpha_x_y_2", "alpha_x_y", "beta_z"])
      expect(yield* Executor.execute(after, call("alpha_x_y", {}))).toBe("x.y")
    }))

  it.scopedLive("with a tool list, a server that drops a listed tool still offers the others once it changed", () =>
    Effect.gen(function* () {
      const connection = yield* Mcp.connect(changing("shrinking", [["first", "second", "third"], ["first", "third"]]), { only: ["first", "second"] })
      const registry = yield* Mcp.toRegistry([connection])
      expect(registry.names).toEqual(["first", "second"])
      yield* callAndWait(registry, Executor.execute(registry, call("first", {})))
      const warnings: Array<string> = []
      const capture = Logger.replace(
        Logger.defaultLogger,
        Logger.make(({ logLevel, message }) => {
          warnings.push(`${logLevel.label}: ${Array.isArray(message) ? message.join(" ") : String(message)}`)
        })
      )
      expect((yield* Effect.provide(registry.source!.current, capture)).names).toEqual(["first"])
      expect(warnings).toEqual([`WARN: shrinking no longer offers "second"; its other listed tools are still offered`])
    }))

  it.scopedLive("a listing that is interrupted leaves the change to be listed next time", () =>
    Effect.gen(function* () {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agentfx-mcp-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      const asked = path.join(dir, "asked")
      // The second listing is never answered (the server notes it was asked); the third is.
      const program = rawServer(
        `{ tools: (globalThis.calls ? ["first", "second"] : ["first"]).map((name) => ({ name, inputSchema: { type: "object" } })) }`,
        `globalThis.calls = 1; process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }) + "\\n"); reply(m.id, { content: [] })`
      ).replace(
        `else if (m.method === "tools/list") reply(`,
        `else if (m.method === "tools/list" && (globalThis.lists = (globalThis.lists ?? 0) + 1) === 2) require("node:fs").writeFileSync(${JSON.stringify(asked)}, "")\n    else if (m.method === "tools/list") reply(`
      )
      expect(program).toContain("globalThis.lists")
      const connection = yield* Mcp.connect(inline("stuck", program))
      const registry = yield* Mcp.toRegistry([connection])
      yield* callAndWait(registry, Executor.execute(registry, call("first", {})))
      const listing = yield* Effect.fork(registry.source!.current)
      while (!fs.existsSync(asked)) yield* Effect.yieldNow()
      yield* Fiber.interrupt(listing)
      expect(connection.listedVersion()).not.toBe(connection.version())
      expect((yield* registry.source!.current).names).toEqual(["first", "second"])
      expect(connection.listedVersion()).toBe(connection.version())
    }))

  it.scopedLive("a listing that fails is the source's failure, and the change is listed again next time", () =>
    Effect.gen(function* () {
      // The second listing (the first after the change) cannot be read; the third can.
      const registry = yield* Mcp.registry([changing("flaky", [["first"], ["first", "second"]], 2)])
      yield* callAndWait(registry, Executor.execute(registry, call("first", {})))
      const failed = yield* Effect.flip(registry.source!.current)
      expect(failed).toMatchObject({ _tag: "McpError", server: "flaky", phase: "list" })
      expect((yield* registry.source!.current).names).toEqual(["first", "second"])
    }))
})

/** A scenario offering `lookup` of its own and the tools of server-everything named `everything`. */
const everythingScenario = (tools: string) => `---
name: with-mcp
description: Uses an MCP server beside its own function
available_functions:
  - name: lookup
    description: Looks a word up
    parameters: { type: object, properties: { word: { type: string } }, required: [word] }
mcp:
  - name: everything
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(binOf("@modelcontextprotocol/server-everything"))}, stdio]
${tools}---
Look words up and echo them.
`

const lookup = Tool.make("lookup", { description: "x", parameters: Schema.Struct({ word: Schema.String }), handler: ({ word }) => Effect.succeed(`${word}: a word`) })

/** Where the scenario file would be: its folder is the servers' working directory, so it must exist. */
const scenarioPath = path.join(import.meta.dirname, "with-mcp.md")

const scenarioOf = (text: string, file = scenarioPath) =>
  Either.getOrThrow(Either.flatMap(Scenario.parse(text, file), (definition) => Scenario.resolve(definition, Registry.unsafeMake(lookup))))

describe.concurrent("MCP tools: servers a scenario names", () => {
  it.scoped("a scenario naming no server is returned as it is", () =>
    Effect.gen(function* () {
      const scenario = scenarioOf(everythingScenario("").replace(/mcp:[^]*?stdio\]\n/, ""))
      expect(scenario.mcp).toEqual([])
      expect(yield* Mcp.withServers(scenario)).toBe(scenario)
    }))

  it.scopedLive("a scenario naming server-everything offers the listed tools after its own, and runs through Agent.run", () =>
    Effect.gen(function* () {
      const scenario = yield* Mcp.withServers(scenarioOf(everythingScenario("    tools: [echo, get-sum]\n")))
      expect(scenario.registry.names).toEqual(["lookup", "echo", "get-sum"])
      const result = yield* Agent.run({ registry: scenario.registry, system: scenario.instructions, prompt: "go" }).pipe(
        Effect.provide(
          Scripted.layer([
            { calls: [{ name: "lookup", args: { word: "hello" } }, { name: "echo", args: { message: "hello" } }, { name: "get-sum", args: { a: 1, b: 2 } }] },
            { text: "done" }
          ])
        )
      )
      expect(result.calls.map((c) => Either.getOrNull(c.result))).toEqual(["hello: a word", "Echo: hello", "The sum of 1 and 2 is 3."])
    }))

  it.scopedLive("without a tool list every tool of the server is offered, in the server's order, after the scenario's own", () =>
    Effect.gen(function* () {
      const scenario = yield* Mcp.withServers(scenarioOf(everythingScenario("")))
      const served = (yield* (yield* Mcp.connect(everything)).tools).map((tool) => tool.name)
      expect(served).toEqual(expect.arrayContaining(["echo", "get-sum", "trigger-long-running-operation"]))
      expect(scenario.registry.names).toEqual(["lookup", ...served])
    }))

  it.scopedLive("a command runs in the scenario file's folder: a relative path means a file beside it", () =>
    Effect.gen(function* () {
      const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "agentfx-mcp-")))
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      fs.writeFileSync(path.join(dir, "server.js"), rawServer(`{ tools: [{ name: "where", inputSchema: { type: "object" } }] }`, `reply(m.id, { content: [{ type: "text", text: process.cwd() }] })`))
      const text = `---
name: beside
description: Its server is a file beside it
available_functions: []
mcp:
  - name: local
    command: ${JSON.stringify(process.execPath)}
    args: [./server.js]
---
Say where.
`
      const scenario = yield* Mcp.withServers(scenarioOf(text, path.join(dir, "beside.md")))
      expect(yield* Executor.execute(scenario.registry, call("where", {}))).toBe(dir)
    }))

  it.scopedLive("when one server fails to start, the servers already started are stopped before the error returns", () =>
    Effect.gen(function* () {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agentfx-mcp-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      const pidFile = path.join(dir, "first.pid")
      // The first server says it is up once the handshake is over; the second fails only then.
      const first = rawServer(`{ tools: [] }`, "").replace(
        `rl.on("line", (line) => {\n    const m = JSON.parse(line)`,
        `rl.on("line", (line) => {\n    const m = JSON.parse(line)\n    if (m.method === "notifications/initialized") require("node:fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid))`
      )
      expect(first).toContain("notifications/initialized")
      const second = `const fs = require("node:fs"); const wait = () => (fs.existsSync(${JSON.stringify(pidFile)}) ? process.exit(3) : setTimeout(wait, 5)); wait()`
      const text = `---
name: two-servers
description: The second server cannot start
available_functions: []
mcp:
  - name: first
    command: ${JSON.stringify(process.execPath)}
    args: [-e, ${JSON.stringify(first)}]
  - name: second
    command: ${JSON.stringify(process.execPath)}
    args: [-e, ${JSON.stringify(second)}]
---
Nothing.
`
      const error = yield* Effect.flip(Mcp.withServers(scenarioOf(text)))
      expect(error).toMatchObject({ _tag: "McpError", server: "second", phase: "start" })
      const pid = Number(fs.readFileSync(pidFile, "utf8"))
      expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }))
    }))

  it.scopedLive("a listed tool the server does not offer is an McpError naming the server, the tool and the scenario file", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Mcp.withServers(scenarioOf(everythingScenario("    tools: [echo, ecko]\n"))))
      expect(error).toMatchObject({ _tag: "McpError", server: "everything", phase: "list", file: `${scenarioPath}:9` })
      expect(error.message).toContain(`offers no tool "ecko"`)
    }))

  it.scopedLive("a server that cannot start is an McpError naming the scenario file", () =>
    Effect.gen(function* () {
      const text = everythingScenario("").replace(/command: .*\n {4}args: .*\n/, `command: ${JSON.stringify(process.execPath)}\n    args: [-e, "process.exit(3)"]\n`)
      const error = yield* Effect.flip(Mcp.withServers(scenarioOf(text)))
      expect(error).toMatchObject({ _tag: "McpError", server: "everything", phase: "start", file: `${scenarioPath}:9` })
    }))
})

describe.concurrent("MCP tools: list changes inside one run", () => {
  it.scopedLive("a tool the server adds while a run is going is declared on the run's next turn and called there", () =>
    Effect.gen(function* () {
      // Calling "first" adds "second": the server announces it before it answers, as a server that grows on use would.
      const server = inline(
        "growing",
        rawServer(
          `{ tools: globalThis.grown ? [{ name: "first", inputSchema: { type: "object" } }, { name: "second", inputSchema: { type: "object" } }] : [{ name: "first", inputSchema: { type: "object" } }] }`,
          `globalThis.grown = true; process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }) + "\\n"); reply(m.id, { content: [{ type: "text", text: m.params.name }] })`
        )
      )
      const registry = yield* Mcp.registry([server])
      expect(registry.names).toEqual(["first"])
      const model = Scripted.layer((request, index) =>
        Effect.succeed(
          index === 0
            ? { calls: [{ name: "first", args: {} }] }
            : index === 1 && request.declarations.some((declaration) => declaration.name === "second")
              ? { calls: [{ name: "second", args: {} }] }
              : { text: request.declarations.map((declaration) => declaration.name).join(",") }
        )
      )
      const result = yield* Agent.run({ registry, prompt: "grow" }).pipe(Effect.provide(model))
      expect(result.calls.map((c) => [c.name, Either.getOrNull(c.result)])).toEqual([
        ["first", "first"],
        ["second", "second"]
      ])
      expect(result.text).toBe("first,second")
    }))
})

describe.concurrent("MCP tools: servers that misbehave are typed errors naming them", () => {
  it.scopedLive("a server that exits at start: McpError at start, with what it printed", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Mcp.connect(inline("crashy", `console.error("no config file"); process.exit(3)`)))
      expect(error).toMatchObject({ _tag: "McpError", server: "crashy", phase: "start" })
      expect(error.message).toContain("no config file")
    }))

  it.scopedLive("a command that does not exist, and a URL that is not http: McpError at start", () =>
    Effect.gen(function* () {
      const missing = yield* Effect.flip(Mcp.connect(Mcp.stdio("/nonexistent/mcp-server --flag")))
      expect(missing).toMatchObject({ _tag: "McpError", phase: "start", server: "mcp-server" })
      const notHttp = yield* Effect.flip(Mcp.connect(Mcp.http("ftp://example.com/mcp")))
      expect(notHttp).toMatchObject({ _tag: "McpError", phase: "start" })
    }))

  it.scopedLive("a server that never answers initialize: McpError once the start timeout passes, the process stopped", () =>
    Effect.gen(function* () {
      // A mark in its command line finds the process, whether or not it got as far as running any code in 300 ms.
      const mark = `silent-${process.pid}-${Date.now()}`
      const error = yield* Effect.flip(
        Mcp.connect(inline("silent", `/* ${mark} */ setInterval(() => {}, 1000); process.stdin.resume()`), { startTimeout: "300 millis" })
      )
      expect(error).toMatchObject({ _tag: "McpError", server: "silent", phase: "start" })
      // Gone when the error returns, not seconds later: a CLI exits right after such an error.
      expect(processesWith(mark)).toEqual([])
    }))

  it.scopedLive("a tool list the SDK cannot read: McpError at list", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Mcp.connect(inline("garbled", rawServer(`{ tools: [{ name: 5 }] }`, ""))))
      expect(error).toMatchObject({ _tag: "McpError", server: "garbled", phase: "list" })
      expect(error.message).toMatch(/^garbled sent a tool list that cannot be read: ./)
    }))

  it.scopedLive("a tool list that never comes: McpError at list once the start timeout passes", () =>
    Effect.gen(function* () {
      const program = rawServer(`{ tools: [] }`, "").replace("else if (m.method === \"tools/list\") reply(m.id, { tools: [] })", "")
      expect(program).not.toContain("tools/list")
      // Long enough for node to start and answer initialize on a loaded machine: the bound is met by the listing.
      const error = yield* Effect.flip(Mcp.connect(inline("mute", program), { startTimeout: "1500 millis" }))
      expect(error).toMatchObject({ _tag: "McpError", server: "mute", phase: "list" })
      expect(error.message).toContain("timed out")
    }))

  it.scopedLive("issue 35 item 12: a command line with an unclosed quote is refused at start, naming the line; nothing is run", () =>
    Effect.gen(function* () {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agentfx-mcp-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      const ran = path.join(dir, "ran")
      // Run up to the end of the line, the program would write the file.
      const line = `${JSON.stringify(process.execPath)} -e 'require("node:fs").writeFileSync(${JSON.stringify(ran)}, "")`
      const server = Mcp.stdio(line)
      const error = yield* Effect.flip(Mcp.connect(server))
      expect(error).toMatchObject({ _tag: "McpError", phase: "start", server: path.basename(process.execPath) })
      expect(error.message).toBe(`its command line ${JSON.stringify(line)} cannot be run: it has an unclosed single quote ('); close it, or escape it with a backslash`)
      expect(fs.existsSync(ran)).toBe(false)
    }))

  it.scopedLive("a blank command is refused before anything is started", () =>
    Effect.gen(function* () {
      for (const server of [Mcp.stdio("   "), Mcp.stdio("  ", { args: [] }), Mcp.stdio("", { args: ["x"], name: "blank" })]) {
        const error = yield* Effect.flip(Mcp.connect(server))
        expect(error).toMatchObject({ _tag: "McpError", phase: "start", message: "no command to start the server with" })
      }
    }))

  it.scopedLive("a call the server answers as an error: a tool error with its text, else what the model would see of its content, else its structured content, as JSON", () =>
    Effect.gen(function* () {
      const answers = {
        text: { isError: true, content: [{ type: "text", text: "no such city" }] },
        mixed: { isError: true, content: [{ type: "text", text: "no map" }, { type: "image", data: "AAAA", mimeType: "image/png" }] },
        structured: { isError: true, content: [], structuredContent: { code: 3 } }
      }
      const onCall = `reply(m.id, ${JSON.stringify(answers)}[m.params.name])`
      const listed = Object.keys(answers).map((name) => ({ name, inputSchema: { type: "object" } }))
      const registry = yield* Mcp.registry([inline("refuser", rawServer(JSON.stringify({ tools: listed }), onCall))])
      // Tools listed without a description are declared with an empty one.
      expect(registry.declarations.map((declaration) => declaration.description)).toEqual(["", "", ""])
      expect((yield* Effect.flip(Executor.execute(registry, call("text", {})))).message).toBe(`"text" failed: no such city`)
      expect((yield* Effect.flip(Executor.execute(registry, call("mixed", {})))).message).toBe(`"mixed" failed: ["no map",{"type":"image","mimeType":"image/png","bytes":3}]`)
      expect((yield* Effect.flip(Executor.execute(registry, call("structured", {})))).message).toBe(`"structured" failed: {"code":3}`)
    }))

  it.scopedLive("a server that crashes mid-run: the call is a tool error naming it, the run goes on", () =>
    Effect.gen(function* () {
      const registry = yield* Mcp.registry([
        inline("fragile", rawServer(`{ tools: [{ name: "explode", inputSchema: { type: "object" } }] }`, `console.error("boom"); process.exit(7)`))
      ])
      const result = yield* Agent.run({ registry, prompt: "go" }).pipe(
        Effect.provide(Scripted.layer([{ calls: [{ name: "explode", args: {} }] }, { calls: [{ name: "explode", args: {} }] }, { text: "it is gone" }]))
      )
      expect(result.text).toBe("it is gone")
      expect(result.calls).toHaveLength(2)
      // The call it crashed on says how that request ended; the next one is refused at once, the server being gone.
      expect(result.calls.map((record) => (Either.isLeft(record.result) ? record.result.left.message : record.result.right))).toEqual([
        `"explode" failed: fragile: the server fragile closed the connection (its stderr: boom)`,
        `"explode" failed: the server fragile closed the connection (its stderr: boom)`
      ])
    }))
})

describe("MCP tool names and command lines", () => {
  it("names are made safe for every provider and unique", () => {
    expect(safeName("forecast.today")).toBe("forecast_today")
    expect(safeName("9lives")).toBe("_9lives")
    expect(safeName("")).toBe("_")
    expect(safeName("x".repeat(80))).toHaveLength(64)
    expect(uniqueNames(["a.b", "a_b", "a-b", "a.b"])).toEqual(["a_b", "a_b_2", "a-b", "a_b_3"])
    const long = uniqueNames(["y".repeat(70), "y".repeat(70)])
    expect(long[1]).toHaveLength(64)
    expect(long[1]!.endsWith("_2")).toBe(true)
  })

  it("command lines split like a shell splits plain words and quotes", () => {
    expect(Mcp.stdio(`npx -y @scope/server "a folder" 'it''s' a\\ b`)).toMatchObject({ command: "npx", args: ["-y", "@scope/server", "a folder", "its", "a b"] })
    expect(Mcp.stdio(`  node   "say \\"hi\\""  `)).toMatchObject({ command: "node", args: ['say "hi"'] })
    expect(Mcp.stdio("")).toMatchObject({ command: "", args: [] })
  })
})
