// A second copy of effect, as a bare `npm i effect` leaves one beside ours: what it made is refused in one line.
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, ModuleVersion, Schema } from "effect"
import { Effect as Effect4, Schema as Schema4 } from "effect4"
import { Tool } from "../src/index.js"

const ours = ModuleVersion.getCurrentVersion()
const context = Tool.context("c1", "t")

/** What `f` throws, as Tool.make's definition errors are thrown. */
const thrown = (f: () => unknown): unknown => {
  try {
    f()
  } catch (error) {
    return error
  }
  throw new Error("nothing was thrown")
}

/** The message of the defect a tool's run died with. */
const defectOf = (tool: Tool.Tool): string => {
  const exit = Effect.runSyncExit(tool.run({}, context))
  if (Exit.isSuccess(exit)) throw new Error("the run succeeded")
  const defect = Cause.squash(exit.cause)
  return defect instanceof Error ? defect.message : String(defect)
}

describe("a second copy of effect", () => {
  it("we run on effect 3.22, and the fix the messages give installs that line", () => {
    expect(ours).toMatch(/^3\.22\.\d+$/)
  })

  it("a parameters Schema made by effect 4 is InvalidToolDefinition in one line naming both versions and the fix", () => {
    const error = thrown(() =>
      Tool.make("get_weather", {
        description: "Current temperature of a city",
        parameters: Schema4.Struct({ city: Schema4.String }) as unknown as Schema.Schema.AnyNoContext,
        handler: () => Effect.succeed({ celsius: 7 })
      })
    )
    expect(error).toBeInstanceOf(Tool.InvalidToolDefinition)
    expect((error as Error).message).toBe(
      `tool "get_weather": its parameters Schema was made by effect 4 or later, but agentfx runs on effect ${ours} (two copies of effect are installed): npm i effect@~3.22`
    )
  })

  it("so is a success or failure Schema made by effect 4", () => {
    const parameters = Schema.Struct({ city: Schema.String })
    const handler = () => Effect.succeed(1)
    const success = thrown(() => Tool.make("t", { description: "", parameters, success: Schema4.Number as unknown as typeof Schema.Number, handler }))
    expect((success as Error).message).toBe(`tool "t": its success Schema was made by effect 4 or later, but agentfx runs on effect ${ours} (two copies of effect are installed): npm i effect@~3.22`)
    const failure = thrown(() => Tool.make("t", { description: "", parameters, failure: Schema4.String as unknown as typeof Schema.String, handler: () => Effect.void }))
    expect((failure as Error).message).toBe(`tool "t": its failure Schema was made by effect 4 or later, but agentfx runs on effect ${ours} (two copies of effect are installed): npm i effect@~3.22`)
  })

  it("a parameters value that is no Schema at all says so, instead of failing inside JSON Schema generation", () => {
    const handler = () => Effect.void
    const plain = thrown(() => Tool.make("t", { description: "", parameters: { city: "string" } as unknown as Schema.Schema.AnyNoContext, handler }))
    expect((plain as Error).message).toBe('tool "t": its parameters Schema is not an effect Schema (got an object without its marker)')
    const missing = thrown(() => Tool.make("t", { description: "", parameters: undefined as unknown as Schema.Schema.AnyNoContext, handler }))
    expect((missing as Error).message).toBe('tool "t": its parameters Schema is not an effect Schema (got undefined)')
  })

  it("a Schema of our effect is accepted, with or without success and failure Schemas", () => {
    const parameters = Schema.Struct({ city: Schema.String })
    expect(Tool.make("t", { description: "", parameters, handler: () => Effect.void }).declaration.name).toBe("t")
    expect(Tool.make("t", { description: "", parameters, success: Schema.Number, failure: Schema.String, handler: () => Effect.succeed(1) }).name).toBe("t")
  })

  it("a handler that returns an Effect of effect 4 fails its call with the one-line message, never a TypeError from the runtime", () => {
    const tool = Tool.make("t", { description: "", parameters: Schema.Struct({}), handler: () => Effect4.succeed(1) as unknown as Effect.Effect<number> })
    expect(defectOf(tool)).toBe(`the handler's result was made by effect 4 or later, but agentfx runs on effect ${ours} (two copies of effect are installed): npm i effect@~3.22`)
  })

  it("a handler that returns an Effect of another effect 3 version fails its call naming that version", () => {
    const made = Effect.succeed(1)
    const marker = Symbol.for("effect/Effect")
    const variance = (made as unknown as Record<symbol, object>)[marker]
    const older = Object.create(made, { [marker]: { value: { ...variance, _V: "3.21.0" } } }) as Effect.Effect<number>
    const tool = Tool.make("t", { description: "", parameters: Schema.Struct({}), handler: () => older })
    expect(defectOf(tool)).toBe(`the handler's result was made by effect 3.21.0, but agentfx runs on effect ${ours} (two copies of effect are installed): npm i effect@~3.22`)
  })

  it("a handler's Effect of our effect runs as before", () => {
    const tool = Tool.make("t", { description: "", parameters: Schema.Struct({}), handler: () => Effect.succeed(1) })
    expect(Effect.runSync(tool.run({}, context))).toBe(1)
  })
})
