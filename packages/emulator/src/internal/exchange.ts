/**
 * One HTTP request/response of the emulator, and the ways of answering it: a JSON body, a stream of SSE frames
 * (optionally split across TCP writes, cut, stalled or ended by an error frame), a stall, a dropped connection.
 */
import type { IncomingHttpHeaders } from "node:http"
import * as Effect from "effect/Effect"
import type * as Fault from "../Fault.js"
import type * as Policy from "../Policy.js"

/** How a request ended, as the emulator saw it. */
export type Outcome = "pending" | "completed" | "aborted" | "dropped"

/** Everything the emulator knows about one request it received. */
export interface Recorded {
  readonly index: number
  readonly protocol: Policy.Protocol | "unknown"
  readonly flavour: Policy.Flavour | "unknown"
  readonly method: string
  readonly path: string
  readonly model: string | undefined
  readonly stream: boolean
  /** Whether the request carried the emulator's key (the key itself is never recorded). */
  readonly apiKey: "valid" | "missing" | "invalid" | "unchecked"
  /** The JSON body as received (undefined when it was not JSON). */
  readonly body: unknown
  /** The request decoded into the neutral model (when it passed the checks). */
  readonly request: Policy.Request | undefined
  /** The HTTP status answered (0 when no status was sent: a stall or a dropped connection). */
  readonly status: number
  /** The message of an error the emulator answered with (its own checks, or an injected fault). */
  readonly error: string | undefined
  /** The faults applied to this request. */
  readonly faults: ReadonlyArray<Fault.Fault>
  /**
   * Protocol breaches the server lets through without a 400 (the reference documents none for them), e.g. a Gemini
   * function response whose id matches no call of the turn before it.
   */
  readonly violations: ReadonlyArray<string>
  /** `aborted`: the client closed the connection before the answer was complete; `dropped`: the emulator did. */
  readonly outcome: Outcome
}

/** What the handler reads of a request: an `IncomingMessage`, or the in-process transport's stand-in. */
export interface Incoming {
  readonly headers: IncomingHttpHeaders
  readonly socket: { destroy(): void }
}

/** What the handler does to a response: a `ServerResponse`, or the in-process transport's stand-in. */
export interface Reply {
  writeHead(status: number, headers: Readonly<Record<string, string>>): void
  flushHeaders(): void
  write(text: string): void
  end(): void
  destroy(): void
  on(event: "close", listener: () => void): void
  readonly destroyed: boolean
  readonly headersSent: boolean
  readonly writableFinished: boolean
}

export interface Exchange {
  readonly req: Incoming
  readonly res: Reply
  readonly path: string
  readonly query: URLSearchParams
  readonly body: string
  readonly record: () => Recorded
  readonly update: (patch: Partial<Recorded>) => void
}

export interface FrameOptions {
  /** Write each frame in two TCP writes, split mid-frame. */
  readonly split: boolean
  /** Pause between frames (ms). */
  readonly delay: number
  /** After this many frames: drop the connection, stall, or send `errorFrame` and end. */
  readonly stop?: { readonly after: number; readonly how: "drop" | "stall" | "error"; readonly errorFrame?: string } | undefined
}

const pause = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

const write = (exchange: Exchange, text: string, split: boolean): Effect.Effect<void> =>
  Effect.gen(function* () {
    if (exchange.res.destroyed) return
    if (!split || text.length < 2) {
      exchange.res.write(text)
      return
    }
    const half = Math.floor(text.length / 2)
    exchange.res.write(text.slice(0, half))
    // A real pause, so that the two halves reach the client in separate reads.
    yield* pause(2)
    if (!exchange.res.destroyed) exchange.res.write(text.slice(half))
  })

/** Destroys the connection (the client sees it close mid-answer). */
export const drop = (exchange: Exchange): void => {
  exchange.update({ outcome: "dropped" })
  exchange.req.socket.destroy()
}

/** Answers with a JSON body. */
export const json = (
  exchange: Exchange,
  status: number,
  body: unknown,
  options: { readonly headers?: Readonly<Record<string, string>>; readonly split?: boolean; readonly cutHalfway?: boolean; readonly raw?: string } = {}
): Effect.Effect<void> =>
  Effect.gen(function* () {
    const text = options.raw ?? JSON.stringify(body)
    exchange.update({ status })
    exchange.res.writeHead(status, { "content-type": "application/json; charset=UTF-8", ...options.headers })
    if (options.cutHalfway === true) {
      exchange.res.flushHeaders()
      yield* write(exchange, text.slice(0, Math.floor(text.length / 2)), false)
      yield* pause(2)
      drop(exchange)
      return
    }
    yield* write(exchange, text, options.split ?? false)
    exchange.res.end()
  })

/** Answers with a stream of already-framed SSE events. */
export const stream = (
  exchange: Exchange,
  frames: ReadonlyArray<string>,
  options: FrameOptions
): Effect.Effect<void> =>
  Effect.gen(function* () {
    exchange.update({ status: 200 })
    exchange.res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    exchange.res.flushHeaders()
    for (let i = 0; i <= frames.length; i++) {
      const stop = options.stop
      if (stop !== undefined && Math.min(stop.after, frames.length) === i) {
        if (stop.how === "drop") {
          yield* pause(2)
          drop(exchange)
          return
        }
        if (stop.how === "stall") return
        yield* write(exchange, stop.errorFrame ?? "", false)
        exchange.res.end()
        return
      }
      if (i === frames.length) break
      yield* write(exchange, frames[i]!, options.split)
      if (options.delay > 0) yield* pause(options.delay)
      if (exchange.res.destroyed) return
    }
    exchange.res.end()
  })

/** Leaves the request unanswered; it ends when the client (or the emulator's shutdown) closes the connection. */
export const stall = (exchange: Exchange): Effect.Effect<void> => Effect.sync(() => exchange.update({ status: 0 }))

/** Closes the connection without an answer. */
export const disconnect = (exchange: Exchange): Effect.Effect<void> =>
  Effect.sync(() => {
    exchange.update({ status: 0 })
    drop(exchange)
  })
