/**
 * The emulator's reading of a request body, as the server would read it, without a server: the 400 a body gets
 * (the real API's message), or the neutral request a policy would see. Provider tests use it to check that what a
 * client encodes is accepted, and decodes back to what it meant, by a reader that shares none of its code.
 *
 * @example
 * ```ts
 * import { Conformance } from "@agentfx/emulator"
 *
 * const body = { contents: [{ role: "assistant", parts: [{ text: "Hi" }] }] }
 * const verdict = Conformance.gemini(JSON.parse(JSON.stringify(body)))
 * if (verdict._tag === "Rejected") console.log(verdict.message) // "Please use a valid role: user, model."
 * else console.log(verdict.request.transcript) // the neutral transcript the server understood
 * ```
 *
 * @since 0.2.0
 */
import * as Either from "effect/Either"
import type { NeutralRequest } from "./internal/answer.js"
import * as chatOutput from "./internal/chatCompletions/output.js"
import * as chatRequest from "./internal/chatCompletions/request.js"
import * as chatRules from "./internal/chatCompletions/rules.js"
import * as chatWire from "./internal/chatCompletions/wire.js"
import * as geminiRequest from "./internal/gemini/request.js"
import * as geminiRules from "./internal/gemini/rules.js"
import * as geminiWire from "./internal/gemini/wire.js"

export type {
  /**
   * What a policy is told about a request's content, whatever its protocol (each route decodes its own wire): the
   * system instruction, the neutral transcript, the declarations and the tool choice.
   *
   * @since 0.2.0
   * @category models
   */
  NeutralRequest
} from "./internal/answer.js"

/**
 * How a server answers a body: refused with its 400 message (and the parameter, where the server names one), or accepted.
 *
 * @since 0.2.0
 * @category models
 */
export type Verdict =
  | { readonly _tag: "Rejected"; readonly message: string; readonly param?: string | null | undefined }
  | { readonly _tag: "Accepted"; readonly request: NeutralRequest }

const rejected = (message: string, param?: string | null): Verdict => ({ _tag: "Rejected", message, param })
const accepted = (request: NeutralRequest): Verdict => ({ _tag: "Accepted", request })

/**
 * A `generateContent` body (already parsed JSON) as Gemini reads it (for `model`, whose version decides whether a
 * JSON response may come with function declarations). Thought signatures are not checked here: only the emulator
 * that issued them can tell a good one.
 *
 * @since 0.2.0
 */
// Stryker disable next-line StringLiteral: only a 1.x or 2.x name changes the reading (JSON mode with tools); any other, "" too, reads as this 3.x default
export const gemini = (body: unknown, model = "gemini-3-flash-preview"): Verdict =>
  Either.match(geminiWire.decodeRequest(body), {
    onLeft: (message) => rejected(message),
    onRight: (request) => {
      const problem = geminiRules.violation(request, undefined) ?? geminiRules.outputViolation(request, model)
      return problem === undefined ? accepted(geminiRequest.toNeutral(request)) : rejected(problem)
    }
  })

/**
 * A `chat/completions` body (already parsed JSON) as OpenAI, or GLM (Z.AI), reads it.
 *
 * @since 0.2.0
 */
export const chatCompletions = (body: unknown, flavour: chatWire.Flavour): Verdict =>
  Either.match(chatWire.decodeRequest(body, flavour), {
    onLeft: (problem) => rejected(problem.message, problem.param),
    onRight: (request) => {
      const problem = chatRules.violation(request, flavour) ?? chatOutput.outputViolation(request, flavour)
      return problem === undefined ? accepted(chatRequest.toNeutral(request)) : rejected(problem.message, problem.param)
    }
  })

/**
 * Which server reads a `chat/completions` body: OpenAI's, or GLM's (Z.AI), whose rules differ.
 *
 * @since 0.2.0
 * @category models
 */
export type Flavour = chatWire.Flavour
