import { afterAll, describe, expect, it } from "@effect/vitest"
import { Arbitrary, Effect, Either, Exit, FastCheck as fc, Fiber, Ref, Schema, TestClock } from "effect"
import { Executor, FunctionCall, Json, Registry, Tool, ToolError } from "../src/index.js"
import * as PrePlayed from "./prePlayed.js"

class Refused extends Schema.TaggedError<Refused>()("Refused", { code: Schema.Number }) {}

const mixed = Registry.unsafeMake(
  Tool.make("ok", { description: "", parameters: Schema.Struct({ v: Schema.Number }), handler: ({ v }) => Effect.succeed(v) }),
  Tool.make("fails", {
    description: "",
    parameters: Schema.Struct({ v: Schema.Number }),
    failure: Refused,
    handler: ({ v }) => Effect.fail(new Refused({ code: v }))
  }),
  Tool.make("dies", { description: "", parameters: Schema.Struct({ v: Schema.Number }), handler: ({ v }) => Effect.die(new Error(`died ${v}`)) }),
  Tool.make("slow", {
    description: "",
    parameters: Schema.Struct({ v: Schema.Number }),
    timeout: "50 millis",
    handler: ({ v }) => Effect.as(Effect.sleep(`${v} millis`), { waited: v })
  })
)

type Kind = "ok" | "fails" | "dies" | "slow" | "unknown" | "invalid"
const callArb = fc.record({ kind: fc.constantFrom<Kind>("ok", "fails", "dies", "slow", "unknown", "invalid"), v: fc.integer({ min: 0, max: 100 }) })
const toCall = ({ kind, v }: { kind: Kind; v: number }, i: number): FunctionCall.FunctionCall =>
  FunctionCall.make({
    id: `c${i}`,
    name: kind === "invalid" ? "ok" : kind === "unknown" ? "missing" : kind,
    args: kind === "invalid" ? { v: String(v) } : { v }
  })

/** Runs a batch to completion under TestClock (slow handlers sleep at most 100 ms each). */
const settle = <A>(effect: Effect.Effect<A>, total: number) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(effect)
    yield* TestClock.adjust(`${total} millis`)
    return yield* Fiber.join(fiber)
  })

const plain = (results: ReadonlyArray<Executor.CallResult>) =>
  results.map((r) => (Either.isRight(r) ? { ok: r.right } : { error: Schema.encodeSync(ToolError.ToolError)(r.left) }))

/** The batches of the first two properties, played in advance several at a time (see prePlayed.ts). */
const seed = PrePlayed.seedFrom("EXECUTOR_PROPERTY_SEED")
const sameResults = { numRuns: 100, seed }
const boundHeld = { numRuns: 40, seed }

const batches = PrePlayed.make(([specs, bound]: readonly [ReadonlyArray<{ kind: Kind; v: number }>, number]) =>
  Effect.gen(function* () {
    const calls = specs.map(toCall)
    const sequential = yield* settle(Executor.executeAll(mixed, calls, { concurrency: "sequential" }), 101 * calls.length)
    const parallel = yield* settle(Executor.executeAll(mixed, calls, { concurrency: bound }), 101 * calls.length)
    return { calls: calls.length, sequential: plain(sequential), parallel: plain(parallel) }
  }), sameResults)
const batchArbs: [fc.Arbitrary<Array<{ kind: Kind; v: number }>>, fc.Arbitrary<number>] = [fc.array(callArb, { maxLength: 25 }), fc.integer({ min: 1, max: 30 })]
batches.over(...batchArbs)

const blocking = PrePlayed.make(([count, bound]: readonly [number, number]) =>
  Effect.gen(function* () {
    const running = yield* Ref.make(0)
    const peak = yield* Ref.make(0)
    const block = Tool.make("block", {
      description: "",
      parameters: Schema.Struct({}),
      handler: () =>
        Effect.acquireUseRelease(
          Effect.tap(Ref.updateAndGet(running, (n) => n + 1), (n) => Ref.update(peak, (p) => Math.max(p, n))),
          () => Effect.sleep("10 millis"),
          () => Ref.update(running, (n) => n - 1)
        )
    })
    const calls = Array.from({ length: count }, (_, i) => FunctionCall.make({ id: `b${i}`, name: "block", args: {} }))
    const results = yield* settle(Executor.executeAll(Registry.unsafeMake(block), calls, { concurrency: bound }), 10 * count + 10)
    return { results: results.length, peak: yield* Ref.get(peak) }
  }), boundHeld)
const blockingArbs: [fc.Arbitrary<number>, fc.Arbitrary<number>] = [fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 15 })]
blocking.over(...blockingArbs)

