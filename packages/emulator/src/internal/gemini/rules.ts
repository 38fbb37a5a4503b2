/**
 * The conversation rules Gemini enforces after the body was read: roles, turn order and counts, object-only
 * function responses, well-formed declarations, and (like Gemini 3) the thought signature it issued on a call,
 * required back on that call within the current turn. Each refusal is the real API's 400 text.
 */
import { isPlainObject } from "../json.js"
import { messages } from "./errors.js"
import type { Signer } from "./signature.js"
import { callSubject, dummySignatures, isBase64 } from "./signature.js"
import type * as Wire from "./wire.js"

const countCalls = (content: Wire.Content): number => (content.parts ?? []).filter((part) => part.functionCall !== undefined).length
const countResponses = (content: Wire.Content): number => (content.parts ?? []).filter((part) => part.functionResponse !== undefined).length

/** The members of Part's `oneof data`: a part holds exactly one. */
const dataFields = ["text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode", "codeExecutionResult", "toolCall", "toolResponse"] as const

// The API's own contract (the SDK's FunctionDeclaration docs): 128 characters; 64 is only the safe limit of older docs.
const declarationName = /^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/
const parameterName = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/

/**
 * What is wrong with the first ill-formed function declaration of `tools`, in the words of the 400 Gemini answers
 * it with (`root`: the request message's name); Live refuses the same declarations at setup (close 1007).
 */
export const declarationViolation = (tools: ReadonlyArray<Wire.Tool>, root: string): string | undefined => {
  for (let t = 0; t < tools.length; t++) {
    const declarations = tools[t]!.functionDeclarations ?? []
    for (let f = 0; f < declarations.length; f++) {
      const declaration = declarations[f]!
      const at = `* ${root}.tools[${t}].function_declarations[${f}]`
      if (declaration.name === undefined || !declarationName.test(declaration.name)) {
        return `${at}.name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 128.\n`
      }
      if (declaration.parameters !== undefined && declaration.parametersJsonSchema !== undefined) {
        return `${at}: parameters and parameters_json_schema are mutually exclusive.\n`
      }
      if (declaration.response !== undefined && declaration.responseJsonSchema !== undefined) {
        return `${at}: response and response_json_schema are mutually exclusive.\n`
      }
      // The OpenAPI `parameters` names its parameters more strictly than the function (the SDK's FunctionDeclaration docs).
      const names = Object.keys(declaration.parameters?.properties ?? {})
      const badName = names.find((name) => !parameterName.test(name))
      if (badName !== undefined) {
        return `${at}.parameters.properties[${badName}]: Invalid parameter name. Parameter names must start with a letter or an underscore and must only contain chars a-z, A-Z, 0-9, or underscores with a maximum length of 64.\n`
      }
    }
  }
  return undefined
}

const mimeTypes = new Set(["text/plain", "application/json", "application/xml", "application/yaml", "text/x.enum"])

/** Model names of Gemini 2.x and earlier, which refuse a JSON response together with function declarations. */
export const refusesJsonWithTools = (model: string): boolean => /^(?:models\/)?gemini-[12](?:\.|-|$)/.test(model)

/**
 * The 400 Gemini answers the body's JSON mode with, if any: `responseSchema` and `responseJsonSchema` together, a
 * schema without the JSON mime type, a mime type it does not know, and (models 2.x and earlier) a JSON response
 * with function declarations.
 */
export const outputViolation = (body: Wire.Request, model: string): string | undefined => {
  const config = body.generationConfig
  if (config === undefined) return undefined
  if (config.responseSchema !== undefined && config.responseJsonSchema !== undefined) return messages.schemasExclusive
  const mime = config.responseMimeType ?? "text/plain"
  if (!mimeTypes.has(mime)) return messages.mimeType
  if (config.responseJsonSchema !== undefined && mime !== "application/json") return messages.schemaNeedsJson("response_json_schema")
  if (config.responseSchema !== undefined && mime !== "application/json" && mime !== "text/x.enum") return messages.schemaNeedsJson("response_schema")
  const declares = (body.tools ?? []).some((tool) => (tool.functionDeclarations ?? []).length > 0)
  if (mime === "application/json" && declares && refusesJsonWithTools(model)) return messages.jsonModeWithTools
  return undefined
}

