/**
 * Approval for tools that need it. The executor asks this service before running such a tool; a denial goes
 * back to the model as an `ApprovalDenied` error response. Without the service, such tools are denied.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { FunctionCall } from "./FunctionCall.js"

/**
 * The answer to one request.
 *
 * @since 0.1.0
 * @category models
 */
export type Decision = { readonly approved: true } | { readonly approved: false; readonly reason: string }

/**
 * What the service is asked about: the call (with its arguments) and the tool's description.
 *
 * @since 0.1.0
 * @category models
 */
export interface Request {
  readonly call: FunctionCall
  readonly description: string
}

/**
 * The approval service: decides, call by call, whether a tool that needs approval may run.
 *
 * @example
 * ```ts
 * import { Approval } from "@agentfx/core"
 * import { Effect } from "effect"
 *
 * // Stands in for a prompt to the user (a terminal question, a button in a UI).
 * const ask = (question: string): Effect.Effect<boolean> => Effect.succeed(question.includes("refund"))
 *
 * const interactive = Approval.layer(({ call }) =>
 *   Effect.map(ask(`Run ${call.name}?`), (yes) => (yes ? Approval.approved : Approval.denied("the user said no")))
 * )
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class Approval extends Context.Tag("@agentfx/core/Approval")<
  Approval,
  { readonly approve: (request: Request) => Effect.Effect<Decision> }
>() {}

/**
 * The decision that lets the call run.
 *
 * @since 0.1.0
 */
export const approved: Decision = { approved: true }

/**
 * The decision that refuses the call; `reason` goes back to the model.
 *
 * @since 0.1.0
 */
export const denied = (reason: string): Decision => ({ approved: false, reason })

/**
 * Approves every call.
 *
 * @since 0.1.0
 */
export const allowAll: Layer.Layer<Approval> = Layer.succeed(Approval, { approve: () => Effect.succeed(approved) })

/**
 * Denies every call.
 *
 * @since 0.1.0
 */
export const denyAll: Layer.Layer<Approval> = Layer.succeed(Approval, {
  approve: () => Effect.succeed(denied("approval policy denies all calls"))
})

/**
 * Decides with a function of the request.
 *
 * @since 0.1.0
 */
export const layer = (approve: (request: Request) => Effect.Effect<Decision>): Layer.Layer<Approval> =>
  Layer.succeed(Approval, { approve })
