import { describe, expect, it } from "@effect/vitest"
import { Cause, Chunk, Effect, Either, Exit, Fiber, Option, Ref, Schema, Stream, TestClock } from "effect"
import { Agent, Approval, Executor, FunctionCall, LanguageModel, ModelError, Registry, Retry, Tool, Turn } from "../src/index.js"
import { Scripted } from "../src/testing.js"
import { call, registry } from "./fixtures.js"

type Script = Parameters<typeof Scripted.layer>[0]

/** Runs `options` against `script` on the TestClock (retries wait), with what the model was asked. */
const runWith = <R>(options: Agent.Options<R>, script: Script) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(
      Effect.gen(function* () {
        const exit = yield* Effect.exit(Agent.run(options))
        return { exit, requests: yield* (yield* Scripted.ScriptedModel).requests }
      }).pipe(Effect.provide(Scripted.layer(script)))
    )
    yield* TestClock.adjust("1 hour")
    return yield* Fiber.join(fiber)
  })

const eventsOf = <R>(options: Agent.Options<R>, script: Script) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(
      Stream.runCollect(Agent.stream(options)).pipe(Effect.map(Chunk.toReadonlyArray), Effect.either, Effect.provide(Scripted.layer(script)))
    )
    yield* TestClock.adjust("1 hour")
    return yield* Fiber.join(fiber)
  })

const unavailable = new ModelError.Unavailable({ message: "busy" })
const failOf = <A, E>(exit: Exit.Exit<A, E>): E | undefined => (Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined)
const defectOf = <A, E>(exit: Exit.Exit<A, E>): unknown => (Exit.isFailure(exit) ? Option.getOrUndefined(Cause.dieOption(exit.cause)) : undefined)

describe("the loop: retries", () => {
  it.effect.each([0, 1, 2, 5])("maxRetries %i: a model that keeps failing is asked exactly maxRetries + 1 times", (maxRetries) =>
    Effect.gen(function* () {
      for (const streaming of [false, true]) {
        const { exit, requests } = yield* runWith(
          { registry, prompt: "go", streaming, retry: Retry.policy({ maxRetries, base: "1 second" }) },
          () => Effect.succeed({ error: unavailable })
        )
        expect(failOf(exit)?._tag).toBe("Unavailable")
        expect(requests).toHaveLength(maxRetries + 1)
      }
    }))

  it.effect("the default policy retries 3 times; Retry.never not at all", () =>
    Effect.gen(function* () {
      const byDefault = yield* runWith({ registry, prompt: "go" }, () => Effect.succeed({ error: unavailable }))
      expect(byDefault.requests).toHaveLength(4)
      const never = yield* runWith({ registry, prompt: "go", retry: Retry.never }, () => Effect.succeed({ error: unavailable }))
      expect(never.requests).toHaveLength(1)
    }))

  it.effect("each failed attempt is one AttemptFailed event of its turn, before the turn that succeeds", () =>
    Effect.gen(function* () {
      const events = Either.getOrThrow(
        yield* eventsOf({ registry, prompt: "go", retry: Retry.policy({ maxRetries: 3, base: "1 second" }) }, [
          { calls: [{ name: "add", args: { a: 1, b: 1 } }] },
          { error: unavailable },
          { error: new ModelError.RateLimited({ message: "later", status: 429 }) },
          { text: "two" }
        ])
      )
      const failed = events.flatMap((e) => (e._tag === "AttemptFailed" ? [[e.turn, e.error._tag]] : []))
      expect(failed).toEqual([[2, "Unavailable"], [2, "RateLimited"]])
      expect(events.map((e) => e._tag)).toEqual([
        "TurnStarted", "TurnFinished", "CallStarted", "CallFinished",
        "TurnStarted", "AttemptFailed", "AttemptFailed", "TextDelta", "TurnFinished", "Done"
      ])
    }))

  it.effect("a failing run's last attempt is announced too: maxRetries + 1 AttemptFailed events, then the error", () =>
    Effect.gen(function* () {
      const collect = (script: Script) =>
        Effect.gen(function* () {
          const fiber = yield* Effect.fork(
            Stream.runCollect(Stream.either(Agent.stream({ registry, prompt: "go", retry: Retry.policy({ maxRetries: 2 }) }))).pipe(
              Effect.map(Chunk.toReadonlyArray),
              Effect.provide(Scripted.layer(script))
            )
          )
          yield* TestClock.adjust("1 hour")
          return (yield* Fiber.join(fiber)).map((item) => (Either.isLeft(item) ? `error:${item.left._tag}` : item.right._tag === "AttemptFailed" ? `AttemptFailed:${item.right.error._tag}` : item.right._tag))
        })
      expect(yield* collect(() => Effect.succeed({ error: unavailable }))).toEqual([
        "TurnStarted", "AttemptFailed:Unavailable", "AttemptFailed:Unavailable", "AttemptFailed:Unavailable", "error:Unavailable"
      ])
      expect(yield* collect([{ error: unavailable }, { error: new ModelError.QuotaExhausted({ message: "per day" }) }, { text: "never" }])).toEqual([
        "TurnStarted", "AttemptFailed:Unavailable", "AttemptFailed:QuotaExhausted", "error:QuotaExhausted"
      ])
    }))
})

