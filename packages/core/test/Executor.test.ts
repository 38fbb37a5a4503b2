import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Exit, Fiber, Ref, Schema, TestClock } from "effect"
import { Approval, Executor, FunctionCall, Registry, Tool, ToolError } from "../src/index.js"
import { add, boom, call, registry, reserve, slow } from "./fixtures.js"

/** A tool `wait` that sleeps 10 ms, and `peak`: the most of its handlers that ever ran at once. */
const waitingTool = Effect.gen(function* () {
  const running = yield* Ref.make(0)
  const peak = yield* Ref.make(0)
  const wait = Tool.make("wait", {
    description: "",
    parameters: Schema.Struct({}),
    handler: () =>
      Effect.acquireUseRelease(
        Ref.updateAndGet(running, (n) => n + 1).pipe(Effect.tap((n) => Ref.update(peak, (p) => Math.max(p, n)))),
        () => Effect.sleep("10 millis"),
        () => Ref.update(running, (n) => n - 1)
      )
  })
  return { wait, peak }
})

const failureOf = <A, E>(exit: Either.Either<A, E>): E => {
  if (Either.isRight(exit)) throw new Error(`expected a failure, got ${JSON.stringify(exit.right)}`)
  return exit.left
}

describe("Executor.execute", () => {
  it.effect("returns the encoded result of the handler", () =>
    Effect.gen(function* () {
      expect(yield* Executor.execute(registry, call("add", { a: 2, b: 3 }))).toBe(5)
      expect(yield* Executor.execute(registry, call("reserve", { sku: "a1" }))).toEqual({ reservation: "r-a1" })
    }))

  it.effect("UnknownFunction lists what is available", () =>
    Effect.gen(function* () {
      const error = failureOf(yield* Effect.either(Executor.execute(registry, call("nope"))))
      expect(error._tag).toBe("UnknownFunction")
      expect(error).toMatchObject({ name: "nope", available: ["add", "reserve", "boom", "slow"] })
      expect(error.message).toBe('unknown function "nope"; available: add, reserve, boom, slow')
    }))

  it.effect("InvalidArguments reports each issue by path", () =>
    Effect.gen(function* () {
      const error = failureOf(yield* Effect.either(Executor.execute(registry, call("add", { a: "2", c: 1 }))))
      expect(error._tag).toBe("InvalidArguments")
      if (error._tag !== "InvalidArguments") return
      expect([...error.issues].sort((x, y) => x.path.localeCompare(y.path))).toEqual([
        { path: "a", message: 'Expected number, actual "2"' },
        { path: "b", message: "is missing" },
        { path: "c", message: 'is unexpected, expected: "a" | "b"' }
      ])
    }))

  it.effect.each([
    ["null", null, "expected an object of arguments, got null"],
    ["an array", [1, 2], "expected an object of arguments, got an array"],
    ["a string", "{\"a\":1}", "expected an object of arguments, got string"]
  ] as const)("arguments that are %s are InvalidArguments", ([, args, message]) =>
    Effect.gen(function* () {
      const error = failureOf(yield* Effect.either(Executor.execute(registry, { ...call("add"), args: args as never })))
      expect(error).toMatchObject({ _tag: "InvalidArguments", issues: [{ path: "", message }] })
    }))

  it.effect("__proto__, constructor and prototype keys are refused, and no prototype changes", () =>
    Effect.gen(function* () {
      const quick = yield* Registry.fromFunctions({ echo: (args) => args })
      for (const key of ["__proto__", "constructor", "prototype"]) {
        const args = JSON.parse(`{"nested": {"${key}": {"polluted": true}}}`)
        const error = failureOf(yield* Effect.either(Executor.execute(quick, call("echo", args))))
        expect(error).toMatchObject({ _tag: "InvalidArguments", issues: [{ path: `nested.${key}`, message: `the key "${key}" is not allowed` }] })
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    }))

  it.effect("deeply nested and huge arguments are refused without a stack overflow", () =>
    Effect.gen(function* () {
      let deep: unknown = 1
      for (let i = 0; i < 100_000; i++) deep = { d: deep }
      const tooDeep = failureOf(yield* Effect.either(Executor.execute(registry, call("add", { a: 1, b: 2, deep }))))
      expect(tooDeep._tag).toBe("InvalidArguments")
      expect(tooDeep.message).toContain("nested deeper than 64 levels")
      const huge = failureOf(yield* Effect.either(Executor.execute(registry, call("add", { a: 1, b: 2, s: "x".repeat(1_000_001) }))))
      expect(huge.message).toContain("larger than 1000000 characters")
      const many = failureOf(yield* Effect.either(Executor.execute(registry, call("add", { a: 1, b: 2, xs: new Array(100_001).fill(0) }))))
      expect(many.message).toContain("more than 100000 values")
      const custom = failureOf(yield* Effect.either(Executor.execute(registry, call("add", { a: 1, b: { c: 1 } }), { limits: { maxDepth: 1 } })))
      expect(custom.message).toContain("nested deeper than 1 levels")
    }))

  it.effect("a typed failure is ExecutionFailed carrying the failure encoded by the failure Schema", () =>
    Effect.gen(function* () {
      const error = failureOf(yield* Effect.either(Executor.execute(registry, call("reserve", { sku: "none" }))))
      expect(error).toMatchObject({ _tag: "ExecutionFailed", name: "reserve", defect: false, cause: { _tag: "OutOfStock", sku: "none" } })
    }))

  it.effect("a thrown exception is ExecutionFailed with defect, never a crash", () =>
    Effect.gen(function* () {
      const error = failureOf(yield* Effect.either(Executor.execute(registry, call("boom"))))
      expect(error).toMatchObject({ _tag: "ExecutionFailed", defect: true, cause: { message: "kaboom" } })
      expect(error.message).toBe('"boom" failed: kaboom')
    }))

  it.effect("plain functions: sync, async, throwing and rejecting", () =>
    Effect.gen(function* () {
      const quick = yield* Registry.fromFunctions({
        sum: ({ a, b }) => Number(a) + Number(b),
        later: async () => ({ ok: true }),
        throws: () => {
          throw new TypeError("bad")
        },
        rejects: () => Promise.reject(new Error("no"))
      })
      expect(yield* Executor.execute(quick, call("sum", { a: 1, b: 2 }))).toBe(3)
      expect(yield* Executor.execute(quick, call("later"))).toEqual({ ok: true })
      expect(failureOf(yield* Effect.either(Executor.execute(quick, call("throws"))))).toMatchObject({
        _tag: "ExecutionFailed",
        cause: { message: "bad", type: "TypeError" }
      })
      expect(failureOf(yield* Effect.either(Executor.execute(quick, call("rejects"))))).toMatchObject({ cause: { message: "no" } })
    }))

  it.effect("a result that is not JSON is ExecutionFailed; dates become their JSON form", () =>
    Effect.gen(function* () {
      const quick = yield* Registry.fromFunctions({
        big: () => 10n,
        nan: () => ({ x: NaN }),
        date: () => ({ at: new Date(0) })
      })
      expect(failureOf(yield* Effect.either(Executor.execute(quick, call("big"))))).toMatchObject({ _tag: "ExecutionFailed", defect: true })
      expect(failureOf(yield* Effect.either(Executor.execute(quick, call("nan")))).message).toContain("NaN has no JSON form")
      expect(yield* Executor.execute(quick, call("date"))).toEqual({ at: "1970-01-01T00:00:00.000Z" })
    }))

  it.effect("a result that breaks the success Schema is ExecutionFailed", () =>
    Effect.gen(function* () {
      const liar = Tool.make("liar", {
        description: "",
        parameters: Schema.Struct({}),
        success: Schema.Number,
        handler: () => Effect.succeed("seven" as unknown as number)
      })
      const error = failureOf(yield* Effect.either(Executor.execute(Registry.unsafeMake(liar), call("liar"))))
      expect(error.message).toContain("does not match the success Schema")
    }))

  it.effect("ToolTimeout after the tool's own timeout (TestClock), and the handler is interrupted", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(Effect.either(Executor.execute(registry, call("slow", { ms: 5_000 }))))
      yield* TestClock.adjust("999 millis")
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      const error = failureOf(yield* Fiber.join(fiber))
      expect(error).toMatchObject({ _tag: "ToolTimeout", name: "slow" })
      if (error._tag === "ToolTimeout") expect(Duration.toMillis(error.after)).toBe(1000)
      expect(error.message).toBe('"slow" timed out after 1s')
    }))

  it.effect("options.timeout applies to tools without their own; without either, nothing times out", () =>
    Effect.gen(function* () {
      const quick = yield* Registry.fromFunctions({ never: () => new Promise(() => {}) })
      const timed = yield* Effect.fork(Effect.either(Executor.execute(quick, call("never"), { timeout: "3 seconds" })))
      const untimed = yield* Effect.fork(Effect.either(Executor.execute(quick, call("never"))))
      yield* TestClock.adjust("3 seconds")
      expect(failureOf(yield* Fiber.join(timed))).toMatchObject({ _tag: "ToolTimeout" })
      yield* TestClock.adjust("1 day")
      expect(untimed.unsafePoll()).toBeNull()
      yield* Fiber.interrupt(untimed)
    }))

  it.effect("tools that need approval ask the Approval service; a denial is ApprovalDenied", () =>
    Effect.gen(function* () {
      const ran = yield* Ref.make(0)
      const pay = Tool.make("pay", {
        description: "Pays",
        parameters: Schema.Struct({ amount: Schema.Number }),
        needsApproval: ({ amount }) => amount > 100,
        handler: () => Ref.update(ran, (n) => n + 1)
      })
      const reg = Registry.unsafeMake(pay)
      yield* Executor.execute(reg, call("pay", { amount: 5 }))
      const missing = failureOf(yield* Effect.either(Executor.execute(reg, call("pay", { amount: 500 }))))
      expect(missing).toMatchObject({ _tag: "ApprovalDenied", reason: "this tool needs approval and no Approval service is provided" })
      const denied = failureOf(yield* Effect.either(Executor.execute(reg, call("pay", { amount: 500 })).pipe(Effect.provide(Approval.denyAll))))
      expect(denied).toMatchObject({ _tag: "ApprovalDenied", reason: "approval policy denies all calls" })
      yield* Executor.execute(reg, call("pay", { amount: 500 })).pipe(Effect.provide(Approval.allowAll))
      expect(yield* Ref.get(ran)).toBe(2)
      const asked: Array<Approval.Request> = []
      const refused = failureOf(
        yield* Effect.either(
          Executor.execute(reg, call("pay", { amount: 700 }, "p7")).pipe(
            Effect.provide(Approval.layer((request) => Effect.sync(() => (asked.push(request), Approval.denied("too much")))))
          )
        )
      )
      expect(refused).toMatchObject({ _tag: "ApprovalDenied", name: "pay", reason: "too much" })
      expect(asked).toEqual([{ call: call("pay", { amount: 700 }, "p7"), description: "Pays" }])
      expect(yield* Ref.get(ran)).toBe(2)
    }))
})

