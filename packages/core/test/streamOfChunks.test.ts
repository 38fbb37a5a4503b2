import { describe, expect, it } from "@effect/vitest"
import { Cause, Chunk, Deferred, Effect, Either, Exit, FastCheck as fc, Fiber, Option, Stream } from "effect"
import { forEachPart } from "../src/internal/streaming.js"
import { LanguageModel, ModelError, Turn } from "../src/index.js"
import * as ManualScheduler from "./manualScheduler.js"

const response: LanguageModel.Response = { turn: Turn.model("ab"), finishReason: "stop", usage: LanguageModel.emptyUsage }
const finish: LanguageModel.StreamPart = { _tag: "Finish", response }
const delta = (text: string): LanguageModel.StreamPart => ({ _tag: "TextDelta", text })

/** An SDK's iterable: `chunks` one by one, each a microtask apart, then (optionally) a throw. */
async function* sdk(chunks: ReadonlyArray<string>, thrown?: unknown): AsyncGenerator<string> {
  for (const chunk of chunks) {
    await Promise.resolve()
    yield chunk
  }
  if (thrown !== undefined) throw thrown
}

const unavailable = (message: string) => new ModelError.Unavailable({ message })

/** An error as it reads: its tag and message (an error's `message` is not an enumerable field, which toEqual skips). */
const described = (error: ModelError.ModelError) => ({ _tag: error._tag, message: error.message })

/** A chunk "!x" is an error chunk; any other chunk is cut into one delta per character. */
const source = (chunks: ReadonlyArray<string>, options: { readonly end?: "finish" | "none" | "fails"; readonly thrown?: unknown } = {}) => {
  const made = { count: 0, aborted: [] as Array<boolean>, signals: [] as Array<AbortSignal> }
  const stream = LanguageModel.streamOfChunks(() => {
    made.count++
    return {
      start: (signal) => {
        made.signals.push(signal)
        return Promise.resolve(sdk(chunks, options.thrown))
      },
      onChunk: (chunk: string) => (chunk.startsWith("!") ? Either.left(unavailable(chunk.slice(1))) : Either.right([...chunk].map(delta))),
      onEnd: () => (options.end === "fails" ? Either.left(unavailable("no end")) : Either.right(options.end === "none" ? [] : [finish])),
      onError: (error) => unavailable(`thrown: ${String(error)}`)
    }
  })
  return { stream, made }
}

/** What a reader saw: its parts, and how it ended (the response's finish reason, or the error's message). */
const outcome = (parts: ReadonlyArray<LanguageModel.StreamPart>, exit: Exit.Exit<unknown, ModelError.ModelError>) => ({
  parts: parts.map((part) => (part._tag === "TextDelta" ? part.text : part._tag)),
  end: Exit.match(exit, { onSuccess: () => "ok", onFailure: (cause) => Option.map(Cause.failureOption(cause), described) })
})

const viaStream = (stream: Stream.Stream<LanguageModel.StreamPart, ModelError.ModelError>) =>
  Effect.gen(function* () {
    const parts: Array<LanguageModel.StreamPart> = []
    const exit = yield* Effect.exit(Stream.runForEach(stream, (part) => Effect.sync(() => parts.push(part))))
    const last = parts.findLast((part) => part._tag === "Finish")
    const ended = Exit.isFailure(exit) || last !== undefined ? exit : Exit.fail(new ModelError.MalformedResponse({ message: "the stream ended without a final response" }))
    return outcome(parts, ended)
  })

const viaReader = (stream: Stream.Stream<LanguageModel.StreamPart, ModelError.ModelError>) =>
  Effect.gen(function* () {
    const parts: Array<LanguageModel.StreamPart> = []
    const exit = yield* Effect.exit(forEachPart(stream, (part) => parts.push(part)))
    return outcome(parts, exit)
  })

