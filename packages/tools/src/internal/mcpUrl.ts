/**
 * An MCP server's URL, as errors and names may show it: the host, or what is wrong with the URL, never the URL
 * itself. A URL may carry a credential (`https://user:token@host/mcp?key=…`), and a mistyped one is quoted the most.
 */
import * as HttpUrl from "@agentfx/core/HttpUrl"

/** The URL's host (with its port), if it parses and has one. */
export const hostOf = (url: string): string | undefined => {
  try {
    return new URL(url).host || undefined
  } catch {
    return undefined
  }
}

/** Why `url` cannot reach an MCP server, quoting at most its scheme; `undefined` when it can be tried. */
export const urlProblem = (url: string): string | undefined => {
  const problem = HttpUrl.check(url)
  if (problem?._tag === "Invalid") return "its URL does not parse"
  if (problem?._tag === "NotHttp") return `its URL's scheme is ${JSON.stringify(problem.scheme)}, not http or https`
  // fetch refuses such a URL with an error that quotes it whole.
  if (HttpUrl.holdsCredentials(url)) return "its URL holds a user name or password, which fetch refuses: send credentials in `headers`"
  return undefined
}