describe("Executor.executeAll", () => {
  const batch = [call("add", { a: 1, b: 1 }, "1"), call("nope", {}, "2"), call("boom", {}, "3"), call("add", { a: "x" }, "4")]

  it.effect("one result per call in call order; failures do not cancel siblings", () =>
    Effect.gen(function* () {
      for (const concurrency of ["sequential", 1, 2, 10, "unbounded"] as const) {
        const results = yield* Executor.executeAll(registry, batch, { concurrency })
        expect(results.map((r) => (Either.isRight(r) ? r.right : r.left._tag))).toEqual([2, "UnknownFunction", "ExecutionFailed", "InvalidArguments"])
      }
    }))

  it.effect("interrupting the batch interrupts every running handler and runs their finalizers", () =>
    Effect.gen(function* () {
      const started = yield* Ref.make(0)
      const finalized = yield* Ref.make(0)
      const hang = Tool.make("hang", {
        description: "",
        parameters: Schema.Struct({}),
        handler: () =>
          Effect.acquireRelease(Ref.update(started, (n) => n + 1), () => Ref.update(finalized, (n) => n + 1)).pipe(
            Effect.zipRight(Effect.never),
            Effect.scoped
          )
      })
      const reg = Registry.unsafeMake(hang)
      const calls = Array.from({ length: 5 }, (_, i) => call("hang", {}, `h${i}`))
      const fiber = yield* Effect.fork(Executor.executeAll(reg, calls, { concurrency: 3 }))
      yield* TestClock.adjust("1 millis")
      expect(yield* Ref.get(started)).toBe(3)
      const exit = yield* Fiber.interrupt(fiber)
      expect(Exit.isInterrupted(exit)).toBe(true)
      expect(yield* Ref.get(finalized)).toBe(3)
    }))

  it.effect("onStart and onFinish see every call with its result and duration", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      yield* Executor.executeAll(registry, batch, {
        onStart: (c, i) => Effect.sync(() => seen.push(`start ${i} ${c.id}`)),
        onFinish: (c, r, d, i) => Effect.sync(() => seen.push(`finish ${i} ${c.id} ${Either.isRight(r)} ${Duration.toMillis(d)}`))
      })
      expect(seen.filter((s) => s.startsWith("finish")).sort()).toEqual([
        "finish 0 1 true 0",
        "finish 1 2 false 0",
        "finish 2 3 false 0",
        "finish 3 4 false 0"
      ])
    }))

  it("a concurrency that is not a positive integer is refused", () => {
    for (const concurrency of [0, -1, 1.5, Number.NaN]) {
      const exit = Effect.runSyncExit(Executor.executeAll(registry, batch, { concurrency }))
      expect(Exit.isFailure(exit) && String(exit.cause)).toContain("concurrency must be")
    }
  })

  it.effect("each concurrency runs as many handlers at once as it says, and no more", () =>
    Effect.gen(function* () {
      const peakOf = (concurrency: Executor.BatchOptions["concurrency"], count: number) =>
        Effect.gen(function* () {
          const { wait, peak } = yield* waitingTool
          const calls = Array.from({ length: count }, (_, i) => call("wait", {}, `w${i}`))
          const fiber = yield* Effect.fork(Executor.executeAll(Registry.unsafeMake(wait), calls, concurrency === undefined ? {} : { concurrency }))
          yield* TestClock.adjust("1 second")
          expect(yield* Fiber.join(fiber)).toHaveLength(count)
          return yield* Ref.get(peak)
        })
      expect(yield* peakOf("unbounded", 15)).toBe(15)
      expect(yield* peakOf("sequential", 4)).toBe(1)
      expect(yield* peakOf(3, 7)).toBe(3)
      expect(yield* peakOf(5, 2)).toBe(2)
      expect(yield* peakOf(undefined, 25)).toBe(Executor.defaultConcurrency)
      expect(Executor.defaultConcurrency).toBe(10)
    }))

  it.effect("onFinish is told how long each call took, by the clock", () =>
    Effect.gen(function* () {
      const durations: Array<number> = []
      const nap = Tool.make("nap", { description: "", parameters: Schema.Struct({ ms: Schema.Number }), handler: ({ ms }) => Effect.sleep(Duration.millis(ms)) })
      const fiber = yield* Effect.fork(
        Executor.executeAll(Registry.unsafeMake(nap), [call("nap", { ms: 30 }, "a"), call("nap", { ms: 70 }, "b")], {
          onFinish: (_c, _r, d, i) => Effect.sync(() => void (durations[i] = Duration.toMillis(d)))
        })
      )
      yield* TestClock.adjust("100 millis")
      yield* Fiber.join(fiber)
      expect(durations).toEqual([30, 70])
    }))

  it.effect("executeAllParallel runs ten at a time", () =>
    Effect.gen(function* () {
      const { wait, peak } = yield* waitingTool
      const fiber = yield* Effect.fork(Executor.executeAllParallel(Registry.unsafeMake(wait), Array.from({ length: 25 }, (_, i) => call("wait", {}, `w${i}`))))
      yield* TestClock.adjust("30 millis")
      const results = yield* Fiber.join(fiber)
      expect(results).toHaveLength(25)
      expect(yield* Ref.get(peak)).toBe(10)
    }))
})

