/**
 * Agent-loop benchmark: what a model step costs the loop itself, from 1 to 4,000 steps, for `Agent.run` and
 * `Agent.stream` next to the Vercel AI SDK's `generateText` and `streamText` (each with its own mock model), all in
 * one process, interleaved, with the heap each run's result keeps alive.
 *
 *   pnpm bench:loop                               (or, after a build: node --expose-gc --max-old-space-size=16384 bench/dist/loop.js)
 *   pnpm bench:loop -- --steps 4000               (one step count alone, against the AI SDK, ~1 hour here)
 *   node --expose-gc bench/dist/loop.js --steps 1,10,100 --modes stream --ai-up-to 0   (a quick look)
 */
import { Agent, LanguageModel, ModelError, Registry, Tool } from "@agentfx/core"
import { Scripted } from "@agentfx/core/testing"
import type { LanguageModelV3Content, LanguageModelV3GenerateResult, LanguageModelV3StreamPart } from "@ai-sdk/provider"
import { generateText, jsonSchema, stepCountIs, streamText, tool } from "ai"
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { performance } from "node:perf_hooks"
import type { Figures, Protocol, Runner, Sample } from "./internal/measure.js"
import { compare, cpuOf, protocols } from "./internal/measure.js"
import { fixed, machine, median, megabytes, spread, verdict } from "./internal/stats.js"
import * as Table from "./internal/table.js"

const option = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? undefined : process.argv[at + 1]
}
const stepCounts = (option("steps") ?? "1,10,100,1000,4000").split(",").map(Number)
const repetitions = Number(option("repetitions") ?? 7)
/** `--modes run` or `--modes stream` measures one side only (default both). */
const modes = (option("modes") ?? "run,stream").split(",").filter((mode): mode is "run" | "stream" => mode === "run" || mode === "stream")

const flatnessGoal = 1.25
const streamGoal = 1.3
const onEventGoal = 1.15

const args = { a: 1, b: "x" }

// ---- agentfx ----

const registry = Registry.unsafeMake(
  Tool.make("t0", {
    description: "Returns its first argument",
    parameters: Schema.Struct({ a: Schema.Number, b: Schema.String }),
    handler: ({ a }) => Effect.succeed(a)
  })
)

/** `steps` model steps that each call the tool once, then one that answers with text. */
const script = (steps: number): Scripted.Responder => (_request, index) =>
  Effect.succeed(index < steps ? { calls: [{ name: "t0", args }] } : { text: "done" })

const check = (result: Agent.AgentResult, steps: number): Agent.AgentResult => {
  if (result.turns !== steps + 1 || result.calls.length !== steps || result.text !== "done") {
    throw new Error(`agentfx ran ${result.turns} turns and ${result.calls.length} calls, ending with ${result.stopReason._tag}`)
  }
  return result
}

/** Times `effect`, with the model given to it already built, so that building the model is left out. */
const timedEffect = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<Omit<Sample, "model" | "result"> & { readonly value: A }, E, R> =>
  Effect.suspend(() => {
    const cpu = process.cpuUsage()
    const wall = performance.now()
    return Effect.map(effect, (value) => {
      const used = process.cpuUsage(cpu)
      return { cpuMicros: used.user + used.system, wallMicros: (performance.now() - wall) * 1000, value }
    })
  })

const options = (steps: number) => ({ registry, prompt: "go", maxTurns: steps + 1 })

/** The scripted model, which records every request it is sent. */
type Model = Context.Context<LanguageModel.LanguageModel>

const scripted = (steps: number): Model => Effect.runSync(Scripted.make(script(steps)))

/** A response's deltas, as a model that streams sends them (without the final `Finish`). */
const deltasOf = (response: LanguageModel.Response): Array<LanguageModel.StreamPart> => {
  const parts: Array<LanguageModel.StreamPart> = []
  for (const part of response.turn.parts) {
    if (part._tag === "Text") parts.push({ _tag: "TextDelta", text: part.text })
    else if (part._tag === "FunctionCall") parts.push({ _tag: "CallDelta", call: part })
  }
  return parts
}

