/**
 * The retry policy for model requests: exponential, jittered, capped, and never sooner than the provider's
 * `retryAfter`. Only errors whose `retryable` is true are retried, whatever the schedule says.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type { ModelError } from "./ModelError.js"
import { retryAfter } from "./ModelError.js"

export interface PolicyOptions {
  /** Retries after the first attempt (default 3). */
  readonly maxRetries?: number
  /** First delay (default 1 second), doubled each retry. */
  readonly base?: Duration.DurationInput
  /** Longest delay the backoff itself produces (default 30 seconds); a longer `retryAfter` still wins. */
  readonly cap?: Duration.DurationInput
}

/** A Schedule over model errors; its output is not used. */
export type Policy = Schedule.Schedule<unknown, ModelError>

export const policy = (options: PolicyOptions = {}): Policy => {
  const cap = Duration.decode(options.cap ?? "30 seconds")
  return Schedule.exponential(options.base ?? "1 second").pipe(
    Schedule.jittered,
    Schedule.modifyDelay((_, delay) => Duration.min(delay, cap)),
    Schedule.intersect(Schedule.recurs(options.maxRetries ?? 3)),
    Schedule.intersect(Schedule.identity<ModelError>()),
    Schedule.modifyDelay(([, error], delay) => {
      const wait = Option.match(retryAfter(error), { onNone: () => delay, onSome: (after) => Duration.max(delay, after) })
      // Jitter yields fractional milliseconds, which clocks that count whole milliseconds (TestClock) refuse.
      return Duration.millis(Math.ceil(Duration.toMillis(wait)))
    })
  )
}

/** The default policy: 3 retries, 1 s doubling, capped at 30 s. */
export const defaultPolicy: Policy = policy()

/** No retries. */
export const never: Policy = Schedule.stop
