/**
 * Bounded waits for one model request: the whole request (`turn`), a stream's first part (`firstByte`), the
 * gap between two parts (`idle`) and, for a request of an agent run, the end of the run's time with the model
 * (`run`), each failing with a `ModelTimeout` that names the bound it hit.
 *
 * The request starts at once in a fiber of its own (`Runtime.runFork` starts a fiber synchronously). One that
 * completes without waiting — a scripted model, a replayed response — is done before any timer would matter, so
 * it costs no timer and no race. One that waits is watched by a single sleeping fiber that wakes at the nearest
 * deadline (a stream's watcher at least once per idle bound) and looks at the clock: parts only record when they
 * arrived, so an idle deadline is pushed back lazily, when the watcher wakes, never by a timer cleared and set per
 * part.
 */
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Runtime from "effect/Runtime"
import type { TimeoutLimit } from "../ModelError.js"
import { ModelTimeout } from "../ModelError.js"

/** The bounds on a request and a run; `connect` is a live connection's, which its provider keeps. */
type RequestLimit = Exclude<TimeoutLimit, "connect">

/** The bounds on one request; an infinite duration is no bound. */
export interface Limits {
  readonly turn: Duration.Duration
  /** Streams only: from the request to its first part. */
  readonly firstByte: Duration.Duration
  /** Streams only: from one part to the next. */
  readonly idle: Duration.Duration
}

/**
 * Where a run's time with the model ends (clock milliseconds; `Infinity`: no end) and how long that bound is. One
 * per run, its `ends` set before each model turn: the request reads it, nothing is allocated per request.
 */
export interface RunDeadline {
  ends: number
  readonly after: Duration.Duration
}

/** Called by a streamed request for each part it receives. */
export type OnPart = () => void

/**
 * A bound from an option: `input` decoded, or `fallback` when not given. Not longer than zero is a defect of the
 * caller (a `RangeError` naming the option).
 */
export const bound = (name: string, input: Duration.DurationInput | undefined, fallback: Duration.Duration): Duration.Duration => {
  const duration = input === undefined ? fallback : Duration.decode(input)
  if (Duration.lessThanOrEqualTo(duration, Duration.zero)) throw new RangeError(`${name} must be longer than 0, got ${Duration.format(duration)}`)
  return duration
}

/** What the watcher reads: when the request started, and when its latest part arrived (-1: none yet). */
interface Watch {
  readonly started: number
  lastPart: number
}

/** Effect's clock cannot hold a longer sleep (it would never wake); the watcher sleeps in pieces instead. */
// Stryker disable next-line ArithmeticOperator: only a real timer overflows; under TestClock any length wakes on time
const longestSleep = 2 ** 31 - 1

const nearest = (watch: Watch, limits: Limits, streamed: boolean, run: RunDeadline): { readonly at: number; readonly limit: RequestLimit } => {
  let at = watch.started + Duration.toMillis(limits.turn)
  let limit: RequestLimit = "turn"
  if (streamed) {
    const [since, bound, name]: [number, Duration.Duration, RequestLimit] =
      watch.lastPart < 0 ? [watch.started, limits.firstByte, "firstByte"] : [watch.lastPart, limits.idle, "idle"]
    const due = since + Duration.toMillis(bound)
    if (due < at) {
      at = due
      limit = name
    }
  }
  // The run's end is named when it falls due with another bound: that one would be retried, into no time at all.
  if (run.ends <= at) {
    at = run.ends
    limit = "run"
  }
  return { at, limit }
}

const boundOf = (limit: RequestLimit, limits: Limits, run: RunDeadline): Duration.Duration => {
  switch (limit) {
    case "turn":
      return limits.turn
    case "firstByte":
      return limits.firstByte
    case "idle":
      return limits.idle
    case "run":
      return run.after
  }
}

/**
 * Succeeds with the timeout once a deadline has passed; until then sleeps and looks again. It sleeps to the nearest
 * deadline, but never longer than the idle bound of a stream: a part that arrives meanwhile sets an idle deadline
 * that may come before the one it sleeps to, and no such deadline is sooner than `now + idle`.
 */