/**
 * The scripted model, but its `stream` is a plain Effect Stream of the same parts, which the loop runs as a Stream
 * at every step: what a model costs whose `stream` is any Stream the toolkit did not build (the scripted model's
 * is a replay and a provider's a pulled stream, both read without running a Stream).
 */
const streamingThroughEffectStream = (steps: number): Model => {
  const context = scripted(steps)
  const service = Context.get(context, LanguageModel.LanguageModel)
  return Context.add(context, LanguageModel.LanguageModel, {
    ...service,
    stream: (request) =>
      Stream.unwrap(
        Effect.map(service.generate(request), (response) => Stream.fromIterable([...deltasOf(response), { _tag: "Finish" as const, response }]))
      )
  })
}

/**
 * The scripted model, answering a moment later (after a promise settles, as an SDK's request does): what the loop
 * pays per step for a provider's answer, short of the HTTP and JSON — the request's deadlines watched while it
 * waits, the fiber woken when it arrives.
 */
const answeringLikeAProvider = (steps: number): Model => {
  const context = scripted(steps)
  const service = Context.get(context, LanguageModel.LanguageModel)
  return Context.add(context, LanguageModel.LanguageModel, {
    ...service,
    generate: (request) => Effect.zipRight(Effect.promise(() => Promise.resolve()), service.generate(request))
  })
}

/**
 * The scripted model, streaming the way the providers do: an async iterable of chunks (one part each, a microtask
 * apart, as an SDK yields them) read through `LanguageModel.streamOfChunks`. What the loop pays per step for a
 * provider's stream, short of the HTTP and JSON.
 */
const streamingLikeAProvider = (steps: number): Model => {
  const context = scripted(steps)
  const service = Context.get(context, LanguageModel.LanguageModel)
  async function* chunks(parts: ReadonlyArray<LanguageModel.StreamPart>) {
    for (const part of parts) {
      await undefined
      yield part
    }
  }
  return Context.add(context, LanguageModel.LanguageModel, {
    ...service,
    stream: (request) =>
      LanguageModel.streamOfChunks<LanguageModel.StreamPart, ModelError.ModelError>(() => {
        let response: LanguageModel.Response | undefined
        return {
          start: (signal) =>
            Effect.runPromise(service.generate(request), { signal }).then((value) => {
              response = value
              return chunks(deltasOf(value))
            }),
          onChunk: (part) => Either.right([part]),
          onEnd: () => (response === undefined ? Either.left(new ModelError.MalformedResponse({ message: "no response" })) : Either.right([{ _tag: "Finish", response }])),
          onError: (error) => new ModelError.Unavailable({ message: String(error) })
        }
      })
  })
}

const agentfxRun = (makeModel: (steps: number) => Model) => (steps: number): Promise<Sample> => {
  const model = makeModel(steps)
  return Effect.runPromise(
    timedEffect(Agent.run(options(steps))).pipe(
      Effect.map((sample) => ({ ...sample, result: check(sample.value, steps), model })),
      Effect.provide(model)
    )
  )
}

/** `Agent.run` with every event handed to a callback (text deltas included: the model is streamed). */
const agentfxOnEvent = (steps: number): Promise<Sample> => {
  const model = scripted(steps)
  let events = 0
  return Effect.runPromise(
    timedEffect(Agent.run({ ...options(steps), onEvent: () => void events++ })).pipe(
      Effect.map((sample) => {
        // TurnStarted, TurnFinished, CallStarted and CallFinished per call step; the text step's three; Done.
        if (events !== steps * 4 + 4) throw new Error(`onEvent was called ${events} times for ${steps} steps`)
        return { ...sample, result: check(sample.value, steps), model }
      }),
      Effect.provide(model)
    )
  )
}

const lastResult = (stream: Stream.Stream<Agent.AgentEvent, Agent.AgentError, LanguageModel.LanguageModel>) =>
  Stream.runFold(stream, undefined as Agent.AgentResult | undefined, (last, event) => (event._tag === "Done" ? event.result : last))

