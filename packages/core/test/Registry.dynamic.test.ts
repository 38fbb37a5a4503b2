import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Either, Logger } from "effect"
import { Agent, Registry } from "../src/index.js"
import { Scripted } from "../src/testing.js"
import { fakeSource } from "./fixtures.js"

describe("Registry.dynamic in the loop", () => {
  it.effect("a tool added during a run is declared on the next turn and can be called there", () =>
    Effect.gen(function* () {
      const fake = fakeSource()
      const model = yield* Scripted.make((request, index) =>
        Effect.sync(() => {
          if (index === 0) {
            // The tool list changes while the first turn's call is on its way.
            fake.add("second")
            return { calls: [{ name: "first", args: { a: 1 } }] }
          }
          if (index === 1) return { calls: [{ name: "second", args: { a: 2 } }] }
          return { text: request.declarations.map((d) => d.name).join(",") }
        })
      )
      const result = yield* Agent.run({ registry: fake.registry, prompt: "go" }).pipe(Effect.provide(model))
      const requests = yield* Context.get(model, Scripted.ScriptedModel).requests
      expect(requests.map((r) => r.declarations.map((d) => d.name))).toEqual([["first"], ["first", "second"], ["first", "second"]])
      expect(result.calls.map((c) => [c.name, Either.getOrNull(c.result)])).toEqual([
        ["first", { from: "first", a: 1 }],
        ["second", { from: "second", a: 2 }]
      ])
      expect(result.text).toBe("first,second")
      // Asked once, after the one change: an unchanged version is not a reason to list again.
      expect(fake.state.listed).toBe(1)
    }))

  it.effect("an unchanged source is never asked for its tools, and the request keeps the same declarations", () =>
    Effect.gen(function* () {
      const fake = fakeSource()
      const steps = Array.from({ length: 5 }, () => ({ calls: [{ name: "first", args: { a: 0 } }] }))
      const model = yield* Scripted.make([...steps, { text: "done" }])
      yield* Agent.run({ registry: fake.registry, prompt: "go" }).pipe(Effect.provide(model))
      const requests = yield* Context.get(model, Scripted.ScriptedModel).requests
      expect(fake.state.listed).toBe(0)
      expect(new Set(requests.map((r) => r.declarations)).size).toBe(1)
    }))

  it.effect("a change announced before the run starts is listed on its first turn", () =>
    Effect.gen(function* () {
      const fake = fakeSource()
      fake.add("second")
      const model = yield* Scripted.make([{ calls: [{ name: "second", args: { a: 1 } }] }, { text: "done" }])
      const result = yield* Agent.run({ registry: fake.registry, prompt: "go" }).pipe(Effect.provide(model))
      const requests = yield* Context.get(model, Scripted.ScriptedModel).requests
      expect(requests.map((r) => r.declarations.map((d) => d.name))).toEqual([["first", "second"], ["first", "second"]])
      expect(Either.getOrNull(result.calls[0]!.result)).toEqual({ from: "second", a: 1 })
      expect(fake.state.listed).toBe(1)
    }))

  it.effect("a source that fails keeps the run's tools, logs a warning, and is asked again before the next turn", () =>
    Effect.gen(function* () {
      const fake = fakeSource()
      const logs: Array<{ level: string; message: unknown }> = []
      const logger = Logger.make(({ logLevel, message }) => void logs.push({ level: logLevel.label, message }))
      const model = yield* Scripted.make((request, index) =>
        Effect.sync(() => {
          if (index === 0) {
            fake.add("second")
            fake.state.failing = 1
          }
          return index < 2 ? { calls: [{ name: "first", args: { a: index } }] } : { text: request.declarations.map((d) => d.name).join(",") }
        })
      )
      const result = yield* Agent.run({ registry: fake.registry, prompt: "go" }).pipe(
        Effect.provide(model),
        Effect.provide(Logger.replace(Logger.defaultLogger, logger))
      )
      const requests = yield* Context.get(model, Scripted.ScriptedModel).requests
      // Turn 2: the listing failed, the old tools stay; turn 3: listed again, the change is there.
      expect(requests.map((r) => r.declarations.map((d) => d.name))).toEqual([["first"], ["first"], ["first", "second"]])
      expect(result.text).toBe("first,second")
      expect(fake.state.listed).toBe(2)
      const warnings = logs.filter((log) => log.level === "WARN")
      expect(warnings).toHaveLength(1)
      expect(JSON.stringify(warnings[0]!.message)).toContain("could not be refreshed")
      expect(String((warnings[0]!.message as ReadonlyArray<unknown>)[1])).toContain("the server did not answer")
    }))

  it("merge and restrict give static registries", () => {
    const fake = fakeSource()
    expect(Registry.restrict(fake.registry, ["first"]).source).toBeUndefined()
    expect(Either.getOrThrow(Registry.merge(fake.registry, Registry.empty)).source).toBeUndefined()
  })
})
