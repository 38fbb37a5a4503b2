/**
 * A local server on 127.0.0.1 that speaks Gemini REST (`generateContent`, `streamGenerateContent?alt=sse`), Gemini
 * Live (the `BidiGenerateContent` WebSocket) and OpenAI-style chat completions (plain and streamed, GLM or OpenAI
 * flavoured by path) closely enough that the unmodified SDKs cannot tell, and is as strict as the real servers
 * where they are strict. A scoped resource: it stops, closing every connection, when its scope closes.
 *
 * @example
 * ```ts
 * import { Agent, Registry } from "@agentfx/core"
 * import { Emulator, Fault, Policy } from "@agentfx/emulator"
 * import { Gemini } from "@agentfx/providers"
 * import { Effect, Redacted } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   // A scripted emulator, and the real Gemini layer pointed at it:
 *   const emulator = yield* Emulator.make({ policy: Policy.script([{ text: "Hello from the emulator." }]) })
 *   const model = Gemini.layer({ apiKey: Redacted.make(emulator.apiKey), baseUrl: emulator.geminiBaseUrl })
 *   // In a test: inject a fault into the next request (retried by the loop), then look at what was received.
 *   yield* emulator.inject(Fault.overloaded())
 *   const result = yield* Agent.run({ registry: Registry.empty, prompt: "Hi" }).pipe(Effect.provide(model))
 *   const requests = yield* emulator.requests
 *   return [result.text, requests.length] as const // ["Hello from the emulator.", 2]
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
import { createServer } from "node:http"
import type { IncomingMessage } from "node:http"
import type { Duplex } from "node:stream"
import type { AddressInfo } from "node:net"
import { randomBytes } from "node:crypto"
import type { Turn } from "@agentfx/core"
import { Scripted } from "@agentfx/core/testing"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Duration from "effect/Duration"
import * as FiberSet from "effect/FiberSet"
import { WebSocketServer } from "ws"
import type { WebSocket } from "ws"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type { Decision } from "./internal/answer.js"
import { answerOf } from "./internal/answer.js"
import { errorOf as chatErrorOf } from "./internal/chatCompletions/errors.js"
import * as chatCompletionsRoute from "./internal/chatCompletions/route.js"
import type { Exchange, Incoming, Outcome, Recorded, Reply } from "./internal/exchange.js"
import * as respond from "./internal/exchange.js"
import { errorOf as geminiErrorOf } from "./internal/gemini/errors.js"
import * as geminiRoute from "./internal/gemini/route.js"
import { fetchInto } from "./internal/inProcess.js"
import { signer } from "./internal/gemini/signature.js"
import type { LiveRecord } from "./internal/live/record.js"
import { maxFrameChars as liveMaxFrameChars, maxFrames as liveMaxFrames } from "./internal/live/record.js"
import * as liveConnection from "./internal/live/connection.js"
import * as liveRoute from "./internal/live/route.js"
import * as liveSession from "./internal/live/session.js"
import * as Fault from "./Fault.js"
import * as Policy from "./Policy.js"

export type {
  /**
   * How a request ended, as the emulator saw it.
   *
   * @since 0.1.0
   * @category models
   */
  Outcome,
  /**
   * Everything the emulator recorded of one request it received, and how the request ended.
   *
   * @since 0.1.0
   * @category models
   */
  Recorded
} from "./internal/exchange.js"
export type {
  /**
   * Everything the emulator recorded of one Gemini Live connection.
   *
   * @since 0.1.0
   * @category models
   */
  LiveRecord,
  /**
   * One function response as a Live client sent it.
   *
   * @since 0.1.0
   * @category models
   */
  LiveResponse
} from "./internal/live/record.js"

