/**
 * The emulator's chat-completions side: `POST {base}/chat/completions`, plain and `stream: true`, under any base
 * path. Routes under `/paas/` (`/api/paas/v4`, `/api/coding/paas/v4`) answer like GLM (string business codes,
 * `reasoning_content`, `request_id`), the others like OpenAI. Strict like both: the bearer key, message roles,
 * and an assistant message's `tool_calls` answered by tool messages right after it, each id exactly once.
 * Streams end with `data: [DONE]` and then the response closes.
 */
import type { ModelError } from "@agentfx/core"
import { Turn } from "@agentfx/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Fault from "../../emulator/Fault.js"
import type * as Policy from "../../emulator/Policy.js"
import * as jsonText from "../json.js"
import { isPlainObject } from "../json.js"
import * as codec from "../openai/codec.js"
import * as Wire from "../openai/wire.js"
import type { Answer, Decision } from "./answer.js"
import { breakArguments, faultOfError, has, pieces, policyRequest, streamStop } from "./answer.js"
import type { Exchange } from "./exchange.js"
import * as respond from "./exchange.js"

export interface Context {
  readonly apiKey: string
  readonly frameDelay: number
  readonly decide: (request: Policy.Request) => Effect.Effect<Decision>
}

export const route = /\/chat\/completions$/

type Flavour = "glm" | "openai"

const glmError = (code: string, message: string) => ({ error: { code, message } })

const openAIError = (message: string, type: string, code: string | null, param: string | null = null) => ({
  error: { message, type, param, code }
})

/** OpenAI shows a masked key in its error; the emulator does the same (never the whole key). */
const masked = (key: string): string => (key.length <= 8 ? "***" : `${key.slice(0, 3)}***${key.slice(-4)}`)

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
      return {
        status: fault.status,
        body:
          fault.body ??
          (glm
            ? glmError(String(fault.status), fault.message ?? "error")
            : openAIError(fault.message ?? "error", fault.status >= 500 ? "server_error" : "invalid_request_error", null)),
        headers: fault.headers
      }
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
    case "Stall":
    case "Disconnect":
      return undefined
  }
}

// ---------------------------------------------------------------------------------------------------------------
// the server's rules

const functionName = /^[a-zA-Z0-9_-]{1,64}$/
const roles = new Set(["system", "developer", "user", "assistant", "tool"])

