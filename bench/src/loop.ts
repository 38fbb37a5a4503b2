/**
 * Agent-loop benchmark: what a model step costs the loop itself, with a scripted model that answers at once and
 * no-op tools, next to the Vercel AI SDK's `generateText` with its mock model, measured in the same process.
 *
 *   pnpm bench:loop        (or: node bench/dist/loop.js after a build)
 */
import { Agent, Registry, Retry, Tool } from "@agentfx/core"
import { Scripted } from "@agentfx/core/testing"
import type { LanguageModelV3Content, LanguageModelV3GenerateResult } from "@ai-sdk/provider"
import { generateText, jsonSchema, stepCountIs, tool } from "ai"
import { MockLanguageModelV3 } from "ai/test"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { performance } from "node:perf_hooks"
import { fixed, machine, median, verdict } from "./internal/stats.js"
import * as Table from "./internal/table.js"

interface Scenario {
  /** Model steps that ask for calls; one more step then answers with text. */
  readonly callSteps: number
  readonly callsPerStep: number
  /** Whole runs per timed repetition, so that short runs add up to something a clock can measure. */
  readonly runsPerRepetition: number
  readonly repetitions: number
  readonly warmUpRuns: number
}

const short: Scenario = { callSteps: 6, callsPerStep: 3, runsPerRepetition: 100, repetitions: 15, warmUpRuns: 500 }
const long: Scenario = { callSteps: 1000, callsPerStep: 1, runsPerRepetition: 1, repetitions: 9, warmUpRuns: 3 }

const modelSteps = (scenario: Scenario): number => scenario.callSteps + 1

const stepGoalMicros = 100
const flatnessGoal = 1.5

const toolNames = ["t0", "t1", "t2"] as const
const args = { a: 1, b: "x" }

// ---- agentfx ----

const noop = (name: string) =>
  Tool.make(name, {
    description: "Returns its first argument",
    parameters: Schema.Struct({ a: Schema.Number, b: Schema.String }),
    handler: ({ a }) => Effect.succeed(a)
  })

const registry = Registry.unsafeMake(noop("t0"), noop("t1"), noop("t2"))

const script = (scenario: Scenario): Scripted.Responder => (_request, index) =>
  Effect.succeed(
    index < scenario.callSteps
      ? { calls: toolNames.slice(0, scenario.callsPerStep).map((name) => ({ name, args })) }
      : { text: "done" }
  )

type AgentOptions = Omit<Agent.Options<never>, "registry" | "prompt">

/** Milliseconds of one run, timed inside the provided scope so building the scripted model is left out. */
const agentfxRun = (scenario: Scenario, options: AgentOptions): Promise<number> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const start = performance.now()
      const result = yield* Agent.run({ registry, prompt: "go", maxTurns: modelSteps(scenario), ...options })
      const elapsed = performance.now() - start
      if (result.turns !== modelSteps(scenario) || result.calls.length !== scenario.callSteps * scenario.callsPerStep || result.text !== "done") {
        return yield* Effect.dieMessage(`agentfx ran ${result.turns} turns and ${result.calls.length} calls, ending with ${result.stopReason._tag}`)
      }
      return elapsed
    }).pipe(Effect.provide(Scripted.layer(script(scenario))))
  )

// ---- Vercel AI SDK ----

const aiTools = Object.fromEntries(
  toolNames.map((name) => [
    name,
    tool({
      description: "Returns its first argument",
      inputSchema: jsonSchema<{ a: number; b: string }>({
        type: "object",
        properties: { a: { type: "number" }, b: { type: "string" } },
        required: ["a", "b"],
        additionalProperties: false
      }),
      execute: ({ a }) => a
    })
  ])
)

const usage: LanguageModelV3GenerateResult["usage"] = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined }
}

const mockModel = (scenario: Scenario): MockLanguageModelV3 => {
  let step = 0
  const input = JSON.stringify(args)
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const index = step++
      if (index >= scenario.callSteps) {
        return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }
      }
      const content: Array<LanguageModelV3Content> = toolNames.slice(0, scenario.callsPerStep).map((toolName, i) => ({
        type: "tool-call",
        toolCallId: `call_${index}_${i}`,
        toolName,
        input
      }))
      return { content, finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] }
    }
  })
}