/**
 * How to start the emulator; everything has a default.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** What the model says (default `Policy.offline`). */
  readonly policy?: Policy.Policy | undefined
  /** The key requests must carry (default `"agentfx-emulator-key"`). */
  readonly apiKey?: string | undefined
  /** Default 0: any free port. */
  readonly port?: number | undefined
  /** Issue thought signatures like Gemini 3 and require them back (default true). */
  readonly signatures?: boolean | undefined
  /**
   * The secret the signatures are made with (default a random one per emulator). Emulators given the same key
   * accept each other's signatures, as Gemini accepts its own from any server: a run resumed in another process.
   */
  readonly signingKey?: string | undefined
  /** Pause between stream frames (default none). */
  readonly frameDelay?: Duration.DurationInput | undefined
  /**
   * What is kept of HTTP requests for `requests`: the last `max` (default 100), with their bodies unless
   * `bodies: false`; `false` keeps nothing. Of Gemini Live connections for `live`: the last `max` closed ones and
   * every open one, each with its last frames each way (at most `maxLiveFrames`, and about `maxLiveFrameChars`
   * characters of them) and its last `maxLiveFrames` responses; no frames or responses with `bodies: false` or
   * `false`. Bounded, so a long-running emulator stays flat in memory.
   */
  readonly record?: { readonly max?: number | undefined; readonly bodies?: boolean | undefined } | false | undefined
  /**
   * The largest frame a Gemini Live client may send (default `defaultMaxLiveFrameBytes`, 20 MiB, as for a REST body).
   * A larger one is refused from its header, before it is read: the connection is closed with 1009 (RFC 6455's
   * "message too big") and the record says so in `violations`.
   */
  readonly maxLiveFrameBytes?: number | undefined
  /**
   * How long a Gemini Live connection may wait before its `setup` arrives (default `defaultLiveSetupTimeout`, 10 s);
   * then it is closed with 1011 and the words Google's services close a deadline with.
   */
  readonly liveSetupTimeout?: Duration.DurationInput | undefined
}

/** How many resumption handles are kept (each the history of its session as it was then, shared, not copied). */
const maxHandles = 1000

/**
 * How many frames each way (and responses, cancellations, violations, faults) a Live record keeps.
 *
 * @since 0.1.0
 */
export const maxLiveFrames = liveMaxFrames

/**
 * How many characters of frame text each way a Live record keeps beyond its last frame.
 *
 * @since 0.1.0
 */
export const maxLiveFrameChars = liveMaxFrameChars

/**
 * How many requests are kept unless `record.max` says otherwise.
 *
 * @since 0.1.0
 */
export const defaultRecordMax = 100

