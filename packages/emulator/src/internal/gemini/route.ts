/**
 * The emulator's Gemini REST side: `POST …/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`.
 * The body is read with the emulator's own proto schemas (wire.ts), checked against Gemini's rules (rules.ts),
 * decoded for the policy (request.ts) and answered in Gemini's framing (render.ts): `data: <json>` events
 * separated by a blank line, no `event:` lines, no `continuationToken` (the SDK would re-POST).
 */
import { ModelError, Turn } from "@agentfx/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Fault from "../../Fault.js"
import type * as Policy from "../../Policy.js"
import type { Decision } from "../answer.js"
import { faultOfError, has, policyRequest, streamStop } from "../answer.js"
import type { Exchange } from "../exchange.js"
import * as respond from "../exchange.js"
import * as jsonText from "../json.js"
import { defaultMessage, envelope, errorOf, invalidKeyBody, messages } from "./errors.js"
import { completeBody, frame, specialBody, streamChunks } from "./render.js"
import type { Signing } from "./render.js"
import { toNeutral } from "./request.js"
import { idViolations, outputViolation, violation } from "./rules.js"
import * as Wire from "./wire.js"

export interface Context extends Signing {
  readonly apiKey: string
  readonly frameDelay: number
  readonly decide: (request: Policy.Request, note: (faults: ReadonlyArray<Fault.Fault>) => void) => Effect.Effect<Decision>
}

export const route = /^(?:.*)\/(v1beta|v1alpha|v1)\/models\/([^/:]+):(generateContent|streamGenerateContent)$/

// ---------------------------------------------------------------------------------------------------------------
// the handler

const answerFault = (exchange: Exchange, fault: Fault.AnswerFault, model: string): Effect.Effect<void> => {
  const error = errorOf(fault, model)
  if (error === undefined) return fault._tag === "Stall" ? respond.stall(exchange) : respond.disconnect(exchange)
  exchange.update({ error: JSON.stringify(error.body) })
  return respond.json(exchange, error.status, error.body, { headers: error.headers ?? {} })
}

const reject = (exchange: Exchange, status: number, message: string, body: unknown = envelope(status, message)): Effect.Effect<void> => {
  exchange.update({ error: message })
  return respond.json(exchange, status, body)
}

/** The model named by the path, or undefined when its percent-encoding is broken (no model can have that name). */
const modelOf = (raw: string): string | undefined => {
  try {
    return decodeURIComponent(raw)
  } catch {
    return undefined
  }
}

export const handle = (exchange: Exchange, ctx: Context, match: RegExpExecArray): Effect.Effect<void> =>
  Effect.gen(function* () {
    const decodedModel = modelOf(match[2]!)
    const model = decodedModel ?? match[2]!
    const streaming = match[3] === "streamGenerateContent"
    exchange.update({ protocol: "gemini", flavour: "gemini", model, stream: streaming })
    const key = exchange.req.headers["x-goog-api-key"] ?? exchange.query.get("key") ?? undefined
    if (key === undefined || key === "") {
      exchange.update({ apiKey: "missing" })
      return yield* reject(exchange, 403, messages.missingKey)
    }
    if (key !== ctx.apiKey) {
      exchange.update({ apiKey: "invalid" })
      return yield* reject(exchange, 400, messages.invalidKey, invalidKeyBody)
    }
    exchange.update({ apiKey: "valid" })
    if (decodedModel === undefined) {
      // What Gemini answers a model it does not have.
      return yield* reject(
        exchange,
        404,
        `models/${model} is not found for API version ${match[1]!}, or is not supported for ${match[3]!}. Call ListModels to see the list of available models and their supported methods.`
      )
    }
    const parsed = jsonText.parse(exchange.body)
    if (Either.isLeft(parsed)) return yield* reject(exchange, 400, `Invalid JSON payload received. ${parsed.left}`)
    exchange.update({ body: parsed.right })
    const decoded = Wire.decodeRequest(parsed.right)
    if (Either.isLeft(decoded)) return yield* reject(exchange, 400, decoded.left)
    const problem = violation(decoded.right, ctx.signatures ? ctx.signer : undefined) ?? outputViolation(decoded.right, model)
    if (problem !== undefined) return yield* reject(exchange, 400, problem)
    const breaches = idViolations(decoded.right)
    if (breaches.length > 0) exchange.update({ violations: breaches })

    const neutral = toNeutral(decoded.right)
    const request = policyRequest({ protocol: "gemini", flavour: "gemini", index: exchange.record().index, model, stream: streaming }, neutral)
    exchange.update({ request })
    const decision = yield* ctx.decide(request, (faults) => exchange.update({ faults }))
    const id = `emulator-${request.index}`
    if (decision._tag === "Fault") return yield* answerFault(exchange, decision.fault, model)

    const faults = decision.faults
    const split = has(faults, "SplitChunks") !== undefined
    const drop = has(faults, "DropMidStream")
    const stallAt = has(faults, "StallMidStream")

    // A special body (an error the protocol sends as a 200), else the answer: whole for `generateContent`, in
    // chunks for a stream, each built only when it is the one sent.
    let special: unknown
    if (decision._tag === "Error") {
      special = specialBody(decision.error, model, id)
      if (special === undefined) return yield* answerFault(exchange, faultOfError(decision.error), model)
    } else if (has(faults, "MalformedArguments") !== undefined && Turn.calls(decision.answer.turn).length > 0) {
      // Gemini's arguments are objects: its form of a broken call is this finish reason, with nothing usable.
      special = specialBody(new ModelError.MalformedResponse({ message: "the arguments could not be parsed" }), model, id)
    }
    const answer = special === undefined && decision._tag === "Answer" ? decision.answer : undefined
    if (!streaming) {
      const body = answer === undefined ? special : completeBody(answer, ctx, faults, model, id)
      if (stallAt !== undefined) return yield* respond.stall(exchange)
      if (drop !== undefined) return yield* respond.json(exchange, 200, body, { cutHalfway: true })
      return yield* respond.json(exchange, 200, body, { split })
    }
    const chunks = answer === undefined ? [special] : streamChunks(answer, ctx, faults, model, id)
    // Without `alt=sse` Gemini streams one JSON array of the chunks (the SDK always asks for SSE).
    if (exchange.query.get("alt") !== "sse") return yield* respond.json(exchange, 200, chunks, { split })
    return yield* respond.stream(exchange, chunks.map(frame), {
      split,
      delay: ctx.frameDelay,
      stop: streamStop(faults, (fault) => frame(errorOf(fault.error, model)?.body ?? envelope(500, defaultMessage(500))))
    })
  })
