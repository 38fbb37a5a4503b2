/**
 * A stdio transport whose close everyone can wait for, and a way to end a server that never started.
 *
 * The MCP SDK's client closes its transport itself when `connect` fails, without waiting, and the stdio transport
 * forgets its process as soon as a close begins: a second close returned at once while the first still gave the
 * server two seconds to leave before SIGTERM. A caller that waited for its own close (and a CLI that exited right
 * after) left the process running. Here every close is the first one's promise.
 */
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"

export interface Stoppable {
  /** Sends SIGTERM to the process now, if one was started: for a server that failed to start, no grace to give. */
  readonly stop: () => void
}

export const closeOnce = (transport: StdioClientTransport): Stoppable => {
  const close = transport.close.bind(transport)
  let closing: Promise<void> | undefined
  transport.close = () => (closing ??= close())
  const start = transport.start.bind(transport)
  let pid: number | undefined
  transport.start = async () => {
    await start()
    pid = transport.pid ?? undefined
  }
  return {
    stop: () => {
      if (pid === undefined) return
      try {
        process.kill(pid, "SIGTERM")
      } catch {
        // It has already gone.
      }
    }
  }
}
