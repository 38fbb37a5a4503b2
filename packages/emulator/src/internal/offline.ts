/**
 * The offline rule model: deterministic, no randomness, no clock. It picks a tool by what the last user message
 * plainly asks for and fills the tool's string / number parameters from the message, using the parameter names
 * of the tool's JSON Schema to decide what goes where. A request that asks for JSON (a JSON mode, or a JSON Schema in
 * its instructions) gets its final answer as a JSON value that fits the schema (see `output.ts`), its free-form
 * strings saying what the answer in words would have said.
 */
import type { FunctionDeclaration, Json } from "@agentfx/core"
import { Turn } from "@agentfx/core"
import type { Scripted } from "@agentfx/core/testing"
import { isPlainObject } from "./json.js"
import { valueOf } from "./output.js"
import * as Sentence from "./sentence.js"
import type * as Policy from "../Policy.js"

interface Rule {
  readonly message: RegExp
  readonly tool: RegExp
}

const rules: ReadonlyArray<Rule> = [
  { message: /\b(time|clock|date|today|hour)\b/i, tool: /clock|time|date/i },
  { message: /\d\s*[-+*/×÷^]\s*[\d(]|\b(calculate|compute|sum of|how much is)\b/i, tool: /calc|math|arith|eval/i },
  { message: /https?:\/\/\S+/i, tool: /fetch|url|http|web|browse/i },
  { message: /\b(list|ls|files|folder|directory)\b/i, tool: /list|dir|ls/i },
  { message: /\b(read|open|show|cat)\b.*\S+\.\w{1,5}\b/i, tool: /read|file|cat/i }
]

const lastUserText = (transcript: Policy.Request["transcript"]): string | undefined => {
  for (let i = transcript.length - 1; i >= 0; i--) {
    const turn = transcript[i]!
    if (turn.role === "user" && Turn.responses(turn).length === 0) return Turn.text(turn)
  }
  return undefined
}

const expression = (text: string): string | undefined => {
  const match = /[-+(\d][\d\s.+\-*/×÷^()]*[\d)]/.exec(text)
  return match?.[0].trim()
}

const timeZone = (text: string): string | undefined => /\b[A-Z][A-Za-z_]+\/[A-Z][A-Za-z_]+(?:\/[A-Z][A-Za-z_]+)?\b/.exec(text)?.[0]

const url = (text: string): string | undefined => /https?:\/\/[^\s"'<>]+/.exec(text)?.[0]?.replace(/[.,;:!?)]+$/, "")

const path = (text: string): string | undefined => /(?:\.{0,2}\/)?[\w.-]+(?:\/[\w.-]+)*\.\w{1,5}\b/.exec(text)?.[0]

/** The folder a message names after "in", "of", "under" or "inside" ("list the files in src" → "src"). */
const folder = (text: string): string | undefined => {
  const named = /\b(?:in|of|under|inside)\s+((?:\.{0,2}\/)?[\w.-]+(?:\/[\w.-]+)*\/?)/i.exec(text)?.[1]?.replace(/[.,;:!?]+$/, "")
  return named === undefined || named === "" || /^(this|that|the|my|your|our|a|current|here)$/i.test(named) ? undefined : named
}

/** A value for one parameter, from its name and type and the message; `listing` when the tool lists a folder. */
const valueFor = (name: string, schema: unknown, text: string, listing: boolean): unknown => {
  const type = isPlainObject(schema) ? schema.type : undefined
  const enumValues = isPlainObject(schema) && Array.isArray(schema.enum) ? schema.enum : undefined
  if (enumValues !== undefined && enumValues.length > 0) {
    return enumValues.find((value) => typeof value === "string" && text.toLowerCase().includes(value.toLowerCase())) ?? enumValues[0]
  }
  if (type === "number" || type === "integer") {
    const number = /-?\d+(?:\.\d+)?/.exec(text)?.[0]
    return number === undefined ? 0 : Number(number)
  }
  if (type === "boolean") return false
  if (/expr|formula|calc|math/i.test(name)) return expression(text) ?? text
  if (/zone|tz/i.test(name)) return timeZone(text) ?? "UTC"
  if (/url|uri|link/i.test(name)) return url(text) ?? text
  if (/dir|folder/i.test(name) || (listing && /path/i.test(name))) return path(text) ?? folder(text) ?? "."
  if (/path|file/i.test(name)) return path(text) ?? "."
  return text
}

/** Arguments for a declaration: every required parameter (all of them when none is marked required). */
const argsFor = (declaration: FunctionDeclaration.FunctionDeclaration, text: string): Json.JsonObject => {
  const properties = isPlainObject(declaration.parameters.properties) ? declaration.parameters.properties : {}
  const required = Array.isArray(declaration.parameters.required)
    ? declaration.parameters.required.filter((name): name is string => typeof name === "string")
    : []
  const names = required.length > 0 ? required : Object.keys(properties).filter((name) => /zone|tz|expr|url|path|file|dir/i.test(name))
  const args: Record<string, unknown> = {}
  const listing = /list|dir|\bls\b/i.test(declaration.name)
  for (const name of names) args[name] = valueFor(name, properties[name], text, listing)
  return args
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const pickTool = (
  declarations: ReadonlyArray<FunctionDeclaration.FunctionDeclaration>,
  text: string
): FunctionDeclaration.FunctionDeclaration | undefined => {
  const named = declarations.find((declaration) => new RegExp(`\\b${escape(declaration.name)}\\b`, "i").test(text))
  if (named !== undefined) return named
  for (const rule of rules) {
    if (!rule.message.test(text)) continue
    const tool = declarations.find((declaration) => rule.tool.test(declaration.name))
    if (tool !== undefined) return tool
  }
  return undefined
}

/** A final answer in words, or (asked for JSON) as a JSON value that fits the schema asked for, its strings those words. */
const finalAnswer = (request: Policy.Request, words: string): Scripted.Step => {
  const output = request.output
  if (output === undefined) return { text: words }
  return { text: JSON.stringify(output.schema === undefined ? { answer: words } : valueOf(output.schema, words)) }
}

/** The offline model's answer to one request. */
export const offlineReply = (request: Policy.Request): Scripted.Step => {
  const last = request.transcript[request.transcript.length - 1]
  const responses = last === undefined ? [] : Turn.responses(last)
  if (responses.length > 0) {
    const lines = responses.map((response) =>
      response.isError ? Sentence.failure(response.name, response.response.error ?? response.response) : Sentence.success(response.name, response.response)
    )
    return finalAnswer(request, lines.join("\n"))
  }
  const text = lastUserText(request.transcript) ?? ""
  const tool = request.toolChoice === "none" ? undefined : pickTool(request.declarations, text)
  if (tool !== undefined) return { calls: [{ name: tool.name, args: argsFor(tool, text) }] }
  const tools = request.declarations.map((declaration) => declaration.name)
  return finalAnswer(
    request,
    "I am the agentfx emulator, running offline (no API key is set), so I cannot really answer that. " +
      (tools.length === 0 ? "I was given no tools." : `I can call the tools I was given when you ask for them plainly: ${tools.join(", ")}.`)
  )
}