/**
 * The running emulator: where it listens, and how to steer and inspect it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string
  readonly port: number
  /** The key the emulator accepts. */
  readonly apiKey: string
  /** For @google/genai `httpOptions.baseUrl`. */
  readonly geminiBaseUrl: string
  /** For the openai SDK's `baseURL`: an OpenAI-flavoured route (default path `/v1`). */
  readonly openAIBaseUrl: (path?: string) => string
  /** For the openai SDK's `baseURL`: a GLM-flavoured route, like Z.AI's general or coding endpoint. */
  readonly glmBaseUrl: (endpoint?: GlmEndpoint) => string
  /**
   * A `fetch` that reaches this emulator without a socket (HTTP routes only; URLs as with `url`): the same
   * handler, answers and faults, at a fraction of the cost per request — what offline eval suites use.
   */
  readonly fetch: typeof globalThis.fetch
  /**
   * Applies `faults` to the next request (of `protocol`, when given), `times` requests in a row (default 1).
   * Injected faults are used before the policy is asked; an answer fault leaves the policy's script untouched.
   */
  readonly inject: (
    faults: Fault.Fault | ReadonlyArray<Fault.Fault>,
    options?: { readonly times?: number; readonly protocol?: Policy.Protocol }
  ) => Effect.Effect<void>
  readonly setPolicy: (policy: Policy.Policy) => Effect.Effect<void>
  /** The requests still recorded (the last `record.max`), oldest first; `index` counts every request received. */
  readonly requests: Effect.Effect<ReadonlyArray<Recorded>>
  /** How many requests were received in all, recorded or not. */
  readonly received: Effect.Effect<number>
  /** Waits until at least `count` requests were received; gives the recorded ones. */
  readonly awaitRequests: (count: number) => Effect.Effect<ReadonlyArray<Recorded>>
  /** Waits until request `index` has ended, and says how. */
  readonly awaitOutcome: (index: number) => Effect.Effect<Exclude<Outcome, "pending">>
  /** Fails when the policy is a script with steps left. */
  readonly assertConsumed: Effect.Effect<void, Scripted.ScriptIncomplete>
  /**
   * The Gemini Live connections still recorded (the last `record.max`, and every open one), oldest first; `index`
   * counts every connection (inject Live faults with `protocol: "gemini-live"`).
   */
  readonly live: Effect.Effect<ReadonlyArray<LiveRecord>>
  /** Waits until at least `count` Live connections were accepted. */
  readonly awaitLive: (count: number) => Effect.Effect<ReadonlyArray<LiveRecord>>
  /** Waits until Live connection `index` has closed, and says how. */
  readonly awaitLiveClosed: (index: number) => Effect.Effect<NonNullable<LiveRecord["closed"]>>
  /**
   * Closes Live connection `index` now, with `code` (1006: drops the socket without a close frame); fails with
   * `InvalidCloseCode` for a code no close frame may carry.
   */
  readonly closeLive: (index: number, code: number, reason?: string) => Effect.Effect<void, Fault.InvalidCloseCode>
}

/**
 * Z.AI's two routes: pay-as-you-go keys use `general`, GLM Coding Plan keys `coding`.
 *
 * @since 0.1.0
 * @category models
 */
export type GlmEndpoint = "general" | "coding"

const glmPaths: Record<GlmEndpoint, string> = { general: "/api/paas/v4", coding: "/api/coding/paas/v4" }

/**
 * The running emulator.
 *
 * @since 0.1.0
 * @category tags
 */
export class Emulator extends Context.Tag("@agentfx/emulator/Emulator")<Emulator, Service>() {}

/**
 * The key the emulator accepts unless told otherwise.
 *
 * @since 0.1.0
 */
export const defaultApiKey = "agentfx-emulator-key"

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

interface Injection {
  readonly faults: ReadonlyArray<Fault.Fault>
  readonly protocol: Policy.Protocol | undefined
  times: number
}

const maxBody = 20 * 1024 * 1024

/**
 * The largest Gemini Live client frame unless `maxLiveFrameBytes` says otherwise: the REST body limit, 20 MiB.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultMaxLiveFrameBytes = maxBody

/**
 * How long a Gemini Live connection may go without its `setup` unless `liveSetupTimeout` says otherwise.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultLiveSetupTimeout: Duration.Duration = Duration.seconds(10)

/**
 * The request body, or undefined once it passes `maxBody` (or the upload fails): reading stops there, so an endless
 * upload is answered at once instead of read to its end.
 */
const readBody = (req: IncomingMessage): Effect.Effect<string | undefined> =>
  Effect.async<string | undefined>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const stop = (body: string | undefined) => {
      req.off("data", onData)
      req.off("end", onEnd)
      req.off("error", onError)
      if (body === undefined) req.pause()
      resume(Effect.succeed(body))
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBody) return stop(undefined)
      chunks.push(chunk)
    }
    const onEnd = () => stop(Buffer.concat(chunks).toString("utf8"))
    const onError = () => stop(undefined)
    req.on("data", onData)
    req.on("end", onEnd)
    req.on("error", onError)
  })

