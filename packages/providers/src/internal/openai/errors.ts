/**
 * What the openai SDK throws → the core ModelError taxonomy, GLM business codes included:
 * 1113 (no balance, sent with HTTP 429) and 1308–1313 (plan quota, expiry, fair use) are not retryable;
 * 1302 / 1303 (concurrency, frequency) are rate limits; 1305 is an overloaded service.
 */
import { ModelError } from "@agentfx/core"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai"
import { transportError } from "../endpoint.js"
import * as Wire from "./wire.js"

/** `retry-after-ms` (milliseconds), else `retry-after` (seconds or an HTTP date). */
export const retryAfterOf = (headers: { get(name: string): string | null } | undefined, now = Date.now()): Duration.Duration | undefined => {
  const ms = headers?.get("retry-after-ms")
  if (ms !== null && ms !== undefined && ms.trim() !== "" && Number.isFinite(Number(ms)) && Number(ms) >= 0) {
    return Duration.millis(Number(ms))
  }
  const after = headers?.get("retry-after")
  if (after === null || after === undefined || after.trim() === "") return undefined
  const seconds = Number(after)
  // A number is seconds: a negative one is no delay (Date.parse would read "-3" as the year 3 BC).
  if (Number.isFinite(seconds)) return seconds >= 0 ? Duration.millis(seconds * 1000) : undefined
  const date = Date.parse(after)
  return Number.isNaN(date) ? undefined : Duration.millis(Math.max(0, date - now))
}

type Kind = "quota" | "rate" | "overloaded" | "auth" | "blocked" | "invalid" | "unavailable"

/** GLM (Z.AI) business codes and OpenAI error codes whose meaning does not follow from the HTTP status. */
const kindOfCode = (code: string | undefined): Kind | undefined => {
  // Stryker disable next-line ConditionalExpression: without it, undefined would match none of the codes below all the same
  if (code === undefined) return undefined
  if (/^\d+$/.test(code)) {
    const n = Number(code)
    if (n === 1113 || (n >= 1308 && n <= 1313)) return "quota"
    if (n === 1302 || n === 1303) return "rate"
    if (n === 1305) return "overloaded"
    if ((n >= 1000 && n <= 1004) || n === 1220) return "auth"
    if (n === 1300 || n === 1301) return "blocked"
    if (n === 1230 || n === 1234) return "unavailable"
    if (n >= 1210 && n <= 1231) return "invalid"
    return undefined
  }
  if (code === "insufficient_quota" || code === "billing_hard_limit_reached") return "quota"
  if (code === "rate_limit_exceeded") return "rate"
  if (code === "invalid_api_key" || code === "invalid_organization") return "auth"
  if (code === "content_filter" || code === "content_policy_violation") return "blocked"
  return undefined
}

const kindOfStatus = (status: number | undefined): Kind => {
  if (status === undefined) return "unavailable"
  if (status === 429) return "rate"
  if (status === 401 || status === 403) return "auth"
  if (status === 503 || status === 529) return "overloaded"
  if (status === 408 || status >= 500) return "unavailable"
  return "invalid"
}

/** An error body (status may be undefined: an error event inside a stream) → the taxonomy. */
export const fromError = (
  status: number | undefined,
  error: Wire.ErrorObject | undefined,
  headers: { get(name: string): string | null } | undefined,
  fallback: string,
  scrub: (text: string) => string
): ModelError.ModelError => {
  const code = error?.code === undefined || error.code === null ? undefined : String(error.code)
  const text = error?.message ?? fallback
  const message = scrub(code === undefined ? text : `${code}: ${text}`)
  const base = status === undefined ? { message } : { message, status }
  switch (kindOfCode(code) ?? kindOfStatus(status)) {
    case "quota":
      return new ModelError.QuotaExhausted(base)
    case "rate": {
      const retryAfter = retryAfterOf(headers)
      return new ModelError.RateLimited({ ...base, ...(retryAfter === undefined ? {} : { retryAfter }) })
    }
    case "overloaded": {
      const retryAfter = retryAfterOf(headers)
      return new ModelError.Overloaded({ ...base, ...(retryAfter === undefined ? {} : { retryAfter }) })
    }
    case "auth":
      return new ModelError.Unauthorized(base)
    case "blocked":
      return new ModelError.Blocked(base)
    case "invalid":
      return new ModelError.InvalidRequest(base)
    case "unavailable":
      return new ModelError.Unavailable(base)
  }
}

/** Anything the SDK threw → a ModelError whose message holds no API key; `endpoint` names where a connection failed. */
export const classify = (error: unknown, scrub: (text: string) => string, endpoint: string): ModelError.ModelError => {
  if (error instanceof APIUserAbortError) return new ModelError.Unavailable({ message: "the request was aborted" })
  if (error instanceof APIConnectionTimeoutError) return new ModelError.Unavailable({ message: "the request timed out" })
  if (error instanceof APIConnectionError) return transportError(error, endpoint, scrub)
  if (error instanceof APIError) {
    const body = Either.getOrUndefined(Wire.decodeErrorObject(error.error))
    return fromError(error.status, body, error.headers, error.message, scrub)
  }
  if (error instanceof Error) {
    if (error instanceof SyntaxError) return new ModelError.MalformedResponse({ message: scrub(`the response could not be read: ${error.message}`) })
    // undici: "terminated" when the connection closes mid-body.
    if (error instanceof TypeError) return transportError(error, endpoint, scrub)
    return new ModelError.InvalidRequest({ message: scrub(error.message) })
  }
  return new ModelError.Unavailable({ message: scrub(`the request failed: ${String(error)}`) })
}
