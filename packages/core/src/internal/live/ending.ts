import { CloseCode } from "../../LiveModel.js"
import type { SessionError } from "../../LiveError.js"
import { LiveClosed } from "../../LiveError.js"
import * as ModelError from "../../ModelError.js"

/** How one connection of a session ended. */
export type Ending =
  /** `connect` failed (the setup was refused, the server was unreachable, it never completed the setup). */
  | { readonly _tag: "ConnectFailed"; readonly error: ModelError.ModelError }
  /** The server (or the transport) closed it; `progressed` if the model said something on it first. */
  | { readonly _tag: "Closed"; readonly code: number; readonly reason: string; readonly progressed: boolean; readonly leaving: boolean }
  /** Its event stream failed. */
  | { readonly _tag: "Failed"; readonly error: ModelError.ModelError; readonly progressed: boolean }
  /** After `GoAway`, the driver left it at a quiet moment (or when the time left ran out). */
  | { readonly _tag: "MovedOn" }
  /** The driver left it at a quiet moment to declare changed tools on a resumed connection. */
  | { readonly _tag: "Redeclared" }

/** What the session does next. `failed` reconnects count against the reconnect schedule; others start afresh. */
export type Decision =
  | { readonly _tag: "End"; readonly reason: string }
  | { readonly _tag: "Fail"; readonly error: SessionError }
  | { readonly _tag: "Reconnect"; readonly error: ModelError.ModelError; readonly code?: number | undefined; readonly failed: boolean }
  /** Resume at once on a new connection: nothing failed, nothing was lost (the tools changed). */
  | { readonly _tag: "Redeclare" }

/** Closes worth a reconnect with the last resumption handle: the server or the network failed, not the request. */
const transient: ReadonlySet<number> = new Set([
  CloseCode.goingAway,
  CloseCode.abnormal,
  CloseCode.internalError,
  CloseCode.serviceRestart,
  CloseCode.tryAgainLater,
  CloseCode.badGateway
])

const closeText = (code: number, reason: string): string => `the connection closed with code ${code}${reason === "" ? "" : ` (${reason})`}`

export const decide = (ending: Ending): Decision => {
  switch (ending._tag) {
    case "ConnectFailed":
      return ending.error.retryable ? { _tag: "Reconnect", error: ending.error, failed: true } : { _tag: "Fail", error: ending.error }
    case "MovedOn":
      return {
        _tag: "Reconnect",
        error: new ModelError.Unavailable({ message: "the server is going away", status: CloseCode.goingAway }),
        code: CloseCode.goingAway,
        failed: false
      }
    case "Redeclared":
      return { _tag: "Redeclare" }
    case "Failed":
      return ending.error.retryable ? { _tag: "Reconnect", error: ending.error, failed: !ending.progressed } : { _tag: "Fail", error: ending.error }
    case "Closed": {
      const { code, reason } = ending
      // A normal close the server announced with GoAway is the end of this connection, not of the session.
      if (transient.has(code) || (ending.leaving && code === CloseCode.normal)) {
        return { _tag: "Reconnect", error: new ModelError.Unavailable({ message: closeText(code, reason), status: code }), code, failed: !ending.progressed }
      }
      if (code === CloseCode.normal) return { _tag: "End", reason: reason === "" ? "the server closed the session" : `the server closed the session: ${reason}` }
      return { _tag: "Fail", error: new LiveClosed({ code, reason }) }
    }
  }
}

/** Why the calls and the turn of a connection that ended were lost. */
export const lossReason = (ending: Ending): string => {
  switch (ending._tag) {
    case "ConnectFailed":
      return ending.error.message
    case "MovedOn":
      return "the connection was replaced after the server's GoAway"
    case "Redeclared":
      return "the connection was replaced to declare the changed tools"
    case "Failed":
      return `the connection failed: ${ending.error.message}`
    case "Closed":
      return closeText(ending.code, ending.reason)
  }
}
