import { Agent, Executor, FunctionCall, Registry } from "@agentfx/core"
import { Scripted } from "@agentfx/core/testing"
import { Scenario } from "@agentfx/tools"
import * as Mcp from "@agentfx/tools/mcp"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either } from "effect"
import * as path from "node:path"
import { inline, logCapture, rawServer } from "./support/mcp.js"

/** Lists `tools` (names with an empty object schema, or whole tool objects as JavaScript source). */
const listing = (tools: ReadonlyArray<string>) => `{ tools: [${tools.map((tool) => (tool.startsWith("{") ? tool : `{ name: ${JSON.stringify(tool)}, inputSchema: { type: "object" } }`)).join(", ")}] }`

/** A tool whose input schema refers to itself in a way no declaration can express. */
const recursive = JSON.stringify({
  name: "query",
  inputSchema: { type: "object", properties: { from: { type: "object", properties: { city: { type: "string" } } }, to: { $ref: "#/properties/from" } } }
})

describe.concurrent("MCP tool listings that would break a registry", () => {
  it.scopedLive("a name listed twice is offered once, as first listed, with a warning naming it and the server", () =>
    Effect.gen(function* () {
      const server = inline("dup", rawServer(listing([`{ name: "a", description: "first", inputSchema: { type: "object" } }`, `{ name: "a", description: "second", inputSchema: { type: "object" } }`, "b"]), ""))
      const log = logCapture()
      const registry = yield* Effect.provide(Mcp.registry([server]), log.layer)
      expect(registry.names).toEqual(["a", "b"])
      expect(registry.tools.get("a")!.description).toBe("first")
      expect(log.lines).toEqual([`WARN: dup lists "a" more than once; the first listing of each is offered`])
    }))

  it.scopedLive("a listing after a change that repeats a name: the run refreshing its tools goes on, with the tool once", () =>
    Effect.gen(function* () {
      // Lists "a" until it is called; then announces a change and lists it twice.
      const server = inline(
        "dupafter",
        rawServer(
          `{ tools: (globalThis.called ? ["a", "a", "b"] : ["a"]).map((name) => ({ name, inputSchema: { type: "object" } })) }`,
          `globalThis.called = true; process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }) + "\\n"); reply(m.id, { content: [{ type: "text", text: "hi" }] })`
        )
      )
      const log = logCapture()
      const registry = yield* Mcp.registry([server])
      // The change is announced before the answer: the second turn is asked with the listing that repeats "a".
      const model = Scripted.layer((request, index) =>
        Effect.succeed(index === 0 ? { calls: [{ name: "a", args: {} }] } : { text: request.declarations.map((declaration) => declaration.name).join(",") })
      )
      const result = yield* Agent.run({ registry, prompt: "go" }).pipe(Effect.provide(model), Effect.provide(log.layer))
      expect(result.text).toBe("a,b")
      expect(log.lines).toContain(`WARN: dupafter lists "a" more than once; the first listing of each is offered`)
    }))

  it.scopedLive("a page cursor sent a second time is an McpError at list, not a listing that goes round for ever", () =>
    Effect.gen(function* () {
      // The first page has the tool; every later one is empty and points to itself.
      const server = inline(
        "loop",
        rawServer(`(globalThis.n = (globalThis.n ?? 0) + 1) === 1 ? { tools: [{ name: "a", inputSchema: { type: "object" } }], nextCursor: "p2" } : { tools: [], nextCursor: "p2" }`, "")
      )
      // Only a listing that never ends meets this bound.
      const error = yield* Effect.flip(Effect.timeoutFail(Mcp.connect(server), { duration: "10 seconds", onTimeout: () => "still listing" }))
      expect(error).toMatchObject({ _tag: "McpError", server: "loop", phase: "list" })
      expect(error instanceof Mcp.McpError ? error.message : error).toBe(`loop sent the page cursor "p2" twice: its tool list never ends`)
    }))

  it.scopedLive("a tool whose input schema cannot be declared is left out with a warning naming it, the server and why", () =>
    Effect.gen(function* () {
      const log = logCapture()
      const connection = yield* Effect.provide(Mcp.connect(inline("srv", rawServer(listing([recursive, "ping"]), ""))), log.layer)
      expect(log.lines).toEqual([`WARN: srv offers "query", left out: it cannot be declared (unresolvable reference #/properties/from)`])
      expect((yield* Mcp.toRegistry([connection])).names).toEqual(["ping"])
      expect(yield* connection.skipped).toEqual([{ name: "query", reason: "unresolvable reference #/properties/from" }])
    }))

  it.scopedLive("a tool named in `only` whose input schema cannot be declared is an McpError at list, saying why", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Mcp.registry([inline("srv", rawServer(listing([recursive, "ping"]), ""))], { only: ["query", "ping"] }))
      expect(error).toMatchObject({ _tag: "McpError", server: "srv", phase: "list" })
      expect(error.message).toBe(`srv offers "query", which cannot be declared (unresolvable reference #/properties/from)`)
      // Each such tool is named, in one sentence.
      const twice = recursive.replace(`"query"`, `"query2"`)
      const both = yield* Effect.flip(Mcp.registry([inline("srv", rawServer(listing([recursive, twice, "ping"]), ""))], { only: ["query", "query2"] }))
      expect(both.message).toBe(
        `srv offers "query", which cannot be declared (unresolvable reference #/properties/from); "query2", which cannot be declared (unresolvable reference #/properties/from)`
      )
    }))

  it.scopedLive("a scenario listing a tool that cannot be declared: McpError naming the scenario file", () =>
    Effect.gen(function* () {
      const file = path.join(import.meta.dirname, "undeclarable.md")
      const text = `---
name: undeclarable
description: Lists a tool its server cannot declare
available_functions: []
mcp:
  - name: srv
    command: ${JSON.stringify(process.execPath)}
    args: [-e, ${JSON.stringify(rawServer(listing([recursive, "ping"]), ""))}]
    tools: [query]
---
Query.
`
      const scenario = Either.getOrThrow(Either.flatMap(Scenario.parse(text, file), (definition) => Scenario.resolve(definition, Registry.empty)))
      const error = yield* Effect.flip(Mcp.withServers(scenario))
      expect(error).toMatchObject({ _tag: "McpError", server: "srv", phase: "list", file: `${file}:6` })
      expect(error.message).toContain(`"query", which cannot be declared`)
    }))
})

