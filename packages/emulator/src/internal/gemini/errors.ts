/**
 * Gemini's error replies: the google.rpc envelope, the statuses' names and default texts, and the exact texts the
 * real API answers its best-known refusals with (ai.google.dev, and the issues quoted in the protocol notes).
 */
import * as Duration from "effect/Duration"
import type * as Fault from "../../Fault.js"

const rpcStatus = (status: number): string =>
  ({ 400: "INVALID_ARGUMENT", 413: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 408: "DEADLINE_EXCEEDED", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED" })[status] ?? "UNKNOWN"

export const defaultMessage = (status: number): string =>
  ({
    400: "Request contains an invalid argument.",
    401: "Request had invalid authentication credentials.",
    403: "The caller does not have permission",
    404: "Requested entity was not found.",
    429: "Resource has been exhausted (e.g. check quota).",
    500: "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
    503: "The model is overloaded. Please try again later.",
    504: "The request timed out. Please try again."
  })[status] ?? "Unknown error."

export const envelope = (status: number, message: string, details?: ReadonlyArray<unknown>) => ({
  error: { code: status, message, status: rpcStatus(status), ...(details === undefined ? {} : { details }) }
})

// The real API's texts (ai.google.dev, and the issues quoted in the protocol notes).
export const messages = {
  missingKey:
    "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
  invalidKey: "API key not valid. Please pass a valid API key.",
  invalidArgument: "Request contains an invalid argument.",
  role: "Please use a valid role: user, model.",
  callOrder: "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
  responseOrder: "Please ensure that function response turn comes immediately after a function call turn.",
  responseCount: "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
  missingSignature: (name: string, position: number) =>
    `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${position}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
  corruptedSignature: "Corrupted thought signature.",
  /** Gemini 2.x with function declarations and a JSON response (PROTOCOLS.md, "Typed final output"). */
  jsonModeWithTools: "Function calling with a response mime type: 'application/json' is unsupported",
  // The next three are worded after the API's field errors: no capture of their exact text is at hand.
  schemasExclusive: "* GenerateContentRequest.generation_config: response_schema and response_json_schema are mutually exclusive.\n",
  mimeType:
    "* GenerateContentRequest.generation_config.response_mime_type: allowed mimetypes are `text/plain`, `application/json`, `application/xml`, `application/yaml` and `text/x.enum`.\n",
  schemaNeedsJson: (field: string) =>
    `* GenerateContentRequest.generation_config.response_mime_type: When ${field} is set, response_mime_type must be application/json.\n`
} as const

export const invalidKeyBody = envelope(400, messages.invalidKey, [
  { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com", metadata: { service: "generativelanguage.googleapis.com" } }
])

const delayText = (delay: Duration.Duration): string => `${Number((Duration.toMillis(delay) / 1000).toFixed(3))}s`

const quotaFailure = (quotaId: string, model: string) => ({
  "@type": "type.googleapis.com/google.rpc.QuotaFailure",
  violations: [
    {
      quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
      quotaId,
      quotaDimensions: { location: "global", model },
      quotaValue: "10"
    }
  ]
})

/** The status, body and headers Gemini would send for an answer fault (`undefined` for a stall or a drop). */
export const errorOf = (fault: Fault.AnswerFault, model: string): { status: number; body: unknown; headers?: Readonly<Record<string, string>> } | undefined => {
  switch (fault._tag) {
    case "Status":
      return { status: fault.status, body: fault.body ?? envelope(fault.status, fault.message ?? defaultMessage(fault.status)), headers: fault.headers }
    case "RateLimited":
      return {
        status: 429,
        body: envelope(429, "You exceeded your current quota, please check your plan and billing details.", [
          quotaFailure("GenerateRequestsPerMinutePerProjectPerModel-FreeTier", model),
          ...(fault.retryAfter === undefined ? [] : [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: delayText(fault.retryAfter) }])
        ])
      }
    case "QuotaExhausted":
      // Google sends a RetryInfo with a per-day quota too; retrying after it is still pointless.
      return {
        status: 429,
        body: envelope(429, "You exceeded your current quota, please check your plan and billing details.", [
          quotaFailure("GenerateRequestsPerDayPerProjectPerModel-FreeTier", model),
          { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "30s" }
        ])
      }
    case "Overloaded":
      return { status: 503, body: envelope(503, "The model is overloaded. Please try again later.") }
    case "Unauthorized":
      return { status: 400, body: invalidKeyBody }
    case "GlmCode":
      return { status: fault.status, body: envelope(fault.status, fault.message) }
    case "Close":
      return { status: 500, body: envelope(500, fault.reason) }
  }
  // A stall or a disconnect sends nothing; the compiler checks they are the only faults left here.
  fault._tag satisfies "Stall" | "Disconnect"
  return undefined
}

