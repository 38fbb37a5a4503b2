import { Agent, LanguageModel, Registry, Tool, Turn } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { declarations, onEmulator } from "./fixtures.js"

describe("The offline rule policy of the emulator, through the Gemini layer and the loop", () => {
  const clock = Tool.make("clock", {
    description: "Current time in a time zone",
    parameters: Schema.Struct({ timeZone: Schema.String }),
    handler: ({ timeZone }) => Effect.succeed({ timeZone, time: "09:30" })
  })
  const calculator = Tool.make("calculator", {
    description: "Evaluates arithmetic",
    parameters: Schema.Struct({ expression: Schema.String }),
    handler: ({ expression }) => Effect.succeed(expression === "(2 + 3) * 4" ? 20 : Number.NaN)
  })
  const tools = Registry.unsafeMake(clock, calculator)
  const offline = onEmulator("gemini")

  it.effect("calls the tool the message plainly asks for, with arguments from the message, then reports it", () =>
    Effect.gen(function* () {
      const time = yield* Agent.run({ registry: tools, prompt: "What time is it in Europe/Oslo?" })
      expect(time.calls.map((c) => [c.name, c.args])).toEqual([["clock", { timeZone: "Europe/Oslo" }]])
      expect(time.text).toBe("clock returned timeZone Europe/Oslo and time 09:30.")
      const sum = yield* Agent.run({ registry: tools, prompt: "Please calculate (2 + 3) * 4" })
      expect(sum.calls.map((c) => [c.name, c.args])).toEqual([["calculator", { expression: "(2 + 3) * 4" }]])
      expect(sum.text).toBe("calculator returned 20.")
    }).pipe(Effect.provide(offline)))

  it.effect("otherwise says it is the offline emulator, and names the tools it has", () =>
    Effect.gen(function* () {
      const result = yield* Agent.run({ registry: tools, prompt: "Write me a poem" })
      expect(result.calls).toHaveLength(0)
      expect(result.text).toContain("agentfx emulator, running offline")
      expect(result.text).toContain("clock, calculator")
      const model = yield* LanguageModel.LanguageModel
      const bare = yield* model.generate({ transcript: [Turn.user("hi")], declarations: [] })
      expect(Turn.text(bare.turn)).toContain("I was given no tools.")
      const named = yield* model.generate({ transcript: [Turn.user("use get_weather for Lima")], declarations })
      expect(Turn.calls(named.turn).map((c) => c.name)).toEqual(["get_weather"])
    }).pipe(Effect.provide(offline)))
})
