// The transcript only grows, so a step must cost what it adds, not what came before it.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Agent, Chat, LanguageModel, Registry, Tool, Turn } from "../src/index.js"
import * as AppendOnly from "../src/internal/appendOnly.js"
import { Scripted } from "../src/testing.js"

const echo = Tool.make("echo", { description: "", parameters: Schema.Struct({ n: Schema.Number }), handler: ({ n }) => Effect.succeed(n) })
const registry = Registry.unsafeMake(echo)

/** `steps` turns that each call `echo`, then a final text. */
const script = (steps: number): Scripted.Responder => (_, i) => Effect.succeed(i < steps ? { calls: [{ name: "echo", args: { n: i } }] } : { text: "done" })

describe("a run's cost grows with what it adds", () => {
  it.effect("every request of a run, and its result, share one transcript storage: no step copies the transcript", () =>
    Effect.gen(function* () {
      const result = yield* Agent.run({ registry, prompt: "go", maxTurns: 60 })
      const requests = yield* (yield* Scripted.ScriptedModel).requests
      expect(requests).toHaveLength(51)
      expect(result.transcript).toHaveLength(1 + 50 * 2 + 1)
      for (const request of requests) expect(AppendOnly.sameBacking(request.transcript, result.transcript)).toBe(true)
    }).pipe(Effect.provide(Scripted.layer(script(50)))))

  it.effect("the scripted model's list of requests grows in place too", () =>
    Effect.gen(function* () {
      const inspector = yield* Scripted.ScriptedModel
      yield* Agent.run({ registry, prompt: "go", maxTurns: 5 })
      const early = yield* inspector.requests
      yield* Agent.run({ registry, prompt: "again", maxTurns: 5 })
      const late = yield* inspector.requests
      expect(early).toHaveLength(5)
      expect(late).toHaveLength(10)
      expect(AppendOnly.sameBacking(early, late)).toBe(true)
      expect(late.slice(0, 5)).toEqual(early)
    }).pipe(Effect.provide(Scripted.layer((_, i) => Effect.succeed(i % 5 < 4 ? { calls: [{ name: "echo", args: { n: i } }] } : { text: "done" })))))

  it.effect("a chat's messages continue one transcript storage: a message does not copy the history", () =>
    Effect.gen(function* () {
      const chat = yield* Chat.make({ registry })
      yield* chat.send("one")
      const first = yield* chat.transcript
      yield* chat.send("two")
      yield* chat.send("three")
      const last = yield* chat.transcript
      expect(last).toHaveLength(first.length + 2 * 4)
      expect(AppendOnly.sameBacking(first, last)).toBe(true)
      expect(first).toHaveLength(4)
    }).pipe(Effect.provide(Scripted.layer((_, i) => Effect.succeed(i % 2 === 0 ? { calls: [{ name: "echo", args: { n: i } }] } : { text: "ok" })))))

  it.effect("a 20,000-step run costs no more per step than a 1,000-step one (CPU time, best of several; a ratio, not a time)", () =>
    Effect.gen(function* () {
      // A model that keeps nothing (the scripted one records every request), so only the loop's own work grows.
      const counting = (steps: number) => {
        let i = 0
        return LanguageModel.fromGenerate({
          provider: "counting",
          model: "counting",
          generate: () => Effect.sync(() => {
            const n = i++
            const turn: Turn.Turn = n < steps
              ? { role: "model", parts: [{ _tag: "FunctionCall", id: `c${n}`, name: "echo", args: { n } }] }
              : Turn.model("done")
            return { turn, finishReason: n < steps ? "tool_calls" : "stop", usage: LanguageModel.emptyUsage }
          })
        })
      }
      const perStep = (steps: number) =>
        Effect.gen(function* () {
          const start = process.cpuUsage()
          const result = yield* Agent.run({ registry, prompt: "go", maxTurns: steps + 1 })
          const used = process.cpuUsage(start)
          expect(result.calls).toHaveLength(steps)
          return (used.user + used.system) / (steps + 1)
        }).pipe(Effect.provideService(LanguageModel.LanguageModel, counting(steps)))
      const short: Array<number> = []
      for (let i = 0; i < 10; i++) short.push(yield* perStep(1_000))
      const long: Array<number> = []
      for (let i = 0; i < 3; i++) long.push(yield* perStep(20_000))
      // Linear: about 1 (the first short runs only warm the JIT up); a loaded CI machine measured 1.64 once. A loop
      // that copied the transcript at each step costs about ten times more per step at 20,000 turns than at 1,000.
      expect(Math.min(...long) / Math.min(...short.slice(5))).toBeLessThan(2.5)
    }), { timeout: 120_000 })
})
