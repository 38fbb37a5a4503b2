/**
 * A scheduler that yields at every step and runs a fiber's steps only when the test says so: a fiber started
 * with it (`Effect.runFork(effect, { scheduler })`) can be stopped between any two of its operations, and
 * something else done there. Effect may yield between any two operations of a fiber (after `maxOpsBeforeYield` of them); code that
 * looks at shared state in one operation and registers a wake-up in the next must not lose a wake-up given in
 * between, and a test that tries every step finds one that does.
 */
import * as Effect from "effect/Effect"
import type * as Scheduler from "effect/Scheduler"

export interface Manual {
  readonly scheduler: Scheduler.Scheduler
  /** Runs the next step; false when there is none. */
  readonly step: () => boolean
  /** Runs steps until there are none (at most `limit`). */
  readonly drain: (limit?: number) => void
}

/**
 * A resumed fiber runs about nine operations of Effect's own before one of its own; it yields at its eleventh, so
 * after about one of its own (at ten or fewer it would yield again before any, forever).
 */
const every = 11

export const make = (): Manual => {
  const tasks: Array<() => void> = []
  const step = () => {
    const task = tasks.shift()
    task?.()
    return task !== undefined
  }
  return {
    scheduler: { shouldYield: (fiber) => (fiber.currentOpCount >= every ? 0 : false), scheduleTask: (task) => void tasks.push(task) },
    step,
    drain: (limit = 10_000) => {
      for (let i = 0; i < limit && step(); i++);
    }
  }
}

/** `effect` after `n` operations that do nothing: where the yields fall in `effect` moves with `n`. */
export const after = <A, E>(n: number, effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  n === 0 ? effect : Effect.flatMap(Effect.void, () => after(n - 1, effect))