/** The 400 the server would answer this body with: the message and (OpenAI) the offending parameter. */
export const violation = (body: Wire.Request, flavour: Flavour): { message: string; param: string | null } | undefined => {
  const glm = flavour === "glm"
  const fail = (message: string, param: string | null = null) => ({ message, param })
  if (body.messages.length === 0) return fail(glm ? "messages 参数非法。请检查文档。" : "[] is too short - 'messages'", "messages")
  const tools = body.tools ?? []
  if (tools.length > 128) return fail(`Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length ${tools.length} instead.`, "tools")
  for (let t = 0; t < tools.length; t++) {
    const tool = tools[t]!
    if (tool.type === "function") {
      if (tool.function === undefined || !functionName.test(tool.function.name)) {
        return fail(
          `Invalid 'tools[${t}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
          `tools[${t}].function.name`
        )
      }
    } else if (!(glm && (tool.type === "web_search" || tool.type === "retrieval"))) {
      return fail(`Invalid value: '${tool.type}'. Supported values are: 'function' and 'custom'.`, `tools[${t}].type`)
    }
  }
  if (glm && body.tool_choice !== undefined && body.tool_choice !== "auto") return fail("tool_choice 参数非法: only \"auto\" is supported", "tool_choice")
  let pending: Array<string> = []
  const unanswered = () =>
    fail(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(", ")}`,
      "messages"
    )
  for (let i = 0; i < body.messages.length; i++) {
    const message = body.messages[i]!
    if (!roles.has(message.role)) {
      return fail(`Invalid value: '${message.role}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`, `messages.[${i}].role`)
    }
    if (message.role === "tool") {
      const id = message.tool_call_id ?? ""
      if (!pending.includes(id)) {
        return fail("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", `messages.[${i}].role`)
      }
      pending = pending.filter((other) => other !== id)
      const content = message.content
      const isText = typeof content === "string" || (!glm && Array.isArray(content) && content.every((part) => isPlainObject(part) && part.type === "text"))
      if (!isText) return fail(glm ? `messages[${i}].content 参数非法: must be a string` : `Invalid type for 'messages[${i}].content'.`, `messages.[${i}].content`)
      continue
    }
    if (pending.length > 0) return unanswered()
    if (message.role === "assistant") {
      const calls = message.tool_calls ?? []
      const content = message.content
      const empty = content === undefined || content === null || (glm && content === "")
      if (calls.length === 0 && empty) {
        return fail(glm ? `messages[${i}]: content and tool_calls cannot both be empty` : "Invalid value for 'content': expected a string, got null.", `messages.[${i}].content`)
      }
      for (const call of calls) {
        if (call.id === undefined || call.id === null || call.id === "") return fail(`Missing required parameter: 'messages[${i}].tool_calls[0].id'.`, `messages.[${i}].tool_calls`)
      }
      pending = calls.map((call) => call.id!)
      if (new Set(pending).size !== pending.length) return fail(glm ? `messages[${i}]: duplicate tool_call id` : "Duplicate tool_call ids.", `messages.[${i}].tool_calls`)
    }
  }
  if (pending.length > 0) return unanswered()
  return undefined
}

// ---------------------------------------------------------------------------------------------------------------
// rendering

const created = () => Math.floor(Date.now() / 1000)

const frame = (body: unknown): string => `data: ${JSON.stringify(body)}\n\n`

interface WireCall {
  readonly id: string | undefined
  readonly name: string
  readonly arguments: string
}

const wireCalls = (answer: Answer, faults: ReadonlyArray<Fault.ShapingFault>): Array<WireCall> => {
  const omitIds = has(faults, "OmitCallIds") !== undefined
  const broken = has(faults, "MalformedArguments")
  return Turn.calls(answer.turn).map((call, i) => {
    const text = typeof call.metadata?.arguments === "string" ? call.metadata.arguments : JSON.stringify(call.args)
    return {
      id: omitIds ? undefined : call.id,
      name: call.name,
      arguments: i === 0 && broken !== undefined ? breakArguments(text, broken.kind) : text
    }
  })
}

const reasoningOf = (answer: Answer): string | undefined => {
  const parts = answer.turn.parts.filter((part): part is Turn.Reasoning => part._tag === "Reasoning")
  return parts.length === 0 ? undefined : parts.map((part) => part.text).join("")
}

const textOf = (answer: Answer): string | undefined => {
  const parts = answer.turn.parts.filter((part): part is Turn.Text => part._tag === "Text")
  return parts.length === 0 ? undefined : parts.map((part) => part.text).join("")
}

const completeBody = (answer: Answer, faults: ReadonlyArray<Fault.ShapingFault>, flavour: Flavour, model: string, id: string) => {
  const calls = wireCalls(answer, faults)
  const reasoning = flavour === "glm" ? reasoningOf(answer) : undefined
  return {
    id,
    object: "chat.completion",
    created: created(),
    model,
    ...(flavour === "glm" ? { request_id: id } : {}),
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: textOf(answer) ?? (calls.length > 0 ? null : ""),
          ...(reasoning === undefined ? {} : { reasoning_content: reasoning }),
          ...(calls.length === 0
            ? {}
            : {
                tool_calls: calls.map((call, index) => ({
                  ...(call.id === undefined ? {} : { id: call.id }),
                  type: "function",
                  ...(flavour === "glm" ? { index } : {}),
                  function: { name: call.name, arguments: call.arguments }
                }))
              })
        },
        finish_reason: codec.encodeFinishReason(answer.finishReason, flavour === "glm")
      }
    ],
    usage: codec.encodeUsage(answer.usage)
  }
}

/** Argument text in two or three fragments, the way servers stream it. */
const fragments = (text: string): Array<string> => {
  if (text.length < 4) return [text]
  const third = Math.ceil(text.length / 3)
  return [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)].filter((piece) => piece !== "")
}

const streamFrames = (
  answer: Answer,
  faults: ReadonlyArray<Fault.ShapingFault>,
  flavour: Flavour,
  model: string,
  id: string,
  includeUsage: boolean
): Array<string> => {
  const omitIndex = has(faults, "OmitIndex") !== undefined
  const stamp = { id, object: "chat.completion.chunk", created: created(), model }
  const chunk = (delta: object, extra: object = {}) => frame({ ...stamp, choices: [{ index: 0, delta, ...extra }] })
  const frames: Array<string> = []
  const reasoning = flavour === "glm" ? reasoningOf(answer) : undefined
  const text = textOf(answer)
  frames.push(chunk({ role: "assistant", content: "" }))
  for (const piece of reasoning === undefined ? [] : pieces(reasoning)) frames.push(chunk({ reasoning_content: piece }))
  for (const piece of text === undefined ? [] : pieces(text)) frames.push(chunk({ content: piece }))
  wireCalls(answer, faults).forEach((call, index) => {
    const at = omitIndex ? {} : { index }
    const [first, ...rest] = fragments(call.arguments)
    frames.push(
      chunk({ tool_calls: [{ ...at, ...(call.id === undefined ? {} : { id: call.id }), type: "function", function: { name: call.name, arguments: first ?? "" } }] })
    )
    for (const piece of rest) frames.push(chunk({ tool_calls: [{ ...at, function: { arguments: piece } }] }))
  })
  const finish = { finish_reason: codec.encodeFinishReason(answer.finishReason, flavour === "glm") }
  const usage = codec.encodeUsage(answer.usage)
  if (flavour === "glm") {
    frames.push(frame({ ...stamp, choices: [{ index: 0, delta: {}, ...finish }], usage }))
  } else {
    frames.push(chunk({}, finish))
    if (includeUsage) frames.push(frame({ ...stamp, choices: [], usage }))
  }
  frames.push("data: [DONE]\n\n")
  return frames
}

