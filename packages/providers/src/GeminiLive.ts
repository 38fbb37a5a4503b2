/**
 * Gemini Live (the `BidiGenerateContent` WebSocket) as a `LiveModel`, through @google/genai's `live.connect`.
 *
 * Each connection is a scoped resource: its server messages become neutral events on a queue from the first
 * callback on (the SDK delivers the messages that came before `setupComplete` inside `connect()`; none is lost);
 * `connect()` runs under a timeout, because the SDK never settles it when the server refuses the setup — a refusal
 * is read from the close the server sent instead (`InvalidRequest`, `Unauthorized` for a bad key); a frame that is
 * not JSON ends the connection with `MalformedResponse` instead of crashing the process through the SDK's
 * unhandled rejection. Declarations go out as `parametersJsonSchema`, with `behavior: NON_BLOCKING` for
 * non-blocking tools; their responses carry the scheduling. Text goes out as `clientContent`, or as `realtimeInput`
 * for the models that accept only that (Gemini 3.1 Live). TEXT modality by default; AUDIO adds the transcription
 * of the spoken answer, which arrives as `Transcription` events.
 *
 * @example
 * ```ts
 * import { LiveAgent, Registry } from "@agentfx/core"
 * import { GeminiLive } from "@agentfx/providers"
 * import { Effect, Redacted } from "effect"
 *
 * const live = GeminiLive.layer({ apiKey: Redacted.make(process.env.GEMINI_API_KEY ?? "") })
 * const fromEnv = GeminiLive.layerConfig() // GEMINI_API_KEY, then GOOGLE_API_KEY; GEMINI_LIVE_MODEL, GEMINI_BASE_URL
 * const program = LiveAgent.run({ registry: Registry.empty, messages: ["Is the lamp on?"] }).pipe(Effect.provide(live))
 * ```
 *
 * @since 0.2.0
 */
import { Dialect, LiveModel, ModelError } from "@agentfx/core"
import type { LiveServerMessage, Session } from "@google/genai"
import { FunctionResponseScheduling, GoogleGenAI, Modality } from "@google/genai"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { apiKey, definedOnly, optionalBaseUrl } from "./internal/config.js"
import { setupFailure } from "./internal/live/errors.js"
import { eventsOf } from "./internal/live/events.js"
import * as frameGuard from "./internal/live/frameGuard.js"
import { decodeServerMessage } from "./internal/live/wire.js"
import { scrubber } from "./internal/secrets.js"
import { wrongShape } from "./internal/wrongShape.js"
import { defaultMaxResponseBytes } from "./internal/cappedFetch.js"

/**
 * The model used when none is named.
 *
 * @since 0.2.0
 */
export const defaultModel = "gemini-live-2.5-flash-preview"

/**
 * How long `connect` waits for `setupComplete` unless told otherwise.
 *
 * @since 0.2.0
 */
export const defaultConnectTimeout = Duration.seconds(15)

/**
 * How to reach Gemini Live; only the key is required.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly apiKey: Redacted.Redacted<string>
  /** Default `gemini-live-2.5-flash-preview`. */
  readonly model?: string | undefined
  /** Override the endpoint (the emulator, a proxy): the REST base URL, from which the SDK derives the socket's. */
  readonly baseUrl?: string | undefined
  /** Default `v1beta`. */
  readonly apiVersion?: string | undefined
  /** `text` (default) or `audio` (the spoken answer also comes as text, through its transcription). */
  readonly modality?: "text" | "audio" | undefined
  /**
   * How user text is sent: `clientContent` (a turn of the conversation) or `realtimeInput` (what Gemini 3.1 Live
   * accepts for new text). Default: `realtimeInput` for 3.1 models, else `clientContent`.
   */
  readonly textInput?: "clientContent" | "realtimeInput" | undefined
  /** Most bytes of one server frame (default 32 MiB); a larger frame ends the connection with `MalformedResponse`. */
  readonly maxResponseBytes?: number | undefined
  /**
   * How long to wait for the server to complete the setup (default 15 s); past it `connect` fails with a retryable
   * `ModelTimeout` whose `limit` is `connect`, and the socket is closed.
   */
  readonly connectTimeout?: Duration.DurationInput | undefined
}

const schedulings: Record<LiveModel.Scheduling, FunctionResponseScheduling> = {
  interrupt: FunctionResponseScheduling.INTERRUPT,
  whenIdle: FunctionResponseScheduling.WHEN_IDLE,
  silent: FunctionResponseScheduling.SILENT
}

/** An item of a connection's queue: an event, the end of the events, or why they stopped. */
type Item = { readonly _tag: "Event"; readonly event: LiveModel.Event } | { readonly _tag: "Fail"; readonly error: ModelError.ModelError }

const closedByClient = { code: 1000, reason: "closed by the client" }

/**
 * Builds the service; each `connect` opens its own socket.
 *
 * @since 0.2.0
 */