describe("the loop: options refused", () => {
  it.effect.each([0, -1, 1.5, Number.NaN, Infinity])("maxTurns %s is a defect, and nothing is sent", (maxTurns) =>
    Effect.gen(function* () {
      const { exit, requests } = yield* runWith({ registry, prompt: "go", maxTurns }, [{ text: "x" }])
      expect(String((defectOf(exit) as Error | undefined)?.message)).toBe(`maxTurns must be an integer ≥ 1, got ${maxTurns}`)
      expect(requests).toHaveLength(0)
    }))

  it.effect("maxTurns 1 allows exactly one model turn", () =>
    Effect.gen(function* () {
      const { exit, requests } = yield* runWith({ registry, prompt: "go", maxTurns: 1 }, () => Effect.succeed({ calls: [{ name: "add", args: { a: 1, b: 2 } }] }))
      const result = Exit.isSuccess(exit) ? exit.value : undefined
      expect(result?.stopReason).toEqual({ _tag: "MaxTurns", maxTurns: 1 })
      expect(result?.turns).toBe(1)
      expect(result?.calls.map((c) => Either.getOrNull(c.result))).toEqual([3])
      expect(requests).toHaveLength(1)
    }))

  it.effect.each([
    ["turnTimeout", { turnTimeout: 0 }, "turnTimeout must be longer than 0, got 0"],
    ["firstByteTimeout", { firstByteTimeout: "-1 seconds" }, "firstByteTimeout must be longer than 0"],
    ["idleTimeout", { idleTimeout: 0 }, "idleTimeout must be longer than 0, got 0"]
  ] as const)("a %s of zero or less is a defect", ([, limits, message]) =>
    Effect.gen(function* () {
      const { exit, requests } = yield* runWith({ registry, prompt: "go", ...limits }, [{ text: "x" }])
      expect(String((defectOf(exit) as Error | undefined)?.message)).toContain(message)
      expect(requests).toHaveLength(0)
    }))

  it.effect("a history that ends with the model's answer and no prompt is InvalidRequest; one that ends with a user turn continues", () =>
    Effect.gen(function* () {
      const answered = yield* runWith({ registry, history: [Turn.user("hi"), Turn.model("hello")] }, [{ text: "x" }])
      expect(failOf(answered.exit)).toMatchObject({
        _tag: "InvalidRequest",
        message: "nothing to continue: the transcript ends with the model's answer; send a new message"
      })
      expect(answered.requests).toHaveLength(0)
      const history = [Turn.user("hi"), Turn.model("hello"), Turn.user("again")]
      const continued = yield* runWith({ registry, history }, [{ text: "yes" }])
      expect(continued.requests[0]!.transcript).toEqual(history)
      expect(Exit.isSuccess(continued.exit) && continued.exit.value.transcript.length).toBe(4)
      const asked = yield* runWith({ registry, history: [Turn.user("hi"), Turn.model("hello")], prompt: "more" }, [{ text: "sure" }])
      expect(asked.requests[0]!.transcript, "with a prompt, a history ending with the model's answer is continued").toEqual([Turn.user("hi"), Turn.model("hello"), Turn.user("more")])
      expect(Exit.isSuccess(asked.exit) && asked.exit.value.text).toBe("sure")
    }))
})

