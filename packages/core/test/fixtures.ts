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
