import { describe, expect, it } from "@effect/vitest"
import { Chunk, Duration, Effect, Either, Exit, Fiber, Ref, Schema, Stream, TestClock } from "effect"
import { Agent, Approval, ModelError, Registry, Retry, StopCondition, Tool, Transcript, Turn } from "../src/index.js"
import { Scripted } from "../src/testing.js"
import { registry } from "./fixtures.js"

const run = <R>(options: Agent.Options<R>, script: Parameters<typeof Scripted.layer>[0]) =>
  Effect.gen(function* () {
    const result = yield* Agent.run(options)
    const inspector = yield* Scripted.ScriptedModel
    return { result, requests: yield* inspector.requests, consumed: yield* Effect.either(inspector.assertConsumed) }
  }).pipe(Effect.provide(Scripted.layer(script)))

describe("Agent.run", () => {
  it.effect("executes the calls, answers them and returns the final text with every call recorded", () =>
    Effect.gen(function* () {
      const { result, requests, consumed } = yield* run({ registry, system: "Be brief.", prompt: "What is 2+3 and 1+1?" }, [
        { calls: [{ name: "add", args: { a: 2, b: 3 } }, { name: "add", args: { a: 1, b: 1 } }], usage: { inputTokens: 10, outputTokens: 5 } },
        { text: "5 and 2.", usage: { inputTokens: 20, outputTokens: 3 } }
      ])
      expect(Either.isRight(consumed)).toBe(true)
      expect(result.text).toBe("5 and 2.")
      expect(result.stopReason).toEqual({ _tag: "Finished" })
      expect(result.turns).toBe(2)
      expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 8, totalTokens: 38 })
      expect(result.calls.map((c) => [c.id, c.name, c.args, Either.getOrNull(c.result), c.turn])).toEqual([
        ["call_0_0", "add", { a: 2, b: 3 }, 5, 1],
        ["call_0_1", "add", { a: 1, b: 1 }, 2, 1]
      ])
      expect(result.transcript.map((t) => [t.role, t.parts.map((p) => p._tag)])).toEqual([
        ["user", ["Text"]],
        ["model", ["FunctionCall", "FunctionCall"]],
        ["user", ["FunctionResponse", "FunctionResponse"]],
        ["model", ["Text"]]
      ])
      expect(Turn.responses(result.transcript[2]!).map((r) => [r.id, r.response])).toEqual([
        ["call_0_0", { output: 5 }],
        ["call_0_1", { output: 2 }]
      ])
      expect(requests).toHaveLength(2)
      for (const request of requests) {
        expect(request.system).toBe("Be brief.")
        expect(request.temperature).toBeUndefined()
        expect(request.declarations.map((d) => d.name)).toEqual(["add", "reserve", "boom", "slow"])
      }
      expect(requests[1]!.transcript).toEqual(result.transcript.slice(0, 3))
    }))

  it.effect("onCallFinished sees each call as it finishes, before its turn is answered, and keeps them when the run fails later", () =>
    Effect.gen(function* () {
      const seen: Array<[string, number, unknown, number]> = []
      const inspector = yield* Scripted.ScriptedModel
      const error = yield* Effect.flip(
        Agent.run({
          registry,
          prompt: "add twice",
          onCallFinished: (call) =>
            Effect.map(inspector.requests, (requests) => void seen.push([call.id, call.turn, Either.getOrNull(call.result), requests.length]))
        })
      )
      expect(error._tag).toBe("InvalidRequest")
      // Turn 1's two calls were seen while one request had been sent; turn 2's before the third.
      expect(seen).toStrictEqual([
        ["call_0_0", 1, 5, 1],
        ["call_0_1", 1, 2, 1],
        ["call_1_0", 2, 7, 2]
      ])
    }).pipe(
      Effect.provide(
        Scripted.layer([
          { calls: [{ name: "add", args: { a: 2, b: 3 } }, { name: "add", args: { a: 1, b: 1 } }] },
          { calls: [{ name: "add", args: { a: 3, b: 4 } }] },
          { error: new ModelError.InvalidRequest({ message: "bad" }) }
        ])
      )
    )
  )

  it.effect("a ModelError given to the scripted model as a step is that error, not an empty turn", () =>
    Effect.gen(function* () {
      const { result, requests } = yield* run({ registry, prompt: "hi", retry: Retry.policy({ base: "1 millis", maxRetries: 1 }) }, [
        // The types refuse it in most positions; a script built without them (JSON, plain JS) can still hold one.
        new ModelError.Unavailable({ message: "busy" }) as unknown as Scripted.Step,
        { text: "after the retry" }
      ]).pipe(Effect.fork, Effect.tap(() => TestClock.adjust("1 second")), Effect.flatMap(Fiber.join))
      expect(result.text).toBe("after the retry")
      expect(requests).toHaveLength(2)
    }))

  it.effect("the model turn is appended verbatim, metadata and unknown parts included", () =>
    Effect.gen(function* () {
      const parts: ReadonlyArray<Turn.Part> = [
        Turn.Text.make({ text: "", metadata: { thoughtSignature: "sig-empty" } }),
        { _tag: "FunctionCall", id: "g1", name: "add", args: { a: 1, b: 2 }, metadata: { thoughtSignature: "sig-1" } },
        { _tag: "FunctionCall", id: "g2", name: "add", args: { a: 3, b: 4 } },
        Turn.Opaque.make({ provider: "gemini", data: { executableCode: { code: "1+1" } } })
      ]
      const { result } = yield* run({ registry, prompt: "go" }, [{ parts }, { text: "ok" }])
      expect(result.transcript[1]!.parts).toBe(parts)
    }))

  it.effect("unknown tools, bad arguments and failures go back to the model as error responses", () =>
    Effect.gen(function* () {
      const { result, requests } = yield* run({ registry, prompt: "go" }, [
        { calls: [{ name: "nope" }, { name: "add", args: { a: "x", b: 1 } }, { name: "boom" }] },
        { text: "sorry" }
      ])
      expect(result.text).toBe("sorry")
      const answered = Turn.responses(requests[1]!.transcript[2]!)
      expect(answered.map((r) => [r.isError, (r.response.error as { type: string }).type])).toEqual([
        [true, "UnknownFunction"],
        [true, "InvalidArguments"],
        [true, "ExecutionFailed"]
      ])
    }))

  it.effect("onToolError: fail makes a tool error fatal", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(run({ registry, prompt: "go", onToolError: "fail" }, [{ calls: [{ name: "nope" }] }, { text: "x" }]))
      expect(error._tag).toBe("UnknownFunction")
    }))

  it.effect("maxTurns ends the run with a result whose transcript answers every call", () =>
    Effect.gen(function* () {
      const { result } = yield* run({ registry, prompt: "loop", maxTurns: 3 }, (_, i) => Effect.succeed({ calls: [{ name: "add", args: { a: i, b: 0 } }] }))
      expect(result.stopReason).toEqual({ _tag: "MaxTurns", maxTurns: 3 })
      expect(result.turns).toBe(3)
      expect(result.calls).toHaveLength(3)
      expect(result.transcript).toHaveLength(7)
      expect(Either.isRight(Transcript.validate(result.transcript))).toBe(true)
    }))

  it.effect("stops when a named tool was called, or when the same call repeats", () =>
    Effect.gen(function* () {
      const named = yield* run({ registry, prompt: "go", stopWhen: [StopCondition.toolCalled("reserve")] }, [
        { calls: [{ name: "add", args: { a: 1, b: 1 } }] },
        { text: "reserving", calls: [{ name: "reserve", args: { sku: "s" } }] },
        { text: "never asked" }
      ])
      expect(named.result.stopReason).toEqual({ _tag: "ToolCalled", name: "reserve" })
      expect(named.result.text).toBe("reserving")
      expect(named.requests).toHaveLength(2)

      const repeated = yield* run({ registry, prompt: "go", stopWhen: [StopCondition.repeatedCall(3)] }, () =>
        Effect.succeed({ calls: [{ name: "add", args: { b: 2, a: 1 } }] })
      )
      expect(repeated.result.stopReason).toEqual({ _tag: "RepeatedCall", name: "add", times: 3 })
      expect(repeated.requests).toHaveLength(3)
      expect(() => StopCondition.repeatedCall(1)).toThrow("repeatedCall needs an integer ≥ 2, got 1")
    }))

  it.effect("a model turn slower than turnTimeout is ModelTimeout, retried, then fatal once retries run out", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(
        run({ registry, prompt: "go", turnTimeout: "2 seconds", retry: Retry.policy({ maxRetries: 1, base: "1 second" }) }, () =>
          Effect.succeed({ text: "late", delay: "10 seconds" })
        )
      )
      yield* TestClock.adjust("1 minute")
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error._tag).toBe("ModelTimeout")
    }))

  it.effect("a rate limit with retryAfter is retried no sooner, and tools that ran are not run again", () =>
    Effect.gen(function* () {
      const runs = yield* Ref.make(0)
      const counted = Registry.unsafeMake(
        Tool.make("count", { description: "", parameters: Schema.Struct({}), handler: () => Ref.updateAndGet(runs, (n) => n + 1) })
      )
      const fiber = yield* Effect.fork(
        run({ registry: counted, prompt: "go" }, [
          { calls: [{ name: "count" }] },
          { error: new ModelError.RateLimited({ message: "slow down", status: 429, retryAfter: Duration.seconds(7) }) },
          { text: "done" }
        ])
      )
      yield* TestClock.adjust("6999 millis")
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      const { result, requests } = yield* Fiber.join(fiber)
      expect(result.text).toBe("done")
      expect(requests).toHaveLength(3)
      expect(requests[1]!.transcript).toBe(requests[2]!.transcript)
      expect(yield* Ref.get(runs)).toBe(1)
    }))

  it.effect("a non-retryable error ends the run after one request", () =>
    Effect.gen(function* () {
      const { requests } = yield* Effect.gen(function* () {
        const error = yield* Effect.flip(Agent.run({ registry, prompt: "go" }))
        expect(error._tag).toBe("QuotaExhausted")
        return { requests: yield* (yield* Scripted.ScriptedModel).requests }
      }).pipe(Effect.provide(Scripted.layer([{ error: new ModelError.QuotaExhausted({ message: "per-day quota" }) }, { text: "x" }])))
      expect(requests).toHaveLength(1)
    }))

  it.effect("a model turn that reuses a call id is MalformedResponse and is retried", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(
        run({ registry, prompt: "go" }, [
          { calls: [{ name: "add", args: { a: 1, b: 1 }, id: "x" }] },
          { calls: [{ name: "add", args: { a: 1, b: 1 }, id: "x" }] },
          { text: "fine" }
        ])
      )
      yield* TestClock.adjust("1 minute")
      const { result, requests } = yield* Fiber.join(fiber)
      expect(result.text).toBe("fine")
      expect(requests).toHaveLength(3)
    }))

  it.effect("tools that need approval: a denial goes back to the model", () =>
    Effect.gen(function* () {
      const ran = yield* Ref.make(false)
      const wipe = Registry.unsafeMake(
        Tool.make("wipe", { description: "Deletes all", parameters: Schema.Struct({}), needsApproval: true, handler: () => Ref.set(ran, true) })
      )
      const { requests } = yield* run({ registry: wipe, prompt: "wipe it" }, [{ calls: [{ name: "wipe" }] }, { text: "I may not." }]).pipe(
        Effect.provide(Approval.denyAll)
      )
      expect(Turn.responses(requests[1]!.transcript[2]!)[0]!.response).toMatchObject({ error: { type: "ApprovalDenied" } })
      expect(yield* Ref.get(ran)).toBe(false)
    }))

  it.effect("a history with an unanswered call is refused before anything is sent; so is an empty run", () =>
    Effect.gen(function* () {
      const broken = [Turn.user("hi"), { role: "model" as const, parts: [{ _tag: "FunctionCall" as const, id: "a", name: "add", args: {} }] }]
      const violation = yield* Effect.flip(run({ registry, history: broken }, [{ text: "x" }]))
      expect(violation).toMatchObject({ _tag: "TranscriptViolation", turn: 1, reason: "1 calls are unanswered" })
      const empty = yield* Effect.flip(run({ registry }, [{ text: "x" }]))
      expect(empty).toMatchObject({ _tag: "InvalidRequest", message: "nothing to send: the run has no prompt and no history" })
    }))
})

