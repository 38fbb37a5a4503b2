/** What the emulator keeps of one Gemini Live connection, for tests and the long-running server to look at. */
import type * as Fault from "../../Fault.js"

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
  /** Every client frame, parsed (a frame that was not JSON as its text). */
  readonly received: ReadonlyArray<unknown>
  /** Every server frame, as sent. */
  readonly sent: ReadonlyArray<unknown>
  /** Every function response the client sent, in order. */
  readonly responses: ReadonlyArray<LiveResponse>
  /** The call ids the server cancelled. */
  readonly cancelled: ReadonlyArray<string>
  /** Protocol breaches that do not close the connection: answers to cancelled ids, answers sent twice. */
  readonly violations: ReadonlyArray<string>
  /** Faults applied to this connection's setup and turns. */
  readonly faults: ReadonlyArray<Fault.Fault>
  /** How the connection ended; undefined while it is open. */
  readonly closed: { readonly code: number; readonly reason: string; readonly by: "server" | "client" } | undefined
}