/** The answer fault a neutral error step stands for on this route: GLM answers with its business codes. */
const routeFaultOfError = (error: ModelError.ModelError, flavour: Flavour): Fault.AnswerFault => {
  switch (error._tag) {
    case "InvalidRequest":
      return flavour === "glm" ? { _tag: "GlmCode", code: "1214", status: error.status ?? 400, message: error.message } : faultOfError(error)
    case "Blocked":
      return flavour === "glm"
        ? { _tag: "GlmCode", code: "1301", status: 400, message: error.message }
        : { _tag: "Status", status: 400, body: openAIError(error.message, "invalid_request_error", "content_filter") }
    default:
      return faultOfError(error)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// the handler

const sendError = (exchange: Exchange, error: { status: number; body: unknown; headers?: Readonly<Record<string, string>> | undefined }) => {
  exchange.update({ error: JSON.stringify(error.body) })
  return respond.json(exchange, error.status, error.body, error.headers === undefined ? {} : { headers: error.headers })
}

const answerFault = (exchange: Exchange, fault: Fault.AnswerFault, flavour: Flavour): Effect.Effect<void> => {
  const error = errorOf(fault, flavour)
  if (error === undefined) return fault._tag === "Stall" ? respond.stall(exchange) : respond.disconnect(exchange)
  return sendError(exchange, error)
}

const badRequest = (exchange: Exchange, flavour: Flavour, message: string, param: string | null) =>
  sendError(exchange, { status: 400, body: flavour === "glm" ? glmError("1214", message) : openAIError(message, "invalid_request_error", null, param) })

export const handle = (exchange: Exchange, ctx: Context): Effect.Effect<void> =>
  Effect.gen(function* () {
    const flavour: Flavour = /\/paas\//.test(exchange.path) ? "glm" : "openai"
    exchange.update({ protocol: "openai", flavour })
    const authorization = exchange.req.headers.authorization
    const key = authorization === undefined ? undefined : /^Bearer\s+(.+)$/i.exec(authorization)?.[1]
    if (key === undefined || key === "") {
      exchange.update({ apiKey: "missing" })
      return yield* sendError(exchange, {
        status: 401,
        body:
          flavour === "glm"
            ? glmError("1001", "Header中未收到Authorization参数，无法进行身份验证。")
            : openAIError("You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", "invalid_request_error", null)
      })
    }
    if (key !== ctx.apiKey) {
      exchange.update({ apiKey: "invalid" })
      return yield* sendError(exchange, {
        status: 401,
        body:
          flavour === "glm"
            ? glmError("1002", "Authorization Token非法，请确认Authorization Token正确传递。")
            : openAIError(`Incorrect API key provided: ${masked(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`, "invalid_request_error", "invalid_api_key")
      })
    }
    exchange.update({ apiKey: "valid" })
    const parsed = jsonText.parse(exchange.body)
    if (Either.isLeft(parsed)) {
      return yield* badRequest(exchange, flavour, `We could not parse the JSON body of your request. (${parsed.left})`, null)
    }
    exchange.update({ body: parsed.right })
    const decoded = Wire.decodeRequest(parsed.right)
    if (Either.isLeft(decoded)) return yield* badRequest(exchange, flavour, decoded.left.message, null)
    const body = decoded.right
    const streaming = body.stream === true
    exchange.update({ model: body.model, stream: streaming })
    const problem = violation(body, flavour)
    if (problem !== undefined) return yield* badRequest(exchange, flavour, problem.message, problem.param)

    const neutral = codec.decodeRequest(body)
    const request = policyRequest({ protocol: "openai", flavour, index: exchange.record().index, model: body.model, stream: streaming }, neutral)
    exchange.update({ request })
    const decision = yield* ctx.decide(request)
    if (decision._tag === "Fault") return yield* answerFault(exchange, decision.fault, flavour)
    const faults = decision.faults
    const id = `chatcmpl-emulator-${request.index}`
    const split = has(faults, "SplitChunks") !== undefined
    const drop = has(faults, "DropMidStream")
    const stallAt = has(faults, "StallMidStream")
    if (decision._tag === "Error") {
      if (decision.error._tag !== "MalformedResponse") return yield* answerFault(exchange, routeFaultOfError(decision.error, flavour), flavour)
      // A body that is not JSON, declared as JSON: what a broken proxy sends.
      return streaming
        ? yield* respond.stream(exchange, ['data: {"choices": [\n\n'], { split, delay: ctx.frameDelay })
        : yield* respond.json(exchange, 200, undefined, { raw: '{"choices": [' })
    }
    if (!streaming) {
      const completion = completeBody(decision.answer, faults, flavour, body.model, id)
      if (stallAt !== undefined) return yield* respond.stall(exchange)
      return yield* respond.json(exchange, 200, completion, { split, cutHalfway: drop !== undefined })
    }
    const frames = streamFrames(decision.answer, faults, flavour, body.model, id, body.stream_options?.include_usage === true)
    return yield* respond.stream(exchange, frames, {
      split,
      delay: ctx.frameDelay,
      stop: streamStop(faults, (fault) => frame(errorOf(fault.error, flavour)?.body ?? glmError("500", "error")))
    })
  })
