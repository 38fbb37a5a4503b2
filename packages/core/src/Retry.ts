/**
 * The retry policy for model requests: exponential, jittered, capped, and never sooner than the provider's
 * `retryAfter` — unless the provider asks for more than `maxHint`, which is then not a wait but the run's failure
 * (the error carries the hint). Only errors whose `retryable` is true are retried, whatever the schedule says.
 *
 * @example
 * ```ts
 * import { Agent, Registry, Retry } from "@agentfx/core"
 *
 * const run = Agent.run({ registry: Registry.empty, prompt: "Hi", retry: Retry.policy({ maxRetries: 5, maxHint: "2 minutes" }) })
 * ```
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as ScheduleDecision from "effect/ScheduleDecision"
import * as ScheduleIntervals from "effect/ScheduleIntervals"
import type { ModelError } from "./ModelError.js"
import { retryAfter } from "./ModelError.js"

/**
 * The options of `policy`.
 *
 * @since 0.1.0
 * @category models
 */
export interface PolicyOptions {
  /** Retries after the first attempt (default 3). */
  readonly maxRetries?: number
  /** First delay (default 1 second), doubled each retry. */
  readonly base?: Duration.DurationInput
  /** Longest delay the backoff itself produces (default 30 seconds); a longer `retryAfter` still wins. */
  readonly cap?: Duration.DurationInput
  /**
   * The longest `retryAfter` (HTTP `retry-after`, Gemini `RetryInfo`) that is obeyed (default 60 seconds). A
   * provider that asks for more is not waited for: the run fails at once with its error, which carries the hint.
   * At most 24 days (the longest delay a timer can hold).
   */
  readonly maxHint?: Duration.DurationInput
}

/**
 * A Schedule over model errors; its output is not used.
 *
 * @since 0.1.0
 * @category models
 */
export type Policy = Schedule.Schedule<unknown, ModelError>

/**
 * The default `maxHint`: 60 seconds.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultMaxHint: Duration.Duration = Duration.seconds(60)

/** Timers hold at most 2^31 - 1 ms; a longer delay would fire at once (Node) or never (Effect's clock). */
const longestTimer = Duration.millis(2 ** 31 - 1)

const durationOption = (name: string, input: Duration.DurationInput): Duration.Duration => {
  const duration = Duration.decode(input)
  if (Duration.greaterThan(duration, longestTimer)) {
    throw new RangeError(`Retry.policy: ${name} must be at most ${Duration.format(longestTimer)}, got ${Duration.format(duration)}`)
  }
  return duration
}

/** The most attempts of each policy that says (those `policy` built, and `never`). */
const attemptsOf = new WeakMap<Policy, number>()

const counted = (policy: Policy, attempts: number): Policy => {
  attemptsOf.set(policy, attempts)
  return policy
}

/**
 * A retry policy: exponential backoff from `base`, jittered, capped at `cap`, at most `maxRetries` retries, each
 * waiting at least the provider's `retryAfter` — up to `maxHint`; an error asking for longer ends the retries.
 * Throws a `RangeError` for a `cap` or `maxHint` longer than a timer can hold.
 *
 * @example
 * ```ts
 * import { Retry } from "@agentfx/core"
 *
 * const patient = Retry.policy({ maxRetries: 6, base: "2 seconds", cap: "1 minute", maxHint: "5 minutes" })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const policy = (options: PolicyOptions = {}): Policy => {
  const cap = durationOption("cap", options.cap ?? "30 seconds")
  const maxHint = durationOption("maxHint", options.maxHint ?? defaultMaxHint)
  const maxRetries = options.maxRetries ?? 3
  const made = Schedule.exponential(options.base ?? "1 second").pipe(
    Schedule.jittered,
    Schedule.modifyDelay((_, delay) => Duration.min(delay, cap)),
    Schedule.intersect(Schedule.recurs(maxRetries)),
    Schedule.intersect(
      Schedule.recurWhile<ModelError>((error) =>
        Option.match(retryAfter(error), { onNone: () => true, onSome: (hint) => Duration.lessThanOrEqualTo(hint, maxHint) })
      )
    ),
    Schedule.intersect(Schedule.identity<ModelError>()),
    Schedule.modifyDelay(([, error], delay) => {
      const wait = Option.match(retryAfter(error), { onNone: () => delay, onSome: (after) => Duration.max(delay, after) })
      // Jitter yields fractional milliseconds, which clocks that count whole milliseconds (TestClock) refuse.
      return Duration.millis(Math.ceil(Duration.toMillis(wait)))
    })
  )
  return counted(made, maxRetries + 1)
}

/**
 * The most attempts `policy` allows, the first included: `maxRetries + 1` for a policy `policy` built, 1 for
 * `never`, undefined for any other Schedule (it does not say). What a status line shows as "attempt 2/4".
 *
 * @example
 * ```ts
 * import { Retry } from "@agentfx/core"
 *
 * const attempts = Retry.maxAttempts(Retry.defaultPolicy) // 4: the first and 3 retries
 * ```
 *
 * @since 0.2.0
 * @category getters
 */
