import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import type * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import { LanguageModel, ModelError, Registry, Retry, StopCondition, Tool } from "@agentfx/core"
import * as EffectSchema from "effect/Schema"
import { Scripted } from "@agentfx/core/testing"
import { EvalCase, EvalRunner, Scenario } from "@agentfx/tools"
import { recordSpans } from "./support/spans.js"
import { checkWarrantyYaml, createTicketYaml, implementations, scenarioText, sendEmailYaml } from "./support/warranty.js"

const scenario = (name: string, functions: ReadonlyArray<string>, registry: Registry.Registry<never> = implementations) =>
  Either.getOrThrow(Either.flatMap(Scenario.parse(scenarioText(name, functions, `Rules for ${name}.`), `${name}.md`), (d) => Scenario.resolve(d, registry)))

const scenarios = [
  scenario("valid-warranty", [checkWarrantyYaml, createTicketYaml, sendEmailYaml]),
  scenario("invalid-warranty", [checkWarrantyYaml, sendEmailYaml]),
  scenario("missing-info", [sendEmailYaml])
]

const caseOf = (fields: Partial<Schema.Schema.Encoded<typeof EvalCase.CaseFields>> & { readonly id: string }) =>
  Either.getOrThrow(EvalCase.make({ input: `e-mail of ${fields.id}`, scenario: "valid-warranty", expected_function_calls: [], ...fields }))

const reply = (body: string) => Scripted.call("send_email", { to: "ada@example.com", subject: "Re: kettle", body })