const agentfxStream = (makeModel: (steps: number) => Model) => (steps: number): Promise<Sample> => {
  const model = makeModel(steps)
  return Effect.runPromise(
    timedEffect(lastResult(Agent.stream(options(steps)))).pipe(
      Effect.map((sample) => {
        if (sample.value === undefined) throw new Error("agentfx's stream ended without Done")
        return { ...sample, result: check(sample.value, steps), model }
      }),
      Effect.provide(model)
    )
  )
}

// ---- Vercel AI SDK ----

const aiTools = {
  t0: tool({
    description: "Returns its first argument",
    inputSchema: jsonSchema<{ a: number; b: string }>({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "string" } },
      required: ["a", "b"],
      additionalProperties: false
    }),
    execute: ({ a }) => a
  })
}

const usage: LanguageModelV3GenerateResult["usage"] = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined }
}
const input = JSON.stringify(args)

const mockModel = (steps: number): MockLanguageModelV3 => {
  let step = 0
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const index = step++
      if (index >= steps) return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }
      const content: Array<LanguageModelV3Content> = [{ type: "tool-call", toolCallId: `call_${index}_0`, toolName: "t0", input }]
      return { content, finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] }
    },
    doStream: async () => {
      const index = step++
      const parts: Array<LanguageModelV3StreamPart> =
        index >= steps
          ? [
              { type: "stream-start", warnings: [] },
              { type: "text-start", id: "t" },
              { type: "text-delta", id: "t", delta: "done" },
              { type: "text-end", id: "t" },
              { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage }
            ]
          : [
              { type: "stream-start", warnings: [] },
              { type: "tool-call", toolCallId: `call_${index}_0`, toolName: "t0", input },
              { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage }
            ]
      return { stream: convertArrayToReadableStream(parts) }
    }
  })
}

const aiCheck = (steps: ReadonlyArray<{ readonly toolResults: ReadonlyArray<unknown> }>, text: string, expected: number) => {
  const calls = steps.reduce((sum, step) => sum + step.toolResults.length, 0)
  if (steps.length !== expected + 1 || calls !== expected || text !== "done") throw new Error(`the AI SDK ran ${steps.length} steps and ${calls} calls`)
}

const aiRun = async (steps: number): Promise<Sample> => {
  const model = mockModel(steps)
  const cpu = process.cpuUsage()
  const wall = performance.now()
  const result = await generateText({ model, tools: aiTools, prompt: "go", stopWhen: stepCountIs(steps + 1) })
  const used = process.cpuUsage(cpu)
  const sample = { cpuMicros: used.user + used.system, wallMicros: (performance.now() - wall) * 1000, result, model }
  aiCheck(result.steps, result.text, steps)
  return sample
}

const aiStream = async (steps: number): Promise<Sample> => {
  const model = mockModel(steps)
  const cpu = process.cpuUsage()
  const wall = performance.now()
  const result = streamText({ model, tools: aiTools, prompt: "go", stopWhen: stepCountIs(steps + 1) })
  for await (const part of result.fullStream) if (part.type === "error") throw part.error
  const used = process.cpuUsage(cpu)
  const sample = { cpuMicros: used.user + used.system, wallMicros: (performance.now() - wall) * 1000, result, model }
  aiCheck(await result.steps, await result.text, steps)
  return sample
}

// ---- measurement ----

/**
 * Warm-up: agentfx runs of at most 1,000 steps, 5,000 steps in all (after a full GC, shorter warm-ups left its
 * first blocks noticeably slower); the AI SDK's runs of at most 200 steps, 1,000 in all, since its long runs take
 * seconds to minutes each.
 */
