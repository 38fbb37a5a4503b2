/**
 * The chat-completions servers' error replies: GLM's `{error: {code, message}}` business codes (as strings) with
 * their HTTP statuses, OpenAI's `{error: {message, type, param, code}}`, and the `retry-after` headers of a 429.
 */
import * as Duration from "effect/Duration"
import type * as Fault from "../../Fault.js"
import type { Flavour } from "./wire.js"

export const glmError = (code: string, message: string) => ({ error: { code, message } })

export const openAIError = (message: string, type: string, code: string | null, param: string | null = null) => ({
  error: { message, type, param, code }
})

/** The plain error body of an HTTP status in the route's words: GLM's code is the status, OpenAI's type its class. */
export const statusError = (status: number, message: string, flavour: Flavour) =>
  flavour === "glm" ? glmError(String(status), message) : openAIError(message, status >= 500 ? "server_error" : "invalid_request_error", null)

/** OpenAI shows a masked key in its error; the emulator does the same (never the whole key). */
export const masked = (key: string): string => (key.length <= 8 ? "***" : `${key.slice(0, 3)}***${key.slice(-4)}`)

const retryHeaders = (retryAfter: Duration.Duration | undefined): Record<string, string> =>
  retryAfter === undefined
    ? {}
    : { "retry-after": String(Math.ceil(Duration.toMillis(retryAfter) / 1000)), "retry-after-ms": String(Duration.toMillis(retryAfter)) }

/** The status, body and headers the server would send for an answer fault (`undefined` for a stall or a drop). */
export const errorOf = (
  fault: Fault.AnswerFault,
  flavour: Flavour
): { status: number; body: unknown; headers?: Readonly<Record<string, string>> } | undefined => {
  const glm = flavour === "glm"
  switch (fault._tag) {
    case "Status":
      return { status: fault.status, body: fault.body ?? statusError(fault.status, fault.message ?? "error", flavour), headers: fault.headers }
    case "RateLimited":
      return glm
        ? { status: 429, body: glmError("1302", "High concurrency usage of this API, please reduce concurrency or contact customer service to increase limits"), headers: retryHeaders(fault.retryAfter) }
        : { status: 429, body: openAIError("Rate limit reached for requests", "requests", "rate_limit_exceeded"), headers: retryHeaders(fault.retryAfter) }
    case "QuotaExhausted":
      return glm
        ? { status: 429, body: glmError("1113", "余额不足或无可用资源包,请充值。") }
        : { status: 429, body: openAIError("You exceeded your current quota, please check your plan and billing details.", "insufficient_quota", "insufficient_quota") }
    case "Overloaded":
      return glm
        ? { status: 503, body: glmError("1305", "The service may be temporarily overloaded, please try again later") }
        : { status: 503, body: openAIError("The server is overloaded or not ready yet.", "server_error", null) }
    case "Unauthorized":
      return glm
        ? { status: 401, body: glmError("1002", "Authorization Token非法，请确认Authorization Token正确传递。") }
        : { status: 401, body: openAIError("Incorrect API key provided.", "invalid_request_error", "invalid_api_key") }
    case "GlmCode":
      return { status: fault.status, body: glmError(fault.code, fault.message) }
    case "Close":
      return { status: 500, body: statusError(500, fault.reason, flavour) }
  }
  // A stall or a disconnect sends nothing; the compiler checks they are the only faults left here.
  fault._tag satisfies "Stall" | "Disconnect"
  return undefined
}