describe("Executor properties", () => {
  afterAll(() => {
    expect([batches.late(), blocking.late()], "cases played when asked for, not in advance").toEqual([0, 0])
  })

  it.effect.prop(
    "bounded-parallel executeAll returns exactly the sequential results, in call order",
    batchArbs,
    (input) =>
      Effect.gen(function* () {
        const { calls, sequential, parallel } = yield* batches.get(input)
        expect(parallel).toHaveLength(calls)
        expect(parallel).toEqual(sequential)
      }),
    { fastCheck: sameResults }
  )

  it.effect.prop(
    "the number of handlers running at once never exceeds the bound, and reaches it when enough calls block",
    blockingArbs,
    ([count, bound]) =>
      Effect.gen(function* () {
        const { results, peak } = yield* blocking.get([count, bound])
        expect(results).toBe(count)
        expect(peak).toBe(Math.min(count, bound))
      }),
    { fastCheck: boundHeld }
  )

  const errorArb: fc.Arbitrary<ToolError.ToolError> = fc.oneof(
    fc.record({ name: fc.string(), available: fc.array(fc.string()) }).map((f) => new ToolError.UnknownFunction(f)),
    fc.record({ name: fc.string(), issues: fc.array(fc.record({ path: fc.string(), message: fc.string() })) }).map((f) => new ToolError.InvalidArguments(f)),
    fc.record({ name: fc.string(), cause: fc.jsonValue(), defect: fc.boolean() }).map((f) => new ToolError.ExecutionFailed(f)),
    fc.record({ name: fc.string(), reason: fc.string() }).map((f) => new ToolError.ApprovalDenied(f))
  )
  const resultArb: fc.Arbitrary<Executor.CallResult> = fc.oneof(fc.jsonValue().map(Either.right), errorArb.map(Either.left))

  it.prop(
    "buildResponses gives one object response per call, ids and names echoed, for any results",
    [fc.array(fc.tuple(fc.string({ minLength: 1 }), fc.string(), resultArb), { maxLength: 20 })],
    ([rows]) => {
      const calls = rows.map(([id, name]) => FunctionCall.make({ id, name, args: {} }))
      const responses = Either.getOrThrow(Executor.buildResponses(calls, rows.map(([, , result]) => result)))
      expect(responses).toHaveLength(calls.length)
      responses.forEach((response, i) => {
        expect(response.id).toBe(calls[i]!.id)
        expect(response.name).toBe(calls[i]!.name)
        expect(Json.isPlainObject(response.response)).toBe(true)
        expect(response.isError).toBe(Either.isLeft(rows[i]![2]))
        if (response.isError) expect(Object.keys(response.response)).toEqual(["error"])
      })
    }
  )

  const Order = Schema.Struct({
    customer: Schema.Struct({ name: Schema.String, email: Schema.optional(Schema.String) }),
    lines: Schema.Array(Schema.Struct({ sku: Schema.String, quantity: Schema.Int.pipe(Schema.positive()) })),
    priority: Schema.Literal("low", "normal", "high"),
    note: Schema.NullOr(Schema.String)
  })
  const order = Tool.make("order", { description: "", parameters: Order, handler: () => Effect.succeed("ok") })
  const orders = Registry.unsafeMake(order)

  it.effect.prop(
    "interrupting a batch at any moment ends every handler that started (its finalizer runs), starts no other, and each call started at most once",
    [fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 100 })],
    ([count, bound, after]) =>
      Effect.gen(function* () {
        const started: Array<string> = []
        const finalized: Array<string> = []
        const block = Tool.make("block", {
          description: "",
          parameters: Schema.Struct({ ms: Schema.Number }),
          handler: ({ ms }, ctx) =>
            Effect.acquireUseRelease(
              Effect.sync(() => started.push(ctx.callId)),
              () => Effect.sleep(`${ms} millis`),
              () => Effect.sync(() => finalized.push(ctx.callId))
            )
        })
        // Waits of 10, 20 and 30 ms: workers take their next call at different moments.
        const calls = Array.from({ length: count }, (_, i) => FunctionCall.make({ id: `b${i}`, name: "block", args: { ms: 10 * (1 + (i % 3)) } }))
        const fiber = yield* Effect.fork(Executor.executeAll(Registry.unsafeMake(block), calls, { concurrency: bound }))
        yield* TestClock.adjust(`${after} millis`)
        yield* Fiber.interrupt(fiber)
        const startedWhenInterrupted = started.length
        yield* TestClock.adjust("1 second")
        expect(started).toHaveLength(startedWhenInterrupted)
        expect(new Set(started).size).toBe(started.length)
        expect([...finalized].sort()).toEqual([...started].sort())
      }),
    { fastCheck: { numRuns: 60 } }
  )

  it.effect.prop("arguments generated from a tool's parameters Schema always decode", [Arbitrary.make(Order)], ([args]) =>
    Effect.gen(function* () {
      const encoded = Schema.encodeSync(Order)(args)
      const result = yield* Effect.either(Executor.execute(orders, FunctionCall.make({ id: "o", name: "order", args: JSON.parse(JSON.stringify(encoded)) })))
      expect(result).toEqual(Either.right("ok"))
    })
  )

  it.effect.prop("arbitrary JSON either decodes or yields InvalidArguments, never a defect", [fc.jsonValue()], ([args]) =>
    Effect.gen(function* () {
      const call = { _tag: "FunctionCall", id: "o", name: "order", args } as unknown as FunctionCall.FunctionCall
      const exit = yield* Effect.exit(Executor.execute(orders, call))
      if (Exit.isFailure(exit)) {
        const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
        expect(failure?._tag).toBe("InvalidArguments")
      } else {
        expect(exit.value).toBe("ok")
      }
    })
  )
})
