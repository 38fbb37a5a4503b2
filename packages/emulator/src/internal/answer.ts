/**
 * A policy step → the neutral answer the protocol renderers put on the wire: the model turn (call ids assigned,
 * never reusing an id of the conversation), why it finished, and its usage.
 */
import type { FunctionDeclaration, LanguageModel, ModelError } from "@agentfx/core"
import { FunctionCall, Turn } from "@agentfx/core"
import { Scripted } from "@agentfx/core/testing"
import type * as Fault from "../Fault.js"
import type * as Policy from "../Policy.js"
import type { OutputRequest } from "./output.js"

export interface Answer {
  readonly turn: Turn.Turn
  readonly finishReason: LanguageModel.FinishReason
  readonly usage: LanguageModel.Usage
}

/** What to do with a request: an answer fault, an error step, or a turn sent with shaping faults. */
export type Decision =
  | { readonly _tag: "Fault"; readonly fault: Fault.AnswerFault }
  | { readonly _tag: "Error"; readonly error: ModelError.ModelError; readonly faults: ReadonlyArray<Fault.ShapingFault> }
  | { readonly _tag: "Answer"; readonly answer: Answer; readonly faults: ReadonlyArray<Fault.ShapingFault> }

type TurnStep = Exclude<Policy.Step, { readonly error: ModelError.ModelError }>

const tokens = (chars: number): number => Math.max(1, Math.ceil(chars / 4))

const requestChars = (request: Policy.Request): number =>
  (request.system?.length ?? 0) +
  request.transcript.reduce(
    (n, turn) =>
      n +
      turn.parts.reduce((m, part) => {
        switch (part._tag) {
          case "Text":
          case "Reasoning":
            return m + part.text.length
          case "FunctionCall":
            return m + part.name.length + JSON.stringify(part.args).length
          case "FunctionResponse":
            return m + part.name.length + JSON.stringify(part.response).length
          case "Opaque":
            return m + 16
        }
      }, 0),
    0
  )

/** The answer of a turn step; generated call ids are `call_<request>_<i>`, moved aside if the conversation has them. */
export const answerOf = (step: TurnStep, request: Policy.Request): Answer => {
  const scripted = Scripted.turnOf(step, request.index)
  const taken = new Set<string>()
  for (const turn of request.transcript) for (const call of Turn.calls(turn)) taken.add(call.id)
  const parts = scripted.parts.map((part) => {
    if (part._tag !== "FunctionCall" || !taken.has(part.id)) return part
    let id = `${part.id}_1`
    for (let k = 2; taken.has(id); k++) id = `${part.id}_${k}`
    taken.add(id)
    return FunctionCall.make({ ...part, id })
  })
  const turn: Turn.Turn = { role: "model", parts }
  const outputChars = parts.reduce(
    (n, part) => n + (part._tag === "Text" ? part.text.length : part._tag === "FunctionCall" ? JSON.stringify(part.args).length : 0),
    0
  )
  const reasoningChars = parts.reduce((n, part) => n + (part._tag === "Reasoning" ? part.text.length : 0), 0)
  const inputTokens = step.usage?.inputTokens ?? tokens(requestChars(request))
  const reasoningTokens = step.usage?.reasoningTokens ?? (reasoningChars > 0 ? tokens(reasoningChars) : undefined)
  const outputTokens = step.usage?.outputTokens ?? tokens(outputChars) + (reasoningTokens ?? 0)
  const usage: LanguageModel.Usage = {
    inputTokens,
    outputTokens,
    totalTokens: step.usage?.totalTokens ?? inputTokens + outputTokens,
    ...(reasoningTokens === undefined ? {} : { reasoningTokens }),
    ...(step.usage?.cachedTokens === undefined ? {} : { cachedTokens: step.usage.cachedTokens })
  }
  return {
    turn,
    finishReason: step.finishReason ?? (Turn.calls(turn).length > 0 ? "tool_calls" : "stop"),
    usage
  }
}

/** Text as the pieces a stream sends it in (a word and its trailing space each). */
export const pieces = (text: string): Array<string> => text.match(/\S+\s*|\s+/g) ?? []

/** The arguments text of the first call, broken the way `MalformedArguments` says. */
export const breakArguments = (text: string, kind: Fault.MalformedArguments["kind"]): string => {
  switch (kind) {
    case "invalid":
      return text.includes('"') ? text.replace(/"/g, "'") : "{,}"
    case "truncated":
      return text.slice(0, Math.max(1, Math.floor(text.length / 2)))
    case "concatenated":
      return text + text
  }
}

export const has = <T extends Fault.ShapingFault["_tag"]>(
  faults: ReadonlyArray<Fault.ShapingFault>,
  tag: T
): Extract<Fault.ShapingFault, { readonly _tag: T }> | undefined =>
  faults.find((fault): fault is Extract<Fault.ShapingFault, { readonly _tag: T }> => fault._tag === tag)

/** The answer fault a neutral error step stands for (the protocols refine it where their servers differ). */
export const faultOfError = (error: ModelError.ModelError): Fault.AnswerFault => {
  switch (error._tag) {
    case "RateLimited":
      return { _tag: "RateLimited", retryAfter: error.retryAfter }
    case "QuotaExhausted":
      return { _tag: "QuotaExhausted" }
    case "Overloaded":
      return { _tag: "Overloaded" }
    case "Unauthorized":
      return { _tag: "Unauthorized" }
    case "InvalidRequest":
      return { _tag: "Status", status: error.status ?? 400, message: error.message }
    case "Unavailable":
      return { _tag: "Status", status: error.status ?? 500, message: error.message }
    case "ModelTimeout":
      return { _tag: "Stall" }
    case "Blocked":
    case "MalformedResponse":
      return { _tag: "Status", status: 500, message: error.message }
  }
}

/**
 * Where a stream stops early, from its shaping faults (a drop wins over a stall, a stall over an error frame);
 * `errorFrame` renders the error fault's frame in the route's own format.
 */
export const streamStop = (
  faults: ReadonlyArray<Fault.ShapingFault>,
  errorFrame: (fault: Extract<Fault.ShapingFault, { readonly _tag: "ErrorMidStream" }>) => string
): { readonly after: number; readonly how: "drop" | "stall" | "error"; readonly errorFrame?: string } | undefined => {
  const drop = has(faults, "DropMidStream")
  if (drop !== undefined) return { after: drop.afterChunks, how: "drop" }
  const stall = has(faults, "StallMidStream")
  if (stall !== undefined) return { after: stall.afterChunks, how: "stall" }
  const error = has(faults, "ErrorMidStream")
  return error === undefined ? undefined : { after: error.afterChunks, how: "error", errorFrame: errorFrame(error) }
}

/** What a policy is told about a request's content, whatever its protocol (each route decodes its own wire). */
export interface NeutralRequest {
  readonly system: string | undefined
  readonly transcript: ReadonlyArray<Turn.Turn>
  readonly declarations: ReadonlyArray<FunctionDeclaration.FunctionDeclaration>
  readonly toolChoice: LanguageModel.ToolChoice | undefined
  /** What the request asks of the final answer's form (JSON, a schema), when it asks anything. */
  readonly output?: OutputRequest | undefined
}

/** The request a policy sees: where it came from, and the decoded neutral request. */
export const policyRequest = (
  route: Pick<Policy.Request, "protocol" | "flavour" | "index" | "model" | "stream">,
  neutral: NeutralRequest
): Policy.Request => ({
  ...route,
  system: neutral.system,
  transcript: neutral.transcript,
  declarations: neutral.declarations,
  toolChoice: neutral.toolChoice,
  output: neutral.output
})