describe("the loop: malformed model turns", () => {
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 }
  const first: LanguageModel.Response = {
    turn: { role: "model", parts: [FunctionCall.make({ id: "x", name: "add", args: { a: 1, b: 1 } })] },
    finishReason: "tool_calls",
    usage
  }
  /** A model that answers `first`, then `turn` whatever it is asked; `asked` counts the requests. */
  const modelAnswering = (turn: Turn.Turn, asked: { count: number }) =>
    LanguageModel.fromGenerate({
      provider: "test",
      model: "test",
      generate: () => Effect.sync(() => (asked.count++ === 0 ? first : { turn, finishReason: "stop" as const, usage }))
    })

  it.effect.each([
    ["a user turn", Turn.user("I am the user now"), 'the model answered with a "user" turn'],
    ["a function response inside the model turn", { role: "model", parts: [Turn.Text.make({ text: "x" }), { _tag: "FunctionResponse", id: "x", name: "add", response: {}, isError: false }] }, "the model turn holds a function response"],
    ["a call id used in an earlier turn", { role: "model", parts: [FunctionCall.make({ id: "x", name: "add", args: { a: 1, b: 1 } })] }, 'the model reused the call id "x"'],
    ["a call id used twice in the turn", { role: "model", parts: [FunctionCall.make({ id: "y", name: "add", args: {} }), FunctionCall.make({ id: "y", name: "add", args: {} })] }, 'the model reused the call id "y"']
  ] as const)("%s is a retryable MalformedResponse, streamed or not; nothing is appended", ([, turn, message]) =>
    Effect.gen(function* () {
      for (const streaming of [false, true]) {
        const asked = { count: 0 }
        const error = yield* Agent.run({ registry, prompt: "go", streaming, retry: Retry.never }).pipe(
          Effect.flip,
          Effect.provideService(LanguageModel.LanguageModel, modelAnswering(turn as Turn.Turn, asked))
        )
        expect(error).toMatchObject({ _tag: "MalformedResponse", message })
        expect(error._tag === "MalformedResponse" && error.retryable).toBe(true)
        expect(asked.count).toBe(2)
      }
    }))

  it.effect("a malformed answer is retried like any retryable error, and the retry's answer is appended", () =>
    Effect.gen(function* () {
      const { exit, requests } = yield* runWith({ registry, prompt: "go", retry: Retry.policy({ maxRetries: 1 }) }, [
        { calls: [{ name: "add", args: { a: 1, b: 1 }, id: "x" }] },
        { calls: [{ name: "add", args: { a: 1, b: 1 }, id: "x" }] },
        { text: "fine" }
      ])
      expect(Exit.isSuccess(exit) && exit.value.transcript.map((t) => t.role)).toEqual(["user", "model", "user", "model"])
      expect(requests).toHaveLength(3)
      expect(requests[2]!.transcript).toBe(requests[1]!.transcript)
    }))
})