describe("EvalRunner.run", () => {
  it.effect("a case with mocks keeps following a scenario whose tools change: a tool added mid-run is called, the mocks stay", () =>
    Effect.gen(function* () {
      const base = scenarios[0]!
      const extra = Tool.make("extra", { description: "added later", parameters: EffectSchema.Struct({}), handler: () => Effect.succeed("extra ran") })
      const state = { version: 0 }
      const source = {
        version: () => state.version,
        current: Effect.sync(() => (state.version === 0 ? base.registry : Registry.unsafeMake(...base.registry.tools.values(), extra)))
      }
      const following = { ...base, registry: Registry.dynamic(base.registry, source) }
      const evalCase = caseOf({ id: "grows", mock_function_responses: { create_ticket: { response: { ticket_id: "T-7" } } } })
      const model = Scripted.layer((request, index) =>
        Effect.sync(() => {
          if (index === 0) {
            state.version++
            return { calls: [{ name: "check_warranty", args: { serial_number: "SN-1" } }] }
          }
          if (index === 1) return { calls: [{ name: "extra", args: {} }, { name: "create_ticket", args: { serial_number: "SN-1", summary: "kettle" } }] }
          return { text: request.declarations.map((d) => d.name).join(",") }
        })
      )
      const report = yield* EvalRunner.run([evalCase], { scenarios: [following], model: () => model })
      expect(report.cases[0]!.calls.map((call) => [call.name, call.response])).toEqual([
        ["check_warranty", expect.anything()],
        ["extra", { output: "extra ran" }],
        ["create_ticket", { ticket_id: "T-7" }]
      ])
    }))

  it.effect("runs each case against its own model and validates what the agent did", () =>
    Effect.gen(function* () {
      const cases = [
        caseOf({
          id: "pass",
          description: "valid, ticket opened",
          mock_function_responses: { create_ticket: { response: { ticket_id: "T-100" } } },
          expected_function_calls: [
            { function_name: "check_warranty", arguments: { serial_number: "SN-1" }, result_contains: { valid: true } },
            { function_name: "create_ticket", arguments_contain: { serial_number: "SN-1" }, result_contains: { ticket_id: "T-100" } },
            { function_name: "send_email", body_contains: ["T-100"] }
          ]
        }),
        caseOf({
          id: "fail",
          scenario: "missing-info",
          expected_function_calls: [{ function_name: "send_email", body_contains: ["serial number"] }]
        })
      ]
      const scripts: Record<string, ReadonlyArray<Scripted.Step>> = {
        pass: [
          Scripted.call("check_warranty", { serial_number: "SN-1" }),
          Scripted.call("create_ticket", { serial_number: "SN-1", summary: "kettle" }),
          reply("Ticket T-100 is open."),
          Scripted.text("Sent.")
        ],
        fail: [reply("Please send a photo."), Scripted.text("Sent.")]
      }
      const report = yield* EvalRunner.run(cases, { scenarios, model: (c) => Scripted.layer(scripts[c.id]!), suite: "warranty" })
      expect(report.suite).toBe("warranty")
      expect(report.summary).toStrictEqual({ total: 2, passed: 1, failed: 1, errored: 0, passRate: 0.5, threshold: 0.99, ok: false })
      const [pass, fail] = report.cases
      expect(pass).toMatchObject({
        id: "pass",
        description: "valid, ticket opened",
        expectedScenario: "valid-warranty",
        scenario: "valid-warranty",
        status: "passed",
        mismatches: [],
        text: "Sent.",
        turns: 4,
        stopReason: "finished"
      })
      expect(pass!.calls.map((c) => [c.name, c.response, c.turn])).toStrictEqual([
        ["check_warranty", { valid: true, expires: "2026-01-01" }, 1],
        ["create_ticket", { ticket_id: "T-100" }, 2],
        ["send_email", { sent: true, to: "ada@example.com" }, 3]
      ])
      expect(fail).toMatchObject({ status: "failed", scenario: "missing-info" })
      expect(fail!.mismatches).toStrictEqual([
        { _tag: "BodyPhraseMissing", expectedIndex: 1, actualIndex: 1, functionName: "send_email", phrase: "serial number", body: "Please send a photo." }
      ])
    })
  )

  it.effect("uses the scenario's instructions as system prompt and the input as prompt", () =>
    Effect.gen(function* () {
      const seen = yield* Ref.make<ReadonlyArray<unknown>>([])
      const model = Scripted.layer((request) =>
        Effect.as(Ref.update(seen, (all) => [...all, { system: request.system, first: request.transcript[0], tools: request.declarations.map((d) => d.name) }]), Scripted.text("ok"))
      )
      yield* EvalRunner.run([caseOf({ id: "a", scenario: "invalid-warranty", input: "Hello" })], { scenarios, model })
      expect(yield* Ref.get(seen)).toStrictEqual([
        { system: "Rules for invalid-warranty.", first: { role: "user", parts: [{ _tag: "Text", text: "Hello" }] }, tools: ["check_warranty", "send_email"] }
      ])
    })
  )

  it.effect("answers from the case's mocks: per argument match, a fallback, an error, and no match", () =>
    Effect.gen(function* () {
      const evalCase = caseOf({
        id: "two-serials",
        mock_function_responses: {
          check_warranty: [
            { when: { serial_number: "SN-1" }, response: { valid: true, expires: "2027-01-01" } },
            { when: { serial_number: "SN-2" }, error: "warranty service unavailable" },
            { when: { serial_number: "SN-3" }, error: { message: "rate limited", retry_in: 5 } }
          ],
          send_email: { response: "queued" }
        },
        expected_function_calls: [
          { function_name: "check_warranty", result_contains: { valid: true, expires: "2027-01-01" } },
          { function_name: "check_warranty", result_contains: { error: { type: "ExecutionFailed", message: `"check_warranty" failed: warranty service unavailable` } } },
          { function_name: "check_warranty", result_contains: { error: { details: { message: "rate limited", retry_in: 5 } } } },
          { function_name: "check_warranty", arguments: { serial_number: "SN-4" } },
          { function_name: "send_email", result_contains: { output: "queued" } }
        ]
      })
      const model = Scripted.layer([
        { calls: ["SN-1", "SN-2", "SN-3", "SN-4"].map((serial_number) => ({ name: "check_warranty", args: { serial_number } })) },
        reply("Sorry."),
        Scripted.text("done")
      ])
      const report = yield* EvalRunner.run([evalCase], { scenarios, model })
      const [result] = report.cases
      expect(result!.mismatches).toStrictEqual([])
      expect(result!.status).toBe("passed")
      expect(result!.calls[3]!.response).toStrictEqual({
        error: {
          type: "ExecutionFailed",
          message: `"check_warranty" failed: the eval case gives no mock response for check_warranty with these arguments: {"serial_number":"SN-4"}`
        }
      })
    })
  )

  it.effect("checks mocked arguments with the implementation's Schema, and runs unmocked functions for real", () =>
    Effect.gen(function* () {
      const evalCase = caseOf({
        id: "c",
        mock_function_responses: { check_warranty: { response: { valid: true } } },
        expected_function_calls: [
          { function_name: "check_warranty", result_contains: { error: { type: "InvalidArguments" } } },
          { function_name: "create_ticket", result_contains: { ticket_id: "T-SN-7" } }
        ]
      })
      const model = Scripted.layer([
        { calls: [{ name: "check_warranty", args: { serial_number: 42 } }, { name: "create_ticket", args: { serial_number: "SN-7", summary: "s" } }] },
        Scripted.text("done")
      ])
      const [result] = (yield* EvalRunner.run([evalCase], { scenarios, model })).cases
      expect(result!.mismatches).toStrictEqual([])
    })
  )

  it.effect("feeds calls outside the scenario back as UnknownFunction and reports them", () =>
    Effect.gen(function* () {
      const evalCase = caseOf({ id: "c", scenario: "missing-info", expected_function_calls: [{ function_name: "send_email" }] })
      const model = Scripted.layer([Scripted.call("create_ticket", { serial_number: "SN-1", summary: "x" }), reply("Please send the serial number."), Scripted.text("done")])
      const [result] = (yield* EvalRunner.run([evalCase], { scenarios, model })).cases
      expect(result!.calls[0]).toMatchObject({ name: "create_ticket", isError: true, response: { error: { type: "UnknownFunction", available: ["send_email"] } } })
      expect(result!.mismatches.map((m) => m._tag)).toStrictEqual(["CallCountMismatch", "UnexpectedCall"])
    })
  )

  it.effect("builds the model afresh for every case: a shared script restarts, and calls never mix", () =>
    Effect.gen(function* () {
      const cases = ["a", "b", "c", "d"].map((id) => caseOf({ id, scenario: "missing-info", expected_function_calls: [{ function_name: "send_email", body_contains: "hello" }] }))
      const model = Scripted.layer([reply("hello"), Scripted.text("done")])
      const report = yield* EvalRunner.run(cases, { scenarios, model, concurrency: 4 })
      expect(report.cases.map((c) => [c.id, c.status, c.calls.length])).toStrictEqual([
        ["a", "passed", 1],
        ["b", "passed", 1],
        ["c", "passed", 1],
        ["d", "passed", 1]
      ])
      expect(report.summary.ok).toBe(true)
    })
  )

  it.effect("runs at most `concurrency` cases at once, keeps case order, and times each case (TestClock)", () =>
    Effect.gen(function* () {
      const cases = ["a", "b", "c", "d", "e"].map((id) => caseOf({ id, scenario: "missing-info" }))
      const active = yield* Ref.make(0)
      const peak = yield* Ref.make(0)
      const model = (evalCase: EvalCase.EvalCase) =>
        Layer.scopedContext(
          Effect.acquireRelease(
            Effect.zipRight(
              Ref.updateAndGet(active, (n) => n + 1).pipe(Effect.flatMap((n) => Ref.update(peak, (p) => Math.max(p, n)))),
              Scripted.make([{ text: `done ${evalCase.id}`, delay: evalCase.id === "a" ? "3 seconds" : "1 second" }])
            ),
            () => Ref.update(active, (n) => n - 1)
          )
        )
      const fiber = yield* Effect.fork(EvalRunner.run(cases, { scenarios, model, concurrency: 2 }))
      // a holds one slot for 3 s; b, c, d and e take turns in the other, one second each.
      yield* TestClock.adjust("4 seconds")
      const report = yield* Fiber.join(fiber)
      expect(yield* Ref.get(peak)).toBe(2)
      expect(report.cases.map((c) => [c.id, c.text, c.durationMs])).toStrictEqual([
        ["a", "done a", 3000],
        ["b", "done b", 1000],
        ["c", "done c", 1000],
        ["d", "done d", 1000],
        ["e", "done e", 1000]
      ])
      expect(report.durationMs).toBe(4000)
    })
  )

  it.effect("turns a case that runs too long into an error, without stopping the others", () =>
    Effect.gen(function* () {
      const cases = [caseOf({ id: "slow", scenario: "missing-info" }), caseOf({ id: "quick", scenario: "missing-info" })]
      const model = (evalCase: EvalCase.EvalCase) => Scripted.layer([{ text: "late", delay: evalCase.id === "slow" ? "1 minute" : "1 second" }])
      const fiber = yield* Effect.fork(EvalRunner.run(cases, { scenarios, model, timeout: "5 seconds", agent: { turnTimeout: "1 hour" } }))
      yield* TestClock.adjust("5 seconds")
      const report = yield* Fiber.join(fiber)
      expect(report.cases.map((c) => [c.id, c.status, c.error])).toStrictEqual([
        ["slow", "error", "the case timed out after 5s"],
        ["quick", "passed", undefined]
      ])
      expect(report.summary).toMatchObject({ passed: 1, errored: 1, failed: 0 })
    })
  )

  it.effect("reports model errors, model layers that fail and unknown scenarios as errors, keeping the calls made", () =>
    Effect.gen(function* () {
      const cases = [
        caseOf({ id: "model-error", scenario: "missing-info" }),
        caseOf({ id: "no-model", scenario: "missing-info" }),
        caseOf({ id: "no-scenario", scenario: "refunds" }),
        caseOf({ id: "foreign-mock", scenario: "missing-info", mock_function_responses: { create_ticket: { response: {} } } })
      ]
      const model = (evalCase: EvalCase.EvalCase) =>
        evalCase.id === "no-model"
          ? Layer.fail(new Error("no API key and no cassette"))
          : Scripted.layer([reply("hi"), { error: new ModelError.Unauthorized({ message: "bad key" }) }])
      const report = yield* EvalRunner.run(cases, { scenarios, model, agent: { retry: Retry.never } })
      expect(report.cases.map((c) => [c.id, c.status, c.error, c.calls.map((call) => call.name)])).toStrictEqual([
        ["model-error", "error", "bad key", ["send_email"]],
        ["no-model", "error", "no API key and no cassette", []],
        ["no-scenario", "error", `unknown scenario "refunds" (known: valid-warranty, invalid-warranty, missing-info)`, []],
        [
          "foreign-mock",
          "error",
          `mock_function_responses names "create_ticket", which scenario "missing-info" does not offer (it offers: send_email)`,
          []
        ]
      ])
      expect(report.summary).toMatchObject({ total: 4, errored: 4, ok: false })
    })
  )

  it.effect("chooses the scenario with detectScenario, reporting a wrong choice and a failed one", () =>
    Effect.gen(function* () {
      const cases = [
        caseOf({ id: "right", scenario: "missing-info", input: "no serial", expected_function_calls: [{ function_name: "send_email" }] }),
        caseOf({ id: "wrong", scenario: "valid-warranty", input: "no serial", expected_function_calls: [{ function_name: "send_email" }] }),
        caseOf({ id: "broken", scenario: "valid-warranty", input: "" })
      ]
      const detectScenario = (evalCase: EvalCase.EvalCase) =>
        evalCase.input === "" ? Effect.fail(new Error("malformed e-mail: no From line")) : Effect.succeed(evalCase.input.includes("serial") ? "missing-info" : "valid-warranty")
      const model = Scripted.layer([reply("Please send the serial number."), Scripted.text("done")])
      const report = yield* EvalRunner.run(cases, { scenarios, model, detectScenario })
      expect(report.cases.map((c) => [c.id, c.status, c.scenario, c.error])).toStrictEqual([
        ["right", "passed", "missing-info", undefined],
        ["wrong", "failed", "missing-info", undefined],
        ["broken", "error", undefined, "the scenario could not be chosen: malformed e-mail: no From line"]
      ])
      expect(report.cases[1]!.mismatches).toStrictEqual([{ _tag: "ScenarioMismatch", expected: "valid-warranty", actual: "missing-info" }])
    })
  )

  it.effect("a case routed to another scenario runs there and fails with ScenarioMismatch; only the mocks that scenario offers apply", () =>
    Effect.gen(function* () {
      const evalCase = caseOf({
        id: "misrouted",
        scenario: "valid-warranty",
        mock_function_responses: { create_ticket: { response: { ticket_id: "T-1" } }, send_email: { response: "queued" } },
        expected_function_calls: [{ function_name: "create_ticket" }, { function_name: "send_email" }]
      })
      const model = Scripted.layer([reply("Please send the serial number."), Scripted.text("done")])
      const report = yield* EvalRunner.run([evalCase], { scenarios, model, detectScenario: () => Effect.succeed("missing-info") })
      const [result] = report.cases
      expect(result).toMatchObject({ status: "failed", scenario: "missing-info", expectedScenario: "valid-warranty", text: "done" })
      expect(result!.error).toBeUndefined()
      // The send_email mock still answers: missing-info offers it.
      expect(result!.calls.map((c) => [c.name, c.response])).toStrictEqual([["send_email", { output: "queued" }]])
      expect(result!.mismatches[0]).toStrictEqual({ _tag: "ScenarioMismatch", expected: "valid-warranty", actual: "missing-info" })
    })
  )

  it.effect("a mock its own scenario lacks is a case-file error, whichever scenario the input is routed to", () =>
    Effect.gen(function* () {
      const evalCase = caseOf({ id: "bad-mock", scenario: "missing-info", mock_function_responses: { create_ticket: { response: {} } } })
      const model = Scripted.layer([Scripted.text("done")])
      const expected = `mock_function_responses names "create_ticket", which scenario "missing-info" does not offer (it offers: send_email)`
      for (const detected of ["missing-info", "valid-warranty"]) {
        const [result] = (yield* EvalRunner.run([evalCase], { scenarios, model, detectScenario: () => Effect.succeed(detected) })).cases
        expect([result!.status, result!.error]).toStrictEqual(["error", expected])
      }
    })
  )

  it.effect("the timeout covers the whole case: choosing the scenario, building the model, the run; calls made are kept", () =>
    Effect.gen(function* () {
      const cases = ["undecided", "no-model", "stuck", "quick"].map((id) => caseOf({ id, scenario: "missing-info" }))
      const model = (evalCase: EvalCase.EvalCase) =>
        evalCase.id === "no-model"
          ? Layer.effect(LanguageModel.LanguageModel, Effect.never)
          : evalCase.id === "stuck"
            ? Scripted.layer([reply("first"), { text: "late", delay: "1 hour" }])
            : Scripted.layer([Scripted.text("done")])
      const detectScenario = (evalCase: EvalCase.EvalCase) => (evalCase.id === "undecided" ? Effect.never : Effect.succeed(evalCase.scenario))
      const fiber = yield* Effect.fork(EvalRunner.run(cases, { scenarios, model, detectScenario, timeout: "5 seconds", agent: { turnTimeout: "2 hours" } }))
      yield* TestClock.adjust("5 seconds")
      const report = yield* Fiber.join(fiber)
      expect(report.cases.map((c) => [c.id, c.status, c.scenario, c.error, c.calls.map((call) => call.name), c.durationMs])).toStrictEqual([
        ["undecided", "error", undefined, "the case timed out after 5s", [], 5000],
        ["no-model", "error", "missing-info", "the case timed out after 5s", [], 5000],
        ["stuck", "error", "missing-info", "the case timed out after 5s", ["send_email"], 5000],
        ["quick", "passed", "missing-info", undefined, [], 0]
      ])
    })
  )

  it.effect("agent.runTimeout bounds each case's run: a model that never answers makes the case an error naming runTimeout at the bound, calls kept, the case's own limit moved past it", () =>
    Effect.gen(function* () {
      const cases = [caseOf({ id: "silent", scenario: "missing-info" }), caseOf({ id: "quick", scenario: "missing-info" })]
      const model = (evalCase: EvalCase.EvalCase) =>
        evalCase.id === "silent" ? Scripted.layer([reply("first"), { text: "never", delay: "1 day" }]) : Scripted.layer([Scripted.text("done")])
      // 3 minutes: longer than the case's default limit of 2, which would otherwise cut the case first.
      const fiber = yield* Effect.fork(EvalRunner.run(cases, { scenarios, model, agent: { runTimeout: "3 minutes", retry: Retry.never } }))
      yield* TestClock.adjust("3 minutes")
      const report = yield* Fiber.join(fiber)
      expect(report.cases.map((c) => [c.id, c.status, c.error, c.calls.map((call) => call.name), c.durationMs])).toStrictEqual([
        ["silent", "error", "the run has waited 3m on the model in all, its limit (runTimeout)", ["send_email"], 180_000],
        ["quick", "passed", undefined, [], 0]
      ])
    })
  )

  it.effect("uses a custom prompt and threshold", () =>
    Effect.gen(function* () {
      const seen = yield* Ref.make<ReadonlyArray<string>>([])
      const model = Scripted.layer((request) =>
        Effect.as(Ref.update(seen, (all) => [...all, JSON.stringify(request.transcript[0])]), Scripted.text("ok"))
      )
      const cases = [caseOf({ id: "a", scenario: "missing-info" }), caseOf({ id: "b", scenario: "missing-info", expected_function_calls: [{ function_name: "send_email" }] })]
      const report = yield* EvalRunner.run(cases, { scenarios, model, threshold: 0.5, concurrency: 1, prompt: (c) => `Subject: ${c.id}` })
      expect(report.summary).toMatchObject({ passed: 1, failed: 1, passRate: 0.5, threshold: 0.5, ok: true })
      expect((yield* Ref.get(seen)).map((t) => JSON.parse(t).parts[0].text)).toStrictEqual(["Subject: a", "Subject: b"])
    })
  )

  it.effect("says why each run stopped: finished, max turns, a tool called, a call repeated", () =>
    Effect.gen(function* () {
      const check = Scripted.call("check_warranty", { serial_number: "SN-1" })
      const stopped = (agent: { readonly maxTurns?: number; readonly stopWhen?: ReadonlyArray<StopCondition.StopCondition> } | undefined, steps: ReadonlyArray<Scripted.Step>) =>
        Effect.map(EvalRunner.run([caseOf({ id: "stops" })], { scenarios, model: Scripted.layer(steps), ...(agent === undefined ? {} : { agent }) }), (report) => report.cases[0]!.stopReason)
      expect(yield* stopped(undefined, [Scripted.text("done")])).toBe("finished")
      expect(yield* stopped({ maxTurns: 1 }, [check, check])).toBe("max turns (1)")
      expect(yield* stopped({ stopWhen: [StopCondition.toolCalled("check_warranty")] }, [check, check])).toBe("tool called (check_warranty)")
      expect(yield* stopped({ stopWhen: [StopCondition.repeatedCall(2)] }, [check, check, check])).toBe("repeated call (check_warranty ×2)")
    })
  )

  it.effect("an errored case says what went wrong however its failure was given, and nothing it did not do", () =>
    Effect.gen(function* () {
      const failures: ReadonlyArray<readonly [unknown, string]> = [
        ["a plain string", "a plain string"],
        [new Error("an error"), "an error"],
        [{ message: "an object with a message", code: 7 }, "an object with a message"],
        [{ code: 7 }, `{"code":7}`]
      ]
      for (const [failure, said] of failures) {
        const report = yield* EvalRunner.run([caseOf({ id: "routed" })], { scenarios, model: Scripted.layer([]), detectScenario: () => Effect.fail(failure) })
        expect(report.cases[0]!.error).toBe(`the scenario could not be chosen: ${said}`)
      }
      const [inline] = (yield* EvalRunner.run([caseOf({ id: "routed" })], { scenarios, model: Scripted.layer([]), detectScenario: () => Effect.fail("no") })).cases
      expect(inline).toStrictEqual({
        id: "routed",
        description: "",
        expectedScenario: "valid-warranty",
        expectedCalls: [],
        status: "error",
        calls: [],
        mismatches: [],
        error: "the scenario could not be chosen: no",
        text: "",
        turns: 0,
        stopReason: "error",
        durationMs: expect.any(Number)
      })
      const fromFile = { ...caseOf({ id: "filed" }), file: "cases/filed.yaml" }
      expect((yield* EvalRunner.run([fromFile], { scenarios, model: Scripted.layer([Scripted.text("done")]) })).cases[0]!.file).toBe("cases/filed.yaml")
    })
  )

  it.effect("a run that dies, and a case whose scenario choice dies, are errors naming the defect; the other cases run", () =>
    Effect.gen(function* () {
      const dying = LanguageModel.fromGenerate({ provider: "test", model: "dies", generate: () => Effect.die(new Error("the model crashed")) })
      const cases = [caseOf({ id: "dies" }), caseOf({ id: "crashes", input: "crash" }), caseOf({ id: "fine", scenario: "missing-info" })]
      const report = yield* EvalRunner.run(cases, {
        scenarios,
        model: (evalCase) => (evalCase.id === "dies" ? Layer.succeed(LanguageModel.LanguageModel, dying) : Scripted.layer([Scripted.text("done")])),
        detectScenario: (evalCase) => (evalCase.input === "crash" ? Effect.die(new Error("router bug")) : Effect.succeed(evalCase.scenario)),
        agent: { retry: Retry.never }
      })
      expect(report.cases.map((c) => [c.id, c.status, c.error])).toStrictEqual([
        ["dies", "error", "the run died: the model crashed"],
        ["crashes", "error", "the case crashed: Error: router bug"],
        ["fine", "passed", undefined]
      ])
    })
  )

  it.effect("treats a bad threshold or concurrency as a defect", () =>
    Effect.gen(function* () {
      const model = Scripted.layer([])
      const badThreshold = yield* Effect.exit(EvalRunner.run([], { scenarios, model, threshold: 99 }))
      expect(badThreshold._tag === "Failure" && badThreshold.cause._tag).toBe("Die")
      const badConcurrency = yield* Effect.exit(EvalRunner.run([], { scenarios, model, concurrency: 0 }))
      expect(badConcurrency._tag === "Failure" && badConcurrency.cause._tag).toBe("Die")
      expect(badConcurrency._tag === "Failure" && badConcurrency.cause._tag === "Die" && String(badConcurrency.cause.defect)).toBe(
        "RangeError: concurrency must be an integer ≥ 1, got 0"
      )
    })
  )

  it.effect("traces the run and each case: a span per case named by its id, inside one for the suite", () =>
    Effect.gen(function* () {
      const { spans, tracer: recording } = yield* recordSpans
      const model = Scripted.layer([Scripted.text("done")])
      const cases = [caseOf({ id: "first" }), caseOf({ id: "second" })]
      const unnamed = yield* Effect.withTracer(EvalRunner.run(cases, { scenarios, model }), recording)
      expect(unnamed.suite).toBe("eval")
      yield* Effect.withTracer(EvalRunner.run(cases.slice(0, 1), { scenarios, model, suite: "warranty" }), recording)
      const ours = spans.filter((span) => span.name.startsWith("EvalRunner."))
      expect(ours.map((span) => [span.name, Object.fromEntries(span.attributes)])).toStrictEqual([
        ["EvalRunner.run", { suite: "eval", cases: 2 }],
        ["EvalRunner.runCase", { case: "first" }],
        ["EvalRunner.runCase", { case: "second" }],
        ["EvalRunner.run", { suite: "warranty", cases: 1 }],
        ["EvalRunner.runCase", { case: "first" }]
      ])
      const [run, first] = ours
      expect(first!.parent._tag === "Some" && first!.parent.value.spanId).toBe(run!.spanId)
    })
  )

  it.effect("a mocked tool still asks for approval where its implementation would, with the arguments decoded", () =>
    Effect.gen(function* () {
      const transfer = Tool.make("transfer", {
        description: "Moves money",
        parameters: EffectSchema.Struct({ amount: EffectSchema.NumberFromString }),
        needsApproval: ({ amount }) => amount > 100,
        handler: () => Effect.die("the real handler must not run")
      })
      const transferYaml = `  - name: transfer
    description: Moves money
    parameters:
      type: object
      properties:
        amount: { type: string }
      required: [amount]`
      const paying = scenario("paying", [transferYaml], Registry.unsafeMake(transfer))
      const evalCase = caseOf({ id: "pay", scenario: "paying", mock_function_responses: { transfer: { response: "sent" } } })
      const script = [{ calls: [{ name: "transfer", args: { amount: "5" } }, { name: "transfer", args: { amount: "500" } }] }, Scripted.text("done")]
      // No Approval service: a call that needs approval is denied.
      const [result] = (yield* EvalRunner.run([evalCase], { scenarios: [paying], model: Scripted.layer(script) })).cases
      expect(result!.calls.map((call) => [call.args, call.isError, call.response])).toStrictEqual([
        [{ amount: "5" }, false, { output: "sent" }],
        [{ amount: "500" }, true, { error: { type: "ApprovalDenied", message: expect.any(String), reason: "this tool needs approval and no Approval service is provided" } }]
      ])
    })
  )
})

