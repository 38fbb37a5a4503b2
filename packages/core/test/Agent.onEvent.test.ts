import { describe, expect, it } from "@effect/vitest"
import { Cause, Chunk, Duration, Effect, Either, Exit, FastCheck as fc, Fiber, Option, Schema, Stream, TestClock } from "effect"
import type { AgentEvent } from "../src/Agent.js"
import { Agent, Chat, ModelError, Registry, Retry, Tool } from "../src/index.js"
import { Scripted } from "../src/testing.js"

type CallKind = "ok" | "fails" | "slow" | "unknown"
type StepSpec =
  | { readonly kind: "turn"; readonly calls: ReadonlyArray<CallKind>; readonly text: string; readonly reasoning: string }
  | { readonly kind: "retryable" }
  | { readonly kind: "fatal" }

interface Case {
  readonly specs: ReadonlyArray<StepSpec>
  readonly maxTurns: number
  readonly concurrency: "sequential" | number
  readonly streaming: boolean | undefined
}

const stepArb: fc.Arbitrary<StepSpec> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("turn" as const),
      calls: fc.array(fc.constantFrom<CallKind>("ok", "fails", "slow", "unknown"), { maxLength: 3 }),
      // Words: a scripted stream cuts text after each run of spaces, so several deltas per turn.
      text: fc.array(fc.constantFrom("a", "bc", " ", "  "), { maxLength: 12 }).map((pieces) => pieces.join("")),
      reasoning: fc.string({ maxLength: 8 })
    })
  },
  { weight: 2, arbitrary: fc.constant({ kind: "retryable" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "fatal" as const }) }
)

const caseArb: fc.Arbitrary<Case> = fc.record({
  specs: fc.array(stepArb, { maxLength: 8 }),
  maxTurns: fc.integer({ min: 1, max: 5 }),
  concurrency: fc.oneof(fc.constant("sequential" as const), fc.integer({ min: 1, max: 3 })),
  streaming: fc.constantFrom(undefined, true, false)
})

const toStep = (spec: StepSpec, index: number): Scripted.Step => {
  switch (spec.kind) {
    case "turn":
      return {
        text: spec.text,
        reasoning: spec.reasoning,
        calls: spec.calls.map((kind, i) => ({ name: kind === "unknown" ? "missing" : kind, args: { n: index * 10 + i } }))
      }
    case "retryable":
      return { error: new ModelError.RateLimited({ message: "429", retryAfter: Duration.seconds(2) }) }
    case "fatal":
      return { error: new ModelError.InvalidRequest({ message: "400" }) }
  }
}

const params = Schema.Struct({ n: Schema.Number })
const registry = Registry.unsafeMake(
  Tool.make("ok", { description: "", parameters: params, handler: ({ n }) => Effect.succeed(n) }),
  Tool.make("fails", { description: "", parameters: params, failure: Schema.String, handler: () => Effect.fail("nope") }),
  // Different durations, so that calls of one batch finish out of their order.
  Tool.make("slow", { description: "", parameters: params, handler: ({ n }) => Effect.as(Effect.sleep(Duration.seconds(5 - (n % 4))), n) })
)

const optionsOf = (c: Case): Agent.Options<never> => ({
  registry,
  prompt: "go",
  maxTurns: c.maxTurns,
  concurrency: c.concurrency,
  retry: Retry.policy({ maxRetries: 1, base: "1 second" }),
  ...(c.streaming === undefined ? {} : { streaming: c.streaming })
})

const modelOf = (c: Case) => {
  const steps = c.specs.map(toStep)
  return Scripted.layer((_, i) => Effect.succeed(steps[i] ?? { text: "done" }))
}

/** Plays `program` on the TestClock to its end. */
const played = <A>(program: Effect.Effect<A>) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(program)
    yield* TestClock.adjust(Duration.seconds(1_000))
    expect(fiber.unsafePoll(), "the run ended").not.toBeNull()
    return yield* Fiber.join(fiber)
  })

const throughStream = (c: Case) =>
  played(
    Stream.runCollect(Stream.either(Agent.stream(optionsOf(c)))).pipe(
      Effect.map((items) => {
        const events: Array<AgentEvent> = []
        let error: string | undefined
        for (const item of Chunk.toReadonlyArray(items)) {
          if (Either.isLeft(item)) error = item.left._tag
          else events.push(item.right)
        }
        return { events, error }
      }),
      Effect.provide(modelOf(c))
    )
  )

