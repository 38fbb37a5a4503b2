/**
 * Executor benchmark: the cost agentfx adds around a tool call, and how close a bounded parallel batch of slow
 * calls comes to the ideal wall time, next to a plain promise pool (p-limit) measured in the same process.
 *
 *   pnpm bench:executor        (or: node --expose-gc bench/dist/executor.js after a build)
 *   node --expose-gc bench/dist/executor.js --only parallel [--batch-repetitions N]   (the batch alone)
 */
import { Executor, FunctionCall, Registry, Tool } from "@agentfx/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { performance } from "node:perf_hooks"
import pLimit from "p-limit"
import type { Runner, Sample } from "./internal/measure.js"
import { compare, cpuOf, protocols, timed, wallOf } from "./internal/measure.js"
import { fixed, machine, median, spread, verdict } from "./internal/stats.js"
import * as Table from "./internal/table.js"

const option = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? undefined : process.argv[at + 1]
}
const iterations = 200_000
const warmUpIterations = 20_000
const rounds = 3
const batchSize = 10

const overheadGoalMicros = 10
const singleBatchGoal = 1.5
const pairRounds = 7
const batchCalls = 200
const batchBound = 10
const sleepMillis = 20
/** The warm-up's batches wait 1 ms a call: the same code, warmed in a fraction of the time. */
const warmUpMillis = 1
const batchRepetitions = Number(option("batch-repetitions") ?? 9)
const idealBatchMillis = (batchCalls / batchBound) * sleepMillis
const efficiencyGoal = 0.97
const batchCpuGoal = 2

const noop = Tool.make("noop", {
  description: "Returns its first argument",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.String }),
  handler: ({ a }) => Effect.succeed(a)
})

const waitArgs = Schema.Struct({ ms: Schema.Number })
const sleeper = Tool.make("sleep", {
  description: "Waits `ms` milliseconds on the Effect clock",
  parameters: waitArgs,
  handler: ({ ms }) => Effect.sleep(Duration.millis(ms))
})

/** The same wait as p-limit's tasks: a `setTimeout` promise. */
const timer = Tool.make("timer", {
  description: "Waits `ms` milliseconds on a setTimeout promise",
  parameters: waitArgs,
  handler: ({ ms }) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))
})

const registry = Registry.unsafeMake(noop, sleeper, timer)
const args = { a: 1, b: "x" }
const call = FunctionCall.make({ id: "call_0", name: "noop", args })
const batch = Array.from({ length: batchSize }, (_, i) => FunctionCall.make({ id: `call_${i}`, name: "noop", args }))
/** `batchCalls` calls of `tool`, each waiting `ms`. */
const waits = (tool: "sleep" | "timer", ms: number) => Array.from({ length: batchCalls }, (_, i) => FunctionCall.make({ id: `call_${i}`, name: tool, args: { ms } }))
const batches = { sleep: new Map([sleepMillis, warmUpMillis].map((ms) => [ms, waits("sleep", ms)])), timer: new Map([sleepMillis, warmUpMillis].map((ms) => [ms, waits("timer", ms)])) }

/** Microseconds per call of `step`, which performs `callsPerStep` calls, over `calls` calls in one Effect program. */
const timeEffect = <A, E>(step: Effect.Effect<A, E>, calls: number, callsPerStep = 1): Effect.Effect<number, E> =>
  Effect.gen(function* () {
    const steps = Math.ceil(calls / callsPerStep)
    const start = performance.now()
    for (let i = 0; i < steps; i++) yield* step
    return ((performance.now() - start) * 1000) / (steps * callsPerStep)
  })

/** Warm-up, then the median µs/call over `rounds` rounds of `calls` calls. */
const microsPerCall = async <A, E>(step: Effect.Effect<A, E>, callsPerStep = 1, calls = iterations): Promise<number> => {
  await Effect.runPromise(timeEffect(step, warmUpIterations, callsPerStep))
  const figures: Array<number> = []
  for (let round = 0; round < rounds; round++) figures.push(await Effect.runPromise(timeEffect(step, calls, callsPerStep)))
  return median(figures)
}

/**
 * The median µs/call of each step, measured in alternating rounds after a warm-up of each, so that neither is
 * favoured by running first (the JIT optimises for what it saw) or by quieter moments of the machine.
 */
