import { describe, expect, it } from "@effect/vitest"
import { Cause, Duration, Effect, Either, Exit, FastCheck as fc, Fiber, Option, Ref, Schema, TestClock } from "effect"
import { Agent, LanguageModel, ModelError, Registry, Retry, Tool, Transcript, Turn } from "../src/index.js"
import { Scripted } from "../src/testing.js"

type CallKind = "ok" | "unknown" | "invalid" | "fails" | "dies" | "slow"
type StepSpec =
  | { readonly kind: "turn"; readonly calls: ReadonlyArray<CallKind>; readonly text: string; readonly input: number; readonly output: number }
  | { readonly kind: "retryable"; readonly retryAfterSeconds: number | null }
  | { readonly kind: "fatal" }

const stepArb: fc.Arbitrary<StepSpec> = fc.oneof(
  { weight: 6, arbitrary: fc.record({
    kind: fc.constant("turn" as const),
    calls: fc.array(fc.constantFrom<CallKind>("ok", "unknown", "invalid", "fails", "dies", "slow"), { maxLength: 4 }),
    text: fc.string({ maxLength: 12 }),
    input: fc.nat(50),
    output: fc.nat(50)
  }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("retryable" as const), retryAfterSeconds: fc.option(fc.integer({ min: 1, max: 20 })) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "fatal" as const }) }
)

const toStep = (spec: StepSpec, index: number): Scripted.Step => {
  switch (spec.kind) {
    case "turn":
      return {
        text: spec.text,
        usage: { inputTokens: spec.input, outputTokens: spec.output, totalTokens: spec.input + spec.output },
        calls: spec.calls.map((kind, i) => ({
          name: kind === "unknown" ? "missing" : kind === "invalid" ? "ok" : kind,
          args: kind === "invalid" ? { n: "not a number" } : { n: index * 10 + i }
        }))
      }
    case "retryable":
      return spec.retryAfterSeconds === null
        ? { error: new ModelError.Unavailable({ message: "connection reset" }) }
        : { error: new ModelError.RateLimited({ message: "429", retryAfter: Duration.seconds(spec.retryAfterSeconds) }) }
    case "fatal":
      return { error: new ModelError.InvalidRequest({ message: "400" }) }
  }
}

const makeRegistry = (executed: Ref.Ref<ReadonlyArray<string>>) => {
  const record = (ctx: Tool.ToolContext) => Ref.update(executed, (ids) => [...ids, ctx.callId])
  const params = Schema.Struct({ n: Schema.Number })
  return Registry.unsafeMake(
    Tool.make("ok", { description: "", parameters: params, handler: ({ n }, ctx) => Effect.as(record(ctx), n) }),
    Tool.make("fails", { description: "", parameters: params, failure: Schema.String, handler: (_, ctx) => Effect.zipRight(record(ctx), Effect.fail("nope")) }),
    Tool.make("dies", { description: "", parameters: params, handler: (_, ctx) => Effect.zipRight(record(ctx), Effect.die("boom")) }),
    Tool.make("slow", { description: "", parameters: params, timeout: "2 seconds", handler: ({ n }, ctx) => Effect.zipRight(record(ctx), Effect.as(Effect.sleep(`${(n % 4) + 1} seconds`), n)) })
  )
}

/** Runs a scripted loop to its end under TestClock, advancing time until the fiber is done (bounded). */
const runScript = (specs: ReadonlyArray<StepSpec>, maxTurns: number) =>
  Effect.gen(function* () {
    const executed = yield* Ref.make<ReadonlyArray<string>>([])
    const registry = makeRegistry(executed)
    const steps = specs.map(toStep)
    // What each request showed when it was sent, copied, to compare with what it shows after the run.
    const sent: Array<readonly [Transcript.Transcript, ReadonlyArray<Turn.Turn>]> = []
    const program = Effect.gen(function* () {
      const exit = yield* Effect.exit(Agent.run({ registry, prompt: "go", maxTurns, retry: Retry.policy({ maxRetries: 2, base: "1 second", cap: "8 seconds" }) }))
      const requests = yield* (yield* Scripted.ScriptedModel).requests
      return { exit, requests }
    }).pipe(Effect.provide(Scripted.layer((request, i) => {
      sent.push([request.transcript, [...request.transcript]])
      return Effect.succeed(steps[i] ?? { text: "done" })
    })))
    const fiber = yield* Effect.fork(program)
    for (let i = 0; i < 2_000 && fiber.unsafePoll() === null; i++) yield* TestClock.adjust("1 second")
    const done = fiber.unsafePoll()
    expect(done, "the run ended").not.toBeNull()
    const { exit, requests } = yield* Fiber.join(fiber)
    return { exit, requests, steps, sent, executed: yield* Ref.get(executed) }
  })

const scriptArb = fc.tuple(fc.array(stepArb, { maxLength: 12 }), fc.integer({ min: 1, max: 6 }))
const options = { fastCheck: { numRuns: 60 } }

