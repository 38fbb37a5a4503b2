/**
 * The conversation rules OpenAI and GLM enforce once the body was read: message roles, tool names, GLM's
 * `tool_choice: "auto"`, and an assistant message's `tool_calls` answered by tool messages right after it, each id
 * exactly once. Each refusal is the server's own 400 (OpenAI's message and parameter, GLM's 1214).
 */
import { isPlainObject } from "../json.js"
import type * as Wire from "./wire.js"
import type { Flavour } from "./wire.js"


const functionName = /^[a-zA-Z0-9_-]{1,64}$/
const roles = new Set(["system", "developer", "user", "assistant", "tool"])

/** The 400 the server would answer this body with: the message and (OpenAI) the offending parameter. */
export const violation = (body: Wire.Request, flavour: Flavour): { message: string; param: string | null } | undefined => {
  const glm = flavour === "glm"
  const fail = (message: string, param: string | null = null) => ({ message, param })
  if (body.messages.length === 0) return fail(glm ? "messages 参数非法。请检查文档。" : "[] is too short - 'messages'", "messages")
  const tools = body.tools ?? []
  if (tools.length > 128) return fail(`Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length ${tools.length} instead.`, "tools")
  for (let t = 0; t < tools.length; t++) {
    const tool = tools[t]!
    if (tool.type === "function") {
      if (tool.function === undefined || !functionName.test(tool.function.name)) {
        return fail(
          `Invalid 'tools[${t}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
          `tools[${t}].function.name`
        )
      }
    } else if (!glm && tool.type === "custom") {
      // OpenAI's custom tools (free-form input) name themselves under `custom`.
      const custom = (tool as { readonly custom?: unknown }).custom
      if (!isPlainObject(custom) || typeof custom.name !== "string" || custom.name === "") {
        return fail(`Missing required parameter: 'tools[${t}].custom.name'.`, `tools[${t}].custom.name`)
      }
    } else if (!(glm && (tool.type === "web_search" || tool.type === "retrieval"))) {
      return fail(
        glm ? `tools[${t}].type 参数非法: supported values are 'function', 'retrieval' and 'web_search'` : `Invalid value: '${tool.type}'. Supported values are: 'function' and 'custom'.`,
        `tools[${t}].type`
      )
    }
  }
  if (glm && body.tool_choice !== undefined && body.tool_choice !== "auto") return fail("tool_choice 参数非法: only \"auto\" is supported", "tool_choice")
  let pending: Array<string> = []
  const unanswered = () =>
    fail(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(", ")}`,
      "messages"
    )
  for (let i = 0; i < body.messages.length; i++) {
    const message = body.messages[i]!
    if (!roles.has(message.role)) {
      return fail(`Invalid value: '${message.role}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`, `messages.[${i}].role`)
    }
    if (message.role === "tool") {
      const id = message.tool_call_id ?? ""
      if (!pending.includes(id)) {
        return fail("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", `messages.[${i}].role`)
      }
      pending = pending.filter((other) => other !== id)
      const content = message.content
      const isText = typeof content === "string" || (!glm && Array.isArray(content) && content.every((part) => isPlainObject(part) && part.type === "text"))
      if (!isText) return fail(glm ? `messages[${i}].content 参数非法: must be a string` : `Invalid type for 'messages[${i}].content'.`, `messages.[${i}].content`)
      continue
    }
    if (pending.length > 0) return unanswered()
    if (message.role === "assistant") {
      const calls = message.tool_calls ?? []
      const content = message.content
      const empty = content === undefined || content === null || (glm && content === "")
      if (calls.length === 0 && empty) {
        return fail(glm ? `messages[${i}]: content and tool_calls cannot both be empty` : "Invalid value for 'content': expected a string, got null.", `messages.[${i}].content`)
      }
      for (let c = 0; c < calls.length; c++) {
        const call = calls[c]!
        if (call.id === undefined || call.id === "") return fail(`Missing required parameter: 'messages[${i}].tool_calls[${c}].id'.`, `messages.[${i}].tool_calls`)
        if (call.type !== "function") {
          return fail(
            call.type === undefined ? `Missing required parameter: 'messages[${i}].tool_calls[${c}].type'.` : `Invalid value: '${call.type}'. Supported values are: 'function'.`,
            `messages.[${i}].tool_calls[${c}].type`
          )
        }
      }
      pending = calls.map((call) => call.id!)
      if (new Set(pending).size !== pending.length) return fail(glm ? `messages[${i}]: duplicate tool_call id` : "Duplicate tool_call ids.", `messages.[${i}].tool_calls`)
    }
  }
  if (pending.length > 0) return unanswered()
  return undefined
}

