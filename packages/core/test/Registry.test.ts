import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { Registry, Tool } from "../src/index.js"

const echo = (name: string) => Tool.make(name, { description: `echo ${name}`, parameters: Schema.Struct({}), handler: () => Effect.succeed(name) })
// Built per test, not at import: tools made while the file loads would make every mutant of Tool.make a static one.
const tools = () => [echo("a"), echo("b"), echo("c")] as const

describe("Registry", () => {
  it.effect("make keeps tools by name, names and declarations in registration order", () =>
    Effect.gen(function* () {
      const [a, b, c] = tools()
      const registry = yield* Registry.make(b, a, c)
      expect(registry.names).toEqual(["b", "a", "c"])
      expect(registry.declarations).toEqual([b.declaration, a.declaration, c.declaration])
      expect([...registry.tools.entries()]).toEqual([["b", b], ["a", a], ["c", c]])
      expect(registry.source).toBeUndefined()
    }))

  it("a repeated name is DuplicateToolName naming it, from make, unsafeMake and merge", () => {
    const [a, b, c] = tools()
    const error = Effect.runSync(Effect.flip(Registry.make(a, b, a)))
    expect(error).toEqual(new Registry.DuplicateToolName({ name: "a" }))
    expect(error.message).toBe('two tools are named "a"')
    expect(error._tag).toBe("DuplicateToolName")
    expect(() => Registry.unsafeMake(c, c)).toThrow(new Registry.DuplicateToolName({ name: "c" }))
    expect(Registry.merge(Registry.unsafeMake(a, b), Registry.unsafeMake(b))).toEqual(Either.left(new Registry.DuplicateToolName({ name: "b" })))
  })

  it("merge gives both registries' tools, the first one's first", () => {
    const [a, b, c] = tools()
    const merged = Either.getOrThrow(Registry.merge(Registry.unsafeMake(b), Registry.unsafeMake(a, c)))
    expect(merged.names).toEqual(["b", "a", "c"])
    expect(merged.tools.get("c")).toBe(c)
  })

  it("restrict keeps the named tools in the given order, once each, leaving unknown names out", () => {
    const [a, b, c] = tools()
    const registry = Registry.unsafeMake(a, b, c)
    const restricted = Registry.restrict(registry, ["c", "x", "a", "c"])
    expect(restricted.names).toEqual(["c", "a"])
    expect(restricted.declarations).toEqual([c.declaration, a.declaration])
    expect(Registry.restrict(registry, []).names).toEqual([])
  })

  it("the empty registry has nothing", () => {
    expect([Registry.empty.tools.size, Registry.empty.names, Registry.empty.declarations]).toEqual([0, [], []])
  })

  it("dynamic keeps the initial tools with the source, at the version given or read now", () => {
    const [a, b] = tools()
    let version = 7
    const source: Registry.Source = { version: () => version, current: Effect.succeed(Registry.unsafeMake(a)) }
    const initial = Registry.unsafeMake(a, b)
    const now = Registry.dynamic(initial, source)
    expect(now).toEqual({ tools: initial.tools, names: ["a", "b"], declarations: initial.declarations, source, sourceVersion: 7 })
    version = 8
    expect(Registry.dynamic(initial, source, 3).sourceVersion).toBe(3)
  })

  it.effect("fromFunctions builds a tool per entry, plain functions and specs alike", () =>
    Effect.gen(function* () {
      const registry = yield* Registry.fromFunctions({ one: () => 1, two: { description: "Two", run: () => 2 } })
      expect(registry.names).toEqual(["one", "two"])
      expect(registry.declarations.map((d) => d.description)).toEqual(["", "Two"])
      expect(yield* registry.tools.get("two")!.run({}, Tool.context("x", "two"))).toBe(2)
      const error = yield* Effect.flip(Registry.fromFunctions({ ok: () => 1, "not ok": () => 2 }))
      expect(error).toMatchObject({ _tag: "InvalidToolDefinition", name: "not ok" })
    }))
})
