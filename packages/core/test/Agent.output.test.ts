import { describe, expect, it } from "@effect/vitest"
import { Cause, Chunk, Context, Effect, Either, Exit, Fiber, Option, Schema, Stream, TestClock } from "effect"
import { Agent, Chat, LanguageModel, ModelError, Output, Retry, StopCondition, Transcript, Turn } from "../src/index.js"
import { Scripted } from "../src/testing.js"
import { registry } from "./fixtures.js"

type Script = Parameters<typeof Scripted.layer>[0]

const Sum = Schema.Struct({ total: Schema.Number, note: Schema.optionalWith(Schema.String, { exact: true }) })
const sum = Either.getOrThrow(Output.declare(Sum))

const runWith = <R>(options: Agent.Options<R>, script: Script) =>
  Effect.gen(function* () {
    const exit = yield* Effect.exit(Agent.run(options))
    return { exit, requests: yield* (yield* Scripted.ScriptedModel).requests }
  }).pipe(Effect.provide(Scripted.layer(script)))

const failOf = <A, E>(exit: Exit.Exit<A, E>): E | undefined => (Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined)
const defectOf = <A, E>(exit: Exit.Exit<A, E>): unknown => (Exit.isFailure(exit) ? Option.getOrUndefined(Cause.dieOption(exit.cause)) : undefined)
const texts = (transcript: Transcript.Transcript) => transcript.map((turn) => `${turn.role}: ${Turn.text(turn) || turn.parts.map((part) => part._tag).join(",")}`)

describe("typed output: the final answer", () => {
  it.effect("is decoded by the output Schema after the calls; the result's output is typed", () =>
    Effect.gen(function* () {
      const result = yield* Agent.run({ registry, prompt: "1 + 2?", output: Sum })
      const total: number = result.output.total
      expect(total).toBe(3)
      expect(result.output).toEqual({ total: 3 })
      expect(result.calls.map((call) => call.name)).toEqual(["add"])
      expect(result.stopReason).toEqual({ _tag: "Finished" })
      expect(result.text).toBe('{"total": 3}')
    }).pipe(Effect.provide(Scripted.layer([{ calls: [{ name: "add", args: { a: 1, b: 2 } }] }, { text: '{"total": 3}' }]))))

  it.effect("every request declares the output; a model without a JSON mode that enforces it is told the schema in the system text", () =>
    Effect.gen(function* () {
      const { exit, requests } = yield* runWith({ registry, prompt: "go", system: "Be brief.", output: Sum }, [{ text: '{"total": 1}' }])
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(requests[0]!.output).toBe(sum)
      expect(requests[0]!.system).toBe(`Be brief.\n\n${Output.instructions(sum)}`)
      const bare = yield* runWith({ registry, prompt: "go", output: Sum }, [{ text: '{"total": 1}' }])
      expect(bare.requests[0]!.system).toBe(Output.instructions(sum))
      const empty = yield* runWith({ registry, prompt: "go", system: "", output: Sum }, [{ text: '{"total": 1}' }])
      expect(empty.requests[0]!.system).toBe(Output.instructions(sum))
    }))

  it.effect("a model whose JSON mode enforces the schema is not told it again; the mode is asked with the declared request", () =>
    Effect.gen(function* () {
      const context = yield* Scripted.make([{ text: '{"total": 1}' }])
      const scripted = Context.get(context, LanguageModel.LanguageModel)
      const asked: Array<LanguageModel.Request> = []
      const model: LanguageModel.Service = {
        ...scripted,
        outputMode: (request) => {
          asked.push(request)
          return "schema"
        }
      }
      const result = yield* Agent.run({ registry, prompt: "go", system: "Be brief.", output: Sum }).pipe(Effect.provideService(LanguageModel.LanguageModel, model))
      expect(result.output).toEqual({ total: 1 })
      const requests = yield* Effect.provide(Effect.flatMap(Scripted.ScriptedModel, (inspector) => inspector.requests), context)
      expect(requests[0]!.system).toBe("Be brief.")
      expect(asked[0]!.output).toBe(sum)
    }))

  it.effect("a run without output pays nothing for it: no declaration, the system text as given, no output in the result", () =>
    Effect.gen(function* () {
      const { exit, requests } = yield* runWith({ registry, prompt: "go", system: "Be brief." }, [{ text: "done" }])
      expect(requests[0]!.system).toBe("Be brief.")
      expect("output" in requests[0]!).toBe(false)
      expect(Exit.isSuccess(exit) && "output" in exit.value).toBe(false)
    }))
})

