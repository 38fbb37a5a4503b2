/** What the emulator keeps of one Gemini Live connection, for tests and the long-running server to look at. */
import type * as Fault from "../../Fault.js"

/** How many frames each way (and entries of each other list) a Live record keeps. */
export const maxFrames = 1000

/** How many characters of frame text each way a Live record keeps (beyond its last frame). */
export const maxFrameChars = 1_000_000

/** One function response as the client sent it. */
export interface LiveResponse {
  readonly id: string
  readonly name: string
  readonly response: unknown
  readonly scheduling?: string | undefined
  readonly willContinue?: boolean | undefined
}

/** Everything the emulator knows about one Live connection. */
export interface LiveRecord {
  /** 0-based position among the Live connections this emulator accepted. */
  readonly index: number
  readonly path: string
  /** Whether the upgrade carried the emulator's key (the key itself is never recorded). */
  readonly apiKey: "valid" | "missing" | "invalid"
  /** The `setup` message as received (undefined until it arrives). */
  readonly setup: unknown
  readonly model: string | undefined
  /** The resumption handle the setup asked to resume, if any. */
  readonly resumedFrom: string | undefined
  /**
   * The last client frames, parsed (a frame that was not JSON as its text): at most `maxFrames`, and no more than
   * `maxFrameChars` characters of their JSON text once there are two; none when the emulator records no bodies.
   */
  readonly received: ReadonlyArray<unknown>
  /** The last server frames, as sent, bounded like `received`. */
  readonly sent: ReadonlyArray<unknown>
  /** How many frames (either way) are not, or no longer, in `received` and `sent`. */
  readonly droppedFrames: number
  /** The last `maxFrames` function responses the client sent, in order; none when the emulator records no bodies. */
  readonly responses: ReadonlyArray<LiveResponse>
  /** The last `maxFrames` call ids the server cancelled. */
  readonly cancelled: ReadonlyArray<string>
  /**
   * The last `maxFrames` protocol breaches the emulator noted: answers to cancelled ids and answers sent twice (the
   * connection goes on), and a frame the socket refused (too large, text that is not UTF-8, against the WebSocket
   * protocol), which closes it.
   */
  readonly violations: ReadonlyArray<string>
  /** The last `maxFrames` faults applied to this connection's setup and turns. */
  readonly faults: ReadonlyArray<Fault.Fault>
  /** How the connection ended; undefined while it is open. */
  readonly closed: { readonly code: number; readonly reason: string; readonly by: "server" | "client" } | undefined
}