describe("the loop: onToolError", () => {
  it.effect("\"fail\" lets a turn whose calls all succeed go on, and fails with the first failed call in the model's order", () =>
    Effect.gen(function* () {
      const { exit, requests } = yield* runWith({ registry, prompt: "go", onToolError: "fail" }, [
        { calls: [{ name: "add", args: { a: 1, b: 1 } }, { name: "add", args: { a: 2, b: 2 } }] },
        { calls: [{ name: "add", args: { a: 1, b: 1 } }, { name: "reserve", args: { sku: "none" } }, { name: "nope" }] },
        { text: "never" }
      ])
      expect(requests).toHaveLength(2)
      expect(failOf(exit)).toMatchObject({ _tag: "ExecutionFailed", name: "reserve" })
    }))

  it.effect("\"fail\" with every call succeeding finishes like \"feedback\"", () =>
    Effect.gen(function* () {
      const script: Script = [{ calls: [{ name: "add", args: { a: 1, b: 1 } }] }, { text: "two" }]
      const failing = yield* runWith({ registry, prompt: "go", onToolError: "fail" }, script)
      const feedback = yield* runWith({ registry, prompt: "go", onToolError: "feedback" }, script)
      expect(Exit.isSuccess(failing.exit) && failing.exit.value.text).toBe("two")
      expect(Exit.isSuccess(feedback.exit) && feedback.exit.value.transcript).toEqual(Exit.isSuccess(failing.exit) && failing.exit.value.transcript)
    }))

  it.effect("\"feedback\" sends the error back and goes on", () =>
    Effect.gen(function* () {
      const { exit, requests } = yield* runWith({ registry, prompt: "go", onToolError: "feedback" }, [{ calls: [{ name: "nope" }] }, { text: "sorry" }])
      expect(Exit.isSuccess(exit) && exit.value.calls.map((c) => Either.isLeft(c.result))).toEqual([true])
      expect(requests).toHaveLength(2)
    }))
})

describe("the loop: prompts and requests", () => {
  it.effect("a prompt given as a Turn is appended as it is", () =>
    Effect.gen(function* () {
      const prompt: Turn.Turn = { role: "user", parts: [Turn.Text.make({ text: "look" }), Turn.Opaque.make({ provider: "gemini", data: { inlineData: "…" } })] }
      const { exit, requests } = yield* runWith({ registry, prompt }, [{ text: "seen" }])
      expect(requests[0]!.transcript).toHaveLength(1)
      expect(requests[0]!.transcript[0]).toBe(prompt)
      expect(Exit.isSuccess(exit) && exit.value.transcript[0]).toBe(prompt)
    }))

  it.effect("a prompt after a history is appended to it; the history's turns are sent first, unchanged", () =>
    Effect.gen(function* () {
      const history = [Turn.user("hi"), { role: "model" as const, parts: [call("add", { a: 1, b: 1 }, "h1")] }, { role: "user" as const, parts: [Executor.responseFor(call("add", {}, "h1"), Either.right(2))] }, Turn.model("two")]
      for (const prompt of ["and 3+3?", Turn.user("and 3+3?")]) {
        const { exit, requests } = yield* runWith({ registry, history, prompt }, [{ calls: [{ name: "add", args: { a: 3, b: 3 } }] }, { text: "six" }])
        const sent = requests[0]!.transcript
        expect(sent.slice(0, 4)).toEqual(history)
        sent.slice(0, 4).forEach((turn, i) => expect(turn).toBe(history[i]))
        expect(Turn.text(sent[4]!)).toBe("and 3+3?")
        expect(sent).toHaveLength(5)
        const result = Exit.isSuccess(exit) ? exit.value : undefined
        expect(result?.transcript).toHaveLength(8)
        expect(result?.calls.map((c) => [c.turn, Either.getOrNull(c.result)])).toEqual([[1, 6]])
      }
    }))

  it.effect("a prompt that breaks the transcript is a TranscriptViolation before anything is sent", () =>
    Effect.gen(function* () {
      const { exit, requests } = yield* runWith({ registry, prompt: { role: "model", parts: [call("add", {}, "p")] } }, [{ text: "x" }])
      expect(failOf(exit)).toMatchObject({ _tag: "TranscriptViolation", turn: 0 })
      expect(requests).toHaveLength(0)
    }))

  it.effect("the request carries the system, declarations, tool choice, temperature and output limit", () =>
    Effect.gen(function* () {
      const { requests } = yield* runWith({ registry, prompt: "go", system: "sys", toolChoice: "any", temperature: 0.7, maxOutputTokens: 99 }, [{ text: "x" }])
      expect(requests[0]).toMatchObject({ system: "sys", toolChoice: "any", temperature: 0.7, maxOutputTokens: 99 })
      expect(requests[0]!.declarations).toBe(registry.declarations)
      const defaults = yield* runWith({ registry, prompt: "go" }, [{ text: "x" }])
      expect(defaults.requests[0]).toMatchObject({ system: undefined, toolChoice: undefined, temperature: undefined, maxOutputTokens: undefined })
    }))

  it.effect("usage is summed over every turn and the text is the last turn's", () =>
    Effect.gen(function* () {
      const { exit } = yield* runWith({ registry, prompt: "go" }, [
        { text: "first", calls: [{ name: "add", args: { a: 1, b: 1 } }], usage: { inputTokens: 3, outputTokens: 4 } },
        { text: "second", usage: { inputTokens: 5, outputTokens: 6 } }
      ])
      const result = Exit.isSuccess(exit) ? exit.value : undefined
      expect(result?.usage).toEqual({ inputTokens: 8, outputTokens: 10, totalTokens: 18 })
      expect(result?.text).toBe("second")
      expect(result?.turns).toBe(2)
    }))
})