describe("LanguageModel.streamOfChunks", () => {
  it.effect.prop(
    "the loop's reader and a Stream run see the same parts and the same end, and each run opens the source afresh",
    [
      fc.array(fc.oneof(fc.stringMatching(/^[a-c]{0,3}$/), fc.constantFrom("!bad")), { maxLength: 6 }),
      fc.constantFrom<"finish" | "none" | "fails">("finish", "none", "fails"),
      fc.boolean()
    ],
    ([chunks, end, throws]) =>
      Effect.gen(function* () {
        const { made, stream } = source(chunks, { end, thrown: throws ? "boom" : undefined })
        const read = yield* viaReader(stream)
        const ran = yield* viaStream(stream)
        expect(read).toEqual(ran)
        expect(made.count).toBe(2)
        // A request is aborted exactly when the reader stopped before the response ended: never here, since
        // both readers read to the end, except after an error chunk (which aborts it on the spot).
        expect(made.signals.map((signal) => signal.aborted)).toEqual(chunks.some((chunk) => chunk.startsWith("!")) ? [true, true] : [false, false])
      }),
    { fastCheck: { numRuns: 60 } }
  )

  it.effect("a response read to its end: every delta, room after each burst, the Finish's response", () =>
    Effect.gen(function* () {
      const { made, stream } = source(["ab", "", "c"])
      const seen: Array<string> = []
      let rooms = 0
      const result = yield* forEachPart(stream, (part) => seen.push(part._tag === "TextDelta" ? part.text : part._tag), Effect.sync(() => rooms++))
      expect(result).toBe(response)
      expect(seen).toEqual(["a", "b", "c", "Finish"])
      // The reader pulls whatever has arrived: one burst or several, but never more bursts than parts.
      expect(rooms).toBeGreaterThanOrEqual(1)
      expect(rooms).toBeLessThanOrEqual(4)
      expect(made.signals[0]?.aborted).toBe(false)
    }))

  it.effect("parts after the Finish are handed on, and the response is still the Finish's", () =>
    Effect.gen(function* () {
      const trailing = LanguageModel.streamOfChunks<string, ModelError.ModelError>(() => ({
        start: () => Promise.resolve(sdk(["a"])),
        onChunk: (chunk) => Either.right([delta(chunk)]),
        onEnd: () => Either.right([finish, delta("late")]),
        onError: () => unavailable("never thrown")
      }))
      const seen: Array<string> = []
      expect(yield* forEachPart(trailing, (part) => seen.push(part._tag === "TextDelta" ? part.text : part._tag))).toBe(response)
      expect(seen).toEqual(["a", "Finish", "late"])
    }))

  it.effect("an error chunk, an end that fails, a throw: each is the stream's error, under either reader", () =>
    Effect.gen(function* () {
      const errorChunk = source(["a", "!refused", "b"])
      expect(described(yield* Effect.flip(LanguageModel.collect(errorChunk.stream)))).toEqual(described(unavailable("refused")))
      expect(described(yield* Effect.flip(Stream.runDrain(errorChunk.stream)))).toEqual(described(unavailable("refused")))
      expect(described(yield* Effect.flip(LanguageModel.collect(source(["a"], { end: "fails" }).stream)))).toEqual(described(unavailable("no end")))
      expect(described(yield* Effect.flip(LanguageModel.collect(source(["a"], { thrown: "reset" }).stream)))).toEqual(described(unavailable("thrown: reset")))
      const refusedStart = LanguageModel.streamOfChunks<string, ModelError.ModelError>(() => ({
        start: () => Promise.reject(new Error("ECONNREFUSED")),
        onChunk: () => Either.right([]),
        onEnd: () => Either.right([finish]),
        onError: (error) => unavailable(`start: ${(error as Error).message}`)
      }))
      expect(described(yield* Effect.flip(LanguageModel.collect(refusedStart)))).toEqual(described(unavailable("start: ECONNREFUSED")))
      const missing = yield* Effect.flip(LanguageModel.collect(source(["a"], { end: "none" }).stream))
      expect(described(missing)).toEqual({ _tag: "MalformedResponse", message: "the stream ended without a final response" })
    }))

  it.effect("a throw of the decoder (onChunk, onEnd) or of onError is a defect, never a retryable error, under either reader; the request is aborted", () =>
    Effect.gen(function* () {
      const bug = new TypeError("aggregator broke")
      const throwing = (where: "onChunk" | "onEnd" | "onError") => {
        const signals: Array<AbortSignal> = []
        const stream = LanguageModel.streamOfChunks<string, ModelError.ModelError>(() => ({
          start: (signal) => {
            signals.push(signal)
            return Promise.resolve(sdk(["a", "b"], where === "onError" ? "reset" : undefined))
          },
          onChunk: (chunk) => {
            if (where === "onChunk" && chunk === "b") throw bug
            return Either.right([delta(chunk)])
          },
          onEnd: () => {
            if (where === "onEnd") throw bug
            return Either.right([finish])
          },
          onError: () => {
            throw bug
          }
        }))
        return { stream, signals }
      }
      for (const where of ["onChunk", "onEnd", "onError"] as const) {
        const readers = [
          (stream: Stream.Stream<LanguageModel.StreamPart, ModelError.ModelError>) => Effect.exit(Effect.asVoid(LanguageModel.collect(stream))),
          (stream: Stream.Stream<LanguageModel.StreamPart, ModelError.ModelError>) => Effect.exit(Stream.runDrain(stream))
        ]
        for (const read of readers) {
          const { stream, signals } = throwing(where)
          const exit = yield* read(stream)
          expect(Exit.isFailure(exit) && Cause.isDie(exit.cause) && !Cause.isFailType(exit.cause) ? Cause.squash(exit.cause) : exit, where).toBe(bug)
          expect(signals.map((signal) => signal.aborted), where).toEqual([where !== "onError"])
        }
      }
    }))

  it.effect("a reader interrupted mid-response aborts the request; one that read to the end does not", () =>
    Effect.gen(function* () {
      const first = yield* Deferred.make<void>()
      let signal: AbortSignal | undefined
      const hanging = LanguageModel.streamOfChunks<string, ModelError.ModelError>(() => ({
        start: (given) => {
          signal = given
          return Promise.resolve(
            (async function* () {
              yield "a"
              // The server sends nothing more until the connection is closed.
              await new Promise((_, reject) => given.addEventListener("abort", () => reject(new Error("aborted"))))
            })()
          )
        },
        onChunk: (chunk) => Either.right([delta(chunk)]),
        onEnd: () => Either.right([finish]),
        onError: () => unavailable("never seen: the reader has stopped")
      }))
      const fiber = yield* Effect.fork(forEachPart(hanging, () => Deferred.unsafeDone(first, Exit.void)))
      yield* Deferred.await(first)
      expect(signal?.aborted).toBe(false)
      yield* Fiber.interrupt(fiber)
      expect(signal?.aborted).toBe(true)
      // The same through a Stream run that stops early.
      const taken = yield* Stream.runCollect(Stream.take(hanging, 1))
      expect(Chunk.toReadonlyArray(taken)).toEqual([delta("a")])
      expect(signal?.aborted).toBe(true)
    }))
})

