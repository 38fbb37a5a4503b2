import { Effect, Schema } from "effect"
import { FunctionCall, Registry, Tool } from "../src/index.js"

export const call = (name: string, args: Record<string, unknown> = {}, id = `id_${name}`): FunctionCall.FunctionCall =>
  FunctionCall.make({ id, name, args })

export const add = Tool.make("add", {
  description: "Adds two numbers",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Number,
  handler: ({ a, b }) => Effect.succeed(a + b)
})

export class OutOfStock extends Schema.TaggedError<OutOfStock>()("OutOfStock", { sku: Schema.String }) {}

export const reserve = Tool.make("reserve", {
  description: "Reserves an item",
  parameters: Schema.Struct({ sku: Schema.String, quantity: Schema.optional(Schema.Int) }),
  success: Schema.Struct({ reservation: Schema.String }),
  failure: OutOfStock,
  handler: ({ sku }) => (sku === "none" ? Effect.fail(new OutOfStock({ sku })) : Effect.succeed({ reservation: `r-${sku}` }))
})

export const boom = Tool.make("boom", {
  description: "Always throws",
  parameters: Schema.Struct({}),
  handler: () => Effect.sync(() => {
    throw new Error("kaboom")
  })
})

export const slow = Tool.make("slow", {
  description: "Takes its time",
  parameters: Schema.Struct({ ms: Schema.Number }),
  timeout: "1 second",
  handler: ({ ms }) => Effect.as(Effect.sleep(ms), "done")
})

export const registry = Registry.unsafeMake(add, reserve, boom, slow)

/** A tool answering `{from: name, a}`. */
export const echo = (name: string, description = `echoes as ${name}`) =>
  Tool.make(name, { description, parameters: Schema.Struct({ a: Schema.Number }), handler: ({ a }) => Effect.succeed({ from: name, a }) })

/**
 * A source whose tools a test changes: `add` and `set` bump the version; `current` counts how often it is asked, and
 * fails while `failing` is above 0 (counting it down). `registry` starts with one tool, `first`.
 */
export const fakeSource = () => {
  // `failing` listings fail, then `dying` listings die (a bug of the source), before listings succeed again.
  const state: { tools: ReadonlyArray<Tool.Tool>; version: number; listed: number; failing: number; dying: number } = { tools: [echo("first")], version: 0, listed: 0, failing: 0, dying: 0 }
  const source: Registry.Source = {
    version: () => state.version,
    current: Effect.suspend(() => {
      state.listed++
      if (state.failing > 0) {
        state.failing--
        return Effect.fail(new Error("the server did not answer"))
      }
      if (state.dying > 0) {
        state.dying--
        return Effect.die(new Error("a bug in the source"))
      }
      return Effect.succeed(Registry.unsafeMake(...state.tools))
    })
  }
  const set = (...tools: ReadonlyArray<Tool.Tool>) => {
    state.tools = tools
    state.version++
  }
  return {
    state,
    source,
    registry: Registry.dynamic(Registry.unsafeMake(...state.tools), source),
    add: (name: string) => set(...state.tools, echo(name)),
    set: (...tools: ReadonlyArray<Tool.Tool>) => Effect.sync(() => set(...tools))
  }
}
