/**
 * A chat-completions request the rules accepted, in the neutral form policies read. System and developer messages
 * are the system instruction; an assistant message is a model turn (reasoning, text, calls); the tool messages
 * after it are one response turn; a tool message's content is JSON when it parses to an object, else `{output}`.
 * Arguments the client sent that are not a JSON object are kept as text in the call's metadata.
 */
import type { FunctionDeclaration, Json, LanguageModel, Turn } from "@agentfx/core"
import * as Either from "effect/Either"
import type { NeutralRequest } from "../answer.js"
import { isErrorResponse, isPlainObject, parse } from "../json.js"
import { outputOf } from "./output.js"
import type * as Wire from "./wire.js"

const textOfContent = (content: Wire.Message["content"]): string =>
  typeof content === "string" ? content : (content?.map((part) => part.text ?? "").join("") ?? "")

const argumentsOf = (raw: string | undefined): { args: Json.JsonObject; metadata?: { arguments: string } } => {
  if (raw === undefined) return { args: {} }
  const parsed = parse(raw)
  if (Either.isRight(parsed) && isPlainObject(parsed.right)) return JSON.stringify(parsed.right) === raw ? { args: parsed.right } : { args: parsed.right, metadata: { arguments: raw } }
  return { args: {}, metadata: { arguments: raw } }
}

const responseOf = (content: Wire.Message["content"]): Json.JsonObject => {
  const text = textOfContent(content)
  const parsed = parse(text)
  if (Either.isLeft(parsed)) return { output: text }
  return isPlainObject(parsed.right) ? parsed.right : { output: parsed.right }
}

const toolChoiceOf = (choice: Wire.Request["tool_choice"]): LanguageModel.ToolChoice | undefined => {
  if (choice === "auto" || choice === "none") return choice
  if (choice === "required") return "any"
  if (isPlainObject(choice) && isPlainObject(choice.function) && typeof choice.function.name === "string") return { allowed: [choice.function.name] }
  return undefined
}

/** The neutral request of a body that passed `rules.violation`. */
export const toNeutral = (body: Wire.Request): NeutralRequest => {
  const system: Array<string> = []
  const transcript: Array<Turn.Turn> = []
  let names = new Map<string, string>()
  let responses: Array<Turn.Part> | undefined
  const flush = () => {
    if (responses !== undefined) transcript.push({ role: "user", parts: responses })
    responses = undefined
  }
  for (const message of body.messages) {
    if (message.role === "tool") {
      // The rules let a tool message through only as the answer to a call of the assistant message before it.
      const id = message.tool_call_id!
      const response = responseOf(message.content)
      ;(responses ??= []).push({ _tag: "FunctionResponse", id, name: names.get(id)!, response, isError: isErrorResponse(response) })
      continue
    }
    flush()
    if (message.role === "system" || message.role === "developer") {
      system.push(textOfContent(message.content))
    } else if (message.role === "assistant") {
      const parts: Array<Turn.Part> = []
      if (typeof message.reasoning_content === "string") parts.push({ _tag: "Reasoning", text: message.reasoning_content })
      if (typeof message.content === "string" && message.content !== "") parts.push({ _tag: "Text", text: message.content })
      // The rules let a call through only with an id.
      const calls = message.tool_calls ?? []
      for (const call of calls) parts.push({ _tag: "FunctionCall", id: call.id!, name: call.function.name, ...argumentsOf(call.function.arguments) })
      names = new Map(calls.map((call) => [call.id!, call.function.name]))
      transcript.push({ role: "model", parts })
    } else {
      const content = message.content
      const parts: Array<Turn.Part> =
        typeof content === "string"
          ? [{ _tag: "Text", text: content }]
          : (content ?? []).map((part): Turn.Part => (part.type === "text" && typeof part.text === "string" ? { _tag: "Text", text: part.text } : { _tag: "Opaque", provider: "openai", data: part }))
      transcript.push({ role: "user", parts })
    }
  }
  flush()
  // The rules let a function tool through only with its function.
  const declarations: Array<FunctionDeclaration.FunctionDeclaration> =
    body.tools?.flatMap(({ type, function: declared }) =>
      type === "function" ? [{ name: declared!.name, description: declared!.description ?? "", parameters: declared!.parameters ?? { type: "object", properties: {} } }] : []
    ) ?? []
  const instruction = system.length === 0 ? undefined : system.join("\n")
  return {
    system: instruction,
    transcript,
    declarations,
    toolChoice: toolChoiceOf(body.tool_choice),
    output: outputOf(body, instruction)
  }
}