const aiRun = async (scenario: Scenario): Promise<number> => {
  const model = mockModel(scenario)
  const start = performance.now()
  const result = await generateText({ model, tools: aiTools, prompt: "go", stopWhen: stepCountIs(modelSteps(scenario)) })
  const elapsed = performance.now() - start
  const calls = result.steps.reduce((sum, step) => sum + step.toolResults.length, 0)
  if (result.steps.length !== modelSteps(scenario) || calls !== scenario.callSteps * scenario.callsPerStep || result.text !== "done") {
    throw new Error(`the AI SDK ran ${result.steps.length} steps and ${calls} calls`)
  }
  return elapsed
}

// ---- measurement ----

interface Runner {
  readonly name: string
  readonly run: (scenario: Scenario) => Promise<number>
}

const runners: ReadonlyArray<Runner> = [
  { name: "agentfx Agent.run (defaults)", run: (scenario) => agentfxRun(scenario, {}) },
  { name: "agentfx Agent.run (turnTimeout 1 hour, Retry.never)", run: (scenario) => agentfxRun(scenario, { turnTimeout: "1 hour", retry: Retry.never }) },
  { name: "agentfx Agent.run (concurrency: \"sequential\")", run: (scenario) => agentfxRun(scenario, { concurrency: "sequential" }) },
  { name: "AI SDK generateText (defaults)", run: aiRun }
]

/**
 * Median µs per model step of each runner. Runners are measured one after the other, each after its own warm-up:
 * taking turns would make each pay for the garbage the one before it left, and the AI SDK's long runs leave a lot.
 */
const measure = async (scenario: Scenario): Promise<ReadonlyArray<number>> => {
  const figures: Array<number> = []
  for (const runner of runners) {
    for (let i = 0; i < scenario.warmUpRuns; i++) await runner.run(scenario)
    const perStep: Array<number> = []
    for (let repetition = 0; repetition < scenario.repetitions; repetition++) {
      let total = 0
      for (let i = 0; i < scenario.runsPerRepetition; i++) total += await runner.run(scenario)
      perStep.push((total * 1000) / (scenario.runsPerRepetition * modelSteps(scenario)))
    }
    figures.push(median(perStep))
  }
  return figures
}

const label = (scenario: Scenario) => `${scenario.callSteps.toLocaleString("en")} steps × ${scenario.callsPerStep} call${scenario.callsPerStep === 1 ? "" : "s"}`

const main = async () => {
  const shortFigures = await measure(short)
  const longFigures = await measure(long)
  const aiIndex = runners.findIndex((runner) => runner.run === aiRun)
  const rows = runners.map((runner, r) => {
    const a = shortFigures[r]!
    const b = longFigures[r]!
    const agentfx = r !== aiIndex
    return [
      runner.name,
      fixed(a, 1),
      fixed(b, 1),
      fixed(b / a, 2),
      agentfx ? fixed(a / shortFigures[aiIndex]!, 2) : "1.00",
      agentfx ? fixed(b / longFigures[aiIndex]!, 2) : "1.00",
      agentfx ? `${verdict(Math.max(a, b) <= stepGoalMicros, `≤ ${stepGoalMicros} µs`)}, ${verdict(b / a <= flatnessGoal, `long/short ≤ ${flatnessGoal}`)}` : ""
    ]
  })
  Table.print({
    title: "Agent loop overhead per model step (scripted model, no-op tools)",
    columns: [
      { header: "toolkit" },
      { header: `µs/step, ${label(short)}`, align: "right" },
      { header: `µs/step, ${label(long)}`, align: "right" },
      { header: "long / short", align: "right" },
      { header: "÷ AI SDK, short", align: "right" },
      { header: "÷ AI SDK, long", align: "right" },
      { header: "goal" }
    ],
    rows,
    notes: [
      "A run is N steps that each ask for the calls, then one step that answers with text; µs/step = run time / (N + 1).",
      `Median of ${short.repetitions} repetitions of ${short.runsPerRepetition} runs (short) and ${long.repetitions} of ${long.runsPerRepetition} run (long), each toolkit after its own warm-up.`,
      "The AI SDK's jsonSchema tools have no validator (inputs are JSON-parsed only); agentfx decodes every call with its Schema.",
      machine()
    ]
  })
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