describe("streamOfChunks between any two steps of a waiting read", () => {
  /** Lets every promise callback that can run, run (the SDK's iterable and the pump's loop are promises). */
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

  // The reader looks at the buffer, then registers to be woken; the SDK's chunk and its end may come in between.
  it("parts and the end that arrive at any step of a read are read, and the read ends", async () => {
    for (let at = 0, shift = 0; shift < 12; at = (at + 1) % 30, shift += at === 0 ? 1 : 0) {
      let release: () => void = () => {}
      const gate = new Promise<void>((resolve) => (release = resolve))
      async function* gated(): AsyncGenerator<string> {
        await gate
        yield "ab"
      }
      const stream = LanguageModel.streamOfChunks(() => ({
        start: () => Promise.resolve(gated()),
        onChunk: (chunk: string) => Either.right([...chunk].map(delta)),
        onEnd: () => Either.right([finish]),
        onError: (error) => unavailable(String(error))
      }))
      const parts: Array<string> = []
      const manual = ManualScheduler.make()
      const fiber = Effect.runFork(
        ManualScheduler.after(shift, forEachPart(stream, (part) => void parts.push(part._tag === "TextDelta" ? part.text : part._tag))),
        { scheduler: manual.scheduler }
      )
      for (let i = 0; i < at; i++) manual.step()
      await settle()
      release()
      await settle()
      for (let round = 0; round < 5 && fiber.unsafePoll() === null; round++) {
        manual.drain()
        await settle()
      }
      expect(fiber.unsafePoll(), `the chunk at step ${at}, shifted by ${shift}`).toEqual(Exit.succeed(response))
      expect(parts).toEqual(["a", "b", "Finish"])
    }
  })
})
