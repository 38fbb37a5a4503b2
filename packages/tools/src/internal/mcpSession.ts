/**
 * The client end of one MCP server, for as long as a scope lasts: a child process over stdio, or a Streamable HTTP
 * session that is opened again when the server forgets it.
 *
 * The Streamable HTTP spec says a client that gets HTTP 404 to a request carrying its `Mcp-Session-Id` must start a
 * new session (a new `initialize`, without the id). The SDK leaves that to its user: its transport keeps sending the id
 * the server no longer knows, so every later request would fail for as long as the connection lasts (a server that
 * restarted, a session that expired). Here such a 404 opens one new session — one for all the requests that met it
 * at once — and the request is made once more, on the new session.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import type { Server } from "../Mcp.js"
import { sizeSentence, tooLargeOf } from "./mcpBound.js"
import { boundedFetch } from "./mcpFetch.js"
import { StdioTransport } from "./mcpStdio.js"
import { hostOf } from "./mcpUrl.js"

/** A request the server did not answer as asked: what the SDK threw. */
export class RequestFailed extends Data.TaggedError("RequestFailed")<{ readonly error: unknown }> {}

/** The server forgot its session and a new one could not be opened, or was forgotten at once too. */
export class SessionLost extends Data.TaggedError("SessionLost")<{ readonly message: string }> {}

/** The server did not start (or its first session did not open): why, with what a stdio server printed last. */
export class NotStarted extends Data.TaggedError("NotStarted")<{ readonly why: string }> {}

/** `client`'s request as an Effect: interrupting it aborts the request (the SDK sends `notifications/cancelled`). */
export const request = <A>(send: (signal: AbortSignal) => Promise<A>): Effect.Effect<A, RequestFailed> =>
  Effect.tryPromise({ try: send, catch: (error) => new RequestFailed({ error }) })

/**
 * What `error` says, with what it wraps: `fetch` fails with "fetch failed" and puts the reason (`connect
 * ECONNREFUSED …`) in its cause; the SDK's HTTP errors keep the status apart from the body they quote.
 */
export const messageOf = (error: unknown): string => {
  const tooLarge = tooLargeOf(error)
  if (tooLarge !== undefined) return `the answer is ${sizeSentence(tooLarge)}: it was not read`
  if (!(error instanceof Error)) return String(error)
  const status = error instanceof StreamableHTTPError && error.code !== undefined && !error.message.includes(String(error.code)) ? ` (HTTP ${error.code})` : ""
  const cause = error.cause instanceof Error && !error.message.includes(error.cause.message) ? `: ${error.cause.message}` : ""
  return `${error.message}${status}${cause}`
}

/**
 * How long ending an HTTP session (DELETE) may take before the connection is closed regardless: the close runs as a
 * finalizer, and a server that never answers must not hold up the end of its scope.
 */
const terminateTimeout = Duration.seconds(2)

/** Who connects, as the `initialize` request tells the server: this package, at its version (a test keeps them equal). */
export const clientInfo = { name: "agentfx", version: "0.1.0" } as const

/** The last lines a stdio server printed on stderr, for the error that says why it stopped. */
const stderrTail = (transport: StdioTransport) => {
  let text = ""
  transport.stderr.on("data", (chunk: Buffer) => {
    text = (text + chunk.toString("utf8")).slice(-2000)
  })
  return () => {
    const lines = text.trim().split("\n").slice(-3).join(" | ")
    return lines === "" ? "" : ` (its stderr: ${lines})`
  }
}

/** How one message is bounded: its most bytes, and who is told of a message of the server's dropped for its size. */
interface Bound {
  readonly maxMessageBytes: number
  readonly dropped: (why: string) => void
}

const transportOf = (server: Server, bound: Bound): { readonly transport: Transport; readonly said: () => string; readonly stop: () => void } => {
  if (server._tag === "Http") {
    return {
      transport: new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { ...server.headers } },
        fetch: boundedFetch(bound.maxMessageBytes, bound.dropped)
      }),
      said: () => "",
      stop: () => undefined
    }
  }
  const transport = new StdioTransport({ command: server.command, args: server.args ?? [], env: server.env, cwd: server.cwd, ...bound })
  return { transport, said: stderrTail(transport), stop: () => transport.stop() }
}

