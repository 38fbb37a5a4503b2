/**
 * Text from outside — names and ids a model, a file or a server chose, their error messages — made safe to print
 * on a terminal. A control character or an ANSI escape in it would otherwise be obeyed, not shown: clear the
 * screen, move the cursor to overwrite an earlier line, retitle the window, or reorder the text (bidirectional
 * overrides). Each such character is shown as its JSON escape instead (`\u001b`), so what was sent stays visible.
 * Our own colours are added after escaping, so they still paint.
 */

// C0 controls, DEL and C1 controls (U+009B is a one-byte CSI), and the bidirectional embeddings, overrides and
// isolates: the characters a terminal acts on instead of showing.
// eslint-disable-next-line no-control-regex
const unsafe = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g
// eslint-disable-next-line no-control-regex
const unsafeKeepingLines = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

const code = (character: string): string => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`

/** A name or an id, on one line: every control character escaped, line breaks included. */
export const escapeName = (text: string): string => text.replace(unsafe, code)

/** A message that may span lines: like `escapeName`, but line breaks and tabs are kept. */
export const escapeLines = (text: string): string => text.replace(unsafeKeepingLines, code)

/**
 * The fields of a report that hold a name or an id (a case, a file, a scenario, a function): shown on one line, so
 * a line break in one is escaped too. Inside an array, the array's field counts.
 */
const nameFields = new Set(["id", "name", "functionName", "expectedNames", "actualNames", "file", "suite", "scenario", "expectedScenario", "path"])

/**
 * Every string in plain data (arrays, plain objects) escaped, the shape kept: names and ids (see `nameFields`)
 * and object keys with `escapeName`, anything else with `escapeLines`.
 */
export const escapeAll = <A>(value: A, field?: string): A => {
  if (typeof value === "string") return (field !== undefined && nameFields.has(field) ? escapeName(value) : escapeLines(value)) as A
  if (Array.isArray(value)) return value.map((inner) => escapeAll(inner, field)) as A
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [escapeName(key), escapeAll(inner, key)])) as A
  }
  return value
}