/** The 400 message Gemini would answer this body with, if any. */
export const violation = (body: Wire.Request, signer: Signer | undefined): string | undefined => {
  const contents = body.contents ?? []
  if (contents.length === 0) return "* GenerateContentRequest.contents: contents is not specified\n"
  const declarations = declarationViolation(body.tools ?? [], "GenerateContentRequest")
  if (declarations !== undefined) return declarations
  // Field checks first (as the API validates the payload before the conversation's rules).
  if (contents.some((content) => (content.role ?? "user") !== "user" && content.role !== "model")) return messages.role
  for (let i = 0; i < contents.length; i++) {
    const parts = contents[i]!.parts ?? []
    if (parts.length === 0) return `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`
    for (let j = 0; j < parts.length; j++) {
      const part = parts[j]!
      const data = dataFields.filter((field) => part[field] !== undefined)
      if (data.length === 0) return `* GenerateContentRequest.contents[${i}].parts[${j}].data: required oneof field 'data' must have one initialized field\n`
      if (data.length > 1) return `Invalid JSON payload received. Oneof field 'data' is already set. Cannot set '${data[1]}' at 'contents[${i}].parts[${j}]'.`
      if (part.functionCall !== undefined && (part.functionCall.name ?? "") === "") {
        return `* GenerateContentRequest.contents[${i}].parts[${j}].function_call.name: Name cannot be empty.\n`
      }
      if (part.functionResponse !== undefined && (part.functionResponse.name ?? "") === "") {
        return `* GenerateContentRequest.contents[${i}].parts[${j}].function_response.name: Name cannot be empty.\n`
      }
      const response = part.functionResponse
      if (response !== undefined && !isPlainObject(response.response)) {
        return Array.isArray(response.response)
          ? `Invalid JSON payload received. Unknown name "response" at 'contents[${i}].parts[${j}].function_response': Proto field is not repeating, cannot start list.`
          : `Invalid value at 'contents[${i}].parts[${j}].function_response.response' (type.googleapis.com/google.protobuf.Struct), ${JSON.stringify(response.response ?? null)}`
      }
      if (part.thoughtSignature !== undefined && !isBase64(part.thoughtSignature) && !dummySignatures.has(part.thoughtSignature)) {
        return `Invalid value at 'contents[${i}].parts[${j}].thought_signature' (TYPE_BYTES), Base64 decoding failed for "${part.thoughtSignature}"`
      }
    }
  }
  // Then the conversation's rules.
  for (let i = 0; i < contents.length; i++) {
    const content = contents[i]!
    const role = content.role ?? "user"
    const calls = countCalls(content)
    const responses = countResponses(content)
    const previous = contents[i - 1]
    if (calls > 0) {
      if (role !== "model" || previous === undefined || (previous.role ?? "user") !== "user") return messages.callOrder
      const next = contents[i + 1]
      if (next !== undefined && ((next.role ?? "user") !== "user" || countResponses(next) !== calls)) {
        return countResponses(next) === 0 && (next.role ?? "user") !== "user" ? messages.responseOrder : messages.responseCount
      }
    }
    if (responses > 0) {
      if (role !== "user" || previous === undefined || previous.role !== "model" || countCalls(previous) === 0) return messages.responseOrder
      if (responses !== countCalls(previous)) return messages.responseCount
    }
  }
  if (signer !== undefined) {
    // Gemini 3 checks the calls of the current turn: everything since the last user message that is not responses.
    let start = 0
    for (let i = contents.length - 1; i >= 0; i--) {
      const content = contents[i]!
      if ((content.role ?? "user") === "user" && countResponses(content) === 0) {
        start = i + 1
        break
      }
    }
    for (let i = start; i < contents.length; i++) {
      const parts = contents[i]!.parts ?? []
      const first = parts.find((part) => part.functionCall !== undefined)
      if (contents[i]!.role !== "model" || first === undefined) continue
      const call = first.functionCall!
      if (first.thoughtSignature === undefined) return messages.missingSignature(call.name ?? "", i + 1)
      if (!signer.verify(callSubject(call), first.thoughtSignature)) return messages.corruptedSignature
    }
  }
  return undefined
}


/**
 * Breaches of "if the call has an `id`, its response must carry the same one" that Gemini answers without a 400
 * (none is documented): a response id no call of the turn before it has, an id answered twice in one turn, a
 * response without the id its call (at the same position) had. For a body `violation` accepted.
 */
export const idViolations = (body: Wire.Request): Array<string> => {
  const found: Array<string> = []
  const contents = body.contents ?? []
  for (let i = 1; i < contents.length; i++) {
    const calls = (contents[i - 1]!.parts ?? []).flatMap((part) => (part.functionCall === undefined ? [] : [part.functionCall]))
    const responses = (contents[i]!.parts ?? []).flatMap((part) => (part.functionResponse === undefined ? [] : [part.functionResponse]))
    if (calls.length === 0 || responses.length === 0) continue
    const ids = new Set(calls.flatMap((call) => (call.id === undefined ? [] : [call.id])))
    const seen = new Set<string>()
    responses.forEach((response, position) => {
      const at = `contents[${i}]`
      if (response.id === undefined) {
        const expected = calls[position]?.id
        if (expected !== undefined) found.push(`${at}: the response to "${response.name ?? ""}" at position ${position} does not carry the id "${expected}" of its call`)
        return
      }
      if (!ids.has(response.id)) found.push(`${at}: the function response id "${response.id}" matches no call of the turn before it`)
      else if (seen.has(response.id)) found.push(`${at}: the call "${response.id}" was answered twice`)
      seen.add(response.id)
    })
  }
  return found
}
