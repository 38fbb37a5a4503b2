/**
 * The emulator's chat-completions side: `POST {base}/chat/completions`, plain and `stream: true`, under any base
 * path. Routes under `/paas/` (`/api/paas/v4`, `/api/coding/paas/v4`) answer like GLM, the others like OpenAI.
 * The body is read with the emulator's own schemas (wire.ts), checked against the servers' rules (rules.ts),
 * decoded for the policy (request.ts) and answered in each server's framing (render.ts); streams end with
 * `data: [DONE]` and then the response closes.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Fault from "../../Fault.js"
import type * as Policy from "../../Policy.js"
import type { Decision } from "../answer.js"
import { has, policyRequest, streamStop } from "../answer.js"
import type { Exchange } from "../exchange.js"
import * as respond from "../exchange.js"
import * as jsonText from "../json.js"
import { errorOf, glmError, masked, openAIError, statusError } from "./errors.js"
import { completeBody, frame, routeFaultOfError, streamFrames } from "./render.js"
import { toNeutral } from "./request.js"
import { outputViolation } from "./output.js"
import { violation } from "./rules.js"
import * as Wire from "./wire.js"
import type { Flavour } from "./wire.js"

export interface Context {
  readonly apiKey: string
  readonly frameDelay: number
  readonly decide: (request: Policy.Request, note: (faults: ReadonlyArray<Fault.Fault>) => void) => Effect.Effect<Decision>
}

export const route = /\/chat\/completions$/

/** Routes under `/paas/` are GLM's (Z.AI), the others OpenAI's. */
export const flavourOf = (path: string): Flavour => (/\/paas\//.test(path) ? "glm" : "openai")

// ---------------------------------------------------------------------------------------------------------------
// the handler

const sendError = (exchange: Exchange, error: { status: number; body: unknown; headers?: Readonly<Record<string, string>> | undefined }) => {
  exchange.update({ error: JSON.stringify(error.body) })
  return respond.json(exchange, error.status, error.body, { headers: error.headers ?? {} })
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
    const flavour = flavourOf(exchange.path)
    exchange.update({ protocol: "openai", flavour })
    const authorization = exchange.req.headers.authorization
    // The key runs to the end of the value (a header holds no line break); a missing one is no key.
    // Stryker disable next-line ConditionalExpression: exec(undefined) reads the text "undefined", no bearer key either
    const key = authorization === undefined ? undefined : /^Bearer\s+(.+)/i.exec(authorization)?.[1]
    if (key === undefined) {
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
    const decoded = Wire.decodeRequest(parsed.right, flavour)
    if (Either.isLeft(decoded)) return yield* badRequest(exchange, flavour, decoded.left.message, decoded.left.param)
    const body = decoded.right
    const streaming = body.stream === true
    exchange.update({ model: body.model, stream: streaming })
    const problem = violation(body, flavour) ?? outputViolation(body, flavour)
    if (problem !== undefined) return yield* badRequest(exchange, flavour, problem.message, problem.param)

    const neutral = toNeutral(body)
    const request = policyRequest({ protocol: "openai", flavour, index: exchange.record().index, model: body.model, stream: streaming }, neutral)
    exchange.update({ request })
    const decision = yield* ctx.decide(request, (faults) => exchange.update({ faults }))
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
    // GLM streams a call's arguments in fragments only when asked (`tool_stream: true`); OpenAI always does.
    const toolStream = flavour === "openai" || body.tool_stream === true
    const frames = streamFrames(decision.answer, faults, flavour, body.model, id, { includeUsage: body.stream_options?.include_usage === true, toolStream })
    return yield* respond.stream(exchange, frames, {
      split,
      delay: ctx.frameDelay,
      // A fault without a body of its own (a stall, a drop) is sent as the route's plain 500.
      stop: streamStop(faults, (fault) => frame(errorOf(fault.error, flavour)?.body ?? statusError(500, "error", flavour)))
    })
  })