describe("the loop: events", () => {
  it.effect("reasoning streams as ReasoningDelta events of its turn, before the text", () =>
    Effect.gen(function* () {
      const events = Either.getOrThrow(
        yield* eventsOf({ registry, prompt: "go" }, [{ reasoning: "Adding.", calls: [{ name: "add", args: { a: 1, b: 1 } }] }, { reasoning: "Done.", text: "two" }])
      )
      expect(events.flatMap((e) => (e._tag === "ReasoningDelta" ? [[e.turn, e.text]] : []))).toEqual([[1, "Adding."], [2, "Done."]])
      expect(events.flatMap((e) => (e._tag === "TextDelta" ? [[e.turn, e.text]] : []))).toEqual([[2, "two"]])
    }))

  it.effect("a real (not replayed) model stream: deltas as they come, the Finish part's response appended", () =>
    Effect.gen(function* () {
      const response: LanguageModel.Response = { turn: Turn.model("Hello there"), finishReason: "stop", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } }
      const model = LanguageModel.LanguageModel.of({
        provider: "test",
        model: "test",
        generate: () => Effect.succeed(response),
        stream: () =>
          Stream.make<Array<LanguageModel.StreamPart>>(
            { _tag: "ReasoningDelta", text: "hm" },
            { _tag: "TextDelta", text: "Hello " },
            { _tag: "TextDelta", text: "there" },
            { _tag: "Finish", response }
          )
      })
      const events = yield* Stream.runCollect(Agent.stream({ registry, prompt: "hi" })).pipe(Effect.provideService(LanguageModel.LanguageModel, model))
      expect(Chunk.toReadonlyArray(events).map((e) => (e._tag === "TextDelta" || e._tag === "ReasoningDelta" ? `${e._tag}:${e.text}` : e._tag))).toEqual([
        "TurnStarted", "ReasoningDelta:hm", "TextDelta:Hello ", "TextDelta:there", "TurnFinished", "Done"
      ])
      const noFinish = LanguageModel.LanguageModel.of({ ...model, stream: () => Stream.make({ _tag: "TextDelta" as const, text: "cut" }) })
      const error = yield* Agent.run({ registry, prompt: "hi", streaming: true, retry: Retry.never }).pipe(Effect.flip, Effect.provideService(LanguageModel.LanguageModel, noFinish))
      expect(error).toMatchObject({ _tag: "MalformedResponse", message: "the stream ended without a final response" })
    }))

  it.effect("Agent.run emits nothing and Agent.stream defaults to streaming (generate is not called)", () =>
    Effect.gen(function* () {
      const calls = { generate: 0, stream: 0 }
      const response: LanguageModel.Response = { turn: Turn.model("ok"), finishReason: "stop", usage: LanguageModel.emptyUsage }
      const model = LanguageModel.LanguageModel.of({
        provider: "test",
        model: "test",
        generate: () => Effect.sync(() => (calls.generate++, response)),
        stream: () => LanguageModel.streamOfResponse(response).pipe(Stream.ensuring(Effect.sync(() => calls.stream++)))
      })
      yield* Stream.runDrain(Agent.stream({ registry, prompt: "hi" })).pipe(Effect.provideService(LanguageModel.LanguageModel, model))
      expect(calls).toEqual({ generate: 0, stream: 1 })
      yield* Agent.run({ registry, prompt: "hi" }).pipe(Effect.provideService(LanguageModel.LanguageModel, model))
      expect(calls).toEqual({ generate: 1, stream: 1 })
      yield* Stream.runDrain(Agent.stream({ registry, prompt: "hi", streaming: false })).pipe(Effect.provideService(LanguageModel.LanguageModel, model))
      expect(calls).toEqual({ generate: 2, stream: 1 })
    }))
})

