/**
 * Why a Gemini Live connection could not be set up, from what the socket said: the close code and reason the
 * server sent before `setupComplete` (1007 for a bad setup, and for a key the service does not accept, with the
 * REST 400's words "API key not valid"; 1008 for an unknown model or a refused key), or the transport's error (a
 * refused upgrade is "Unexpected server response: 403"; a refused connection ECONNREFUSED).
 */
import { ModelError } from "@agentfx/core"

export interface SocketEnd {
  readonly close?: { readonly code: number; readonly reason: string } | undefined
  readonly error?: string | undefined
}

/**
 * A close reason that says the key itself was refused (Gemini's INVALID_ARGUMENT for a key: "API key not valid",
 * "API key expired", `API_KEY_INVALID`), as opposed to one that only mentions a key.
 */
const refusedKey = /API key (?:not valid|not found|expired|invalid)|API_KEY_INVALID/i

/** The error a setup that ended before `setupComplete` stands for. */
export const setupFailure = (end: SocketEnd, scrub: (text: string) => string): ModelError.ModelError => {
  const upgrade = end.error === undefined ? undefined : /Unexpected server response: (\d+)/.exec(end.error)
  if (upgrade !== null && upgrade !== undefined) {
    const status = Number(upgrade[1])
    const message = scrub(`the Live endpoint refused the connection with HTTP ${status}`)
    if (status === 401 || status === 403) return new ModelError.Unauthorized({ message: `${message}: the API key is missing or not allowed`, status })
    if (status === 429) return new ModelError.RateLimited({ message, status })
    if (status >= 500) return new ModelError.Unavailable({ message, status })
    return new ModelError.InvalidRequest({ message: status === 404 ? `${message}: no Gemini Live endpoint at this URL` : message, status })
  }
  const close = end.close
  if (close !== undefined && close.code !== 1005 && close.code !== 1006) {
    const message = scrub(`the server closed the connection during setup (${close.code}${close.reason === "" ? "" : `: ${close.reason}`})`)
    if ((close.code === 1008 && /api key/i.test(close.reason)) || (close.code === 1007 && refusedKey.test(close.reason))) {
      return new ModelError.Unauthorized({ message, status: close.code })
    }
    if (close.code === 1007 || close.code === 1008 || close.code === 1003) return new ModelError.InvalidRequest({ message, status: close.code })
    return new ModelError.Unavailable({ message, status: close.code })
  }
  return new ModelError.Unavailable({ message: scrub(`the Live connection failed during setup${end.error === undefined ? "" : `: ${end.error}`}`) })
}
