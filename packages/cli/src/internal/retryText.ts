/**
 * How a failed model attempt that is retried reads on the terminal, the same for `run`, `chat` and `eval`: which
 * attempt comes next, of how many, and how long until it starts — `retrying (attempt 2/4, next in 3 s)` — after the
 * reason the attempt failed.
 */
import type { Agent } from "@agentfx/core"
import { ModelError } from "@agentfx/core"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import { escapeLines } from "./terminalText.js"

/**
 * A wait as a person counts it down: whole seconds, rounded up, so it never says 0 while there is a wait
 * (`3 s`, `1 min 30 s`, `2 min`; `0 s` for none).
 */
export const waitText = (millis: number): string => {
  const seconds = Math.max(0, Math.ceil(millis / 1000))
  if (seconds < 60) return `${seconds} s`
  const minutes = Math.floor(seconds / 60)
  const rest = seconds % 60
  return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`
}

/** `attempt 2/4` for the attempt after `failed` (`attempt 2` when the policy does not say how many it makes). */
export const nextAttemptText = (failed: Agent.AttemptFailed): string =>
  `attempt ${failed.attempt + 1}${failed.maxAttempts === undefined ? "" : `/${failed.maxAttempts}`}`

/**
 * `retrying (attempt 2/4, next in 3 s)`, `millis` before the next attempt; with `, as the provider asked` when the
 * provider said how long to wait.
 */
export const retryingText = (failed: Agent.AttemptFailed, millis: number): string => {
  const asked = Option.isSome(ModelError.retryAfter(failed.error)) ? ", as the provider asked" : ""
  return `retrying (${nextAttemptText(failed)}, next in ${waitText(millis)}${asked})`
}

/** Why the attempt failed: the error's tag and message, escaped for the terminal. */
export const reasonText = (failed: Agent.AttemptFailed): string => `${failed.error._tag}: ${escapeLines(failed.error.message)}`

/** The whole line for a retried attempt, when it failed: the reason, then `retrying (...)` with the wait announced. */
export const failedText = (failed: Agent.AttemptFailed): string =>
  `the model request failed — ${reasonText(failed)}; ${retryingText(failed, Duration.toMillis(failed.retryIn ?? Duration.zero))}`
