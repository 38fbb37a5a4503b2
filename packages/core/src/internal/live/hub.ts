import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Take from "effect/Take"

/**
 * A broadcast of a session's events to any number of readers, ending once with the session. Publishing never
 * waits for readers (the driver must keep reading the socket whatever a UI does), so readers must keep up.
 */
export interface Hub<A, E> {
  readonly publish: (event: A) => Effect.Effect<void>
  /** Ends every stream, now and later: normally, or with the session's failure. Only the first call counts. */
  readonly end: (exit: Exit.Exit<unknown, E>) => Effect.Effect<void>
  /** The events from now on; subscribing after the end gives just the end. */
  readonly subscribe: Effect.Effect<Stream.Stream<A, E>, never, Scope.Scope>
}

export const make = <A, E>(): Effect.Effect<Hub<A, E>> =>
  Effect.gen(function* () {
    const pubsub = yield* PubSub.unbounded<Take.Take<A, E>>()
    // Ending and subscribing exclude each other, so a reader subscribes either before the end (and reads it) or
    // after it (and is handed it): none waits forever.
    const lock = yield* Effect.makeSemaphore(1)
    let last: Take.Take<A, E> | undefined
    return {
      // Stryker disable next-line ConditionalExpression: publishing after the end too (`true`) is equivalent: such an event is never read (a reader from before stops at the end's take, ahead of it in its queue; one from after is handed `last` alone), it is only buffered. Never publishing (`false`) is killed by any test that reads an event, but one comment disables both
      publish: (event) => (last === undefined ? Effect.asVoid(PubSub.publish(pubsub, Take.of(event))) : Effect.void),
      end: (exit) =>
        lock.withPermits(1)(
          Effect.suspend(() => {
            if (last !== undefined) return Effect.void
            const final: Take.Take<A, E> = Exit.isSuccess(exit) ? Take.end : Take.failCause(exit.cause)
            last = final
            return Effect.asVoid(PubSub.publish(pubsub, final))
          })
        ),
      subscribe: lock.withPermits(1)(
        Effect.suspend(() =>
          last !== undefined
            ? Effect.succeed(Stream.flattenTake(Stream.make(last)))
            : Effect.map(PubSub.subscribe(pubsub), (queue) => Stream.flattenTake(Stream.fromQueue(queue)))
        )
      )
    }
  })
