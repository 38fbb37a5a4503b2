/**
 * The name an MCP server goes by in errors and, with several servers, in its tools' names, when it is not given one:
 * the host of its URL, or the program its command line runs.
 */
import type { Server } from "../Mcp.js"
import { hostOf } from "./mcpUrl.js"

/** `@scope/server-name@1.2`, `/path/to/server.js` → `server-name`, `server`. */
export const baseName = (word: string): string => (word.split("/").pop() ?? word).replace(/@[^@]*$/, "").replace(/\.(m?js|cjs|py|ts)$/, "") || word

/** Launchers: the program is what they run, not themselves. */
const launcher = /^(npx|node|nodejs|pnpm|uvx|python3?|deno|bun)$/

/** A word that can name a package or a file (not an option, not a quoted sentence). */
const programLike = /^[@\w./:-]+$/

export const serverName = (server: Server): string => {
  if (server.name !== undefined && server.name.trim() !== "") return server.name
  // The host only: the rest of a URL may carry a credential (`https://user:token@host/mcp?key=…`).
  if (server._tag === "Http") return hostOf(server.url) ?? "http-server"
  // The program it runs: the first word that names a package or a file, past the launcher (npx, node, uvx, …).
  const program = [server.command, ...(server.args ?? [])].find((word) => programLike.test(word) && !word.startsWith("-") && !launcher.test(baseName(word)))
  return baseName(program ?? server.command)
}