export const make = (options: Options): Effect.Effect<LiveModel.Service> =>
  Effect.sync(() => {
    const model = options.model ?? defaultModel
    const scrub = scrubber(options.apiKey)
    const realtimeText = options.textInput === undefined ? /3\.1/.test(model) : options.textInput === "realtimeInput"
    const timeout = options.connectTimeout === undefined ? defaultConnectTimeout : Duration.decode(options.connectTimeout)
    const audio = options.modality === "audio"

    const declarationsOf = (setup: LiveModel.Setup) =>
      Either.all(
        setup.declarations.map((declaration) =>
          Either.map(Dialect.gemini(declaration), (compiled) => (declaration.behavior === "nonBlocking" ? { ...compiled, behavior: "NON_BLOCKING" as never } : compiled))
        )
      )

    const connect = (setup: LiveModel.Setup) =>
      Effect.gen(function* () {
        const declarations = declarationsOf(setup)
        if (Either.isLeft(declarations)) return yield* Effect.fail(new ModelError.InvalidRequest({ message: declarations.left.message }))
        const queue = yield* Queue.unbounded<Item>()
        const failed = yield* Deferred.make<never, ModelError.ModelError>()
        const end: { close?: { code: number; reason: string }; error?: string } = {}
        let setupDone = false
        let closing = false
        let ended = false
        // Set once `connect()` settles; callbacks that run before then find it empty.
        const opened: { session?: Session } = {}

        const finish = (item: Item) => {
          // Stryker disable next-line ConditionalExpression: a second end item would come after the first, which ends the events' stream: never read
          if (ended) return
          ended = true
          Queue.unsafeOffer(queue, item)
        }
        const malformed = (reason: string | ModelError.MalformedResponse) => {
          const error = typeof reason === "string" ? new ModelError.MalformedResponse({ message: scrub(reason) }) : reason
          if (!setupDone) Deferred.unsafeDone(failed, Effect.fail(error))
          finish({ _tag: "Fail", error })
          closeSocket()
        }

        const client = new GoogleGenAI({
          apiKey: Redacted.value(options.apiKey),
          httpOptions: definedOnly({ baseUrl: options.baseUrl, apiVersion: options.apiVersion })
        })
        const guard = frameGuard.install(client, malformed, options.maxResponseBytes ?? defaultMaxResponseBytes)
        // Through the guard when there is one: it reaches the socket even before `connect()` hands the session out.
        // Stryker disable next-line ConditionalExpression: this SDK always has the factory the guard wraps; the session's own close is for a later one that moves it
        const closeSocket = () => (guard === undefined ? opened.session?.close() : guard.closeSocket())

        const onmessage = (message: LiveServerMessage) => {
          // Stryker disable next-line ConditionalExpression: after the end item the events' stream has ended, so what is queued after it is never read; this only saves the work
          if (ended) return
          const decoded = decodeServerMessage(message)
          if (Either.isLeft(decoded)) return malformed(wrongShape("Live message", decoded.left, scrub))
          const events = eventsOf(decoded.right)
          if (Either.isLeft(events)) return malformed(events.left)
          // Stryker disable next-line StringLiteral: only "Fail" is told apart, an event's item tag is never read
          for (const event of events.right) Queue.unsafeOffer(queue, { _tag: "Event", event })
        }
        const onclose = (event: { code: number; reason: string }) => {
          end.close = { code: event.code, reason: event.reason }
          if (!setupDone) Deferred.unsafeDone(failed, Effect.fail(setupFailure(end, scrub)))
          // A socket that dropped has no close reason; the error the socket reported says why.
          const reason = event.reason === "" && end.error !== undefined ? end.error : event.reason
          finish({ _tag: "Event", event: { _tag: "Closed", ...(closing ? closedByClient : { code: event.code, reason: scrub(reason) }) } })
        }
        const onerror = (event: { message?: unknown; error?: unknown }) => {
          end.error = typeof event.message === "string" ? event.message : event.error instanceof Error ? event.error.message : "socket error"
        }

        // Only what the session set: a field left out stays the server's default.
        const config = definedOnly({
          responseModalities: [audio ? Modality.AUDIO : Modality.TEXT],
          outputAudioTranscription: audio ? {} : undefined,
          systemInstruction: setup.system === "" ? undefined : setup.system,
          tools: declarations.right.length === 0 ? undefined : [{ functionDeclarations: declarations.right }],
          // Always asked for: the driver resumes with the last handle when the server goes away.
          sessionResumption: definedOnly({ handle: setup.resumptionHandle }),
          temperature: setup.temperature,
          maxOutputTokens: setup.maxOutputTokens
        })
        const connecting = Effect.tryPromise({
          try: () => client.live.connect({ model, config, callbacks: { onmessage, onclose, onerror } }),
          catch: (error) => new ModelError.InvalidRequest({ message: scrub(error instanceof Error ? error.message : String(error)) })
        })
        // Not an acquireRelease: waiting for the setup must stay interruptible (the SDK's promise may never settle).
        opened.session = yield* Effect.uninterruptibleMask((restore) =>
          restore(
            Effect.raceFirst(connecting, Deferred.await(failed)).pipe(
              Effect.timeoutFail({ duration: timeout, onTimeout: () => new ModelError.ModelTimeout({ after: timeout, limit: "connect" }) })
            )
          ).pipe(
            Effect.onExit((exit) =>
              Effect.sync(() => {
                // A setup that failed, timed out or was interrupted leaves a socket behind: close it.
                if (exit._tag === "Failure") {
                  // Stryker disable next-line BooleanLiteral: a setup that failed hands no connection out, so nobody reads how its Closed event reads
                  closing = true
                  closeSocket()
                }
              })
            ),
            Effect.tap(() =>
              Effect.addFinalizer(() =>
                Effect.sync(() => {
                  // Stryker disable next-line BooleanLiteral: once the scope has ended nobody reads the events, so how the Closed event reads is never seen; it keeps `closing` true to the end
                  closing = true
                  closeSocket()
                })
              )
            )
          )
        )
        // Stryker disable next-line BooleanLiteral: after the setup nobody waits on `failed`, so completing it again changes nothing; the flag only saves that work
        setupDone = true

        const sending = (what: string, send: (session: Session) => void): Effect.Effect<void, ModelError.ModelError> =>
          Effect.suspend(() => {
            const session = opened.session
            if (ended || closing || session === undefined) return Effect.fail(new ModelError.Unavailable({ message: `the Live connection is closed: cannot send ${what}` }))
            try {
              send(session)
              return Effect.void
            } catch (error) {
              return Effect.fail(new ModelError.Unavailable({ message: scrub(`sending ${what} failed: ${error instanceof Error ? error.message : String(error)}`) }))
            }
          })

        const events: Stream.Stream<LiveModel.Event, ModelError.ModelError> = Stream.repeatEffectOption(
          Effect.flatMap(Queue.take(queue), (item): Effect.Effect<LiveModel.Event, Option.Option<ModelError.ModelError>> =>
            item._tag === "Fail" ? Effect.fail(Option.some(item.error)) : Effect.succeed(item.event)
          )
        ).pipe(Stream.takeUntil((event) => event._tag === "Closed"))

        const connection: LiveModel.Connection = {
          events,
          sendText: (text) =>
            sending("text", (open) =>
              realtimeText
                ? open.sendRealtimeInput({ text })
                : open.sendClientContent({ turns: [{ role: "user", parts: [{ text }] }], turnComplete: true })
            ),
          sendToolResponses: (responses) =>
            sending("tool responses", (open) =>
              open.sendToolResponse({
                functionResponses: responses.map((response) =>
                  definedOnly({
                    id: response.id,
                    name: response.name,
                    response: response.response as Record<string, unknown>,
                    // Stryker disable next-line ConditionalExpression: looking up undefined gives undefined, dropped all the same; the test keeps the index typed
                    scheduling: response.scheduling === undefined ? undefined : schedulings[response.scheduling],
                    willContinue: response.willContinue
                  })
                )
              })
            ),
          close: Effect.sync(() => {
            // Stryker disable next-line ConditionalExpression: closing a socket twice does nothing more; this only skips the call
            if (closing) return
            closing = true
            closeSocket()
          })
        }
        return connection
      })

    return { provider: "gemini-live", model, connect }
  })