describe("Executor.buildResponses", () => {
  it.effect("renders successes and each error kind for the model", () =>
    Effect.gen(function* () {
      const calls = [
        call("add", { a: 1, b: 2 }, "1"),
        call("reserve", { sku: "a" }, "2"),
        call("nope", {}, "3"),
        call("add", {}, "4"),
        call("boom", {}, "5"),
        call("reserve", { sku: "none" }, "6")
      ]
      const results = yield* Executor.executeAll(registry, calls)
      const responses = yield* Executor.buildResponses(calls, results)
      expect(responses.map((r) => [r.id, r.name, r.isError])).toEqual([
        ["1", "add", false],
        ["2", "reserve", false],
        ["3", "nope", true],
        ["4", "add", true],
        ["5", "boom", true],
        ["6", "reserve", true]
      ])
      expect(responses[0]!.response).toEqual({ output: 3 })
      expect(responses[1]!.response).toEqual({ reservation: "r-a" })
      expect(responses[2]!.response).toEqual({
        error: { type: "UnknownFunction", message: 'unknown function "nope"; available: add, reserve, boom, slow', available: ["add", "reserve", "boom", "slow"] }
      })
      expect(responses[3]!.response).toEqual({
        error: {
          type: "InvalidArguments",
          message: 'invalid arguments for "add": a: is missing; b: is missing',
          issues: [{ path: "a", message: "is missing" }, { path: "b", message: "is missing" }]
        }
      })
      expect(responses[4]!.response).toEqual({ error: { type: "ExecutionFailed", message: '"boom" failed: kaboom' } })
      expect(responses[5]!.response).toEqual({
        error: { type: "ExecutionFailed", message: '"reserve" failed: OutOfStock {"sku":"none"}', details: { _tag: "OutOfStock", sku: "none" } }
      })
    }))

  it("wraps every non-object result and keeps plain objects", () => {
    expect(Executor.renderSuccess("text")).toEqual({ output: "text" })
    expect(Executor.renderSuccess([1])).toEqual({ output: [1] })
    expect(Executor.renderSuccess(null)).toEqual({ output: null })
    expect(Executor.renderSuccess({ a: 1 })).toEqual({ a: 1 })
  })

  it("a length mismatch is ResponseCountMismatch", () => {
    const result = Executor.buildResponses([call("add")], [])
    expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "ResponseCountMismatch", calls: 1, results: 0 })
    expect(Either.isLeft(result) && result.left.message).toBe("1 calls but 0 results: every call needs exactly one result")
  })

  it("timeouts and denials render what the model needs", () => {
    expect(Executor.renderError(new ToolError.ToolTimeout({ name: "slow", after: Duration.seconds(2) }))).toEqual({
      error: { type: "ToolTimeout", message: '"slow" timed out after 2s', timeoutMs: 2000 }
    })
    expect(Executor.renderError(new ToolError.ApprovalDenied({ name: "pay", reason: "user said no" }))).toEqual({
      error: { type: "ApprovalDenied", message: '"pay" was not approved: user said no', reason: "user said no" }
    })
  })
})