const warmUp = (largest: number, total: number) => ({
  warmUpSize: (steps: number) => Math.min(steps, largest),
  warmUp: (steps: number) => Math.max(2, Math.ceil(total / (Math.min(steps, largest) + 1)))
})
const agentfxWarmUp = warmUp(1000, 5000)
const aiWarmUp = {
  ...warmUp(200, 1000),
  // One AI SDK run of 4,000 steps takes minutes: fewer repetitions there.
  repetitions: (steps: number) => (steps > aiUpTo ? 0 : steps >= 4000 ? Math.min(repetitions, aiRepetitionsAtLongest) : repetitions)
}
const aiRepetitionsAtLongest = Number(option("ai-repetitions-at-4000") ?? repetitions)
/** The AI SDK is left out above this many steps (`--ai-up-to 1000`): its 4,000-step runs take minutes each. */
const aiUpTo = Number(option("ai-up-to") ?? Infinity)

const runners = {
  run: [
    { name: "agentfx Agent.run", run: agentfxRun(scripted), ...agentfxWarmUp },
    { name: "agentfx Agent.run, model answering like a provider", run: agentfxRun(answeringLikeAProvider), ...agentfxWarmUp },
    { name: "agentfx Agent.run with onEvent", run: agentfxOnEvent, ...agentfxWarmUp },
    { name: "AI SDK generateText", run: aiRun, ...aiWarmUp }
  ],
  stream: [
    { name: "agentfx Agent.stream", run: agentfxStream(scripted), ...agentfxWarmUp },
    { name: "agentfx Agent.stream, model streaming like a provider", run: agentfxStream(streamingLikeAProvider), ...agentfxWarmUp },
    { name: "agentfx Agent.stream, model through a plain Effect Stream", run: agentfxStream(streamingThroughEffectStream), ...agentfxWarmUp },
    { name: "AI SDK streamText", run: aiStream, ...aiWarmUp }
  ]
} satisfies Record<string, ReadonlyArray<Runner<number>>>

const plan = (steps: number) => ({
  size: steps,
  // At least ~2,000 steps per timed block, and at least one run.
  perBlock: Math.max(1, Math.ceil(2000 / (steps + 1))),
  warmUp: 2,
  repetitions
})

const progress = (line: string) => process.stderr.write(`${line}\n`)

const measureAll = async () => {
  const results: Record<"run" | "stream", Map<number, ReadonlyArray<Figures>>> = { run: new Map(), stream: new Map() }
  for (const steps of stepCounts) {
    for (const mode of modes) {
      progress(`${mode}, ${steps} steps`)
      results[mode].set(steps, await compare(runners[mode], plan(steps), (size) => size + 1, progress))
    }
  }
  return results
}

/**
 * What any run pays once, whatever it does: an Effect run to a promise, and a one-chunk Effect Stream run to its
 * end (what `Agent.stream`'s consumer pays at least, before any event): µs per run, median (min–max) of
 * `repetitions` blocks of 2,000, taking turns.
 */
const fixedCosts = async (): Promise<ReadonlyArray<readonly [string, ReadonlyArray<number>]>> => {
  const cases: ReadonlyArray<readonly [string, () => Effect.Effect<unknown>]> = [
    ["Effect.runPromise(Effect.void)", () => Effect.void],
    ["Effect.runPromise(Stream.runDrain(Stream.make(1)))", () => Stream.runDrain(Stream.make(1))]
  ]
  const figures = cases.map(() => [] as Array<number>)
  const block = async (make: () => Effect.Effect<unknown>) => {
    const cpu = process.cpuUsage()
    for (let i = 0; i < 2000; i++) await Effect.runPromise(make())
    const used = process.cpuUsage(cpu)
    return (used.user + used.system) / 2000
  }
  for (const [, make] of cases) await block(make)
  for (let repetition = 0; repetition < repetitions; repetition++) {
    for (let k = 0; k < cases.length; k++) {
      const index = (k + repetition) % cases.length
      figures[index]!.push(await block(cases[index]![1]))
    }
  }
  return cases.map(([name], index) => [name, figures[index]!] as const)
}

