/**
 * Options that say something about one MCP server of the command line: `--mcp-header [SERVER=]Name: value` and
 * `--mcp-tools [SERVER=]TOOL,TOOL`. SERVER is the server's name as agentfx shows it (the host and port of a URL, the
 * program of a command line); it may be left out when there is only one server it could mean. Plain data and
 * functions, no Effect: the option checks run before any command is loaded.
 */

/** A value for one server (`server`), or for the only one there is (`undefined`). */
export interface Scoped<A> {
  readonly server: string | undefined
  readonly value: A
}

export type Parsed<A> = { readonly _tag: "Ok"; readonly scoped: Scoped<A> } | { readonly _tag: "Bad"; readonly problem: string }

/** An HTTP header's name: a token (RFC 9110), so never `=` or `:`. */
const token = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

export interface Header {
  readonly name: string
  readonly value: string
}

const header = (text: string): Header | undefined => {
  const colon = text.indexOf(":")
  if (colon === -1) return undefined
  const name = text.slice(0, colon).trim()
  const value = text.slice(colon + 1).trim()
  // Stryker disable next-line ConditionalExpression: a value with CR or LF would let one header smuggle another
  return token.test(name) && !/[\r\n\0]/.test(value) ? { name, value } : undefined
}

/** `SERVER=rest` when the part before the first `=` can be a server's name and `rest` reads as `read` wants. */
const scoped = <A>(text: string, read: (text: string) => A | undefined): Scoped<A> | undefined => {
  const equals = text.indexOf("=")
  if (equals > 0) {
    const server = text.slice(0, equals)
    const value = read(text.slice(equals + 1))
    if (!/\s/.test(server) && value !== undefined) return { server, value }
  }
  const whole = read(text)
  return whole === undefined ? undefined : { server: undefined, value: whole }
}

/** `--mcp-header [SERVER=]Name: value`. The value is never quoted back: it is most often a credential. */
export const parseHeader = (text: string): Parsed<Header> => {
  const found = scoped(text, header)
  return found === undefined
    ? { _tag: "Bad", problem: 'a header is "Name: value" (e.g. "Authorization: Bearer TOKEN"), or "SERVER=Name: value" for one of several servers' }
    : { _tag: "Ok", scoped: found }
}

const toolList = (text: string): ReadonlyArray<string> | undefined => {
  const names = text.split(",").map((name) => name.trim())
  return names.every((name) => name !== "") && new Set(names).size === names.length ? names : undefined
}

/** `--mcp-tools [SERVER=]TOOL,TOOL`: the server's own names for its tools, each once. */
export const parseTools = (text: string): Parsed<ReadonlyArray<string>> => {
  const found = scoped(text, toolList)
  return found === undefined
    ? { _tag: "Bad", problem: 'a list of tool names, each once, separated by commas (e.g. "read_text_file,list_directory"), or "SERVER=TOOL,TOOL" for one of several servers' }
    : { _tag: "Ok", scoped: found }
}

/** The problem of `text` for an option's check, if it has one. */
export const check = <A>(parse: (text: string) => Parsed<A>) => (text: string): string | undefined => {
  const parsed = parse(text)
  // Stryker disable next-line ConditionalExpression: an Ok has no problem, so reading it gives undefined as well
  return parsed._tag === "Bad" ? parsed.problem : undefined
}

/**
 * Each value given to `option` (already parsed) by the server it is for, as an index into `servers` (their names; `what`
 * says which servers they are): a value without SERVER is for the only server there is, and one whose SERVER is no
 * server, or more than one, is a problem naming the option and the servers there are.
 */
export const assign = <A>(
  option: string,
  given: ReadonlyArray<Scoped<A>>,
  servers: ReadonlyArray<string>,
  what: string
): { readonly _tag: "Ok"; readonly byServer: ReadonlyMap<number, ReadonlyArray<A>> } | { readonly _tag: "Bad"; readonly problem: string } => {
  const byServer = new Map<number, Array<A>>()
  const known = servers.length === 0 ? "none" : servers.join(", ")
  for (const { server, value } of given) {
    let index: number
    if (server === undefined) {
      if (servers.length !== 1) {
        return {
          _tag: "Bad",
          problem: `${option} names no server, and ${servers.length === 0 ? `there are no ${what} it could be for` : `there are ${servers.length} ${what} (${known}): give it as SERVER=…`}`
        }
      }
      index = 0
    } else {
      const matching = servers.flatMap((name, i) => (name === server ? [i] : []))
      if (matching.length === 0) return { _tag: "Bad", problem: `${option} is for ${JSON.stringify(server)}, which is none of the ${what} (${known})` }
      if (matching.length > 1) {
        return { _tag: "Bad", problem: `${option} is for ${JSON.stringify(server)}, and ${matching.length} ${what} go by that name: name them apart in a scenario file (--scenario)` }
      }
      index = matching[0]!
    }
    byServer.set(index, [...(byServer.get(index) ?? []), value])
  }
  return { _tag: "Ok", byServer }
}
