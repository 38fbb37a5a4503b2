/**
 * An SDK's async iterable of chunks as a Stream of deltas. The chunks are read in a plain loop and decoded
 * synchronously into a buffer; the stream takes everything buffered at each pull, so a burst of chunks costs one
 * wake-up of the consuming fiber rather than one per chunk (reading an iterable element by element through
 * Effect's stream machinery costs tens of microseconds per chunk, which a long answer of small chunks multiplies).
 *
 * The request is sent at the first pull, and aborted when the stream stops before the response ended
 * (interruption, an early stop, an error): the server sees the connection close, mid-stream too.
 */
import type { ModelError } from "@agentfx/core"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"

export interface Pump<Item, A> {
  /** Sends the request; resolves once the response has started. */
  readonly start: (signal: AbortSignal) => Promise<AsyncIterable<Item>>
  /** The deltas of one chunk, or the error it carries. */
  readonly onChunk: (chunk: Item) => Either.Either<ReadonlyArray<A>, ModelError.ModelError>
  /** The last deltas once the response ended, or why it cannot be used. */
  readonly onEnd: () => Either.Either<ReadonlyArray<A>, ModelError.ModelError>
  /** Anything `start` or the iterable threw. */
  readonly onError: (error: unknown) => ModelError.ModelError
}

/**
 * `make` is called once per run of the stream, so that state it holds (an aggregator) is never shared between
 * runs: the loop retries a failed stream by running the same Stream value again.
 */
export const pump = <Item, A>(make: () => Pump<Item, A>): Stream.Stream<A, ModelError.ModelError> =>
  Stream.suspend(() => {
    const options = make()
    const controller = new AbortController()
    const buffer: Array<A> = []
    let outcome: Either.Either<void, ModelError.ModelError> | undefined
    let started = false
    let wake: (() => void) | undefined
    const notify = () => {
      const resume = wake
      wake = undefined
      resume?.()
    }
    const settle = (result: Either.Either<void, ModelError.ModelError>) => {
      outcome ??= result
      notify()
    }
    const run = async (): Promise<void> => {
      try {
        const items = await options.start(controller.signal)
        for await (const item of items) {
          const deltas = options.onChunk(item)
          if (Either.isLeft(deltas)) {
            settle(Either.left(deltas.left))
            return controller.abort()
          }
          if (deltas.right.length > 0) {
            buffer.push(...deltas.right)
            notify()
          }
        }
        const last = options.onEnd()
        if (Either.isRight(last)) buffer.push(...last.right)
        settle(Either.isRight(last) ? Either.void : Either.left(last.left))
      } catch (error) {
        // After an abort of our own the stream has stopped pulling, and this is never seen.
        settle(Either.left(options.onError(error)))
      }
    }
    const pull: Effect.Effect<Chunk.Chunk<A>, Option.Option<ModelError.ModelError>> = Effect.suspend(() => {
      if (!started) {
        started = true
        void run()
      }
      if (buffer.length > 0) return Effect.succeed(Chunk.unsafeFromArray(buffer.splice(0)))
      if (outcome !== undefined) return Either.isRight(outcome) ? Effect.fail(Option.none()) : Effect.fail(Option.some(outcome.left))
      return Effect.async<Chunk.Chunk<A>, Option.Option<ModelError.ModelError>>((resume) => {
        wake = () => resume(pull)
        return Effect.sync(() => {
          wake = undefined
        })
      })
    })
    return Stream.repeatEffectChunkOption(pull).pipe(
      Stream.ensuring(
        Effect.sync(() => {
          if (outcome === undefined) controller.abort()
        })
      )
    )
  })