/** What each route answers a body past `maxBody` with, in its own error shape; the connection is closed after it. */
const tooLarge = (path: string): { readonly protocol: Policy.Protocol | "unknown"; readonly flavour: Policy.Flavour | "unknown"; readonly body: unknown } => {
  const message = `Request payload size exceeds the limit: ${maxBody} bytes.`
  const fault: Fault.Status = { _tag: "Status", status: 413, message }
  if (geminiRoute.route.test(path)) return { protocol: "gemini", flavour: "gemini", body: geminiErrorOf(fault, "")!.body }
  if (chatCompletionsRoute.route.test(path)) {
    const flavour = chatCompletionsRoute.flavourOf(path)
    return { protocol: "openai", flavour, body: chatErrorOf(fault, flavour)!.body }
  }
  return { protocol: "unknown", flavour: "unknown", body: { error: { code: 413, message, status: "INVALID_ARGUMENT" } } }
}

/**
 * Starts the emulator; it stops when the scope closes.
 *
 * @since 0.1.0
 */
export const make = (options: Options = {}): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.gen(function* () {
    const apiKey = options.apiKey ?? defaultApiKey
    let policy = options.policy ?? Policy.offline
    const records: Array<Mutable<Recorded>> = []
    const keep = options.record === false ? 0 : Math.max(0, options.record?.max ?? defaultRecordMax)
    const keepBodies = options.record !== false && options.record?.bodies !== false
    let received = 0
    const injections: Array<Injection> = []
    const listeners = new Set<() => void>()
    const notify = () => {
      for (const listener of [...listeners]) listener()
    }
    const frameDelay = options.frameDelay === undefined ? 0 : Duration.toMillis(Duration.decode(options.frameDelay))
    const sign = signer(options.signingKey ?? randomBytes(16).toString("hex"))
    // One real clock for every request and Live connection (see `handle`), not one made per request.
    const realClock = Clock.make()

    /** The next injection for `protocol` at `stage`: a Live setup takes only injections of setup faults. */
    const takeInjection = (protocol: Policy.Protocol, stage: "setup" | "turn" = "turn"): ReadonlyArray<Fault.Fault> => {
      const index = injections.findIndex(
        (injection) => (injection.protocol === undefined || injection.protocol === protocol) && injection.faults.some(Fault.isSetupFault) === (stage === "setup")
      )
      if (index === -1) return []
      const injection = injections[index]!
      injection.times--
      if (injection.times <= 0) injections.splice(index, 1)
      return injection.faults
    }

    /** What to answer `request` with: an injected fault, else the policy's reply; `note` is told the faults applied. */
    const decide = (request: Policy.Request, note: (faults: ReadonlyArray<Fault.Fault>) => void): Effect.Effect<Decision> =>
      Effect.gen(function* () {
        const injected = takeInjection(request.protocol)
        const answerFault = injected.find(Fault.isAnswerFault)
        if (answerFault !== undefined) {
          note(injected)
          return { _tag: "Fault", fault: answerFault } as const
        }
        const shaping = injected.filter((fault): fault is Fault.ShapingFault => !Fault.isAnswerFault(fault) && !Fault.isSetupFault(fault))
        const reply = yield* policy.reply(request)
        if ("_tag" in reply && reply._tag !== "WithFaults") {
          note([...injected, reply])
          return { _tag: "Fault", fault: reply } as const
        }
        const step = "_tag" in reply ? reply.step : reply
        const faults = "_tag" in reply ? [...shaping, ...reply.faults] : shaping
        note(faults)
        if (step.delay !== undefined) yield* Effect.sleep(step.delay)
        if ("error" in step) return { _tag: "Error", error: step.error, faults } as const
        return { _tag: "Answer", answer: answerOf(step, request), faults } as const
      })

    const geminiContext: geminiRoute.Context = { apiKey, signer: sign, signatures: options.signatures ?? true, frameDelay, decide }
    const openAIContext: chatCompletionsRoute.Context = { apiKey, frameDelay, decide }

    /** One HTTP request, from the server or the in-process transport; `body` is undefined past the size limit. */
    const handle = (method: string, url: string, req: Incoming, res: Reply, readRequestBody: Effect.Effect<string | undefined>): Effect.Effect<void> =>
      Effect.gen(function* () {
        const [rawPath = "/", rawQuery = ""] = url.split("?", 2)
        // The SDKs build some paths with a doubled slash (Gemini Live's `//ws/...`): collapse before routing.
        const path = rawPath.replace(/\/{2,}/g, "/")
        const record: Mutable<Recorded> = {
          index: received++,
          protocol: "unknown",
          flavour: "unknown",
          method,
          path,
          model: undefined,
          stream: false,
          apiKey: "unchecked",
          body: undefined,
          request: undefined,
          status: 0,
          error: undefined,
          faults: [],
          violations: [],
          outcome: "pending"
        }
        records.push(record)
        if (records.length > keep) records.splice(0, records.length - keep)
        res.on("close", () => {
          if (record.outcome === "pending") record.outcome = res.writableFinished ? "completed" : "aborted"
          notify()
        })
        notify()
        const body = yield* readRequestBody
        const exchange: Exchange = {
          req,
          res,
          path,
          query: new URLSearchParams(rawQuery),
          body: body ?? "",
          record: () => record,
          update: (patch) => {
            Object.assign(record, keepBodies ? patch : { ...patch, body: undefined, request: undefined })
            notify()
          }
        }
        if (body === undefined) {
          const refusal = tooLarge(path)
          exchange.update({ protocol: refusal.protocol, flavour: refusal.flavour, error: "the request body is larger than the limit" })
          return yield* respond.json(exchange, 413, refusal.body, { headers: { connection: "close" } })
        }
        const geminiMatch = geminiRoute.route.exec(path)
        if (method === "POST" && geminiMatch !== null) return yield* geminiRoute.handle(exchange, geminiContext, geminiMatch)
        if (method === "POST" && chatCompletionsRoute.route.test(path)) return yield* chatCompletionsRoute.handle(exchange, openAIContext)
        exchange.update({ error: "not found" })
        return yield* respond.json(exchange, 404, { error: { code: 404, message: `agentfx emulator: no route for ${method} ${path}`, status: "NOT_FOUND" } })
      }).pipe(
        // The emulator keeps real time even when it is started from a test running on the TestClock.
        Effect.withClock(realClock),
        Effect.catchAllDefect((defect) =>
          Effect.sync(() => {
            if (!res.headersSent) {
              res.writeHead(500, { "content-type": "application/json" })
              res.write(JSON.stringify({ error: { code: 500, message: `agentfx emulator defect: ${String(defect)}`, status: "INTERNAL" } }))
              res.end()
            } else {
              res.destroy()
            }
          })
        )
      )

    const fibers = yield* FiberSet.make()
    const run = yield* FiberSet.runtime(fibers)<never>()
    const server = createServer((req, res) => {
      run(handle(req.method ?? "GET", req.url ?? "/", req, res, readBody(req)))
    })
    // In-process requests still open when the emulator stops end as its connections do.
    const inProcess = new Set<() => void>()
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const stop of [...inProcess]) stop()
      })
    )
    const fetch = fetchInto(
      (request) => run(handle(request.method, request.url, request.req, request.res, Effect.succeed(Buffer.byteLength(request.body) > maxBody ? undefined : request.body))),
      inProcess
    )
    // Live connections are kept like HTTP requests: the last `record.max` (their index counts every one), each with
    // its last frames (record.ts); the resumption handles, only the last `maxHandles`. A long-running emulator stays flat.
    const liveRecords: Array<liveConnection.MutableRecord> = []
    const liveSockets: Array<WebSocket> = []
    let liveDropped = 0
    const liveAt = (index: number) => ({ record: liveRecords[index - liveDropped], socket: liveSockets[index - liveDropped] })
    // A session's history only grows by appending, so a handle is the array and its length then, not a copy.
    const handles = new Map<string, { readonly history: ReadonlyArray<Turn.Turn>; readonly length: number }>()
    let handlesIssued = 0
    let liveTurns = 0
    const maxLiveFrameBytes = options.maxLiveFrameBytes ?? defaultMaxLiveFrameBytes
    const liveContext: liveSession.Context = {
      frameDelay,
      setupTimeout: options.liveSetupTimeout === undefined ? defaultLiveSetupTimeout : Duration.decode(options.liveSetupTimeout),
      maxFrameBytes: maxLiveFrameBytes,
      keepFrames: keepBodies,
      decide,
      takeSetupFaults: () => takeInjection("gemini-live", "setup"),
      nextTurn: () => liveTurns++,
      handles: {
        issue: (history) => {
          const handle = `live-handle-${++handlesIssued}`
          handles.set(handle, { history, length: history.length })
          for (const oldest of handles.keys()) {
            if (handles.size <= maxHandles) break
            handles.delete(oldest)
          }
          return handle
        },
        resume: (handle) => {
          const kept = handles.get(handle)
          return kept === undefined ? undefined : kept.history.slice(0, kept.length)
        }
      },
      changed: notify
    }
    // `maxPayload` refuses a frame from its header: a client cannot make the emulator hold more than the limit.
    const sockets = new WebSocketServer({ noServer: true, maxPayload: maxLiveFrameBytes })
    server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const [rawPath = "/", rawQuery = ""] = (req.url ?? "/").split("?", 2)
      const path = rawPath.replace(/\/{2,}/g, "/")
      if (!liveRoute.route.test(path)) return liveRoute.refuse(socket, 404, "Not Found")
      const key = liveRoute.keyOf(new URLSearchParams(rawQuery))
      if (key === undefined || key === "") return liveRoute.refuse(socket, 403, "Forbidden")
      liveRoute.accept(sockets, req, socket, head, (ws) => {
        const record: liveConnection.MutableRecord = {
          index: liveDropped + liveRecords.length,
          path,
          apiKey: key === apiKey ? "valid" : "invalid",
          setup: undefined,
          model: undefined,
          resumedFrom: undefined,
          received: [],
          sent: [],
          droppedFrames: 0,
          responses: [],
          cancelled: [],
          violations: [],
          faults: [],
          closed: undefined
        }
        liveRecords.push(record)
        liveSockets.push(ws)
        // The oldest closed connections go first; open ones are kept whatever the bound.
        while (liveRecords.length > Math.max(keep, 1) && liveRecords[0]!.closed !== undefined) {
          liveRecords.shift()
          liveSockets.shift()
          liveDropped++
        }
        notify()
        if (record.apiKey === "invalid") {
          record.closed = { ...liveRoute.keyRejection, by: "server" }
          // A frame the socket refuses (past the size limit, say) is an error event: unheard, it would end the process.
          ws.on("error", () => ws.terminate())
          liveRoute.rejectKey(ws)
          return
        }
        run(liveSession.serve(ws, record, liveContext).pipe(Effect.withClock(realClock)))
      })
    })
    const port = yield* Effect.acquireRelease(
      Effect.async<number>((resume) => {
        server.listen(options.port ?? 0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))
      }),
      () =>
        Effect.async<void>((resume) => {
          server.close(() => {
            // The listening socket is released later, in a close phase of the event loop, which back-to-back runs
            // in one process may not reach for seconds; until then the server lives on, and with its handlers
            // everything the emulator's runtime holds (the closed scope's exit: a whole eval suite's report).
            server.removeAllListeners("request")
            server.removeAllListeners("upgrade")
            resume(Effect.void)
          })
          server.closeAllConnections()
        })
    )
    const url = `http://127.0.0.1:${port}`
    // Added after the listener, so it runs before it: `server.close` waits for upgraded sockets too.
    yield* Effect.addFinalizer(() =>
      Effect.async<void>((resume) => {
        const open = liveSockets.filter((ws) => ws.readyState !== ws.CLOSED)
        if (open.length === 0) return resume(Effect.void)
        let left = open.length
        for (const ws of open) {
          ws.once("close", () => --left === 0 && resume(Effect.void))
          ws.close(1001, "The emulator stopped.")
        }
        // A client that never answers the close frame is cut off.
        const timer = setTimeout(() => {
          for (const ws of open) ws.terminate()
        }, 200)
        return Effect.sync(() => clearTimeout(timer))
      })
    )

    const waitUntil = <A>(check: () => A | undefined): Effect.Effect<A> =>
      Effect.async<A>((resume) => {
        const now = check()
        if (now !== undefined) return resume(Effect.succeed(now))
        const listener = () => {
          const value = check()
          if (value === undefined) return
          listeners.delete(listener)
          resume(Effect.succeed(value))
        }
        listeners.add(listener)
        return Effect.sync(() => listeners.delete(listener))
      })

    const snapshot = (): ReadonlyArray<Recorded> => records.map((record) => ({ ...record }))
    const liveSnapshot = (): ReadonlyArray<LiveRecord> =>
      liveRecords.map((record) => ({
        ...record,
        received: [...record.received],
        sent: [...record.sent],
        responses: [...record.responses],
        cancelled: [...record.cancelled],
        violations: [...record.violations],
        faults: [...record.faults]
      }))

    return {
      url,
      port,
      apiKey,
      geminiBaseUrl: url,
      openAIBaseUrl: (path = "/v1") => `${url}${path.startsWith("/") ? path : `/${path}`}`,
      glmBaseUrl: (endpoint = "general") => `${url}${glmPaths[endpoint]}`,
      fetch,
      inject: (faults, injectOptions = {}) =>
        Effect.sync(() => {
          injections.push({ faults: Array.isArray(faults) ? faults : [faults as Fault.Fault], protocol: injectOptions.protocol, times: injectOptions.times ?? 1 })
        }),
      setPolicy: (next) =>
        Effect.sync(() => {
          policy = next
        }),
      requests: Effect.sync(snapshot),
      received: Effect.sync(() => received),
      awaitRequests: (count) => waitUntil(() => (received >= count ? snapshot() : undefined)),
      awaitOutcome: (index) =>
        Effect.suspend(() =>
          index < received - records.length
            ? Effect.dieMessage(`request ${index} is no longer recorded (the emulator keeps the last ${keep}: record.max)`)
            : waitUntil(() => {
                const record = records[index - (received - records.length)]
                const outcome = record?.index === index ? record.outcome : undefined
                return outcome === undefined || outcome === "pending" ? undefined : outcome
              })
        ),
      assertConsumed: Effect.suspend(() => {
        const progress = policy.progress?.()
        return progress === undefined || progress.used >= progress.total
          ? Effect.void
          : Effect.fail(new Scripted.ScriptIncomplete({ used: progress.used, total: progress.total }))
      }),
      live: Effect.sync(liveSnapshot),
      awaitLive: (count) => waitUntil(() => (liveDropped + liveRecords.length >= count ? liveSnapshot() : undefined)),
      awaitLiveClosed: (index) =>
        index < liveDropped ? Effect.dieMessage(`Live connection ${index} is no longer recorded (see the record option)`) : waitUntil(() => liveAt(index).record?.closed),
      closeLive: (index, code, reason = "Internal error encountered.") =>
        Effect.suspend(() => {
          const invalid = Fault.checkCloseCode(code)
          if (invalid !== undefined) return Effect.fail(invalid)
          const { socket: ws, record } = liveAt(index)
          if (ws === undefined || record === undefined || record.closed !== undefined) return Effect.void
          liveConnection.closeSocket(ws, record, code, reason)
          notify()
          return Effect.void
        })
    } satisfies Service
  })

/**
 * The emulator as a scoped Layer.
 *
 * @since 0.1.0
 */
export const layer = (options: Options = {}): Layer.Layer<Emulator> => Layer.scoped(Emulator, make(options))