const interleaved = async (steps: ReadonlyArray<Effect.Effect<unknown, unknown>>): Promise<ReadonlyArray<ReadonlyArray<number>>> => {
  for (const step of steps) await Effect.runPromise(timeEffect(step, warmUpIterations))
  const figures = steps.map(() => [] as Array<number>)
  for (let round = 0; round < pairRounds; round++) {
    for (let k = 0; k < steps.length; k++) {
      const index = (k + round) % steps.length
      figures[index]!.push(await Effect.runPromise(timeEffect(steps[index]!, iterations / 4)))
    }
  }
  return figures
}

let sink = 0
const plainNoop = (input: { readonly a: number; readonly b: string }): number => input.a

const plainMicrosPerCall = (): number => {
  const measure = (calls: number) => {
    const start = performance.now()
    for (let i = 0; i < calls; i++) sink += plainNoop(args)
    return ((performance.now() - start) * 1000) / calls
  }
  measure(warmUpIterations)
  return median(Array.from({ length: rounds }, () => measure(iterations)))
}

const decoded = (() => {
  const result = noop.decode(args)
  if (result._tag === "Left") throw new Error("the benchmark's own arguments do not decode")
  return result.right
})()

const overhead = async (): Promise<Table.Table> => {
  const row = (name: string, micros: number, calls = iterations, goal = "") => [name, calls.toLocaleString("en"), fixed(micros, 3), goal]
  const execute = await microsPerCall(Executor.execute(registry, call))
  // `execute` reads and decodes the arguments as it builds its Effect, which `executeAll` does when it runs: both are
  // rebuilt per call here, as the loop does, so that both include the decoding.
  const [single, singleBatch] = await interleaved([
    Effect.suspend(() => Executor.execute(registry, call)),
    Executor.executeAll(registry, [call], { concurrency: batchBound })
  ])
  const singleRatio = median(singleBatch!) / median(single!)
  // Batches fork a fiber per call, so they get fewer calls to keep the run short.
  const batchIterations = iterations / 4
  return {
    title: `Executor overhead per call (no-op tool, {a: number, b: string}; median of ${rounds} rounds)`,
    columns: [{ header: "case" }, { header: "calls", align: "right" }, { header: "µs/call", align: "right" }, { header: "goal" }],
    rows: [
      row("Executor.execute (built once: arguments decoded once)", execute, iterations, verdict(execute <= overheadGoalMicros, `≤ ${overheadGoalMicros}`)),
      row(
        `Executor.executeAll, ${batchSize} calls/batch, concurrency ${batchBound}`,
        await microsPerCall(Executor.executeAll(registry, batch, { concurrency: batchBound }), batchSize, batchIterations),
        batchIterations
      ),
      row(
        `Executor.executeAll, ${batchSize} calls/batch, sequential`,
        await microsPerCall(Executor.executeAll(registry, batch, { concurrency: "sequential" }), batchSize, batchIterations),
        batchIterations
      ),
      [
        "Executor.execute, built per call, alternating with the next row",
        (pairRounds * iterations / 4).toLocaleString("en"),
        spread(single!, 3),
        ""
      ],
      [
        `Executor.executeAll, 1 call/batch, concurrency ${batchBound} (a 1-call loop step)`,
        (pairRounds * iterations / 4).toLocaleString("en"),
        spread(singleBatch!, 3),
        verdict(singleRatio <= singleBatchGoal, `≤ ${singleBatchGoal}× execute: ${fixed(singleRatio, 2)}×`)
      ],
      row("plain function call (reference)", plainMicrosPerCall()),
      row("  part: tool.decode (Schema decode of the arguments)", await microsPerCall(Effect.sync(() => noop.decode(args)))),
      row("  part: tool.run (handler + result to JSON)", await microsPerCall(noop.run(decoded, Tool.context("call_0", "noop")))),
      row(
        "  part: Effect.timeoutFail around Effect.succeed",
        await microsPerCall(Effect.timeoutFail(Effect.succeed(1), { duration: "60 seconds", onTimeout: () => "timeout" }))
      ),
      row("  floor: yield* Effect.succeed in the same loop", await microsPerCall(Effect.succeed(1)))
    ],
    notes: [
      `Each round is one Effect program looping yield* over the call, after a ${warmUpIterations.toLocaleString("en")}-call warm-up.`,
      `The two alternating rows take turns over ${pairRounds} rounds of ${(iterations / 4).toLocaleString("en")} calls: median (min–max).`,
      "The parts are measured alone with the same loop; they do not add up exactly, but show where the time goes.",
      machine()
    ]
  }
}