const watcher = (watch: Watch, limits: Limits, streamed: boolean, run: RunDeadline, clock: Clock.Clock, busy: () => boolean): Effect.Effect<ModelTimeout> => {
  const idle = streamed ? Duration.toMillis(limits.idle) : Infinity
  const look: Effect.Effect<ModelTimeout> = Effect.suspend(() => {
    const now = clock.unsafeCurrentTimeMillis()
    // While the caller's own work runs (a live session's tool calls) the model owes nothing: that time is not idle.
    // A call running means the model asked for it: a part arrived, even if the watch did not see it.
    if (busy()) watch.lastPart = now
    const { at, limit } = nearest(watch, limits, streamed, run)
    if (now >= at) return Effect.succeed(new ModelTimeout({ after: boundOf(limit, limits, run), limit }))
    const wait = Math.min(at - now, idle)
    // Stryker disable next-line ConditionalExpression: without a bound the watcher would wake every 24.8 days and sleep again, finding nothing
    return wait === Infinity ? Effect.never : Effect.zipRight(Effect.sleep(Duration.millis(Math.min(wait, longestSleep))), look)
  })
  return look
}

// Stryker disable next-line ArrowFunction: undefined is as false to the watcher
const never = () => false

/** No run around the request (a live session's turn). */
const endless: RunDeadline = { ends: Infinity, after: Duration.infinity }

/**
 * Runs `request` within `limits` (`streamed`: the first-byte and idle bounds apply too, and `request` calls its
 * `OnPart` for each part) and before `run` ends. `runtime` and `clock` are the run's, captured once. While `busy`
 * says so, the stream is not idle.
 */
export const within = <A, E>(
  runtime: Runtime.Runtime<never>,
  clock: Clock.Clock,
  limits: Limits,
  streamed: boolean,
  request: (onPart: OnPart) => Effect.Effect<A, E>,
  busy: () => boolean = never,
  run: RunDeadline = endless
): Effect.Effect<A, E | ModelTimeout> =>
  // Uninterruptible until the fibers it forks are in the finalizer's hands: an interruption in between would leave
  // them running.
  Effect.uninterruptibleMask((restore) =>
    Effect.suspend(() => {
      const watch: Watch = { started: clock.unsafeCurrentTimeMillis(), lastPart: -1 }
      const onPart = () => {
        watch.lastPart = clock.unsafeCurrentTimeMillis()
      }
      // Both fibers run interruptibly whatever `runtime` was captured with (a session opened in `acquireRelease`
      // keeps an uninterruptible one): the wait's end interrupts them and waits for them.
      const fiber = Runtime.runFork(runtime)(Effect.interruptible(request(onPart)))
      const done = fiber.unsafePoll()
      // Stryker disable next-line ConditionalExpression: a shortcut; watching a done fiber gives its exit too
      if (done !== null) return done
      // The request waits: a watcher fiber sleeps beside it, and whichever ends first resumes the caller (Effect
      // takes the first resume and ignores the other). Two observers and one fork, where a race would fork both
      // sides again.
      const watching = Runtime.runFork(runtime)(Effect.interruptible(watcher(watch, limits, streamed, run, clock, busy)))
      return restore(
        Effect.async<A, E | ModelTimeout>((resume) => {
          fiber.addObserver(resume)
          // A timeout, or a defect of the watcher's own; interrupted, it ended after the request did.
          watching.addObserver((exit) => resume(exit._tag === "Success" ? Effect.fail(exit.value) : Effect.failCause(exit.cause)))
        })
      ).pipe(
        // However the wait ends (the answer, a timeout, the caller interrupted), the watcher stops and the request
        // is interrupted and its finalizers have run before this returns: a timed-out stream has closed.
        Effect.ensuring(Effect.zipRight(Fiber.interrupt(watching), Fiber.interrupt(fiber)))
      )
    })
  )
