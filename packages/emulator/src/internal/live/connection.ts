/**
 * What the emulator does to, and keeps of, one Gemini Live connection outside its session logic: closing it as the
 * close code allows (and recording what really happened), and the bounded logs of its frames and events.
 */
import type { WebSocket } from "ws"
import * as Fault from "../../Fault.js"
import type { LiveRecord } from "./record.js"
import { maxFrameChars, maxFrames } from "./record.js"

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends ReadonlyArray<infer A> ? Array<A> : T[K] }

export type MutableRecord = Mutable<LiveRecord>

/** Appends `items` to `list`, keeping its last `maxFrames`. */
export const append = <A>(list: Array<A>, ...items: ReadonlyArray<A>): void => {
  list.push(...items)
  // Stryker disable next-line ConditionalExpression,EqualityOperator: at or under the bound the splice takes no item
  if (list.length > maxFrames) list.splice(0, list.length - maxFrames)
}

/** Keeps the last frames of one direction within `maxFrames` and `maxFrameChars` (the last frame is always kept). */
export const frameLog = (record: MutableRecord, side: "received" | "sent", keep: boolean) => {
  const sizes: Array<number> = []
  let chars = 0
  return (frame: unknown, size: number): void => {
    if (!keep) {
      record.droppedFrames++
      return
    }
    const list = record[side]
    list.push(frame)
    sizes.push(size)
    chars += size
    while (list.length > maxFrames || (chars > maxFrameChars && list.length > 1)) {
      list.shift()
      chars -= sizes.shift()!
      record.droppedFrames++
    }
  }
}

/** A WebSocket close reason is at most 123 bytes of UTF-8. */
const closeReason = (text: string): string => {
  let reason = text
  // Stryker disable next-line StringLiteral: Buffer.byteLength counts UTF-8 when given no encoding it knows
  while (Buffer.byteLength(reason, "utf8") > 123) reason = reason.slice(0, -2)
  return reason
}

/**
 * Ends the connection as `code` says and records what really happened: 1006 (and a code no close frame may carry,
 * which only a hand-built fault can hold) drops the socket without a close frame, which the client sees as 1006.
 */
export const closeSocket = (socket: WebSocket, record: MutableRecord, code: number, reason: string): void => {
  if (record.closed !== undefined) return
  if (code === 1006 || !Fault.isSendableCloseCode(code)) {
    record.closed = { code: 1006, reason: code === 1006 ? reason : `dropped: ${code} cannot be sent in a close frame (${reason})`, by: "server" }
    socket.terminate()
    return
  }
  record.closed = { code, reason: closeReason(reason), by: "server" }
  if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) socket.close(code, record.closed.reason)
}