describe("typed output: corrections", () => {
  it.effect("a wrong first answer is followed by a correction saying what failed where, and the second decodes", () =>
    Effect.gen(function* () {
      const { exit, requests } = yield* runWith({ registry, prompt: "go", output: Sum }, [{ text: "It is 3." }, { text: '{"total": "3"}' }, { text: '```json\n{"total": 3}\n```' }])
      const result = Either.getOrThrow(Exit.isSuccess(exit) ? Either.right(exit.value) : Either.left(exit))
      expect(result.output).toEqual({ total: 3 })
      expect(result.turns).toBe(3)
      // Each answer stays as the model gave it, each correction follows it as a user turn.
      expect(texts(result.transcript)).toEqual([
        "user: go",
        "model: It is 3.",
        expect.stringMatching(/^user: Your final answer could not be used: .*\n- the answer: the answer is not JSON \(/s),
        'model: {"total": "3"}',
        `user: ${Turn.text(Output.correction([{ path: "total", message: 'Expected number, actual "3"' }]))}`,
        'model: ```json\n{"total": 3}\n```'
      ])
      expect(Either.isRight(Transcript.validate(result.transcript))).toBe(true)
      expect(Output.isCorrection(result.transcript[2]!)).toBe(true)
      // The model is asked with the corrections in its transcript.
      expect(requests.map((request) => request.transcript.length)).toEqual([1, 3, 5])
    }))

  it.effect("three wrong answers give OutputInvalid with the last answer's issues and text, and the transcript", () =>
    Effect.gen(function* () {
      const { exit, requests } = yield* runWith({ registry, prompt: "go", output: Sum }, [{ text: "3" }, { text: "three" }, { text: '{"sum": 3}' }, { text: '{"total": 3}' }])
      const error = failOf(exit)
      expect(error).toBeInstanceOf(Output.OutputInvalid)
      const invalid = error as Output.OutputInvalid
      expect(invalid.attempts).toBe(3)
      expect(invalid.text).toBe('{"sum": 3}')
      expect(invalid.issues).toEqual([
        { path: "sum", message: 'is unexpected, expected: "total" | "note"' },
        { path: "total", message: "is missing" }
      ])
      expect(invalid.message).toBe('the final answer does not match the output schema after 3 attempts: sum: is unexpected, expected: "total" | "note" (and 1 more)')
      expect(invalid.details).toBe('sum: is unexpected, expected: "total" | "note"\ntotal: is missing')
      expect(requests).toHaveLength(3)
      expect(invalid.transcript).toHaveLength(6)
      expect(Either.isRight(Transcript.validate(invalid.transcript))).toBe(true)
    }))

  it.effect.each([0, 1, 4])("maxOutputRetries %i: a model that never decodes gives maxOutputRetries + 1 answers", (maxOutputRetries) =>
    Effect.gen(function* () {
      const { exit, requests } = yield* runWith({ registry, prompt: "go", output: Sum, maxOutputRetries }, () => Effect.succeed({ text: "no" }))
      expect((failOf(exit) as Output.OutputInvalid).attempts).toBe(maxOutputRetries + 1)
      expect(requests).toHaveLength(maxOutputRetries + 1)
    }))

  it.effect("no correction is sent past maxTurns: the last turn's failure is OutputInvalid", () =>
    Effect.gen(function* () {
      const { exit, requests } = yield* runWith({ registry, prompt: "go", output: Sum, maxTurns: 2 }, [{ calls: [{ name: "add", args: { a: 1, b: 2 } }] }, { text: "3" }])
      const invalid = failOf(exit) as Output.OutputInvalid
      expect(invalid._tag).toBe("OutputInvalid")
      expect(invalid.attempts).toBe(1)
      expect(requests).toHaveLength(2)
      expect(invalid.transcript).toHaveLength(4)
    }))

  it.effect("maxOutputRetries must be an integer ≥ 0", () =>
    Effect.gen(function* () {
      const { exit } = yield* runWith({ registry, prompt: "go", output: Sum, maxOutputRetries: -1 }, [])
      expect(String(defectOf(exit))).toContain("maxOutputRetries must be an integer ≥ 0, got -1")
    }))

  it.effect("an output Schema with no JSON Schema form fails the run before anything is sent", () =>
    Effect.gen(function* () {
      const { exit, requests } = yield* runWith({ registry, prompt: "go", output: Schema.Struct({ at: Schema.DateFromSelf }) }, [])
      expect(failOf(exit)?._tag).toBe("InvalidRequest")
      expect(failOf(exit)?.message).toMatch(/^output "output" cannot be declared for JSON Schema: its Schema has no JSON Schema form/)
      expect(requests).toHaveLength(0)
    }))
})

describe("typed output: a run that ends before its final answer", () => {
  it.effect("at maxTurns fails with OutputMissing, carrying the complete transcript", () =>
    Effect.gen(function* () {
      const { exit } = yield* runWith({ registry, prompt: "go", output: Sum, maxTurns: 1 }, [{ calls: [{ name: "add", args: { a: 1, b: 2 } }] }])
      const missing = failOf(exit) as Output.OutputMissing
      expect(missing).toBeInstanceOf(Output.OutputMissing)
      expect(missing.stopReason).toEqual({ _tag: "MaxTurns", maxTurns: 1 })
      expect(missing.message).toBe("the run ended without a final answer to decode: maxTurns (1) was reached")
      expect(missing.transcript).toHaveLength(3)
      expect(Either.isRight(Transcript.validate(missing.transcript))).toBe(true)
    }))

  it.effect("when a stop condition says stop, fails with OutputMissing naming it", () =>
    Effect.gen(function* () {
      const { exit } = yield* runWith({ registry, prompt: "go", output: Sum, stopWhen: [StopCondition.toolCalled("add")] }, [{ calls: [{ name: "add", args: { a: 1, b: 2 } }] }])
      expect(failOf(exit)?.message).toBe('the run ended without a final answer to decode: the stop condition on "add" was met')
    }))

  it.effect("without output, the same runs end with their stop reason, as before", () =>
    Effect.gen(function* () {
      const { exit } = yield* runWith({ registry, prompt: "go", maxTurns: 1 }, [{ calls: [{ name: "add", args: { a: 1, b: 2 } }] }])
      expect(Exit.isSuccess(exit) && exit.value.stopReason).toEqual({ _tag: "MaxTurns", maxTurns: 1 })
    }))
})

describe("typed output: Agent.stream", () => {
  it.effect("emits the partial value as the answer streams, then the decoded value, then Done with it", () =>
    Effect.gen(function* () {
      const events = Chunk.toReadonlyArray(
        yield* Stream.runCollect(Agent.stream({ registry, prompt: "go", output: Sum })).pipe(
          Effect.provide(Scripted.layer([{ text: "Thinking about it" }, { text: '{"total": 3, "note": "three"}' }]))
        )
      )
      const partials = events.flatMap((event) => (event._tag === "OutputDelta" ? [event.partial] : []))
      // The scripted model streams word by word: `{"total": ` then `3, ` then `"note": ` then `"three"}`.
      expect(partials).toEqual([{}, { total: 3 }, { total: 3 }, { total: 3, note: "three" }])
      const tags = events.map((event) => event._tag).filter((tag) => tag.startsWith("Output") || tag === "Done")
      expect(tags).toEqual(["OutputRejected", "OutputDelta", "OutputDelta", "OutputDelta", "OutputDelta", "OutputDecoded", "Done"])
      const rejected = events.find((event) => event._tag === "OutputRejected")
      expect(rejected).toEqual({ _tag: "OutputRejected", turn: 1, attempt: 1, willRetry: true, issues: [{ path: "", message: expect.stringMatching(/^the answer is not JSON/) }] })
      const decoded = events.find((event) => event._tag === "OutputDecoded")
      expect(decoded).toEqual({ _tag: "OutputDecoded", turn: 2, value: { total: 3, note: "three" } })
      const done = events[events.length - 1]
      expect(done?._tag === "Done" && done.result.output).toEqual({ total: 3, note: "three" })
    }))

  it.effect("Agent.run's onEvent receives the sequence Agent.stream emits, OutputDelta included, and so does a stream's own onEvent", () =>
    Effect.gen(function* () {
      const script = [{ text: "Thinking about it" }, { text: '{"total": 3, "note": "three"}' }]
      const streamed = Chunk.toReadonlyArray(yield* Stream.runCollect(Agent.stream({ registry, prompt: "go", output: Sum })).pipe(Effect.provide(Scripted.layer(script))))
      const received: Array<Agent.AgentEvent> = []
      const result = yield* Agent.run({ registry, prompt: "go", output: Sum, onEvent: (event) => received.push(event) }).pipe(Effect.provide(Scripted.layer(script)))
      expect(result.output).toEqual({ total: 3, note: "three" })
      // Durations and the result's objects aside, the same events in the same order.
      const shape = (events: ReadonlyArray<Agent.AgentEvent>) => events.map((event) => (event._tag === "OutputDelta" ? [event._tag, event.partial] : [event._tag]))
      expect(shape(received)).toEqual(shape(streamed))
      expect(received.filter((event) => event._tag === "OutputDelta")).toHaveLength(4)
      const alongside: Array<Agent.AgentEvent> = []
      const both = Chunk.toReadonlyArray(
        yield* Stream.runCollect(Agent.stream({ registry, prompt: "go", output: Sum, onEvent: (event) => alongside.push(event) })).pipe(Effect.provide(Scripted.layer(script)))
      )
      expect(shape(alongside)).toEqual(shape(both))
    }))

  /** A model that streams `attempts[n]` on its n-th request: text and reasoning deltas, then an error or the answer. */
  const streaming = (attempts: ReadonlyArray<ReadonlyArray<LanguageModel.StreamPart | ModelError.ModelError>>): LanguageModel.Service => {
    let request = 0
    const stream = () =>
      Stream.suspend(() => {
        const parts = attempts[request++] ?? []
        return Stream.fromIterable(parts).pipe(Stream.mapEffect((part) => ("_tag" in part && ModelError.isModelError(part) ? Effect.fail(part) : Effect.succeed(part as LanguageModel.StreamPart))))
      })
    return { provider: "test", model: "test", generate: () => Effect.die("not used"), stream }
  }
  const finish = (text: string): LanguageModel.StreamPart => ({ _tag: "Finish", response: { turn: Turn.model(text), finishReason: "stop", usage: LanguageModel.emptyUsage } })
  const partialsOf = (model: LanguageModel.Service) =>
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(
        Stream.runCollect(Agent.stream({ registry, prompt: "go", output: Sum, retry: Retry.policy({ maxRetries: 1, base: "1 second" }) })).pipe(
          Effect.provideService(LanguageModel.LanguageModel, model)
        )
      )
      yield* TestClock.adjust("1 minute")
      const events = Chunk.toReadonlyArray(yield* Fiber.join(fiber))
      return events.flatMap((event) => (event._tag === "OutputDelta" ? [event.partial] : []))
    })

  it.effect("the partial value is the text of the turn so far, reasoning between its deltas left out", () =>
    Effect.gen(function* () {
      const model = streaming([[{ _tag: "TextDelta", text: '{"total":' }, { _tag: "ReasoningDelta", text: "hmm" }, { _tag: "TextDelta", text: " 3}" }, finish('{"total": 3}')]])
      expect(yield* partialsOf(model)).toEqual([{}, { total: 3 }])
    }))

  it.effect("a failed attempt's text is dropped: the retried attempt's partial values start afresh", () =>
    Effect.gen(function* () {
      const model = streaming([
        [{ _tag: "TextDelta", text: '{"note": "first' }, new ModelError.Unavailable({ message: "dropped" })],
        [{ _tag: "TextDelta", text: '{"total": 3}' }, finish('{"total": 3}')]
      ])
      expect(yield* partialsOf(model)).toEqual([{ note: "first" }, { total: 3 }])
    }))

  it.effect("a run without output emits no output event", () =>
    Effect.gen(function* () {
      const events = Chunk.toReadonlyArray(yield* Stream.runCollect(Agent.stream({ registry, prompt: "go" })).pipe(Effect.provide(Scripted.layer([{ text: '{"total": 3}' }]))))
      expect(events.some((event) => event._tag.startsWith("Output"))).toBe(false)
    }))
})

describe("typed output: Chat", () => {
  it.effect("each message's final answer is decoded; a message that never decodes leaves the chat where it was", () =>
    Effect.gen(function* () {
      const chat = yield* Chat.make({ registry, output: Sum, maxOutputRetries: 0 })
      const first = yield* chat.send("1 + 2?")
      expect(first.output).toEqual({ total: 3 })
      const before = yield* chat.transcript
      const failed = yield* Effect.either(chat.send("and again?"))
      expect(Either.isLeft(failed) && failed.left._tag).toBe("OutputInvalid")
      expect(yield* chat.transcript).toBe(before)
      const streamed = Chunk.toReadonlyArray(yield* Stream.runCollect(chat.stream("once more?")))
      expect(streamed.find((event) => event._tag === "OutputDecoded")).toEqual({ _tag: "OutputDecoded", turn: 1, value: { total: 5 } })
    }).pipe(Effect.provide(Scripted.layer([{ text: '{"total": 3}' }, { text: "no" }, { text: '{"total": 5}' }]))))
})
