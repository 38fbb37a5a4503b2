/**
 * What the loop does when the model botches a function call (Gemini's `MALFORMED_FUNCTION_CALL`: a call whose
 * arguments could not be parsed, with no usable part). Asking again with the same request tends to get the same
 * mistake, so by default (`feedback`) the retry tells the model what went wrong, as a user turn at the end of the
 * retried request. That turn belongs to the retry only: the run's transcript keeps what the model answered, so a
 * saved or resumed conversation never carries it, and the retry counts against the retry policy like any other.
 */
import type { Request } from "../LanguageModel.js"
import type { ModelError } from "../ModelError.js"
import { isMalformedCall } from "../ModelError.js"
import * as Transcript from "../Transcript.js"
import * as Turn from "../Turn.js"

/**
 * `feedback` (default): retry with a note to the model saying its call was malformed and why; `retry`: retry the
 * same request; `fail`: the run fails at once with the `MalformedResponse`.
 */
export type Policy = "feedback" | "retry" | "fail"

/** The note the model is sent after a malformed call. */
export const note = (malformedCall: string): Turn.Turn =>
  Turn.user(
    `Your last function call was malformed and was not executed (${malformedCall}). Try again: call the function with ` +
      "arguments that are one valid JSON object matching its declared parameters, or answer in text."
  )

/** The request of the next attempt after `error`: `base` itself, or with the note when the policy gives feedback. */
export const nextRequest = (policy: Policy, base: Request, error: ModelError): Request | undefined =>
  policy === "feedback" && isMalformedCall(error) ? { ...base, transcript: Transcript.append(base.transcript, [note(error.malformedCall)]) } : undefined

/** Whether `error` is retried under `policy` (a malformed call is final under `fail`). */
export const retryable = (policy: Policy) => (error: ModelError): boolean => error.retryable && !(policy === "fail" && isMalformedCall(error))
