/**
 * How the offline rule model words a tool's result: a sentence a person reads, not the JSON the tool returned.
 * Shapes that are common among tools (an expression and its result, a time in a zone, a directory listing, a
 * file, an HTTP answer) get their own wording; any other object is said field by field, a scalar as it is.
 */
import { isPlainObject } from "./json.js"

const plain = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value))

/** "a", "a and b", "a, b and c". */
const list = (items: ReadonlyArray<string>): string =>
  // Stryker disable next-line StringLiteral: every list said has an item
  items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`

const has = (value: Record<string, unknown>, ...keys: ReadonlyArray<string>): boolean => keys.every((key) => key in value)

const clip = (text: string, max = 2000): string => (text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text)

const listing = (value: Record<string, unknown>): string | undefined => {
  if (!Array.isArray(value.entries)) return undefined
  const names = value.entries.map((entry) =>
    isPlainObject(entry) && typeof entry.name === "string" ? `${entry.name}${entry.type === "directory" ? "/" : ""}` : plain(entry)
  )
  const more = typeof value.truncated === "number" && value.truncated > 0 ? ` (and ${value.truncated} more not listed)` : ""
  const where = typeof value.path === "string" ? value.path : "The directory"
  return names.length === 0 ? `${where} is empty${more}.` : `${where} holds ${names.length} entr${names.length === 1 ? "y" : "ies"}: ${list(names)}${more}.`
}

/** The result of a successful call of `name`, as one or a few sentences. */
export const success = (name: string, response: unknown): string => {
  const value = isPlainObject(response) && Object.keys(response).length === 1 && "output" in response ? response.output : response
  if (!isPlainObject(value)) return `${name} returned ${plain(value)}.`
  if (has(value, "expression", "result")) return `${plain(value.expression)} = ${plain(value.result)}.`
  if (has(value, "time", "date") && typeof value.time === "string") {
    const zone = value.time_zone ?? value.timeZone
    const day = typeof value.weekday === "string" ? `${value.weekday} ` : ""
    const offset = typeof value.utc_offset === "string" ? ` (UTC${value.utc_offset})` : ""
    return `It is ${value.time} on ${day}${plain(value.date)}${zone === undefined ? "" : ` in ${plain(zone)}`}${offset}.`
  }
  const entries = listing(value)
  if (entries !== undefined) return entries
  if (has(value, "path", "content") && typeof value.content === "string") {
    const size = typeof value.size === "number" ? ` (${value.size} bytes)` : ""
    return `${plain(value.path)}${size} reads:\n${clip(value.content)}`
  }
  if (has(value, "url", "status", "body") && typeof value.body === "string") {
    const type = typeof value.content_type === "string" && value.content_type !== "" ? `, ${value.content_type}` : ""
    return `${plain(value.url)} answered ${plain(value.status)}${type}:\n${clip(value.body)}`
  }
  const fields = Object.entries(value).map(([key, field]) => `${key} ${plain(field)}`)
  return fields.length === 0 ? `${name} returned nothing.` : `${name} returned ${list(fields)}.`
}

/** A failed call of `name`, with the error's message when it has one. */
export const failure = (name: string, error: unknown): string => {
  const message = isPlainObject(error) && typeof error.message === "string" ? error.message : plain(error)
  return `${name} failed: ${message.replace(/\.$/, "")}.`
}