interface Session {
  readonly client: Client
  readonly transport: Transport
  /** Requests running on it: a session the server forgot is closed once none is left (an answer may still come). */
  busy: number
  /** Replaced by a new session: the server forgot it, so it is closed without a DELETE. */
  retired: boolean
}

/** The client of a server, on whichever session is current. */
export interface Sessions {
  /**
   * Runs `use` with the current session's client. When it fails with a `RequestFailed` that is an HTTP 404 to a
   * request that carried the session's id, the server no longer knows the session: a new one is opened (or the one
   * another request opened meanwhile is taken) and `use` runs once more, on it, from its start. A 404 again is a
   * `SessionLost`, as is a new session that cannot be opened.
   */
  readonly use: <A, E>(use: (client: Client) => Effect.Effect<A, E>) => Effect.Effect<A, E | SessionLost>
  /** Why the server is gone (its process exited, the connection was closed), once it is. */
  readonly gone: () => string | undefined
  /** The last lines a stdio server printed on stderr, as the end of a sentence ("" if none, or over HTTP). */
  readonly said: () => string
}

export interface SessionOptions {
  /** The server's name in messages. */
  readonly name: string
  /** How long opening a session (the `initialize` handshake) may take, in ms. */
  readonly startTimeout: number
  /** The most one message from the server may hold, in bytes (see `mcpBound`). */
  readonly maxMessageBytes: number
  /** Run on each session's client before it connects: handlers for the server's notifications go on each. */
  readonly prepare: (client: Client) => void
  /** Told when a new session replaced one the server forgot: its tools may not be the same. */
  readonly renewed: () => void
}

