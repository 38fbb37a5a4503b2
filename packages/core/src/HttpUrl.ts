/**
 * The one check of an http(s) URL: a provider's base URL (the providers at layer build, the CLI's `--base-url`) and
 * an MCP server's URL (scenario files, `Mcp.connect`, the CLI's `--mcp-url`), parsed as the SDKs will parse it. It
 * imports nothing, so a command line can be checked without loading Effect or a provider (`@agentfx/core/HttpUrl`).
 *
 * A URL that fails may carry a credential (`https://user:token@host`, `?key=…`): a problem never quotes it. A
 * user name or password in a URL is refused wherever one is taken (`holdsCredentials`); `redact` shows such a URL
 * without them. Those two read any URL the parser reads, whatever its scheme (a `postgres://` store's URL too).
 *
 * @since 0.1.0
 */

/**
 * What is wrong with a base URL: it does not parse, or its scheme is not http(s) (`scheme`, without the colon, is
 * the only part of it a message may show).
 *
 * @since 0.1.0
 * @category models
 */
export type Problem = { readonly _tag: "Invalid" } | { readonly _tag: "NotHttp"; readonly scheme: string }

/**
 * What is wrong with `url` as an http(s) base URL, or `undefined` when it is usable.
 *
 * @since 0.1.0
 * @category checks
 */
export const check = (url: string): Problem | undefined => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return { _tag: "Invalid" }
  }
  if (parsed.protocol === "http:" || parsed.protocol === "https:") return undefined
  // Stryker disable next-line Regex: a parsed protocol holds one colon, its last character, so the anchor changes nothing
  return { _tag: "NotHttp", scheme: parsed.protocol.replace(/:$/, "") }
}

/**
 * Whether `url` is an absolute http: or https: URL.
 *
 * @since 0.2.0
 * @category checks
 */
export const isHttp = (url: string): boolean => check(url) === undefined

/**
 * Whether `url` parses as a URL that holds a user name or a password (`https://user:token@host`): fetch refuses
 * such a URL, and anything that quotes it would show the password.
 *
 * @since 0.2.0
 * @category checks
 */
export const holdsCredentials = (url: string): boolean => {
  try {
    const parsed = new URL(url)
    return parsed.username !== "" || parsed.password !== ""
  } catch {
    return false
  }
}

/**
 * `url` as a message may show it: its user name and password replaced by `***` when it holds them, else as given.
 *
 * @since 0.2.0
 * @category formatting
 */
export const redact = (url: string): string => {
  if (!holdsCredentials(url)) return url
  const parsed = new URL(url)
  return `${parsed.protocol}//***@${parsed.host}${parsed.pathname}${parsed.search}${parsed.hash}`
}