// One at a time, and apart from the others: reading 10,001 tools holds up the event loop a while.
describe("MCP listings past their bounds are McpErrors, not listings cut short or never ended", () => {
  /** Lists `pages(n)` tools (`t<n>_<i>`) on each page `n` (0, 1, …) with a fresh cursor to the next, until `pages(n)` is -1. */
  const paged = (name: string, pages: string) =>
    inline(
      name,
      rawServer(
        `(() => { const n = Number(m.params?.cursor ?? 0); const size = (${pages})(n); return size < 0 ? { tools: [] } : { tools: Array.from({ length: size }, (_, i) => ({ name: "t" + n + "_" + i, inputSchema: { type: "object" } })), nextCursor: String(n + 1) } })()`,
        ""
      )
    )

  it.scopedLive("a listing of more than 10,000 tools is an McpError at list saying so, not a listing cut short", () =>
    Effect.gen(function* () {
      // 10,000 tools, then one more on a second page: the listing used to stop at 10,000 and offer those as if all.
      const error = yield* Effect.flip(Mcp.connect(paged("huge", `(n) => (n === 0 ? 10000 : n === 1 ? 1 : -1)`)))
      expect(error).toMatchObject({ _tag: "McpError", server: "huge", phase: "list" })
      expect(error.message).toBe("huge lists more than 10000 tools (10001 in 2 pages): more than any model can be offered; its listing is refused")
    }))

  it.scopedLive("a listing of more than 1,000 pages is an McpError at list saying so", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Mcp.connect(paged("long", `(n) => (n < 1000 ? 1 : -1)`)))
      expect(error).toMatchObject({ _tag: "McpError", server: "long", phase: "list" })
      expect(error.message).toBe("long's tool list goes on past 1000 pages (1000 tools so far): its listing is refused")
    }))

  it.scopedLive("100 empty pages in a row, each with a new cursor, are an McpError at list; 99 and then a tool are listed", () =>
    Effect.gen(function* () {
      // After one tool, empty pages for ever, each pointing to a new one: only a listing that never ends meets the bound.
      const endless = Effect.flip(Effect.timeoutFail(Mcp.connect(paged("endless", `(n) => (n === 0 ? 1 : 0)`)), { duration: "20 seconds", onTimeout: () => "still listing" }))
      const error = yield* endless
      expect(error).toMatchObject({ _tag: "McpError", server: "endless", phase: "list" })
      expect(error instanceof Mcp.McpError ? error.message : error).toBe("endless sent 100 empty pages of tools in a row, each with a new cursor: its tool list never ends")
      // The bound is on a run: 99 empty pages and then a tool are listed, 100 are not.
      const sparse = yield* Mcp.connect(paged("sparse", `(n) => (n === 0 || n === 100 ? 1 : n < 100 ? 0 : -1)`))
      expect((yield* sparse.tools).map((tool) => tool.name)).toEqual(["t0_0", "t100_0"])
      const sparser = yield* Effect.flip(Mcp.connect(paged("sparser", `(n) => (n === 0 || n === 101 ? 1 : n < 101 ? 0 : -1)`)))
      expect(sparser.message).toBe("sparser sent 100 empty pages of tools in a row, each with a new cursor: its tool list never ends")
    }))
})

describe.concurrent("MCP timeouts past what a Node timer holds", () => {
  /** Answers a call 100 ms after it comes. */
  const slow = () => inline("slow", rawServer(listing(["slow"]), `setTimeout(() => reply(m.id, { content: [{ type: "text", text: "done" }] }), 100)`))

  for (const [label, timeout] of [
    ["Duration.infinity", Duration.infinity],
    ["30 days", "30 days"]
  ] as const) {
    it.scopedLive(`start and call timeouts of ${label} mean no bound, not 1 ms`, () =>
      Effect.gen(function* () {
        const registry = yield* Mcp.registry([slow()], { startTimeout: timeout, callTimeout: timeout })
        expect(yield* Executor.execute(registry, FunctionCall.make({ id: "1", name: "slow", args: {} }))).toBe("done")
      }))
  }
})
