/**
 * The emulated model's answer on the chat-completions wire: a whole `chat.completion`, or `chat.completion.chunk`
 * frames ending with `data: [DONE]`: text a word at a time; tool calls whole in the chunk with the finish reason
 * (GLM's default) or their arguments in fragments keyed by index (OpenAI, and GLM with `tool_stream: true`); usage
 * where each server puts it. GLM answers carry `request_id` and `reasoning_content`; OpenAI's do not.
 */

import type { LanguageModel, ModelError } from "@agentfx/core"
import { Turn } from "@agentfx/core"
import type * as Fault from "../../Fault.js"
import type { Answer } from "../answer.js"
import { breakArguments, faultOfError, has, pieces } from "../answer.js"
import { openAIError } from "./errors.js"
import type { Flavour } from "./wire.js"

export const usageOf = (usage: LanguageModel.Usage) => ({
  prompt_tokens: usage.inputTokens,
  completion_tokens: usage.outputTokens,
  total_tokens: usage.totalTokens,
  ...(usage.cachedTokens === undefined ? {} : { prompt_tokens_details: { cached_tokens: usage.cachedTokens } }),
  ...(usage.reasoningTokens === undefined ? {} : { completion_tokens_details: { reasoning_tokens: usage.reasoningTokens } })
})

/** The finish reason on the wire; GLM says `sensitive` where OpenAI says `content_filter`. */
export const finishReasonOf = (reason: LanguageModel.FinishReason, flavour: Flavour): string => {
  switch (reason) {
    case "stop":
    case "malformed_call":
    case "other":
      return "stop"
    case "tool_calls":
      return "tool_calls"
    case "length":
      return "length"
    case "safety":
      return flavour === "glm" ? "sensitive" : "content_filter"
  }
}

const created = () => Math.floor(Date.now() / 1000)

export const frame = (body: unknown): string => `data: ${JSON.stringify(body)}\n\n`

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

export const completeBody = (answer: Answer, faults: ReadonlyArray<Fault.ShapingFault>, flavour: Flavour, model: string, id: string) => {
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
          // An absent field (undefined) is left out of the JSON: GLM's reasoning only when there is some, a call's id only when it has one.
          reasoning_content: reasoning,
          ...(calls.length === 0
            ? {}
            : {
                tool_calls: calls.map((call, index) => ({
                  id: call.id,
                  type: "function",
                  ...(flavour === "glm" ? { index } : {}),
                  function: { name: call.name, arguments: call.arguments }
                }))
              })
        },
        finish_reason: finishReasonOf(answer.finishReason, flavour)
      }
    ],
    usage: usageOf(answer.usage)
  }
}

/** Argument text in two or three fragments, the way servers stream it. */
const fragments = (text: string): Array<string> => {
  if (text.length < 4) return [text]
  const third = Math.ceil(text.length / 3)
  return [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)].filter((piece) => piece !== "")
}

/**
 * The answer as stream frames. Tool calls stream their arguments in fragments (OpenAI; GLM with `tool_stream: true`)
 * or, GLM's default, arrive whole — id, name and all the arguments in one delta — in the chunk with the finish reason.
 */
export const streamFrames = (
  answer: Answer,
  faults: ReadonlyArray<Fault.ShapingFault>,
  flavour: Flavour,
  model: string,
  id: string,
  options: { readonly includeUsage: boolean; readonly toolStream: boolean }
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
  const calls = wireCalls(answer, faults)
  const head = (call: WireCall, index: number, args: string) => ({
    ...(omitIndex ? {} : { index }),
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: args }
  })
  if (options.toolStream) {
    calls.forEach((call, index) => {
      const pieces = fragments(call.arguments)
      frames.push(chunk({ tool_calls: [head(call, index, pieces[0]!)] }))
      for (const piece of pieces.slice(1)) frames.push(chunk({ tool_calls: [{ ...(omitIndex ? {} : { index }), function: { arguments: piece } }] }))
    })
  }
  const whole = options.toolStream || calls.length === 0 ? {} : { tool_calls: calls.map((call, index) => head(call, index, call.arguments)) }
  const finish = { finish_reason: finishReasonOf(answer.finishReason, flavour) }
  const usage = usageOf(answer.usage)
  if (flavour === "glm") {
    frames.push(frame({ ...stamp, choices: [{ index: 0, delta: whole, ...finish }], usage }))
  } else {
    frames.push(chunk(whole, finish))
    if (options.includeUsage) frames.push(frame({ ...stamp, choices: [], usage }))
  }
  frames.push("data: [DONE]\n\n")
  return frames
}

/** The answer fault a neutral error step stands for on this route: GLM answers with its business codes. */
export const routeFaultOfError = (error: ModelError.ModelError, flavour: Flavour): Fault.AnswerFault => {
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

