/**
 * The offline rule model: deterministic, no randomness, no clock. It picks a tool by what the last user message
 * plainly asks for and fills the tool's string / number parameters from the message, using the parameter names
 * of the tool's JSON Schema to decide what goes where. A request that asks for JSON (a JSON mode, or a JSON Schema in
 * its instructions) gets its final answer as a JSON value that fits the schema (see `output.ts`), its free-form
 * strings saying what the answer in words would have said.
 *
 * It also reads and changes things a tool names in an `enum`, or lists in a parameter's description after "one of"
 * (the devices of a smart home, say): a message that names one of them (or says "it" after an earlier message named one) calls the tool offered for it — one whose
 * name says it changes things (`set_…`, `update_…`) when the message asks for a change, else one that reads them
 * (`get_…`, `…_status`) — with the thing named, the other `enum` values the message names, and the properties of
 * an optional object parameter the message sets ("set its color to blue").
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

/** What the user said, oldest first (turns that hold only function responses are not the user's words). */
const userTexts = (transcript: Policy.Request["transcript"]): ReadonlyArray<string> =>
  transcript.filter((turn) => turn.role === "user" && Turn.responses(turn).length === 0).map((turn) => Turn.text(turn))

const lastUserText = (transcript: Policy.Request["transcript"]): string | undefined => {
  for (let i = transcript.length - 1; i >= 0; i--) {
    const turn = transcript[i]!
    if (turn.role === "user" && Turn.responses(turn).length === 0) return Turn.text(turn)
  }
  return undefined
}