describe("Agent loop properties", () => {
  it.effect.prop("each request's transcript is a prefix of the next (append-only)", [scriptArb], ([[specs, maxTurns]]) =>
    Effect.gen(function* () {
      const { exit, requests } = yield* runScript(specs, maxTurns)
      for (let i = 1; i < requests.length; i++) {
        expect(Transcript.isPrefixOf(requests[i - 1]!.transcript, requests[i]!.transcript)).toBe(true)
      }
      if (Exit.isSuccess(exit) && requests.length > 0) {
        expect(Transcript.isPrefixOf(requests[requests.length - 1]!.transcript, exit.value.transcript)).toBe(true)
      }
    }), options)

  it.effect.prop("the transcript a request was sent is unchanged after every later step", [scriptArb], ([[specs, maxTurns]]) =>
    Effect.gen(function* () {
      const { sent } = yield* runScript(specs, maxTurns)
      expect(sent.length).toBeGreaterThan(0)
      for (const [transcript, copy] of sent) {
        expect(transcript.length).toBe(copy.length)
        copy.forEach((turn, i) => expect(transcript[i]).toBe(turn))
      }
    }), options)

  it.effect.prop("every call turn is immediately followed by exactly one response turn with the same ids, same order", [scriptArb], ([[specs, maxTurns]]) =>
    Effect.gen(function* () {
      const { exit, requests } = yield* runScript(specs, maxTurns)
      const transcripts = [...requests.map((r) => r.transcript), ...(Exit.isSuccess(exit) ? [exit.value.transcript] : [])]
      for (const transcript of transcripts) {
        expect(Transcript.validate(transcript)).toEqual(Either.right(transcript))
        transcript.forEach((turn, i) => {
          const calls = Turn.calls(turn)
          if (calls.length > 0) expect(Turn.responses(transcript[i + 1]!).map((r) => r.id)).toEqual(calls.map((c) => c.id))
        })
      }
    }), options)

  it.effect.prop("the run always ends with final text, a stop condition or a typed error, within maxTurns model turns plus retries", [scriptArb], ([[specs, maxTurns]]) =>
    Effect.gen(function* () {
      const { exit, requests } = yield* runScript(specs, maxTurns)
      expect(requests.length).toBeLessThanOrEqual(maxTurns * 3)
      if (Exit.isSuccess(exit)) {
        expect(exit.value.turns).toBeLessThanOrEqual(maxTurns)
        expect(["Finished", "MaxTurns"]).toContain(exit.value.stopReason._tag)
      } else {
        const failure = exit.cause._tag === "Fail" ? Option.some(exit.cause.error) : Option.none()
        expect(Option.isSome(failure), `a typed failure, not ${Cause.pretty(exit.cause)}`).toBe(true)
        expect(ModelError.isModelError(Option.getOrThrow(failure))).toBe(true)
      }
    }), options)

  it.effect.prop("every call the model emitted is executed exactly once, whatever was retried", [scriptArb], ([[specs, maxTurns]]) =>
    Effect.gen(function* () {
      const { exit, requests, executed } = yield* runScript(specs, maxTurns)
      const transcript = Exit.isSuccess(exit) ? exit.value.transcript : requests[requests.length - 1]?.transcript ?? []
      const runnable = transcript.flatMap(Turn.calls).filter((c) => c.name !== "missing" && typeof c.args.n === "number")
      expect([...executed].sort()).toEqual(runnable.map((c) => c.id).sort())
    }), options)

  it.effect.prop("reported usage equals the sum over the model turns", [scriptArb], ([[specs, maxTurns]]) =>
    Effect.gen(function* () {
      const { exit, requests, steps } = yield* runScript(specs, maxTurns)
      if (Exit.isFailure(exit)) return
      const answered = requests.slice(0, requests.length).map((_, i) => steps[i] ?? { text: "done" })
      const expected = answered
        .filter((step): step is Exclude<Scripted.Step, { error: unknown }> => !("error" in step))
        .reduce((sum, step) => LanguageModel.addUsage(sum, { inputTokens: step.usage?.inputTokens ?? 1, outputTokens: step.usage?.outputTokens ?? 1, totalTokens: step.usage?.totalTokens ?? 2 }), LanguageModel.emptyUsage)
      expect(exit.value.usage).toEqual(expected)
    }), options)

  it.effect.prop("a retry-after of N seconds up to maxHint is waited for, never less; one beyond it fails at once with the hint", [fc.integer({ min: 1, max: 120 })], ([seconds]) =>
    Effect.gen(function* () {
      const hint = Duration.seconds(seconds)
      const fiber = yield* Effect.fork(
        Effect.gen(function* () {
          const exit = yield* Effect.exit(Agent.run({ registry: Registry.empty, prompt: "go" }))
          return { exit, requests: yield* (yield* Scripted.ScriptedModel).requests }
        }).pipe(Effect.provide(Scripted.layer([{ error: new ModelError.RateLimited({ message: "429", retryAfter: hint }) }, { text: "ok" }])))
      )
      if (Duration.greaterThan(hint, Retry.defaultMaxHint)) {
        // Not a sleep: the run is over before the clock moves at all.
        yield* TestClock.adjust(0)
        expect(fiber.unsafePoll(), "over before the clock moved").not.toBeNull()
        const { exit, requests } = yield* Fiber.join(fiber)
        expect(requests).toHaveLength(1)
        expect(exit).toEqual(Exit.fail(new ModelError.RateLimited({ message: "429", retryAfter: hint })))
        return
      }
      yield* TestClock.adjust(Duration.subtract(hint, Duration.millis(1)))
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("31 seconds")
      const { exit, requests } = yield* Fiber.join(fiber)
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(requests).toHaveLength(2)
    }), { fastCheck: { numRuns: 40 } })
})
