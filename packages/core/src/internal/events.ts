/**
 * The way events travel from a running loop to the consumer of `Agent.stream`.
 *
 * The loop pushes each event into a buffer with a plain call (no Effect, no queue operation per event); the
 * consumer takes everything buffered as one chunk whenever it pulls. While the loop runs without waiting (a
 * scripted model, fast tools), events pile up and cross in large chunks; when it waits (a real model, a slow tool),
 * the consumer is woken and gets what there is at once, so a UI sees deltas as they arrive. Back-pressure: the loop
 * asks for `room` at safe points (each model turn, each chunk of a model stream) and waits there while the buffer
 * holds `highWater` events or more.
 */
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Stream from "effect/Stream"
import type { AgentEvent } from "../AgentEvent.js"
import type { AgentResult } from "../AgentResult.js"

/** Events buffered before the loop waits for the consumer. */
const highWater = 256

/** The loop's side. */
export interface Emitter {
  readonly emit: (event: AgentEvent) => void
  /** Waits while the buffer is full. */
  readonly room: Effect.Effect<void>
}

/** Both sides of one run's events. */
export interface EventChannel<E> extends Emitter {
  /** Ends the events with the run's outcome: `Done` with its result, or its failure. */
  readonly end: (exit: Exit.Exit<AgentResult, E>) => Effect.Effect<void>
  /** Everything buffered, waiting for an event if there is none; fails with `None` after `Done`. */
  readonly pull: Effect.Effect<Chunk.Chunk<AgentEvent>, Option.Option<E>>
  /** The events as a stream, ending after `Done` or failing with the run's error. */
  readonly stream: Stream.Stream<AgentEvent, E>
}

export const make = <E>(): EventChannel<E> => {
  let buffer: Array<AgentEvent> = []
  let ended: Exit.Exit<AgentResult, E> | undefined
  let wakeConsumer: (() => void) | undefined
  let wakeProducer: (() => void) | undefined

  const emit = (event: AgentEvent): void => {
    buffer.push(event)
    if (wakeConsumer !== undefined) {
      const wake = wakeConsumer
      wakeConsumer = undefined
      wake()
    }
  }

  const room: Effect.Effect<void> = Effect.suspend(() =>
    buffer.length < highWater
      ? Effect.void
      : Effect.async<void>((resume) => {
          // The fiber may have yielded between the look above and this registration, and the consumer pulled.
          if (buffer.length < highWater) return resume(Effect.void)
          wakeProducer = () => resume(Effect.void)
          // Stryker disable next-line BlockStatement: a stale wake resumes an interrupted wait, which Effect ignores
          return Effect.sync(() => {
            wakeProducer = undefined
          })
        })
  )

  const pull: Effect.Effect<Chunk.Chunk<AgentEvent>, Option.Option<E>> = Effect.suspend(() => {
    if (buffer.length > 0) {
      const taken = buffer
      buffer = []
      if (wakeProducer !== undefined) {
        const wake = wakeProducer
        wakeProducer = undefined
        wake()
      }
      return Effect.succeed(Chunk.unsafeFromArray(taken))
    }
    if (ended !== undefined) {
      return ended._tag === "Success" ? Effect.fail(Option.none()) : Effect.failCause(Cause.map(ended.cause, Option.some))
    }
    return Effect.async<Chunk.Chunk<AgentEvent>, Option.Option<E>>((resume) => {
      // The fiber may have yielded between the look above and this registration (Effect yields between any two
      // operations once a fiber has run many), and an event or the end came meanwhile: no wake would follow.
      if (buffer.length > 0 || ended !== undefined) return resume(pull)
      wakeConsumer = () => resume(pull)
      // Stryker disable next-line BlockStatement: a stale wake resumes an interrupted pull, which Effect ignores; the event stays buffered
      return Effect.sync(() => {
        wakeConsumer = undefined
      })
    })
  })

  const end = (exit: Exit.Exit<AgentResult, E>): Effect.Effect<void> =>
    Effect.sync(() => {
      if (exit._tag === "Success") buffer.push({ _tag: "Done", result: exit.value })
      ended = exit
      if (wakeConsumer !== undefined) {
        const wake = wakeConsumer
        wakeConsumer = undefined
        wake()
      }
    })

  return { emit, room, end, pull, stream: Stream.repeatEffectChunkOption(pull) }
}

/**
 * The events of `produce` as a stream: the first pull starts it in a fiber of its own, and the stream's end, however
 * it comes (the run's end, an error, the consumer closing it), interrupts that fiber and waits for its finalizers.
 *
 * The fiber is started with `Runtime.runFork`, which runs it at once, in the call, until it first waits: a run that
 * never waits (a scripted model, fast tools) has then buffered its events, up to the high-water mark, before the
 * first pull looks, and the consumer takes them without a single suspension. One stream layer, no scope: a
 * stream's fixed cost is that of several loop steps.
 */
export const streamOf = <E, R>(produce: (emitter: Emitter) => Effect.Effect<AgentResult, E, R>): Stream.Stream<AgentEvent, E, R> =>
  Stream.suspend(() => {
    const channel = make<E>()
    let fiber: Fiber.RuntimeFiber<void> | undefined
    const start: Effect.Effect<void, never, R> = Effect.suspend(() =>
      fiber !== undefined
        ? Effect.void
        : Effect.map(Effect.runtime<R>(), (runtime) => {
          // Interruptible whatever the consumer's region: closing the stream interrupts the run and waits for it.
          fiber = Runtime.runFork(runtime)(Effect.interruptible(Effect.flatMap(Effect.exit(produce(channel)), channel.end)))
        })
    )
    return Stream.repeatEffectChunkOption(Effect.zipRight(start, channel.pull)).pipe(
      // Stryker disable next-line ConditionalExpression: the finalizer runs only after a first pull, which starts the fiber first; the check guards an interruption between the two
      Stream.ensuring(Effect.suspend(() => (fiber === undefined ? Effect.void : Fiber.interrupt(fiber))))
    )
  })
