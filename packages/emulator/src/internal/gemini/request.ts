/**
 * A Gemini request the rules accepted, in the neutral form policies read: the system instruction, the transcript,
 * the declarations and the tool choice. Calls the client sent without an id get one here (`gemini_wire_<n>`,
 * never on the wire), and their responses are matched by position, as Gemini matches them.
 */
import type { FunctionDeclaration, LanguageModel, Turn } from "@agentfx/core"
import type { NeutralRequest } from "../answer.js"
import { isErrorResponse, isPlainObject } from "../json.js"
import type { OutputRequest } from "../output.js"
import { schemaInText } from "../output.js"
import type * as Wire from "./wire.js"

const signed = (part: Wire.Part): { metadata?: { thoughtSignature: string } } =>
  part.thoughtSignature === undefined ? {} : { metadata: { thoughtSignature: part.thoughtSignature } }

export const textOf = (content: Wire.Content | undefined): string | undefined =>
  content?.parts?.map((part) => part.text ?? "").join("")

const toolChoiceOf = (config: Wire.Request["toolConfig"]): LanguageModel.ToolChoice | undefined => {
  const calling = config?.functionCallingConfig
  switch (calling?.mode) {
    case "NONE":
      return "none"
    case "ANY":
    case "VALIDATED":
      return calling.allowedFunctionNames !== undefined && calling.allowedFunctionNames.length > 0 ? { allowed: calling.allowedFunctionNames } : "any"
    case "AUTO":
      return "auto"
    default:
      return undefined
  }
}

export const declarationsOf = (tools: Wire.Request["tools"]): Array<FunctionDeclaration.FunctionDeclaration> =>
  (tools ?? []).flatMap((tool) =>
    (tool.functionDeclarations ?? []).map((declaration) => {
      const schema = declaration.parametersJsonSchema ?? declaration.parameters
      return {
        name: declaration.name ?? "",
        description: declaration.description ?? "",
        parameters: isPlainObject(schema) ? schema : { type: "object", properties: {} },
        ...(declaration.behavior === "NON_BLOCKING" ? { behavior: "nonBlocking" as const } : {})
      }
    })
  )

/** What the body asks of the answer's form: JSON with a JSON mime type, following its schema (or its instructions'). */
const outputOf = (body: Wire.Request): OutputRequest | undefined => {
  const config = body.generationConfig
  const json = config?.responseMimeType === "application/json"
  const schema = config?.responseJsonSchema ?? config?.responseSchema ?? schemaInText(textOf(body.systemInstruction))
  return !json && schema === undefined ? undefined : { json, ...(schema === undefined ? {} : { schema }) }
}

/** The neutral request of a body that passed `rules.violation`. */
export const toNeutral = (body: Wire.Request): NeutralRequest => {
  const transcript: Array<Turn.Turn> = []
  const taken = new Set<string>()
  for (const content of body.contents ?? []) for (const part of content.parts ?? []) if (part.functionCall?.id !== undefined) taken.add(part.functionCall.id)
  let synthesised = 0
  const freshId = (): string => {
    let id: string
    do id = `gemini_wire_${++synthesised}`
    while (taken.has(id))
    taken.add(id)
    return id
  }
  let lastCalls: ReadonlyArray<string> = []
  for (const content of body.contents ?? []) {
    const parts = content.parts ?? []
    if (content.role === "model") {
      const calls: Array<string> = []
      const turn: Array<Turn.Part> = parts.map((part): Turn.Part => {
        const call = part.functionCall
        if (call !== undefined) {
          const id = call.id ?? freshId()
          calls.push(id)
          return { _tag: "FunctionCall", id, name: call.name ?? "", args: call.args ?? {}, ...signed(part) }
        }
        if (part.text !== undefined) return part.thought === true ? { _tag: "Reasoning", text: part.text, ...signed(part) } : { _tag: "Text", text: part.text, ...signed(part) }
        return { _tag: "Opaque", provider: "gemini", data: part }
      })
      lastCalls = calls
      transcript.push({ role: "model", parts: turn })
      continue
    }
    let position = 0
    const turn = parts.map((part): Turn.Part => {
      const answer = part.functionResponse
      if (answer !== undefined) {
        const response = isPlainObject(answer.response) ? answer.response : { output: answer.response ?? null }
        const matching = lastCalls[position++]
        return {
          _tag: "FunctionResponse",
          id: answer.id ?? matching ?? freshId(),
          name: answer.name ?? "",
          response,
          isError: isErrorResponse(response)
        }
      }
      if (part.text !== undefined) return { _tag: "Text", text: part.text }
      return { _tag: "Opaque", provider: "gemini", data: part }
    })
    transcript.push({ role: "user", parts: turn })
  }
  return {
    system: textOf(body.systemInstruction),
    transcript,
    declarations: declarationsOf(body.tools),
    toolChoice: toolChoiceOf(body.toolConfig),
    output: outputOf(body)
  }
}