const throughCallback = (c: Case) => {
  const events: Array<AgentEvent> = []
  return played(
    Agent.run({ ...optionsOf(c), onEvent: (event) => events.push(event) }).pipe(
      Effect.either,
      Effect.map((outcome) => ({ events, error: Either.isLeft(outcome) ? outcome.left._tag : undefined, outcome })),
      Effect.provide(modelOf(c))
    )
  )
}

describe("Agent.run with onEvent", () => {
  it.effect.prop(
    "onEvent receives exactly the events Agent.stream emits, in the same order, and run's outcome is the stream's",
    [caseArb],
    ([c]) =>
      Effect.gen(function* () {
        const streamed = yield* throughStream(c)
        const called = yield* throughCallback(c)
        expect(called.events).toEqual(streamed.events)
        expect(called.error).toBe(streamed.error)
        const last = called.events[called.events.length - 1]
        if (Either.isRight(called.outcome)) expect(last).toEqual({ _tag: "Done", result: called.outcome.right })
        else expect(last?._tag).not.toBe("Done")
      }),
    { fastCheck: { numRuns: 40 } }
  )

  it.effect("text deltas arrive as the model streams them, before the turn finishes; streaming: false sends none", () =>
    Effect.gen(function* () {
      const tags: Array<string> = []
      const model = Scripted.layer([{ text: "Hello there" }])
      const result = yield* Agent.run({ registry: Registry.empty, prompt: "hi", onEvent: (event) => tags.push(event._tag === "TextDelta" ? `delta ${event.text}` : event._tag) }).pipe(
        Effect.provide(model)
      )
      expect(result.text).toBe("Hello there")
      expect(tags).toEqual(["TurnStarted", "delta Hello ", "delta there", "TurnFinished", "Done"])
      const unstreamed: Array<string> = []
      yield* Agent.run({ registry: Registry.empty, prompt: "hi", streaming: false, onEvent: (event) => unstreamed.push(event._tag) }).pipe(
        Effect.provide(Scripted.layer([{ text: "Hello there" }]))
      )
      expect(unstreamed).toEqual(["TurnStarted", "TurnFinished", "Done"])
    }))

  it.effect("a callback that throws is called no more and the run dies with what it threw at the next model turn, running no further turn", () =>
    Effect.gen(function* () {
      const thrown = new Error("the UI is gone")
      const seen: Array<string> = []
      const program = Effect.gen(function* () {
        const exit = yield* Effect.exit(
          Agent.run({
            registry,
            prompt: "go",
            onEvent: (event) => {
              seen.push(event._tag)
              if (event._tag === "CallStarted") throw thrown
            }
          })
        )
        return { exit, requests: (yield* (yield* Scripted.ScriptedModel).requests).length }
      })
      const { exit, requests } = yield* program.pipe(Effect.provide(Scripted.layer([{ calls: [{ name: "ok", args: { n: 1 } }] }, { text: "never asked" }])))
      expect(Exit.isFailure(exit) && Cause.dieOption(exit.cause)).toEqual(Option.some(thrown))
      expect(seen).toEqual(["TurnStarted", "TurnFinished", "CallStarted"])
      expect(requests).toBe(1)
    }))

  it.effect("a callback that throws on Done fails a run that had succeeded, with what it threw", () =>
    Effect.gen(function* () {
      const exit = yield* Agent.run({
        registry: Registry.empty,
        prompt: "hi",
        onEvent: (event) => {
          if (event._tag === "Done") throw "no screen"
        }
      }).pipe(Effect.exit, Effect.provide(Scripted.layer([{ text: "fine" }])))
      expect(Exit.isFailure(exit) && Cause.dieOption(exit.cause)).toEqual(Option.some("no screen"))
    }))

  it.effect("Agent.stream with onEvent: the callback receives the events the stream emits", () =>
    Effect.gen(function* () {
      const called: Array<AgentEvent> = []
      const streamed = yield* Stream.runCollect(
        Agent.stream({ registry, prompt: "go", onEvent: (event) => called.push(event) })
      ).pipe(Effect.provide(Scripted.layer([{ calls: [{ name: "ok", args: { n: 2 } }] }, { text: "two" }])))
      expect(called).toEqual(Chunk.toReadonlyArray(streamed))
      expect(called.map((event) => event._tag)).toContain("CallFinished")
    }))

  it.effect("a Chat message with onEvent: every event of that message, then Done with its result", () =>
    Effect.gen(function* () {
      const called: Array<string> = []
      const chat = yield* Chat.make({ registry, onEvent: (event) => called.push(event._tag) })
      const result = yield* chat.send("go")
      expect(result.text).toBe("hello")
      expect(called).toEqual(["TurnStarted", "TextDelta", "TurnFinished", "Done"])
    }).pipe(Effect.provide(Scripted.layer([{ text: "hello" }]))))
})
