/**
 * Evals from code: a scenario (the Markdown a scenario file holds, parsed from a string here), two cases built in
 * code with mocked function responses and the calls they expect, and the runner's report: each case with its calls,
 * what did not match, the pass rate against a threshold, and JUnit XML for CI. One case passes; in the other the
 * model forgets to open a ticket, and the report says so. The model is scripted per case; any LanguageModel layer
 * (Gemini, GLM, a cassette replayed by the emulator) goes in the same place.
 *
 *   npx -y pnpm@10 example evals
 */
import { Registry, Tool } from "@agentfx/core"
import { Scripted } from "@agentfx/core/testing"
import { EvalCase, EvalReport, EvalRunner, Scenario } from "@agentfx/tools"
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Schema } from "effect"

const scenarioFile = `---
name: warranty
description: A customer asks for a repair
available_functions:
  - name: check_warranty
    description: Looks up the warranty of a serial number
    parameters: { type: object, properties: { serial_number: { type: string } }, required: [serial_number] }
  - name: create_ticket
    description: Opens a repair ticket
    parameters: { type: object, properties: { serial_number: { type: string } }, required: [serial_number] }
---
Check the warranty, then open a repair ticket when it is valid.`

// The implementations the scenario's functions resolve to; the cases mock them, so these never run here.
const checkWarranty = Tool.make("check_warranty", {
  description: "Looks up the warranty of a serial number",
  parameters: Schema.Struct({ serial_number: Schema.String }),
  handler: () => Effect.succeed({ valid: true })
})
const createTicket = Tool.make("create_ticket", {
  description: "Opens a repair ticket",
  parameters: Schema.Struct({ serial_number: Schema.String }),
  handler: () => Effect.succeed({ ticket_id: "T-1" })
})

const expected = [
  { function_name: "check_warranty", arguments: { serial_number: "SN-1" } },
  { function_name: "create_ticket", arguments_contain: { serial_number: "SN-1" }, result_contains: { ticket_id: "T-100" } }
]
const mocks = { check_warranty: { response: { valid: true } }, create_ticket: { response: { ticket_id: "T-100" } } }

// What the model does in each case.
const scripts: Record<string, ReadonlyArray<Scripted.Step>> = {
  "kettle-repair": [
    { calls: [{ name: "check_warranty", args: { serial_number: "SN-1" } }] },
    { calls: [{ name: "create_ticket", args: { serial_number: "SN-1" } }] },
    { text: "Ticket T-100 is open." }
  ],
  "toaster-repair": [{ calls: [{ name: "check_warranty", args: { serial_number: "SN-1" } }] }, { text: "It is under warranty." }]
}

const program = Effect.gen(function* () {
  const scenario = yield* Scenario.resolve(yield* Scenario.parse(scenarioFile, "warranty.md"), Registry.unsafeMake(checkWarranty, createTicket))
  const cases = [
    yield* EvalCase.make({ id: "kettle-repair", input: "My kettle SN-1 broke.", scenario: "warranty", mock_function_responses: mocks, expected_function_calls: expected }),
    yield* EvalCase.make({ id: "toaster-repair", input: "My toaster SN-1 broke.", scenario: "warranty", mock_function_responses: mocks, expected_function_calls: expected })
  ]
  const report = yield* EvalRunner.run(cases, {
    suite: "warranty",
    scenarios: [scenario],
    model: (evalCase) => Scripted.layer(scripts[evalCase.id] ?? []),
    threshold: 0.5
  })
  yield* Console.log(EvalReport.pretty(report))
  yield* Console.log(EvalReport.junit(report))
  if (EvalReport.exitCode(report) !== 0) yield* Effect.fail(`pass rate below ${report.summary.threshold}`)
})

NodeRuntime.runMain(program)