describe("Registry", () => {
  it.effect("a duplicate name is DuplicateToolName", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Registry.make(add, add))
      expect(error).toMatchObject({ _tag: "DuplicateToolName", name: "add" })
      expect(() => Registry.unsafeMake(add, boom, add)).toThrow('two tools are named "add"')
    }))

  it.effect("knows its declarations in registration order; restrict and merge", () =>
    Effect.gen(function* () {
      expect(registry.declarations.map((d) => d.name)).toEqual(["add", "reserve", "boom", "slow"])
      expect(Registry.restrict(registry, ["slow", "add", "missing"]).names).toEqual(["slow", "add"])
      const merged = yield* Registry.merge(Registry.unsafeMake(add), Registry.unsafeMake(reserve))
      expect(merged.names).toEqual(["add", "reserve"])
      expect(Either.isLeft(Registry.merge(registry, Registry.unsafeMake(slow)))).toBe(true)
    }))

  it.effect("fromFunctions refuses a bad name", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Registry.fromFunctions({ "bad name": () => 1 }))
      expect(error).toMatchObject({ _tag: "InvalidToolDefinition", name: "bad name" })
    }))
})

describe("typed failures keep their message", () => {
  class Refused extends Schema.TaggedError<Refused>()("Refused", { path: Schema.String }) {
    override get message() {
      return `the path ${this.path} leaves the root`
    }
  }
  it.effect("the encoded failure carries the error's message for the model", () =>
    Effect.gen(function* () {
      const read = Tool.make("read", {
        description: "",
        parameters: Schema.Struct({ path: Schema.String }),
        failure: Refused,
        handler: ({ path }) => Effect.fail(new Refused({ path }))
      })
      const result = yield* Executor.executeAll(Registry.unsafeMake(read), [call("read", { path: "../x" })])
      const [response] = Either.getOrThrow(Executor.buildResponses([call("read", { path: "../x" })], result))
      expect(response!.response).toEqual({
        error: {
          type: "ExecutionFailed",
          message: '"read" failed: the path ../x leaves the root',
          details: { _tag: "Refused", path: "../x", message: "the path ../x leaves the root" }
        }
      })
    }))
})