const expression = (text: string): string | undefined => {
  const match = /[-+(\d][\d\s.+\-*/×÷^()]*[\d)]/.exec(text)
  // Stryker disable next-line MethodExpression: the match starts and ends with a digit, a sign or a bracket, never a space
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

/** A word or phrase as a whole in `text`, ignoring case. */
const mentions = (text: string, phrase: string): boolean => new RegExp(`(^|[^\\p{L}\\p{N}])${escape(phrase)}($|[^\\p{L}\\p{N}])`, "iu").test(text)

const asksForChange = (text: string): boolean =>
  !/^\s*(is|are|what|what's|whats|how|which|does|do|did|can you tell)\b/i.test(text) && /\b(turn|switch|set|make|lock|unlock|open|close|dim|change|raise|lower|put)\b/i.test(text)

const refersBack = (text: string): boolean => /\b(it|its|it's|that|them|this|those)\b/i.test(text)

/**
 * The string values a parameter schema enumerates: its `enum`, or the values its description lists after "one of"
 * ("The device's name, one of: living room lamp, kitchen thermostat, front door lock."), for a parameter whose
 * values are known but not the only ones a caller may try.
 */
const enumOf = (schema: unknown): ReadonlyArray<string> => {
  if (!isPlainObject(schema)) return []
  if (Array.isArray(schema.enum)) return schema.enum.filter((value): value is string => typeof value === "string")
  const listed = typeof schema.description === "string" ? /\bone of:?\s*([^.;]+)/i.exec(schema.description)?.[1] : undefined
  return listed === undefined ? [] : listed.split(/\s*,\s*(?:or\s+)?|\s+or\s+/).map((value) => value.trim()).filter((value) => value !== "")
}

/** What a declaration is about: its first required parameter that enumerates its values (its first such one without). */
const subjectParameter = (declaration: FunctionDeclaration.FunctionDeclaration): string | undefined => {
  const properties = isPlainObject(declaration.parameters.properties) ? declaration.parameters.properties : {}
  // Stryker disable next-line ArrayDeclaration: a list holding a name no property has picks nothing more than an empty one
  const required = Array.isArray(declaration.parameters.required) ? declaration.parameters.required : []
  const enumerating = Object.keys(properties).filter((name) => enumOf(properties[name]).length > 0)
  return enumerating.find((name) => required.includes(name)) ?? enumerating[0]
}

/** The value of `parameter` that `text` names (the longest: "front door lock" before "lock"). */
const namedIn = (declaration: FunctionDeclaration.FunctionDeclaration, parameter: string, text: string): string | undefined => {
  const properties = isPlainObject(declaration.parameters.properties) ? declaration.parameters.properties : {}
  return [...enumOf(properties[parameter])].sort((a, b) => b.length - a.length).find((candidate) => mentions(text, candidate))
}

/** The property values an object parameter's properties get from "… <property> to <value>" in `text`. */
const settingsOf = (schema: unknown, text: string): Json.JsonObject | undefined => {
  const properties = isPlainObject(schema) && isPlainObject(schema.properties) ? schema.properties : {}
  const found: Record<string, unknown> = {}
  for (const [name, property] of Object.entries(properties)) {
    const word = name.split("_")[0]!
    const type = isPlainObject(property) ? property.type : undefined
    const numeric = type === "number" || type === "integer"
    // A number with its unit stands for the property the unit measures ("to 22 degrees": a temperature).
    const unit = !numeric ? undefined : /temp|celsius|fahrenheit/i.test(name) ? "(?:°|degrees?)" : /bright|level|percent|volume/i.test(name) ? "(?:%|percent)" : undefined
    const said =
      new RegExp(`\\b${escape(word)}\\s+(?:to|at|of)\\s+(-?\\d+(?:\\.\\d+)?|[\\p{L}][\\p{L} -]*?)(?=\\s*(?:%|°|degrees?|percent)?\\s*(?:[,.;!?]|\\band\\b|$))`, "iu").exec(text)?.[1] ??
      // Stryker disable next-line ConditionalExpression: without a unit the pattern would need the word "undefined" after a number
      (unit === undefined ? undefined : new RegExp(`(-?\\d+(?:\\.\\d+)?)\\s*${unit}`, "iu").exec(text)?.[1])
    if (said === undefined) continue
    if (numeric) {
      if (/^-?\d/.test(said)) found[name] = Number(said)
    } else found[name] = said.trim().toLowerCase()
  }
  return Object.keys(found).length === 0 ? undefined : found
}

/**
 * The call for a message about a thing a tool enumerates, if it is one: that tool (the one that changes things when
 * the message asks for a change, else the one that reads them) with the thing, the other values the message names,
 * and the settings it gives.
 */
const aboutAThing = (declarations: ReadonlyArray<FunctionDeclaration.FunctionDeclaration>, texts: ReadonlyArray<string>): Scripted.Step | undefined => {
  // Stryker disable next-line StringLiteral: without words from the user no text names a thing, whatever the stand-in
  const text = texts[texts.length - 1] ?? ""
  const earlier = refersBack(text) ? texts.slice(0, -1).reverse() : []
  const change = asksForChange(text)
  const fits = (declaration: FunctionDeclaration.FunctionDeclaration) =>
    change ? /^(set|update|change|turn|switch|toggle|control|apply)/i.test(declaration.name) : /^(get|read|check|lookup|find|query|show|describe)|_(status|state|info)$/i.test(declaration.name)
  for (const declaration of [...declarations.filter(fits), ...declarations.filter((declaration) => !fits(declaration))]) {
    const parameter = subjectParameter(declaration)
    if (parameter === undefined) continue
    const value = namedIn(declaration, parameter, text) ?? earlier.map((said) => namedIn(declaration, parameter, said)).find((found) => found !== undefined)
    if (value === undefined) continue
    const subject = { name: parameter, value }
    const properties = isPlainObject(declaration.parameters.properties) ? declaration.parameters.properties : {}
    const required = Array.isArray(declaration.parameters.required) ? declaration.parameters.required.filter((name): name is string => typeof name === "string") : []
    const args: Record<string, unknown> = { [subject.name]: subject.value }
    for (const [name, schema] of Object.entries(properties)) {
      if (name === subject.name) continue
      const choices = enumOf(schema)
      const named = choices.find((choice) => mentions(text, choice))
      if (named !== undefined) args[name] = named
      else if (isPlainObject(schema) && schema.type === "object") {
        const settings = settingsOf(schema, text)
        if (settings !== undefined) args[name] = settings
      } else if (required.includes(name)) args[name] = valueFor(name, schema, text, false)
    }
    return { calls: [{ name: declaration.name, args }] }
  }
  return undefined
}

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
  // Stryker disable next-line StringLiteral: without words from the user no rule matches, whatever the stand-in
  const text = lastUserText(request.transcript) ?? ""
  const tool = request.toolChoice === "none" ? undefined : pickTool(request.declarations, text)
  if (tool !== undefined) return { calls: [{ name: tool.name, args: argsFor(tool, text) }] }
  const thing = request.toolChoice === "none" ? undefined : aboutAThing(request.declarations, userTexts(request.transcript))
  if (thing !== undefined) return thing
  const tools = request.declarations.map((declaration) => declaration.name)
  return finalAnswer(
    request,
    "I am the agentfx emulator, running offline (no API key is set), so I cannot really answer that. " +
      (tools.length === 0 ? "I was given no tools." : `I can call the tools I was given when you ask for them plainly: ${tools.join(", ")}.`)
  )
}
