/**
 * @google/genai parses every Live frame with a bare `JSON.parse` inside an async handler that nothing awaits: one
 * frame that is not JSON is an unhandled rejection, which ends a Node 20 process. The SDK builds its sockets
 * through a factory held by `client.live`; wrapping that factory lets each frame be checked first. A frame that
 * is not JSON never reaches the SDK: `onMalformed` is told instead (the connection is then closed by the layer).
 *
 * The same wrapper keeps the socket it created, so that a connection whose setup never completes (the SDK then
 * never hands its session out) can still be closed.
 *
 * The factory is the SDK's own object, reached by name because the SDK keeps it private; if a later SDK moves it,
 * `install` says so (returns undefined) rather than failing silently.
 */
import * as Either from "effect/Either"
import type { GoogleGenAI } from "@google/genai"
import * as json from "../json.js"

interface Callbacks {
  readonly onopen: () => void
  readonly onerror: (event: unknown) => void
  readonly onmessage: (event: { readonly data: unknown }) => void
  readonly onclose: (event: unknown) => void
}

interface Socket {
  readonly close: () => void
}

interface Factory {
  create: (url: string, headers: Record<string, string>, callbacks: Callbacks) => Socket
}

/** What `install` leaves behind: a way to close the socket the SDK opened, whether or not `connect()` settled. */
export interface Guard {
  readonly closeSocket: () => void
}

const textOf = (data: unknown): string | undefined => {
  if (typeof data === "string") return data
  if (Buffer.isBuffer(data)) return data.toString("utf8")
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString("utf8")
  if (Array.isArray(data) && data.every((piece) => Buffer.isBuffer(piece))) return Buffer.concat(data).toString("utf8")
  return undefined
}

/**
 * Wraps `client`'s Live socket factory so that frames that are not JSON, or longer than `maxFrameBytes`, go to
 * `onMalformed`, not the SDK.
 */
export const install = (client: GoogleGenAI, onMalformed: (reason: string) => void, maxFrameBytes = Infinity): Guard | undefined => {
  const live = client.live as unknown as { webSocketFactory?: Factory }
  const original = live.webSocketFactory
  if (original === undefined || typeof original.create !== "function") return undefined
  let socket: Socket | undefined
  live.webSocketFactory = {
    create: (url, headers, callbacks) =>
      (socket = original.create(url, headers, {
        ...callbacks,
        onmessage: (event) => {
          const text = textOf(event.data)
          if (text === undefined) return onMalformed("the server sent a frame that is neither text nor bytes")
          if (text.length > maxFrameBytes || Buffer.byteLength(text, "utf8") > maxFrameBytes) {
            return onMalformed(`the server sent a frame larger than the limit of ${maxFrameBytes} bytes (maxResponseBytes)`)
          }
          const parsed = json.parse(text)
          if (Either.isLeft(parsed)) return onMalformed(`the server sent a frame that is not JSON (${parsed.left})`)
          callbacks.onmessage(event)
        }
      }))
  }
  return {
    closeSocket: () => {
      try {
        socket?.close()
      } catch {
        // Not connected yet: nothing is open to close.
      }
    }
  }
}
