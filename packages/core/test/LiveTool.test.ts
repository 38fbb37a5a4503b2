import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { Dialect, Registry, Tool } from "../src/index.js"

const parameters = Schema.Struct({ room: Schema.String })
const dim = (nonBlocking?: Tool.NonBlocking) =>
  Tool.make("dim", { description: "Dims a room", parameters, handler: ({ room }) => Effect.succeed({ room }), ...(nonBlocking === undefined ? {} : { nonBlocking }) })

describe("non-blocking tools", () => {
  it("a tool is blocking unless marked: no behavior, no scheduling", () => {
    for (const tool of [dim(), dim(false)]) {
      expect(tool.declaration.behavior).toBeUndefined()
      expect("behavior" in tool.declaration).toBe(false)
      expect(tool.scheduling).toBeUndefined()
    }
  })

  it("nonBlocking declares behavior nonBlocking, scheduled whenIdle unless told otherwise", () => {
    expect([dim(true).declaration.behavior, dim(true).scheduling]).toEqual(["nonBlocking", "whenIdle"])
    for (const scheduling of ["interrupt", "whenIdle", "silent"] as const) {
      const tool = dim({ scheduling })
      expect([tool.declaration.behavior, tool.scheduling]).toEqual(["nonBlocking", scheduling])
    }
  })

  it.effect("Registry.fromFunctions takes the same option", () =>
    Effect.gen(function* () {
      const registry = yield* Registry.fromFunctions({
        search: { run: () => "found", nonBlocking: { scheduling: "interrupt" } },
        plain: () => "ok"
      })
      expect(registry.declarations.map((d) => [d.name, d.behavior])).toEqual([["search", "nonBlocking"], ["plain", undefined]])
      expect([registry.tools.get("search")!.scheduling, registry.tools.get("plain")!.scheduling]).toEqual(["interrupt", undefined])
    }))

  it("Tool.nonBlocking marks a tool built elsewhere, and false makes it blocking again; the handler is the same", () => {
    const plain = dim()
    const marked = Tool.nonBlocking(plain, { scheduling: "silent" })
    expect([marked.declaration.behavior, marked.scheduling, marked.handler]).toEqual(["nonBlocking", "silent", plain.handler])
    expect([plain.declaration.behavior, plain.scheduling]).toEqual([undefined, undefined])
    expect(Tool.nonBlocking(marked).scheduling).toBe("whenIdle")
    const again = Tool.nonBlocking(marked, false)
    expect(["behavior" in again.declaration, "scheduling" in again]).toEqual([false, false])
    expect(again.declaration).toEqual(plain.declaration)
  })

  it("REST dialects leave behavior out (it is a Live-only field)", () => {
    const declaration = dim(true).declaration
    expect(Either.map(Dialect.gemini(declaration), (d) => "behavior" in d)).toEqual(Either.right(false))
    expect(Either.map(Dialect.openAI(declaration), (d) => "behavior" in d.function)).toEqual(Either.right(false))
  })
})