describe("arguments a provider could not read", () => {
  it.effect("are InvalidArguments quoting the provider's reason, even for a tool without required parameters", () =>
    Effect.gen(function* () {
      const ran = yield* Ref.make(false)
      const ping = Tool.make("ping", { description: "", parameters: Schema.Struct({}), handler: () => Ref.set(ran, true) })
      const broken = FunctionCall.make({ id: "b", name: "ping", args: {}, metadata: { [FunctionCall.argumentsErrorKey]: "arguments are not valid JSON: Unexpected end of JSON input" } })
      const error = failureOf(yield* Effect.either(Executor.execute(Registry.unsafeMake(ping), broken)))
      expect(error).toMatchObject({ _tag: "InvalidArguments", issues: [{ path: "", message: "arguments are not valid JSON: Unexpected end of JSON input" }] })
      expect(yield* Ref.get(ran)).toBe(false)
    }))

  it("a decoded call keeps an own __proto__ key (no prototype change), which the executor then refuses", () => {
    const decoded = Schema.decodeUnknownSync(FunctionCall.FunctionCall)(JSON.parse('{"_tag":"FunctionCall","id":"p","name":"add","args":{"__proto__":{"polluted":true}}}'))
    expect(Object.keys(decoded.args)).toEqual(["__proto__"])
    expect(Object.getPrototypeOf(decoded.args)).toBe(Object.prototype)
    const error = Effect.runSync(Effect.flip(Executor.execute(registry, decoded)))
    expect(error).toMatchObject({ _tag: "InvalidArguments", issues: [{ path: "__proto__", message: 'the key "__proto__" is not allowed' }] })
  })
})

