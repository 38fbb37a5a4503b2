/**
 * What @google/genai throws → the core ModelError taxonomy.
 *
 * The SDK's `ApiError` has only `status` and `message`, where `message` is the server's whole JSON error body
 * (or `got status: X. <json>` for an error inside a stream), so the body is decoded from it: `RetryInfo` gives
 * the retry delay, a per-day `QuotaFailure` means retrying is pointless, `ErrorInfo API_KEY_INVALID` is a bad key.
 */
import { ModelError } from "@agentfx/core"
import { ApiError } from "@google/genai"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import { transportError } from "../endpoint.js"
import * as json from "../json.js"
import { isPlainObject } from "../json.js"
import * as Wire from "./wire.js"

const decodeBody = json.parseWith(Wire.ErrorBody)

/** The google.rpc error inside an ApiError message, when there is one. */
export const errorBody = (message: string): Wire.ErrorBody | undefined => {
  const start = message.indexOf("{")
  // Stryker disable next-line ConditionalExpression,UnaryOperator: without a brace the slice from -1 is the last character, which never decodes as an error body either; the check says so plainly
  if (start === -1) return undefined
  return Either.getOrUndefined(decodeBody(message.slice(start)))
}

/** "7s", "0.5s", "1.200s" → a Duration. */
export const parseDelay = (text: unknown): Duration.Duration | undefined => {
  if (typeof text !== "string") return undefined
  const match = /^(\d+(?:\.\d+)?)s$/.exec(text.trim())
  return match === null ? undefined : Duration.millis(Math.round(Number(match[1]) * 1000))
}

const detailsOfType = (details: ReadonlyArray<unknown> | undefined, type: string): Array<Record<string, unknown>> =>
  // Stryker disable next-line ArrayDeclaration: any non-object element is filtered out just the same
  (details ?? []).filter(
    (detail): detail is Record<string, unknown> =>
      isPlainObject(detail) && typeof detail["@type"] === "string" && detail["@type"].endsWith(type)
  )

const retryDelayOf = (details: ReadonlyArray<unknown> | undefined): Duration.Duration | undefined =>
  detailsOfType(details, "google.rpc.RetryInfo").map((info) => parseDelay(info.retryDelay)).find((delay) => delay !== undefined)

/** A per-day quota does not clear until the day resets: retrying only burns requests. */
const isDailyQuota = (details: ReadonlyArray<unknown> | undefined): boolean =>
  detailsOfType(details, "google.rpc.QuotaFailure").some((failure) =>
    Array.isArray(failure.violations) &&
    failure.violations.some((violation: unknown) =>
      isPlainObject(violation) &&
      [violation.quotaId, violation.quotaMetric].some((id) => typeof id === "string" && /per_?day/i.test(id))
    )
  )

const isInvalidKey = (details: ReadonlyArray<unknown> | undefined, message: string): boolean =>
  detailsOfType(details, "google.rpc.ErrorInfo").some((info) => info.reason === "API_KEY_INVALID") ||
  /API key not valid/i.test(message)

/** An HTTP error status and its body → the taxonomy. */
export const fromStatus = (
  status: number,
  body: Wire.ErrorBody | undefined,
  fallback: string,
  scrub: (text: string) => string
): ModelError.ModelError => {
  const error = body?.error
  const text = error?.message ?? fallback
  const message = scrub(error?.status === undefined ? text : `${error.status}: ${text}`)
  const details = error?.details
  if (status === 429) {
    if (isDailyQuota(details)) return new ModelError.QuotaExhausted({ message, status })
    const retryAfter = retryDelayOf(details)
    return new ModelError.RateLimited({ message, status, ...(retryAfter === undefined ? {} : { retryAfter }) })
  }
  if (status === 401 || status === 403 || isInvalidKey(details, text)) return new ModelError.Unauthorized({ message, status })
  if (status === 503) {
    const retryAfter = retryDelayOf(details)
    return new ModelError.Overloaded({ message, status, ...(retryAfter === undefined ? {} : { retryAfter }) })
  }
  if (status === 408 || status === 499 || status >= 500) return new ModelError.Unavailable({ message, status })
  return new ModelError.InvalidRequest({ message, status })
}

/**
 * Anything the SDK threw (or rejected with) → a ModelError whose message holds no API key; `endpoint` (the base
 * URL) names where a connection failed.
 */
export const classify = (error: unknown, scrub: (text: string) => string, endpoint: string): ModelError.ModelError => {
  if (error instanceof ApiError) return fromStatus(error.status, errorBody(error.message), error.message, scrub)
  if (error instanceof Error) {
    if (error.name === "AbortError") return new ModelError.Unavailable({ message: "the request was aborted" })
    if (error instanceof SyntaxError || /Incomplete JSON segment|exception parsing stream chunk/.test(error.message)) {
      return new ModelError.MalformedResponse({ message: scrub(`the response could not be read: ${error.message}`) })
    }
    // undici: "fetch failed" (refused, reset) and "terminated" (the connection closed mid-body).
    if (error instanceof TypeError) return transportError(error, endpoint, scrub)
    // Anything else the SDK throws is its own validation of the request, before sending it.
    return new ModelError.InvalidRequest({ message: scrub(error.message) })
  }
  return new ModelError.Unavailable({ message: scrub(`the request failed: ${String(error)}`) })
}