/** Opens the first session with `server`, for as long as the scope lasts; each session open then is closed with it. */
export const start = (server: Server, options: SessionOptions): Effect.Effect<Sessions, NotStarted, Scope.Scope> =>
  Effect.gen(function* () {
    const { name, startTimeout } = options
    const host = server._tag === "Http" ? hostOf(server.url) : undefined
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a server without a host (stdio) or named after it is labelled by its name either way
    const label = host === undefined || host === name ? name : `${name} (${host})`
    // Told from the transport's own callbacks, outside any fiber: logged in the runtime the server was started in.
    const runtime = yield* Effect.runtime<never>()
    const bound: Bound = {
      maxMessageBytes: options.maxMessageBytes,
      dropped: (why) => void Runtime.runFork(runtime)(Effect.logWarning(`${label} sent ${why}`))
    }
    /** Every session not closed yet: the scope's end closes them, whatever state they are in. */
    const live = new Set<Session>()
    let current: Session | undefined
    // Stryker disable next-line ArrowFunction,StringLiteral: the first session's transport sets it before anything can read it
    let said = () => ""
    let gone: string | undefined
    let closed = false

    /** A retired session only lets go of its client: the server has forgotten it already. */
    const drop = (session: Session) => {
      live.delete(session)
      return session.client.close().catch(() => undefined)
    }
    // A Streamable HTTP session is ended on the server too (DELETE), not only dropped here; the close that follows
    // aborts a DELETE still waiting. Interruptible, or the timeout would wait for it inside the finalizer.
    const end = (session: Session) =>
      Effect.zipRight(
        session.transport instanceof StreamableHTTPClientTransport
          ? Effect.promise(() => (session.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined)).pipe(
              Effect.interruptible,
              Effect.timeoutOption(terminateTimeout)
            )
          : Effect.void,
        Effect.promise(() => drop(session))
      )
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        closed = true
        // Stryker disable next-line ObjectLiteral,StringLiteral,BooleanLiteral: closing them together only saves time (each DELETE waits 2 s at most); one after another ends the same
        return Effect.forEach([...live], (session) => (session.retired ? Effect.promise(() => drop(session)) : end(session)), { concurrency: "unbounded", discard: true })
      })
    )

    /**
     * A new session, `then` told of it as it opens, before anything can interrupt: a session is never opened without
     * someone holding it. Not an acquireRelease: opening stays interruptible (Ctrl-C while `npx` downloads a server,
     * or another server's failure), and whatever it left behind — a child process — is closed however it ends.
     */
    const open = (then: (session: Session) => void): Effect.Effect<Session, string> =>
      Effect.suspend(() => {
        const made = transportOf(server, bound)
        said = made.said
        // Stryker disable next-line ObjectLiteral: no capabilities is the SDK's default too
        const client = new Client({ ...clientInfo }, { capabilities: {} })
        const session: Session = { client, transport: made.transport, busy: 0, retired: false }
        live.add(session)
        // Only the current session's close means the server is gone: a retired one is closed here, on purpose.
        client.onclose = () => {
          if (session === current) gone ??= `the server ${name} closed the connection${made.said()}`
        }
        options.prepare(client)
        return Effect.uninterruptibleMask((restore) =>
          restore(
            // A start that fails is closed by the SDK before the error comes back, and an HTTP transport reports its
            // close at once: the error says why (a 401, a refused connection), with what a stdio server printed.
            Effect.tryPromise({ try: (signal) => client.connect(made.transport, { timeout: startTimeout, signal }), catch: (error) => `${messageOf(error)}${made.said()}` })
          ).pipe(
            Effect.as(session),
            Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.sync(() => then(session)) : Effect.zipRight(Effect.sync(made.stop), end(session))))
          )
        )
      })

    yield* Effect.mapError(
      open((session) => {
        current = session
      }),
      (why) => new NotStarted({ why })
    )

    /** Whether `error` says the server no longer knows `session`: a 404 to a request that carried its id. */
    const forgot = (session: Session) => (error: unknown) =>
      error instanceof RequestFailed && error.error instanceof StreamableHTTPError && error.error.code === 404 && session.transport.sessionId !== undefined

    const retire = (session: Session) => {
      session.retired = true
      if (session.busy === 0) void drop(session)
    }

    // One new session at a time: requests that met the 404 together wait for the one that opens it, then see that the
    // session they failed on is no longer current and take the new one. A failed attempt counts for every request
    // that waited on it (`failures` moved since its 404), but a request that meets a 404 later tries again.
    const renewing = yield* Effect.makeSemaphore(1)
    let failures = 0
    let lastFailure: SessionLost | undefined
    const renew = (stale: Session, seen: number): Effect.Effect<Session, SessionLost> =>
      renewing.withPermits(1)(
        Effect.suspend(() => {
          if (current !== stale) return Effect.succeed(current!)
          if (failures !== seen) return Effect.fail(lastFailure!)
          if (closed) return Effect.fail(new SessionLost({ message: `${label} forgot its session (HTTP 404) as its connection was being closed` }))
          return open((fresh) => {
            current = fresh
            retire(stale)
            options.renewed()
          }).pipe(
            Effect.tap(() => Effect.logWarning(`${label} forgot its session (HTTP 404): a new session was opened`)),
            Effect.mapError((why) => {
              // Stryker disable next-line UpdateOperator: only that `failures` moved matters, not which way
              failures++
              lastFailure = new SessionLost({ message: `${label} forgot its session (HTTP 404) and a new one could not be opened: ${why}` })
              return lastFailure
            })
          )
        })
      )

    const attempt = <A, E>(session: Session, use: (client: Client) => Effect.Effect<A, E>) =>
      Effect.acquireUseRelease(
        Effect.sync(() => session.busy++),
        () => use(session.client),
        () => (--session.busy === 0 && session.retired ? Effect.promise(() => drop(session)) : Effect.void)
      )

    return {
      // A request met with a 404 for its session was not processed (the server did not know the session it named),
      // so making it again does not run it twice: a tool call too is made once more.
      use: <A, E>(use: (client: Client) => Effect.Effect<A, E>): Effect.Effect<A, E | SessionLost> =>
        Effect.suspend(() => {
          const session = current!
          return Effect.catchIf(attempt(session, use), forgot(session), () =>
            Effect.flatMap(renew(session, failures), (fresh) =>
              Effect.catchIf(attempt(fresh, use), forgot(fresh), () =>
                Effect.fail(new SessionLost({ message: `${label} forgot its session (HTTP 404) twice in a row, the second time right after a new one was opened: the request was not run` }))
              )
            )
          )
        }),
      gone: () => gone,
      said: () => said()
    }
  })
