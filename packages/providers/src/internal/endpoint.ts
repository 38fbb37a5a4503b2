/**
 * The provider's endpoint: a base URL checked before anything is sent (an unparseable one, or one that is not
 * http(s), is a configuration mistake, never worth a retry), and transport failures worded with the endpoint and
 * the system's own code (ECONNREFUSED, ENOTFOUND, ECONNRESET, ...): undici hides them in the cause chain of a
 * bare "fetch failed", and the openai SDK one level deeper under "Connection error.".
 */
import { ModelError } from "@agentfx/core"
import * as BaseUrl from "@agentfx/core/HttpUrl"

/**
 * What is wrong with `url` as a provider's base URL, or `undefined` when it is usable. The URL is not quoted. A user
 * name or password in it is refused: fetch would refuse every request with an error that quotes the URL whole.
 */
export const baseUrlProblem = (url: string): string | undefined => {
  const problem = BaseUrl.check(url)
  if (problem === undefined) return BaseUrl.holdsCredentials(url) ? "the base URL holds a user name or password, which fetch refuses" : undefined
  return problem._tag === "Invalid" ? "the base URL is not a valid URL" : `the base URL is not http:// or https:// (its scheme is ${problem.scheme})`
}

/** A URL as errors show it: scheme, host and path; no credentials, no query (where tokens hide). */
export const displayUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    // A bare root ("/") loses its slash like any trailing one.
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/$/, "")}`
  } catch {
    return "(an invalid URL)"
  }
}

/** Codes that mean no connection was made: nothing reached the server. */
const connectCodes = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT", "UND_ERR_CONNECT_TIMEOUT", "EADDRNOTAVAIL"])

interface Found {
  readonly code: string | undefined
  readonly message: string | undefined
}

/** The innermost error of the cause chain that says something: its `code`, and its message. */
const innermost = (error: unknown): Found => {
  let code: string | undefined
  let message: string | undefined
  for (let current = error, depth = 0; current instanceof Error && depth < 8; depth++) {
    const own = (current as { code?: unknown }).code
    if (typeof own === "string") code = own
    if (current.message !== "" && !/^(fetch failed|Connection error\.)$/.test(current.message)) message = current.message
    current = (current as { cause?: unknown }).cause
  }
  return { code, message }
}

/**
 * A transport failure (no HTTP answer) as `Unavailable`, naming the endpoint and the cause:
 * "cannot connect to http://127.0.0.1:9: ECONNREFUSED", "the connection to https://host was lost: ECONNRESET".
 */
export const transportError = (error: unknown, endpoint: string, scrub: (text: string) => string): ModelError.Unavailable => {
  const { code, message } = innermost(error)
  const where = displayUrl(endpoint)
  const detail = code === undefined ? (message ?? "no details") : message === undefined || message.includes(code) ? code : `${code} (${message})`
  // Stryker disable next-line ConditionalExpression: `has(undefined)` is false, and `test` of undefined reads "undefined", which matches neither: the two guards state the cases
  const before = (code !== undefined && connectCodes.has(code)) || (code === undefined && message !== undefined && /bad port|unknown scheme/.test(message))
  return new ModelError.Unavailable({ message: scrub(before ? `cannot connect to ${where}: ${detail}` : `the connection to ${where} failed: ${detail}`) })
}
