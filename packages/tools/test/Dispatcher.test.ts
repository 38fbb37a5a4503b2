import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as HashMap from "effect/HashMap"
import * as List from "effect/List"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as TestClock from "effect/TestClock"
import { FunctionCall, ModelError, Turn } from "@agentfx/core"
import { Scripted } from "@agentfx/core/testing"
import { Dispatcher, Scenario } from "@agentfx/tools"
import { checkWarrantyYaml, implementations, scenarioText } from "./support/warranty.js"

const slowYaml = "  - name: slow\n    description: Slow\n    parameters: { type: object, properties: {} }"

const scenarioOf = (functions: ReadonlyArray<string>, name = "valid-warranty") =>
  Either.getOrThrow(Either.flatMap(Scenario.parse(scenarioText(name, functions, "Check the warranty."), `${name}.md`), (d) => Scenario.resolve(d, implementations)))

describe("Dispatcher", () => {
  it.effect("exposes only the scenario's functions: anything else is UnknownFunction, though implemented", () =>
    Effect.gen(function* () {
      const dispatcher = yield* Dispatcher.make(scenarioOf([checkWarrantyYaml]))
      expect(dispatcher.registry.names).toStrictEqual(["check_warranty"])
      const result = yield* dispatcher.execute(FunctionCall.make({ id: "c1", name: "create_ticket", args: { serial_number: "SN-1", summary: "x" } }))
      expect(Either.flip(result).pipe(Either.getOrThrow)).toMatchObject({ _tag: "UnknownFunction", name: "create_ticket", available: ["check_warranty"] })
      const none = yield* Dispatcher.make(scenarioOf([], "missing-info"))
      const refused = yield* none.execute(FunctionCall.make({ id: "c2", name: "check_warranty", args: { serial_number: "SN-1" } }))
      expect(Either.flip(refused).pipe(Either.getOrThrow)).toMatchObject({ _tag: "UnknownFunction", available: [] })
    })
  )

  it.effect("runs the loop with the scenario's instructions and declarations, feeding an out-of-scenario call back as an error", () =>
    Effect.gen(function* () {
      const dispatcher = yield* Dispatcher.make(scenarioOf([checkWarrantyYaml]))
      const result = yield* dispatcher.run({ prompt: "My kettle SN-1 broke" })
      expect(result.text).toBe("Your kettle is under warranty.")
      expect(result.calls.map((c) => [c.name, c.response.isError])).toStrictEqual([["create_ticket", true], ["check_warranty", false]])

      const requests = yield* Effect.flatMap(Scripted.ScriptedModel, (model) => model.requests)
      expect(requests.map((r) => r.system)).toStrictEqual(["Check the warranty.", "Check the warranty.", "Check the warranty."])
      expect(requests[0]!.declarations).toStrictEqual(dispatcher.scenario.registry.declarations)
      expect(requests[0]!.declarations.map((d) => d.description)).toStrictEqual(["Looks up the warranty of a serial number"])
      const answered = Turn.responses(requests[1]!.transcript.at(-1)!)
      expect(answered).toMatchObject([{ name: "create_ticket", isError: true, response: { error: { type: "UnknownFunction", available: ["check_warranty"] } } }])
    }).pipe(
      Effect.provide(
        Scripted.layer([
          Scripted.call("create_ticket", { serial_number: "SN-1", summary: "kettle" }),
          Scripted.call("check_warranty", { serial_number: "SN-1" }),
          Scripted.text("Your kettle is under warranty.")
        ])
      )
    )
  )

  it.effect("logs every dispatched call with arguments, result and duration", () =>
    Effect.gen(function* () {
      const dispatcher = yield* Dispatcher.make(scenarioOf([checkWarrantyYaml, slowYaml]))
      const fiber = yield* Effect.fork(dispatcher.run({ prompt: "hi" }))
      yield* TestClock.adjust("2 seconds")
      yield* Fiber.join(fiber)
      const calls = yield* dispatcher.calls
      expect(calls.map(({ duration, ...rest }) => ({ ...rest, ms: Duration.toMillis(duration) }))).toStrictEqual([
        {
          id: "call_0_0",
          name: "check_warranty",
          args: { serial_number: "SN-1" },
          result: Either.right({ valid: true, expires: "2026-01-01" }),
          response: { valid: true, expires: "2026-01-01" },
          isError: false,
          turn: 1,
          ms: 0
        },
        {
          id: "call_1_0",
          name: "slow",
          args: {},
          result: Either.right("done"),
          response: { output: "done" },
          isError: false,
          turn: 2,
          ms: 2000
        },
        {
          id: "call_2_0",
          name: "send_email",
          args: { to: "a@b.c" },
          result: Either.left(expect.objectContaining({ _tag: "UnknownFunction" })),
          response: { error: expect.objectContaining({ type: "UnknownFunction" }) },
          isError: true,
          turn: 3,
          ms: 0
        }
      ])
    }).pipe(
      Effect.provide(
        Scripted.layer([
          Scripted.call("check_warranty", { serial_number: "SN-1" }),
          Scripted.call("slow"),
          Scripted.call("send_email", { to: "a@b.c" }),
          Scripted.text("done")
        ])
      )
    )
  )

  it.effect("writes each call to Effect's logger at debug level, annotated", () =>
    Effect.gen(function* () {
      const lines: Array<{ message: unknown; level: string; annotations: Record<string, unknown> }> = []
      const capture = Logger.make(({ message, logLevel, annotations }) => {
        lines.push({ message: List.isList(message) ? List.toArray(message) : message, level: logLevel.label, annotations: Object.fromEntries(HashMap.toEntries(annotations)) })
      })
      const dispatcher = yield* Dispatcher.make(scenarioOf([checkWarrantyYaml]))
      yield* dispatcher
        .execute(FunctionCall.make({ id: "c7", name: "check_warranty", args: { serial_number: "X" } }))
        .pipe(Effect.provide(Logger.replace(Logger.defaultLogger, capture)), Logger.withMinimumLogLevel(LogLevel.Debug))
      expect(lines).toStrictEqual([
        {
          message: ["dispatched check_warranty"],
          level: "DEBUG",
          annotations: {
            scenario: "valid-warranty",
            callId: "c7",
            function: "check_warranty",
            args: { serial_number: "X" },
            result: { valid: false, expires: "" },
            durationMs: 0
          }
        }
      ])
      expect(yield* dispatcher.calls).toHaveLength(1)
    })
  )

  it.effect("writes a failed call's error to Effect's logger, in place of a result", () =>
    Effect.gen(function* () {
      const annotations: Array<Record<string, unknown>> = []
      const capture = Logger.make(({ annotations: these }) => void annotations.push(Object.fromEntries(HashMap.toEntries(these))))
      const dispatcher = yield* Dispatcher.make(scenarioOf([checkWarrantyYaml]))
      yield* dispatcher
        .execute(FunctionCall.make({ id: "c8", name: "send_email", args: { to: "a@b.c" } }))
        .pipe(Effect.provide(Logger.replace(Logger.defaultLogger, capture)), Logger.withMinimumLogLevel(LogLevel.Debug))
      expect(annotations).toHaveLength(1)
      expect(annotations[0]).not.toHaveProperty("result")
      expect(annotations[0]).toMatchObject({ callId: "c8", function: "send_email", error: { type: "UnknownFunction", available: ["check_warranty"] } })
    })
  )

  it.effect("dispatches one call with the caller's options: a timeout cuts a slow call short", () =>
    Effect.gen(function* () {
      const dispatcher = yield* Dispatcher.make(scenarioOf([checkWarrantyYaml, slowYaml]))
      const fiber = yield* Effect.fork(dispatcher.execute(FunctionCall.make({ id: "c9", name: "slow", args: {} }), { timeout: "1 second" }))
      // Past the call's own two seconds: without the timeout it would have finished by now.
      yield* TestClock.adjust("2 seconds")
      const result = yield* Fiber.join(fiber)
      expect(Either.flip(result).pipe(Either.getOrThrow)).toMatchObject({ _tag: "ToolTimeout", name: "slow" })
      expect((yield* dispatcher.calls).map((c) => [c.name, c.isError, Duration.toMillis(c.duration)])).toStrictEqual([["slow", true, 1000]])
    })
  )

  it.effect("keeps the calls made before a run failed", () =>
    Effect.gen(function* () {
      const dispatcher = yield* Dispatcher.make(scenarioOf([checkWarrantyYaml]))
      const error = yield* Effect.flip(dispatcher.run({ prompt: "hi" }))
      expect(error._tag).toBe("InvalidRequest")
      expect((yield* dispatcher.calls).map((c) => c.name)).toStrictEqual(["check_warranty"])
    }).pipe(
      Effect.provide(Scripted.layer([Scripted.call("check_warranty", { serial_number: "SN-1" }), { error: new ModelError.InvalidRequest({ message: "bad" }) }]))
    )
  )

  it.effect("runs the caller's onCallFinished after logging each call", () =>
    Effect.gen(function* () {
      const dispatcher = yield* Dispatcher.make(scenarioOf([checkWarrantyYaml]))
      const seen: Array<[string, number]> = []
      yield* dispatcher.run({
        prompt: "My kettle SN-1 broke",
        onCallFinished: (call) => Effect.map(dispatcher.calls, (logged) => void seen.push([call.name, logged.length]))
      })
      expect(seen).toStrictEqual([["check_warranty", 1]])
    }).pipe(Effect.provide(Scripted.layer([Scripted.call("check_warranty", { serial_number: "SN-1" }), Scripted.text("Done.")])))
  )

  it.effect("lets the caller override the system prompt and stop early", () =>
    Effect.gen(function* () {
      const dispatcher = yield* Dispatcher.make(scenarioOf([checkWarrantyYaml]))
      const result = yield* dispatcher.run({ prompt: "hi", system: "Other rules.", maxTurns: 1 })
      expect(result.stopReason).toStrictEqual({ _tag: "MaxTurns", maxTurns: 1 })
      const requests = yield* Effect.flatMap(Scripted.ScriptedModel, (model) => model.requests)
      expect(requests.map((r) => r.system)).toStrictEqual(["Other rules."])
    }).pipe(Effect.provide(Scripted.layer([Scripted.call("check_warranty", { serial_number: "SN-1" })])))
  )
})