describe("tool code that throws outside its handler", () => {
  it.effect("a throwing approval predicate or decoder is ExecutionFailed for that call only", () =>
    Effect.gen(function* () {
      const picky = Tool.make("picky", {
        description: "",
        parameters: Schema.Struct({}),
        needsApproval: () => {
          throw new Error("predicate broke")
        },
        handler: () => Effect.succeed("ran")
      })
      const broken: Tool.Tool = { ...add, name: "broken", decode: () => { throw new Error("decoder broke") } }
      const reg = Registry.unsafeMake(picky, broken, add)
      const results = yield* Executor.executeAll(reg, [call("picky"), call("broken", { a: 1, b: 2 }), call("add", { a: 1, b: 2 })])
      expect(results.map((r) => (Either.isRight(r) ? r.right : r.left.message))).toEqual(['"picky" failed: predicate broke', '"broken" failed: decoder broke', 3])
      expect(results.slice(0, 2).map((r) => Either.isLeft(r) && r.left._tag === "ExecutionFailed" && r.left.defect)).toEqual([true, true])
    }))

  it.effect("a handler that interrupts itself is ExecutionFailed, a defect", () =>
    Effect.gen(function* () {
      const quit = Tool.make("quit", { description: "", parameters: Schema.Struct({}), handler: () => Effect.interrupt })
      const error = failureOf(yield* Effect.either(Executor.execute(Registry.unsafeMake(quit), call("quit"))))
      expect(error).toMatchObject({ _tag: "ExecutionFailed", name: "quit", cause: { message: "the handler interrupted itself" }, defect: true })
    }))

  it.effect("a handler is told the id and name of the call it serves", () =>
    Effect.gen(function* () {
      const who = Tool.make("who", { description: "", parameters: Schema.Struct({}), handler: (_, { callId, name }) => Effect.succeed({ callId, name }) })
      expect(yield* Executor.execute(Registry.unsafeMake(who), call("who", {}, "c9"))).toEqual({ callId: "c9", name: "who" })
    }))

  it.effect("a handler's progress and final scheduling go to the reporter, progress rendered as a result is; without one they go nowhere", () =>
    Effect.gen(function* () {
      const reporting = Tool.make("reporting", {
        description: "",
        parameters: Schema.Struct({}),
        handler: (_, { finalScheduling, progress }) =>
          Effect.gen(function* () {
            yield* progress({ step: 1 })
            yield* progress("half way", { scheduling: "whenIdle" })
            yield* finalScheduling("interrupt")
            return "done"
          })
      })
      const registry = Registry.unsafeMake(reporting)
      expect(yield* Executor.execute(registry, call("reporting", {}, "r0"))).toBe("done")
      const told: Array<unknown> = []
      const reporter: Executor.Reporter = {
        progress: (call, response, scheduling) => Effect.sync(() => void told.push(["progress", call.id, response, scheduling])),
        finalScheduling: (call, scheduling) => Effect.sync(() => void told.push(["final", call.id, scheduling]))
      }
      expect(yield* Executor.execute(registry, call("reporting", {}, "r1"), { reporter })).toBe("done")
      expect(told).toEqual([
        ["progress", "r1", { step: 1 }, undefined],
        ["progress", "r1", { output: "half way" }, "whenIdle"],
        ["final", "r1", "interrupt"]
      ])
    }))

  it.effect("progress that is not JSON fails the call as a result that is not JSON does, and reaches no reporter", () =>
    Effect.gen(function* () {
      const odd = Tool.make("odd", { description: "", parameters: Schema.Struct({}), handler: (_, { progress }) => Effect.as(progress({ big: 10n }), "never") })
      const told: Array<unknown> = []
      const reporter: Executor.Reporter = { progress: (_, response) => Effect.sync(() => void told.push(response)), finalScheduling: () => Effect.void }
      const error = failureOf(yield* Effect.either(Executor.execute(Registry.unsafeMake(odd), call("odd"), { reporter })))
      expect(error).toMatchObject({ _tag: "ExecutionFailed", defect: true, cause: { message: expect.stringMatching(/^the progress reported is not JSON: /) } })
      expect(told).toEqual([])
    }))

  it.effect("each hook runs alone: onStart without onFinish, onFinish without onStart, also for one call", () =>
    Effect.gen(function* () {
      for (const calls of [[call("add", { a: 1, b: 1 }, "x")], [call("add", { a: 1, b: 1 }, "x"), call("add", { a: 2, b: 2 }, "y")]]) {
        const started: Array<string> = []
        const startOnly = yield* Executor.executeAll(registry, calls, { onStart: (c) => Effect.sync(() => void started.push(c.id)) })
        expect(started).toEqual(calls.map((c) => c.id))
        expect(startOnly.map((r) => Either.getOrThrow(r))).toEqual(calls.map((c) => (c.args as { a: number }).a * 2))
        const finished: Array<string> = []
        yield* Executor.executeAll(registry, calls, { onFinish: (c) => Effect.sync(() => void finished.push(c.id)) })
        expect(finished).toEqual(calls.map((c) => c.id))
        const parallel: Array<string> = []
        yield* Executor.executeAllParallel(registry, calls, { onFinish: (c) => Effect.sync(() => void parallel.push(c.id)) })
        expect(parallel, "executeAllParallel keeps the other options").toEqual(calls.map((c) => c.id))
      }
    }))

  it.effect("an empty batch has no results, with or without hooks", () =>
    Effect.gen(function* () {
      expect(yield* Executor.executeAll(registry, [])).toEqual([])
      expect(yield* Executor.executeAll(registry, [], { concurrency: "unbounded", onStart: () => Effect.void })).toEqual([])
    }))

  it("responseFor builds a FunctionResponse", () => {
    expect(Executor.responseFor(call("add", {}, "r1"), Either.right(2))).toEqual({ _tag: "FunctionResponse", id: "r1", name: "add", response: { output: 2 }, isError: false })
  })
})
