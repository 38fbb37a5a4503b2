/**
 * The one check for MCP server URLs (scenario files, `Mcp.connect`, the CLI's `--mcp-url`). Lives at
 * `@agentfx/tools/http-url` and loads nothing, so that checking command-line arguments stays cheap.
 *
 * @since 0.2.0
 */

/** Whether `url` is an absolute http: or https: URL. */
export const isHttpUrl = (url: string): boolean => {
  try {
    return /^https?:$/.test(new URL(url).protocol)
  } catch {
    return false
  }
}
