import { Tool } from "@agentfx/core"
import * as Mcp from "@agentfx/tools/mcp"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"

// Naming the tools of connected servers, on connections made by hand: what the names avoid, what they keep, and the
// version a registry of several servers follows.

const tool = (name: string): Tool.Tool => Either.getOrThrow(Tool.fromFunction(name, { description: `the ${name} tool`, parameters: { type: "object" }, run: () => name }))

/** A connection whose tools are `names` (changed with `set`) and whose version is moved with `bump`. */
const connection = (name: string, names: ReadonlyArray<string>) => {
  let tools = names.map(tool)
  let version = 0
  const made: Mcp.Connection = {
    name,
    tools: Effect.sync(() => tools),
    skipped: Effect.succeed([]),
    version: () => version,
    listedVersion: () => version
  }
  return {
    made,
    set: (next: ReadonlyArray<string>) => void (tools = next.map(tool)),
    bump: () => void version++
  }
}

const names = (tools: ReadonlyArray<Tool.Tool>) => tools.map((tool) => [tool.name, tool.declaration.name])

describe("toolsOf", () => {
  it.effect("with several servers each tool is prefixed, in its declaration too", () =>
    Effect.gen(function* () {
      const tools = yield* Mcp.toolsOf([connection("a", ["x"]).made, connection("b", ["x", "y"]).made])
      expect(names(tools)).toEqual([["a_x", "a_x"], ["b_x", "b_x"], ["b_y", "b_y"]])
    }))

  it.effect("with one server a name taken beside it is prefixed, and a prefixed name taken too gets a number", () =>
    Effect.gen(function* () {
      const tools = yield* Mcp.toolsOf([connection("srv", ["x", "y"]).made], ["x", "srv_x"])
      expect(names(tools)).toEqual([["srv_x_2", "srv_x_2"], ["y", "y"]])
      // A tool whose name is kept is the server's own tool, not a copy.
      const alone = connection("srv", ["z"])
      const [kept] = yield* Mcp.toolsOf([alone.made])
      expect(kept).toBe((yield* alone.made.tools)[0])
    }))

  it.effect("a tool keeps the name it was given; a new one avoids the names given before", () =>
    Effect.gen(function* () {
      const server = connection("srv", ["b"])
      const given = new Map<string, string>()
      expect(names(yield* Mcp.toolsOf([server.made], ["b"], given))).toEqual([["srv_b", "srv_b"]])
      // The server now offers a tool of the name given to its first: the newcomer gets another.
      server.set(["srv_b", "b"])
      expect(names(yield* Mcp.toolsOf([server.made], ["b"], given))).toEqual([["srv_b_2", "srv_b_2"], ["srv_b", "srv_b"]])
    }))
})

describe("toRegistry", () => {
  it.effect("a registry of several servers follows a change of any of them", () =>
    Effect.gen(function* () {
      const first = connection("a", ["x"])
      const second = connection("b", ["y"])
      const registry = yield* Mcp.toRegistry([first.made, second.made])
      const source = registry.source!
      const at = source.version()
      expect(registry.sourceVersion).toBe(at)
      second.bump()
      expect(source.version()).not.toBe(at)
      const after = source.version()
      first.bump()
      expect(source.version()).not.toBe(after)
      second.set(["y", "z"])
      expect((yield* source.current).names).toEqual(["a_x", "b_y", "b_z"])
    }))
})

describe("connectAll", () => {
  it.scoped("starts every server at once: none waits for another to be up", () =>
    Effect.gen(function* () {
      let started = 0
      const seen: Array<number> = []
      const connections = yield* Mcp.connectAll(["a", "b", "c"], (name) =>
        Effect.gen(function* () {
          started++
          yield* Effect.yieldNow()
          seen.push(started)
          return connection(name, []).made
        })
      )
      expect(connections.map((made) => made.name)).toEqual(["a", "b", "c"])
      expect(seen).toEqual([3, 3, 3])
    }))
})
