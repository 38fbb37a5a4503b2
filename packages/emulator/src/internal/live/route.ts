/**
 * The Gemini Live upgrade: `GET {base}/ws/google.ai.generativelanguage.{version}.GenerativeService.BidiGenerateContent
 * ?key=KEY` (the SDK builds it with a doubled slash, `//ws/…`, collapsed before routing). The key is only in the
 * query string. A missing key refuses the upgrade (403); a wrong one is accepted and closed with 1007 and the words
 * of REST's 400 for it ("API key not valid"), as the service does: an INVALID_ARGUMENT, like a bad payload.
 */
import type { IncomingMessage } from "node:http"
import type { Duplex } from "node:stream"
import type { WebSocket, WebSocketServer } from "ws"
import { messages } from "../gemini/errors.js"

export const route = /\/ws\/google\.ai\.generativelanguage\.(v1beta|v1alpha|v1)\.GenerativeService\.(BidiGenerateContent|BidiGenerateContentConstrained)$/

/** The key the upgrade carried (`key`, or `access_token` for ephemeral tokens). */
export const keyOf = (query: URLSearchParams): string | undefined => query.get("key") ?? query.get("access_token") ?? undefined

/** Refuses an upgrade with an HTTP status (what the SDK reports as "Unexpected server response"). */
export const refuse = (socket: Duplex, status: number, reason: string): void => {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`)
}

/** Accepts the upgrade; `accepted` gets the socket once the handshake is done. */
export const accept = (server: WebSocketServer, req: IncomingMessage, socket: Duplex, head: Buffer, accepted: (ws: WebSocket) => void): void =>
  server.handleUpgrade(req, socket, head, accepted)

/** The close a wrong key gets: 1007, INVALID_ARGUMENT, with Gemini's message. */
export const keyRejection = { code: 1007, reason: messages.invalidKey } as const

/** A wrong key: the connection opens, then closes as `keyRejection` says. */
export const rejectKey = (ws: WebSocket): void => ws.close(keyRejection.code, keyRejection.reason)