/** One batch of `batchCalls` calls that each wait `ms`, at most `batchBound` at once, through the executor. */
const executorBatch = (tool: "sleep" | "timer") => (ms: number): Promise<Sample> =>
  timed(async () => {
    const results = await Effect.runPromise(Executor.executeAll(registry, batches[tool].get(ms)!, { concurrency: batchBound }))
    if (results.some((result) => result._tag === "Left")) throw new Error("a waiting call failed")
    return undefined
  }, undefined)

/** The same batch as a p-limit pool of `setTimeout` promises. */
const promisePool = (ms: number): Promise<Sample> =>
  timed(() => {
    const limit = pLimit(batchBound)
    return Promise.all(Array.from({ length: batchCalls }, () => limit(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))))
  }, undefined)

const parallel = async (): Promise<ReadonlyArray<Table.Table>> => {
  const runners: ReadonlyArray<Runner<number>> = [
    { name: `Executor.executeAll, concurrency ${batchBound}, handler Effect.sleep`, run: executorBatch("sleep") },
    { name: `Executor.executeAll, concurrency ${batchBound}, handler a setTimeout promise (p-limit's task)`, run: executorBatch("timer") },
    { name: `p-limit(${batchBound}) + setTimeout promises (reference)`, run: promisePool }
  ].map((runner) => ({ ...runner, warmUpSize: () => warmUpMillis }))
  const figures = await compare(runners, { size: sleepMillis, perBlock: 1, warmUp: 50, repetitions: batchRepetitions }, () => 1)
  const reference = figures[figures.length - 1]!
  return protocols.map(([protocol, name]) => {
    const row = (runner: Runner<number>, index: number) => {
      const f = figures[index]!
      const wall = wallOf(f, protocol).map((micros) => micros / 1000)
      const cpu = cpuOf(f, protocol).map((micros) => micros / 1000)
      const efficiency = idealBatchMillis / median(wall)
      const isReference = index === figures.length - 1
      const cpuRatio = median(cpu) / (median(cpuOf(reference, protocol)) / 1000)
      const referenceEfficiency = idealBatchMillis / (median(wallOf(reference, protocol)) / 1000)
      return [
        runner.name,
        spread(wall, 1),
        fixed(efficiency, 3),
        spread(cpu, 2),
        isReference ? "" : fixed(cpuRatio, 2),
        isReference
          ? ""
          : `${verdict(cpuRatio <= batchCpuGoal, `CPU ≤ ${batchCpuGoal}× p-limit's`)}; ${verdict(efficiency >= referenceEfficiency, "efficiency ≥ p-limit's")}; ${verdict(efficiency >= efficiencyGoal, `efficiency ≥ ${efficiencyGoal}`)}`
      ]
    }
    return {
      title: `${batchCalls} calls × ${sleepMillis} ms, at most ${batchBound} at once, ${name} (median (min–max) of ${batchRepetitions} runs)`,
      columns: [
        { header: "runner" },
        { header: "wall ms", align: "right" },
        { header: "efficiency", align: "right" },
        { header: "CPU ms", align: "right" },
        { header: "CPU ÷ p-limit", align: "right" },
        { header: "goals" }
      ],
      rows: runners.map(row),
      notes: [
        `Ideal wall: ${idealBatchMillis} ms; efficiency = ideal / median wall. CPU = user + system of the process over the batch (timers, the event loop and GC included).`,
        `The runners take turns, the order rotating each run; ${
          protocol === "steady"
            ? `each run follows 50 warm-up batches of ${warmUpMillis} ms calls and no forced GC`
            : "each run follows a forced GC and one untimed batch"
        }. The executor decodes each call's arguments with the tool's Schema.`,
        machine()
      ]
    }
  })
}

const main = async () => {
  if (option("only") !== "parallel") Table.print(await overhead())
  for (const table of await parallel()) Table.print(table)
  if (Number.isNaN(sink)) console.log(sink)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
