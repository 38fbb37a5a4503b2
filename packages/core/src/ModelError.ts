/**
 * The one error taxonomy every provider maps into. Each error knows whether retrying can help; the agent loop's
 * retry policy reads `retryable` and `retryAfter` and nothing provider-specific.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

const common = {
  /** What the provider said, without secrets. */
  message: Schema.String,
  /** HTTP status (or WebSocket close code) when there was one. */
  status: Schema.optional(Schema.Number)
}

/**
 * Too many requests for now; retry after `retryAfter` when the provider said how long.
 *
 * @since 0.1.0
 * @category errors
 */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  ...common,
  retryAfter: Schema.optional(Schema.DurationFromMillis)
}) {
  get retryable(): boolean {
    return true
  }
}

/**
 * A quota that will not clear soon (per-day quota, no balance, plan expired): retrying wastes requests.
 *
 * @since 0.1.0
 * @category errors
 */
export class QuotaExhausted extends Schema.TaggedError<QuotaExhausted>()("QuotaExhausted", common) {
  get retryable(): boolean {
    return false
  }
}

/**
 * The model is overloaded (503 and friends).
 *
 * @since 0.1.0
 * @category errors
 */
export class Overloaded extends Schema.TaggedError<Overloaded>()("Overloaded", {
  ...common,
  retryAfter: Schema.optional(Schema.DurationFromMillis)
}) {
  get retryable(): boolean {
    return true
  }
}

/**
 * The transport failed: connection refused or dropped, a stream cut mid-way, a server error.
 *
 * @since 0.1.0
 * @category errors
 */
export class Unavailable extends Schema.TaggedError<Unavailable>()("Unavailable", common) {
  get retryable(): boolean {
    return true
  }
}

/**
 * The provider refused the request as malformed (400): the same request will fail again.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", common) {
  get retryable(): boolean {
    return false
  }
}

/**
 * The API key is missing, wrong or lacks permission.
 *
 * @since 0.1.0
 * @category errors
 */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", common) {
  get retryable(): boolean {
    return false
  }
}

/**
 * The prompt or the answer was blocked (safety, policy).
 *
 * @since 0.1.0
 * @category errors
 */
export class Blocked extends Schema.TaggedError<Blocked>()("Blocked", common) {
  get retryable(): boolean {
    return false
  }
}

/**
 * Which bound on waiting for the model was hit: `turn`, the whole request (streamed or not); `firstByte`, the wait
 * for a stream's first part; `idle`, the wait between two parts of a stream; `connect`, the wait for a live
 * connection's setup to complete; `run`, all the time a run has waited on the model, every request and retry wait of
 * every turn (`Agent.Options.runTimeout`).
 *
 * @since 0.2.0
 * @category models
 */
export const TimeoutLimit = Schema.Literal("turn", "firstByte", "idle", "connect", "run")

/**
 * @since 0.2.0
 * @category models
 */
export type TimeoutLimit = typeof TimeoutLimit.Type

/**
 * The model did not answer in time: `limit` says which bound was hit (absent: the whole turn), `after` how long
 * that bound is. Retryable, except at the `run` bound: the run has used all its time, and a retry would have none.
 *
 * @since 0.1.0
 * @category errors
 */
export class ModelTimeout extends Schema.TaggedError<ModelTimeout>()("ModelTimeout", {
  after: Schema.DurationFromMillis,
  limit: Schema.optional(TimeoutLimit)
}) {
  override get message(): string {
    const after = Duration.format(this.after)
    switch (this.limit) {
      case "firstByte":
        return `the model sent nothing within ${after} (firstByteTimeout)`
      case "idle":
        return `the model's stream stalled: nothing for ${after} (idleTimeout)`
      case "connect":
        return `the live connection was not set up within ${after} (connectTimeout)`
      case "run":
        return `the run has waited ${after} on the model in all, its limit (runTimeout)`
      default:
        return `the model did not finish its answer within ${after} (turnTimeout)`
    }
  }
  get retryable(): boolean {
    return this.limit !== "run"
  }
}

/**
 * The provider's answer could not be understood (bad JSON, a malformed function call). `malformedCall` is set when
 * the model tried to call a function and produced something unusable (Gemini's `MALFORMED_FUNCTION_CALL`): the
 * provider's words for it, which the loop can show the model (see `Agent.Options.onMalformedCall`).
 *
 * @since 0.1.0
 * @category errors
 */
export class MalformedResponse extends Schema.TaggedError<MalformedResponse>()("MalformedResponse", {
  ...common,
  malformedCall: Schema.optional(Schema.String),
  /** Every problem a decoder found in the answer, one a line (the message names the one that matters), for `--verbose`. */
  details: Schema.optional(Schema.String)
}) {
  get retryable(): boolean {
    return true
  }
}

/**
 * The schema of every model error (serialisable, e.g. in a saved transcript or an eval report).
 *
 * @since 0.1.0
 */
export const ModelError = Schema.Union(
  RateLimited,
  QuotaExhausted,
  Overloaded,
  Unavailable,
  InvalidRequest,
  Unauthorized,
  Blocked,
  ModelTimeout,
  MalformedResponse
)
/**
 * Why a model request failed; each error says whether it is `retryable`.
 *
 * @example
 * ```ts
 * import { Agent, Registry } from "@agentfx/core"
 * import { Console, Effect } from "effect"
 *
 * const program = Agent.run({ registry: Registry.empty, prompt: "Hi" }).pipe(
 *   Effect.catchTag("RateLimited", (error) => Console.log(`still rate-limited after the retries: ${error.message}`))
 * )
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type ModelError = typeof ModelError.Type

/**
 * How long the provider asked us to wait, if it did.
 *
 * @since 0.1.0
 */
export const retryAfter = (error: ModelError): Option.Option<Duration.Duration> =>
  // Stryker disable next-line ConditionalExpression: the other errors have no retryAfter to find
  (error._tag === "RateLimited" || error._tag === "Overloaded") && error.retryAfter !== undefined
    ? Option.some(error.retryAfter)
    : Option.none()

/**
 * Whether `error` is a function call the model got wrong (a `MalformedResponse` with `malformedCall`).
 *
 * @since 0.2.0
 * @category guards
 */
export const isMalformedCall = (error: ModelError): error is MalformedResponse & { readonly malformedCall: string } =>
  // Stryker disable next-line ConditionalExpression: the other errors have no malformedCall to find
  error._tag === "MalformedResponse" && error.malformedCall !== undefined

/**
 * Whether a value is one of the model errors.
 *
 * @since 0.1.0
 */
export const isModelError = Schema.is(ModelError)