export const maxAttempts = (policy: Policy): number | undefined => attemptsOf.get(policy)

/**
 * The default policy: 3 retries, 1 s doubling, capped at 30 s, provider hints obeyed up to 60 s.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultPolicy: Policy = policy()

/**
 * No retries.
 *
 * @since 0.1.0
 * @category constants
 */
export const never: Policy = counted(Schedule.stop, 1)

const isRetryable = (error: ModelError): boolean => error.retryable

/**
 * A failed attempt, as `retrying` tells it: which attempt it was, and how long the wait before the next one is.
 *
 * @since 0.2.0
 * @category models
 */
export interface FailedAttempt {
  /** The attempt that failed, from 1 (the first request is attempt 1). */
  readonly attempt: number
  /** The wait before the next attempt; undefined when none follows. */
  readonly retryIn: Duration.Duration | undefined
}

/**
 * `attempt`, retried on retryable errors as `policy` schedules; the last error once the policy gives up, or at
 * once for an error that is not retryable. Same as `Effect.retry` with a `while`, but the schedule is only started
 * after a first failure: most model requests succeed, and starting a schedule costs more than the rest of a loop
 * step. Each wait is an interruptible sleep: interrupting the retries ends them at once.
 *
 * @example
 * ```ts
 * import { LanguageModel, Retry, Turn } from "@agentfx/core"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const model = yield* LanguageModel.LanguageModel
 *   const request: LanguageModel.Request = { transcript: [Turn.user("Hi")], declarations: [] }
 *   return yield* Retry.retrying(model.generate(request), Retry.defaultPolicy)
 * })
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const retrying = <A, R>(
  attempt: Effect.Effect<A, ModelError, R>,
  policy: Policy,
  /** Which errors are retried (default: those whose `retryable` is true). */
  retryable: (error: ModelError) => boolean = isRetryable,
  /**
   * Told of each failed attempt once it is decided whether another follows (`willRetry`, and the wait in
   * `failed.retryIn`), before any wait: false for an error that is not retried and for the last attempt, whose error
   * is the result.
   */
  onFailure?: (error: ModelError, willRetry: boolean, failed: FailedAttempt) => Effect.Effect<void>,
  /**
   * The clock time (milliseconds, Effect's `Clock`) by which a retry must have started: one whose wait ends then or
   * later is not made, and the error that called for it is the result (as for a hint over `maxHint`). Default: none.
   */
  until: number = Infinity
): Effect.Effect<A, ModelError, R> => {
  const told = (error: ModelError, failed: FailedAttempt): Effect.Effect<void> =>
    onFailure === undefined ? Effect.void : onFailure(error, failed.retryIn !== undefined, failed)
  const stop = (error: ModelError, attempt: number) => Effect.zipRight(told(error, { attempt, retryIn: undefined }), Effect.fail(error))
  return Effect.catchAll(attempt, (first) => {
    if (!retryable(first)) return stop(first, 1)
    // The schedule is stepped here rather than through a driver: the wait is known, and told, before it is slept.
    let state: unknown = policy.initial
    const again = (error: ModelError, failed: number): Effect.Effect<A, ModelError, R> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.flatMap(Effect.suspend(() => policy.step(now, error, state)), ([next, , decision]) => {
          state = next
          if (ScheduleDecision.isDone(decision)) return stop(error, failed)
          const wait = Math.max(0, ScheduleIntervals.start(decision.intervals) - now)
          if (now + wait >= until) return stop(error, failed)
          const retryIn = Duration.millis(wait)
          return told(error, { attempt: failed, retryIn }).pipe(
            Effect.zipRight(wait === 0 ? Effect.void : Effect.sleep(retryIn)),
            Effect.zipRight(Effect.catchAll(attempt, (next) => (retryable(next) ? again(next, failed + 1) : stop(next, failed + 1))))
          )
        })
      )
    return again(first, 1)
  })
}