describe("EvalRunner.mockOutcome", () => {
  it("takes the first entry whose `when` the arguments contain", () => {
    const entries = [{ when: { a: 1 }, response: "one" }, { when: { a: 1, b: 2 }, response: "never" }, { response: "fallback" }]
    expect(EvalRunner.mockOutcome("f", entries, { a: 1, b: 2 })).toStrictEqual(Either.right("one"))
    expect(EvalRunner.mockOutcome("f", entries, { a: 2 })).toStrictEqual(Either.right("fallback"))
    expect(EvalRunner.mockOutcome("f", [{ error: { message: "m", code: 1 } }], {})).toStrictEqual(Either.left({ message: "m", code: 1 }))
    // An error given as text is that message.
    expect(EvalRunner.mockOutcome("f", [{ error: "down" }], {})).toStrictEqual(Either.left({ message: "down" }))
    expect(EvalRunner.mockOutcome("f", [{ when: { a: 1 }, response: "one" }], { a: 2 })).toStrictEqual(
      Either.left({ message: 'the eval case gives no mock response for f with these arguments: {"a":2}' })
    )
  })
})

describe("EvalRunner call order", () => {
  it.effect("calls are validated in the order the model made them, not the order they finished", () =>
    Effect.gen(function* () {
      const wait = Tool.make("wait", {
        description: "Waits",
        parameters: EffectSchema.Struct({ ms: EffectSchema.Number }),
        handler: ({ ms }) => Effect.as(Effect.sleep(`${ms} millis`), { waited: ms })
      })
      const waitYaml = `  - name: wait
    description: Waits
    parameters:
      type: object
      properties:
        ms: { type: number }
      required: [ms]`
      const waiting = scenario("waiting", [waitYaml], Registry.unsafeMake(wait))
      const evalCase = caseOf({
        id: "parallel",
        scenario: "waiting",
        expected_function_calls: [
          { function_name: "wait", arguments: { ms: 50 } },
          { function_name: "wait", arguments: { ms: 20 } },
          { function_name: "wait", arguments: { ms: 1 } }
        ]
      })
      // Three calls finishing in the reverse of the order they were made in.
      const script = [{ calls: [50, 20, 1].map((ms) => ({ name: "wait", args: { ms } })) }, Scripted.text("done")]
      const fiber = yield* Effect.fork(EvalRunner.run([evalCase], { scenarios: [waiting], model: Scripted.layer(script) }))
      yield* TestClock.adjust("1 second")
      const report = yield* Fiber.join(fiber)
      expect(report.cases[0]!.mismatches).toEqual([])
      expect(report.cases[0]!.calls.map((c) => c.args)).toEqual([{ ms: 50 }, { ms: 20 }, { ms: 1 }])
    }))
})