const main = async () => {
  const results = await measureAll()
  const floors = await fixedCosts()
  const notes = (protocol: Protocol) => [
    `CPU time (user + system, garbage collection included) per model step = run time / (steps + 1); median (min–max) of ${repetitions} repetitions (the AI SDK at 4,000 steps: ${Math.min(repetitions, aiRepetitionsAtLongest)}, a run takes minutes).`,
    `Each step calls one no-op tool; a last step answers with text. Runners take turns in one process, the order rotating each repetition; each timed block has at least 2,000 steps and ${
      protocol === "steady"
        ? "follows a warm-up and no forced GC (agentfx: 5,000 steps in runs of at most 1,000; the AI SDK: 1,000 steps in runs of at most 200): no forced GC runs in this pass"
        : "follows a forced GC and one untimed block of the same size"
    }.`,
    ...(protocol === "afterGc"
      ? ["Retained: heap the last run's result keeps alive / its result and mock model together (both record every request they are sent), after a full GC; median. MB = 10^6 bytes."]
      : []),
    "agentfx decodes every call's arguments with the tool's Schema; the AI SDK's jsonSchema tools only JSON-parse them.",
    machine()
  ]
  const perStep = (protocol: Protocol, mode: "run" | "stream", steps: number, index: number) => median(cpuOf(results[mode].get(steps)![index]!, protocol))
  const row = (protocol: Protocol, mode: "run" | "stream", steps: number) => {
    const figures = results[mode].get(steps)!
    const ai = figures[figures.length - 1]!
    const measured = (values: ReadonlyArray<number>, show: (values: ReadonlyArray<number>) => string) => (values.length === 0 ? "—" : show(values))
    const retained = protocol === "afterGc"
      ? [figures[0]!, ai].map((f) => measured(f.retained, () => `${megabytes(median(f.retained))} / ${megabytes(median(f.retainedWithModel))}`))
      : []
    return [
      steps.toLocaleString("en"),
      ...figures.map((f) => measured(cpuOf(f, protocol), spread)),
      measured(cpuOf(ai, protocol), (cpu) => fixed(median(cpu) / median(cpuOf(figures[0]!, protocol)), 1)),
      ...retained
    ]
  }
  const columns = (protocol: Protocol, names: ReadonlyArray<string>) => [
    { header: "steps", align: "right" as const },
    ...names.map((name) => ({ header: name, align: "right" as const })),
    { header: "AI SDK ÷ agentfx", align: "right" as const },
    ...(protocol === "afterGc" ? [{ header: "retained, agentfx", align: "right" as const }, { header: "retained, AI SDK", align: "right" as const }] : [])
  ]
  const goals: Array<ReadonlyArray<string>> = []
  for (const [protocol, protocolName] of protocols) {
    if (modes.includes("run")) Table.print({
      title: `Agent.run next to the AI SDK's generateText: CPU µs per model step, ${protocolName}`,
      columns: columns(protocol, runners.run.map((runner) => runner.name)),
      rows: stepCounts.map((steps) => row(protocol, "run", steps)),
      notes: [
        "The scripted model answers at once. Like a provider: it answers once a promise settles, as an SDK's request does, so the loop watches the request's deadlines while it waits and is woken by the answer. With onEvent: the scripted model, streamed (its replay), every event handed to a callback. AI SDK ÷ agentfx and retained: against the first column.",
        ...notes(protocol)
      ]
    })
    if (modes.includes("stream")) Table.print({
      title: `Agent.stream next to the AI SDK's streamText: CPU µs per model step, ${protocolName}`,
      columns: columns(protocol, runners.stream.map((runner) => runner.name)),
      rows: stepCounts.map((steps) => row(protocol, "stream", steps)),
      notes: [
        "The scripted model's stream replays a whole response, which the loop reads without running a Stream. Like a provider: the parts come from an async iterable, one per microtask, read through LanguageModel.streamOfChunks as the Gemini and OpenAI-compatible providers read their SDKs' streams (without running a Stream either). Through a plain Effect Stream: a model whose stream is any other Stream, which the loop runs as one at every step — what a hand-written model costs.",
        "AI SDK ÷ agentfx and retained: against the first column.",
        ...notes(protocol)
      ]
    })
    const shortest = stepCounts.includes(10) ? 10 : undefined
    const longest = stepCounts.includes(4000) ? 4000 : undefined
    if (shortest !== undefined && longest !== undefined) {
      for (const mode of modes) {
        const ratio = perStep(protocol, mode, longest, 0) / perStep(protocol, mode, shortest, 0)
        goals.push([`${protocol}: Agent.${mode}: per step at 4,000 steps ÷ at 10`, fixed(ratio, 2), verdict(ratio <= flatnessGoal, `≤ ${flatnessGoal}`)])
      }
    }
    /** The two models each mode has: scripted (answers at once), and like a provider (waits for its answer). */
    const models = [
      [0, "scripted model"],
      [1, "model like a provider"]
    ] as const
    for (const [index, model] of models) {
      for (const steps of modes.length === 2 ? stepCounts : []) {
        const ratio = perStep(protocol, "stream", steps, index) / perStep(protocol, "run", steps, index)
        goals.push([`${protocol}: Agent.stream ÷ Agent.run, ${steps.toLocaleString("en")} steps, ${model}`, fixed(ratio, 2), verdict(ratio <= streamGoal, `≤ ${streamGoal}`)])
      }
    }
    for (const steps of modes.includes("run") ? stepCounts : []) {
      const ratio = perStep(protocol, "run", steps, 2) / perStep(protocol, "run", steps, 0)
      goals.push([
        `${protocol}: Agent.run with onEvent ÷ Agent.run, ${steps.toLocaleString("en")} steps, scripted model`,
        fixed(ratio, 2),
        steps === 10 ? verdict(ratio <= onEventGoal, `≤ ${onEventGoal}`) : ""
      ])
    }
    for (const mode of modes) {
      const ai = runners[mode].length - 1
      const compared = stepCounts.filter((steps) => steps >= 10 && steps <= aiUpTo)
      if (compared.length === 0) continue
      for (const [index, model] of models) {
        const ahead = compared.every((steps) => perStep(protocol, mode, steps, index) < perStep(protocol, mode, steps, ai))
        const range = aiUpTo < Infinity ? ` to ${aiUpTo.toLocaleString("en")}` : ""
        goals.push([`${protocol}: Agent.${mode} below the AI SDK at every step count from 10${range}, ${model}`, ahead ? "yes" : "no", verdict(ahead, "yes")])
      }
    }
  }
  const streamFloor = median(floors[1]![1])
  const beyond = modes.length === 2
    ? stepCounts.map((steps) => [
        steps.toLocaleString("en"),
        fixed((perStep("steady", "stream", steps, 0) - perStep("steady", "run", steps, 0)) * (steps + 1), 0),
        fixed(streamFloor, 0)
      ])
    : []
  Table.print({
    title: "For reference: what one run of any Effect program, and of any Effect Stream, costs (CPU µs per run)",
    columns: [{ header: "run" }, { header: "CPU µs", align: "right" }],
    rows: floors.map(([name, figures]) => [name, spread(figures)]),
    notes: [
      `Median (min–max) of ${repetitions} blocks of 2,000 runs, taking turns. A stream's fixed cost is paid by every Agent.stream run, spread over its steps: it is what makes the stream dearer per step at 1 and 10 steps.`,
      machine()
    ]
  })
  if (beyond.length > 0) Table.print({
    title: "What Agent.stream costs beyond Agent.run, per run (scripted model, steady), next to what running any Effect Stream costs",
    columns: [{ header: "steps" }, { header: "stream − run, CPU µs per run", align: "right" }, { header: "one Effect Stream run, CPU µs", align: "right" }],
    rows: beyond,
    notes: [
      "(median per step of Agent.stream − of Agent.run) × (steps + 1). Where it is about the cost of one Stream run, what the stream adds is the Stream its consumer runs, which no change of ours removes: it weighs at 1 and 10 steps and fades after.",
      machine()
    ]
  })
  Table.print({
    title: "Goals (medians of the tables above; steady = no forced GC, afterGc = after a forced GC and one untimed block)",
    columns: [{ header: "goal" }, { header: "measured", align: "right" }, { header: "verdict" }],
    rows: goals,
    notes: [machine()]
  })
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