/**
 * A Layer of the Gemini Live `LiveModel`.
 *
 * @since 0.2.0
 */
export const layer = (options: Options): Layer.Layer<LiveModel.LiveModel> => Layer.effect(LiveModel.LiveModel, make(options))

/**
 * Options from the environment: `GEMINI_API_KEY` (else `GOOGLE_API_KEY`), `GEMINI_LIVE_MODEL`, `GEMINI_BASE_URL`.
 * The key is read with `Config.redacted`, so it never shows in logs or config errors.
 *
 * @since 0.2.0
 */
export const config: Config.Config<Options> = Config.all({
  apiKey: apiKey("GEMINI_API_KEY", "GOOGLE_API_KEY"),
  model: Config.withDefault(Config.string("GEMINI_LIVE_MODEL"), defaultModel),
  baseUrl: optionalBaseUrl("GEMINI_BASE_URL")
})

/**
 * The Gemini Live layer configured from the environment (see `config`); `overrides` win over the environment.
 *
 * @since 0.2.0
 */
export const layerConfig = (overrides: Omit<Partial<Options>, "apiKey"> = {}): Layer.Layer<LiveModel.LiveModel, ConfigError.ConfigError> =>
  Layer.effect(
    LiveModel.LiveModel,
    Effect.flatMap(config, (options) => make({ ...options, ...definedOnly(overrides) }))
  )