describe("the executor through the loop", () => {
  it.effect("\"unbounded\" runs every call of a turn at once; \"sequential\" one at a time", () =>
    Effect.gen(function* () {
      for (const [concurrency, expected] of [["unbounded", 12], ["sequential", 1], [3, 3]] as const) {
        const running = yield* Ref.make(0)
        const most = yield* Ref.make(0)
        const wait = Registry.unsafeMake(
          Tool.make("wait", {
            description: "",
            parameters: Schema.Struct({}),
            handler: () =>
              Ref.updateAndGet(running, (n) => n + 1).pipe(
                Effect.flatMap((n) => Ref.update(most, (m) => Math.max(m, n))),
                Effect.zipRight(Effect.sleep("1 second")),
                Effect.zipRight(Ref.update(running, (n) => n - 1))
              )
          })
        )
        const { exit } = yield* runWith({ registry: wait, prompt: "go", concurrency }, [{ calls: Array.from({ length: 12 }, () => ({ name: "wait" })) }, { text: "done" }])
        expect(Exit.isSuccess(exit)).toBe(true)
        expect(yield* Ref.get(most)).toBe(expected)
      }
    }))

  it.effect("the Approval service receives the call, with its arguments, and the tool's description", () =>
    Effect.gen(function* () {
      const asked: Array<Approval.Request> = []
      const guarded = Registry.unsafeMake(
        Tool.make("wipe", {
          description: "Deletes a folder",
          parameters: Schema.Struct({ path: Schema.String }),
          needsApproval: ({ path }) => path !== "/tmp",
          handler: ({ path }) => Effect.succeed(`wiped ${path}`)
        })
      )
      const approval = Approval.layer((request) =>
        Effect.sync(() => (asked.push(request), request.call.args.path === "/home" ? Approval.approved : Approval.denied("not that one")))
      )
      const { exit } = yield* runWith({ registry: guarded, prompt: "go" }, [
        { calls: [{ name: "wipe", args: { path: "/home" } }, { name: "wipe", args: { path: "/etc" } }, { name: "wipe", args: { path: "/tmp" } }] },
        { text: "done" }
      ]).pipe(Effect.provide(approval))
      expect(asked.map((request) => [request.call.id, request.call.name, request.call.args, request.description])).toEqual([
        ["call_0_0", "wipe", { path: "/home" }, "Deletes a folder"],
        ["call_0_1", "wipe", { path: "/etc" }, "Deletes a folder"]
      ])
      const results = Exit.isSuccess(exit) ? exit.value.calls.map((c) => (Either.isRight(c.result) ? c.result.right : c.result.left.message)) : []
      expect(results).toEqual(["wiped /home", expect.stringContaining("not that one"), "wiped /tmp"])
    }))
})
