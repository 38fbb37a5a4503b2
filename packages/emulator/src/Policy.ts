/**
 * What the emulated model says. A policy answers each request (already checked and decoded into the neutral
 * transcript) with a step — the same steps as core's scripted model (`text`, `reasoning`, `calls`, `parts`,
 * `usage`, `finishReason`, `delay`, or `error`) — or with a fault.
 *
 * @example
 * ```ts
 * import { Fault, Policy } from "@agentfx/emulator"
 *
 * const scripted = Policy.script([
 *   { calls: [{ name: "get_weather", args: { city: "Paris" } }, { name: "get_time", args: { tz: "Europe/Paris" } }] },
 *   Fault.rateLimited({ retryAfter: "1 second" }),
 *   { text: "It is 20 °C in Paris." }
 * ])
 * const computed = Policy.fromFunction((request) =>
 *   request.declarations.length === 0 ? { text: "no tools" } : { calls: [{ name: request.declarations[0]!.name, args: {} }] }
 * )
 * ```
 *
 * @since 0.1.0
 */
import type { FunctionDeclaration, LanguageModel, Transcript } from "@agentfx/core"
import { ModelError } from "@agentfx/core"
import type { Scripted } from "@agentfx/core/testing"
import * as Effect from "effect/Effect"
import { offlineReply } from "./internal/offline.js"
import type { OutputRequest } from "./internal/output.js"
import type * as Fault from "./Fault.js"

export type {
  /**
   * What a request asks of the final answer's form (`Request.output`): JSON (`json`: a JSON mime type,
   * `json_object`, `json_schema`), following `schema` when the wire carries one, under `name` when it gives one.
   *
   * @since 0.2.0
   * @category models
   */
  OutputRequest
} from "./internal/output.js"

/**
 * The wire protocol a request came in on (`gemini-live`: a model turn of a Live session).
 *
 * @since 0.1.0
 * @category models
 */
export type Protocol = "gemini" | "openai" | "gemini-live"

/**
 * The server being emulated: chat-completions routes under `/paas/` are GLM (Z.AI), the others OpenAI.
 *
 * @since 0.1.0
 * @category models
 */
export type Flavour = "gemini" | "glm" | "openai"

/**
 * A request as a policy sees it: decoded into the neutral model.
 *
 * @since 0.1.0
 * @category models
 */
export interface Request {
  readonly protocol: Protocol
  readonly flavour: Flavour
  /** 0-based position among all requests this emulator received. */
  readonly index: number
  readonly model: string
  readonly stream: boolean
  readonly system: string | undefined
  readonly transcript: Transcript.Transcript
  readonly declarations: ReadonlyArray<FunctionDeclaration.FunctionDeclaration>
  readonly toolChoice: LanguageModel.ToolChoice | undefined
  /**
   * What the request asks of the final answer's form, when it asks anything: JSON (a JSON mime type,
   * `json_object`, `json_schema`), following `schema` when the wire sends one or the system instruction holds one on
   * a line of its own (a client that can only tell the model).
   */
  readonly output: OutputRequest | undefined
}

/**
 * A model turn or an error, as in core's scripted model.
 *
 * @since 0.1.0
 * @category models
 */
export type Step = Scripted.Step

/**
 * A step sent with shaping faults (malformed arguments, a drop mid-stream, ...).
 *
 * @since 0.1.0
 * @category models
 */
export interface WithFaults {
  readonly _tag: "WithFaults"
  readonly step: Step
  readonly faults: ReadonlyArray<Fault.ShapingFault>
}

/**
 * What a policy answers a request with: a step, an answer fault, or a step with shaping faults.
 *
 * @since 0.1.0
 * @category models
 */
export type Reply = Step | Fault.AnswerFault | WithFaults

/**
 * Decides what the emulated model says.
 *
 * @since 0.1.0
 * @category models
 */
export interface Policy {
  readonly reply: (request: Request) => Effect.Effect<Reply>
  /** How much of a script was used (scripts only). */
  readonly progress?: () => { readonly used: number; readonly total: number }
}

/**
 * `step`, sent with `faults`.
 *
 * @since 0.1.0
 */
export const withFaults = (step: Step, ...faults: ReadonlyArray<Fault.ShapingFault>): WithFaults => ({ _tag: "WithFaults", step, faults })

/**
 * Answers requests with the replies in order. A request past the end gets a 400 saying so (a test that sends more
 * requests than it scripted fails loudly, not with a hang).
 *
 * @since 0.1.0
 */
export const script = (replies: ReadonlyArray<Reply>): Policy => {
  let next = 0
  return {
    reply: () =>
      Effect.sync(() => {
        const reply = replies[next]
        if (reply === undefined) {
          return { error: new ModelError.InvalidRequest({ message: `agentfx emulator: the script has no step ${next + 1} (it has ${replies.length})` }) }
        }
        next++
        return reply
      }),
    progress: () => ({ used: next, total: replies.length })
  }
}

/**
 * Answers each request with a function of it.
 *
 * @since 0.1.0
 */
export const fromFunction = (answer: (request: Request) => Reply | Effect.Effect<Reply>): Policy => ({
  reply: (request) =>
    Effect.suspend(() => {
      const reply = answer(request)
      return Effect.isEffect(reply) ? reply : Effect.succeed(reply)
    })
})

/**
 * A small deterministic model for offline chat: it calls a tool it was offered when the message plainly asks for
 * one (the time, a calculation, a file, a URL, or a tool named in the message), reports tool results, and
 * otherwise says that it is the offline emulator.
 *
 * @since 0.1.0
 */
export const offline: Policy = { reply: (request) => Effect.sync(() => offlineReply(request)) }

/**
 * Serves many conversations from one emulator: each conversation asks for a model named by its key in `scripts`,
 * and gets the reply of its script at its position — the number of model turns in its transcript so far — so a
 * retried request gets the same step again, and conversations can run concurrently. A Live session's transcript is
 * its history, which a resumed connection keeps: its script goes on where the last connection left it. A reply may
 * carry faults (`withFaults`: a Live script's cancellations and `goAway`s). Models without a script get
 * `fallback`'s answer (default: a 400 saying so).
 *
 * @example
 * ```ts
 * import { Policy } from "@agentfx/emulator"
 *
 * // The request's model name picks the script; other models get the offline rules.
 * const perCase = Policy.byModel(new Map([["case-1", [{ calls: [{ name: "lookup", args: { id: 1 } }] }, { text: "done" }]]]), Policy.offline)
 * ```
 *
 * @since 0.1.0
 */
export const byModel = (scripts: ReadonlyMap<string, ReadonlyArray<Reply>>, fallback?: Policy): Policy => ({
  reply: (request) => {
    const script = scripts.get(request.model)
    if (script === undefined) {
      return fallback?.reply(request) ?? Effect.succeed({ error: new ModelError.InvalidRequest({ message: `agentfx emulator: no script for the model "${request.model}"` }) })
    }
    const position = request.transcript.reduce((n, turn) => (turn.role === "model" ? n + 1 : n), 0)
    return Effect.succeed(
      script[position] ?? {
        error: new ModelError.InvalidRequest({
          message: `agentfx emulator: the script of "${request.model}" has ${script.length} steps, and the conversation asked for step ${position + 1}`
        })
      }
    )
  }
})