describe("Agent.stream", () => {
  it.effect("emits turns, deltas and calls, and ends with the same result as run", () =>
    Effect.gen(function* () {
      const script = [{ text: "Let me add.", calls: [{ name: "add", args: { a: 2, b: 2 } }] }, { text: "It is four." }]
      const events = yield* Stream.runCollect(Agent.stream({ registry, prompt: "2+2?" })).pipe(Effect.provide(Scripted.layer(script)))
      const list = Chunk.toReadonlyArray(events)
      expect(list.map((e) => e._tag)).toEqual([
        "TurnStarted", "TextDelta", "TextDelta", "TextDelta", "TurnFinished", "CallStarted", "CallFinished",
        "TurnStarted", "TextDelta", "TextDelta", "TextDelta", "TurnFinished", "Done"
      ])
      const text = list.flatMap((e) => (e._tag === "TextDelta" && e.turn === 2 ? [e.text] : [])).join("")
      const done = list[list.length - 1]!
      if (done._tag !== "Done") throw new Error("no Done")
      expect(text).toBe(done.result.text)
      const ran = yield* Agent.run({ registry, prompt: "2+2?" }).pipe(Effect.provide(Scripted.layer(script)))
      expect(done.result.transcript).toEqual(ran.transcript)
      expect(done.result.usage).toEqual(ran.usage)
    }))

  it.effect("stopping the stream early interrupts running tools", () =>
    Effect.gen(function* () {
      const interrupted = yield* Ref.make(false)
      const hang = Registry.unsafeMake(
        Tool.make("hang", {
          description: "",
          parameters: Schema.Struct({}),
          handler: () => Effect.never.pipe(Effect.onInterrupt(() => Ref.set(interrupted, true)))
        })
      )
      const events = yield* Agent.stream({ registry: hang, prompt: "go" }).pipe(
        Stream.takeUntil((e) => e._tag === "CallStarted"),
        Stream.runCollect,
        Effect.provide(Scripted.layer([{ calls: [{ name: "hang" }] }]))
      )
      expect(Chunk.last(events).pipe((last) => last._tag === "Some" && last.value._tag)).toBe("CallStarted")
      expect(yield* Ref.get(interrupted)).toBe(true)
    }))

  it.effect("a slow reader holds the run back: it never runs far ahead of the events read", () =>
    Effect.gen(function* () {
      const executed = yield* Ref.make(0)
      const counted = Registry.unsafeMake(
        Tool.make("tick", { description: "", parameters: Schema.Struct({}), handler: () => Ref.update(executed, (n) => n + 1) })
      )
      const fiber = yield* Agent.stream({ registry: counted, prompt: "go", maxTurns: 10_001 }).pipe(
        Stream.runForEach(() => Effect.sleep("1 second")),
        Effect.provide(Scripted.layer((_, i) => Effect.succeed(i < 10_000 ? { calls: [{ name: "tick" }] } : { text: "done" }))),
        Effect.fork
      )
      yield* TestClock.adjust("10 seconds")
      const ahead = yield* Ref.get(executed)
      // Four events a turn, and at most two buffers of 256 events in flight: the run waits for the reader.
      expect(ahead).toBeGreaterThan(0)
      expect(ahead).toBeLessThan(200)
      yield* Fiber.interrupt(fiber)
    }))

  it.effect("text deltas of a streamed turn arrive in order and concatenate to its text", () =>
    Effect.gen(function* () {
      const events = yield* Stream.runCollect(Agent.stream({ registry, prompt: "go" })).pipe(
        Effect.provide(Scripted.layer([{ reasoning: "Thinking it over.", text: "One two  three four." }]))
      )
      const list = Chunk.toReadonlyArray(events)
      expect(list.flatMap((e) => (e._tag === "TextDelta" ? [e.text] : []))).toEqual(["One ", "two  ", "three ", "four."])
      expect(list.flatMap((e) => (e._tag === "ReasoningDelta" ? [e.text] : []))).toEqual(["Thinking it over."])
      expect(list.map((e) => e._tag)).toEqual(["TurnStarted", "ReasoningDelta", "TextDelta", "TextDelta", "TextDelta", "TextDelta", "TurnFinished", "Done"])
    }))

  it.effect("a failing run fails the stream with the typed error", () =>
    Effect.gen(function* () {
      const error = yield* Stream.runDrain(Agent.stream({ registry, prompt: "go" })).pipe(
        Effect.flip,
        Effect.provide(Scripted.layer([{ error: new ModelError.Unauthorized({ message: "bad key", status: 401 }) }]))
      )
      expect(error._tag).toBe("Unauthorized")
    }))
})
