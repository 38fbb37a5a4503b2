/**
 * An SDK's async iterable of chunks as a stream of parts. The chunks are read in a plain loop and decoded
 * synchronously into a buffer; each pull takes everything buffered, so a burst of chunks costs one wake-up of the
 * reading fiber rather than one per chunk (reading an iterable element by element through Effect's stream
 * machinery costs tens of microseconds per chunk, which a long answer of small chunks multiplies). The stream is a
 * pulled one (see `streaming.ts`): the loop reads it without running a Stream.
 *
 * The request is sent at the first pull, and aborted when the reader stops before the response ended
 * (interruption, an early stop, an error): the server sees the connection close, mid-stream too.
 */
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Stream from "effect/Stream"
import type { StreamPart } from "../LanguageModel.js"
import { pulled } from "./streaming.js"

/** How to read one response: see `LanguageModel.streamOfChunks`. */
export interface ChunkSource<Item, E> {
  /** Sends the request; resolves once the response has started. */
  readonly start: (signal: AbortSignal) => Promise<AsyncIterable<Item>>
  /**
   * The parts of one chunk, or the error it carries (which ends the stream and aborts the request). A throw is a
   * defect of the decoder: the stream dies with it and the request is aborted.
   */
  readonly onChunk: (chunk: Item) => Either.Either<ReadonlyArray<StreamPart>, E>
  /** The last parts once the response ended (its `Finish`), or why it cannot be used. A throw is a defect. */
  readonly onEnd: () => Either.Either<ReadonlyArray<StreamPart>, E>
  /** Anything `start` or the iterable threw, as the stream's error. A throw is a defect. */
  readonly onError: (error: unknown) => E
}

/** A throw of the source's own code (onChunk, onEnd), kept apart from what the SDK threw. */
class DecoderThrew {
  constructor(readonly cause: unknown) {}
}

const decoding = <A>(decode: () => A): A => {
  try {
    return decode()
  } catch (cause) {
    throw new DecoderThrew(cause)
  }
}

/**
 * `make` is called once per run of the stream, so that state it holds (an aggregator) is never shared between
 * runs: the loop retries a failed stream by running the same Stream value again.
 */
export const pump = <Item, E>(make: () => ChunkSource<Item, E>): Stream.Stream<StreamPart, E> =>
  pulled(() => {
    const options = make()
    const controller = new AbortController()
    const buffer: Array<StreamPart> = []
    let outcome: Exit.Exit<void, E> | undefined
    let started = false
    let wake: (() => void) | undefined
    const notify = () => {
      const resume = wake
      wake = undefined
      resume?.()
    }
    const settle = (result: Exit.Exit<void, E>) => {
      outcome ??= result
      notify()
    }
    const run = async (): Promise<void> => {
      try {
        const items = await options.start(controller.signal)
        for await (const item of items) {
          const parts = decoding(() => options.onChunk(item))
          if (Either.isLeft(parts)) {
            settle(Exit.fail(parts.left))
            return controller.abort()
          }
          // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty chunk would only wake the reader to find nothing and wait again
          if (parts.right.length > 0) {
            buffer.push(...parts.right)
            notify()
          }
        }
        const last = decoding(options.onEnd)
        if (Either.isRight(last)) buffer.push(...last.right)
        settle(Either.isRight(last) ? Exit.void : Exit.fail(last.left))
      } catch (error) {
        // After an abort of our own the reader has stopped pulling, and this is never seen. A bug of the decoder is
        // not the connection's failure (which `onError` would make retryable): the stream dies with it.
        if (error instanceof DecoderThrew) {
          controller.abort()
          return settle(Exit.die(error.cause))
        }
        try {
          settle(Exit.fail(options.onError(error)))
        } catch (thrown) {
          settle(Exit.die(thrown))
        }
      }
    }
    const pull: Effect.Effect<Chunk.Chunk<StreamPart>, Option.Option<E>> = Effect.suspend(() => {
      if (!started) {
        started = true
        void run()
      }
      if (buffer.length > 0) return Effect.succeed(Chunk.unsafeFromArray(buffer.splice(0)))
      if (outcome !== undefined) return Exit.isSuccess(outcome) ? Effect.fail(Option.none()) : Effect.failCause(Cause.map(outcome.cause, Option.some))
      return Effect.async<Chunk.Chunk<StreamPart>, Option.Option<E>>((resume) => {
        // The fiber may have yielded between the look above and this registration, and parts or the end came
        // meanwhile: no wake would follow.
        if (buffer.length > 0 || outcome !== undefined) return resume(pull)
        wake = () => resume(pull)
        // Stryker disable next-line BlockStatement: a stale wake resumes an interrupted pull, which Effect ignores; the parts stay buffered
        return Effect.sync(() => {
          wake = undefined
        })
      })
    })
    const close = Effect.sync(() => {
      if (outcome === undefined) controller.abort()
    })
    return { pull, close }
  })
