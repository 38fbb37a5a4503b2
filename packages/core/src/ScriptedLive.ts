/**
 * A `LiveModel` that plays a script, for tests and offline demos: per connection, what the server does when the
 * setup completes, when the user speaks and when calls are answered — text, several calls at once, cancellations
 * (after a delay on the clock, if asked), usage, resumption updates, `GoAway`, drops with any close code, an
 * event stream that fails, or a refused setup. It checks the client as a strict server would (an id answered
 * twice, after its cancellation or never asked for, a response that is not an object, progress — `willContinue` —
 * for a blocking call: a violation, and a `1007` close; a non-blocking call's progress leaves it outstanding) and logs everything both sides said, with the time, for the test to inspect. Deterministic: call ids are
 * `call_<connection>_<n>`.
 *
 * A response to a cancelled id is a violation only if the client had read the cancellation when it answered (one
 * that crossed the cancellation on the wire is accepted and ignored, as it cannot be helped).
 *
 * @example
 * ```ts
 * import { ScriptedLive } from "@agentfx/core/testing"
 *
 * const model = ScriptedLive.layer(
 *   ScriptedLive.conversation([
 *     { calls: [{ name: "lamp", args: { on: true } }], text: "The lamp is on." },
 *     { text: "You're welcome." }
 *   ])
 * )
 * ```
 *
 * @since 0.2.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import type { FunctionCall } from "./FunctionCall.js"
import type { JsonObject } from "./Json.js"
import { isPlainObject } from "./Json.js"
import type { Usage } from "./LanguageModel.js"
import * as LiveModel from "./LiveModel.js"
import * as ModelError from "./ModelError.js"

/**
 * A call in a script; `id` defaults to `call_<connection>_<n>` (n counting the calls of the connection from 0).
 *
 * @since 0.2.0
 * @category models
 */
export interface ScriptCall {
  readonly name: string
  readonly args?: JsonObject
  readonly id?: string
}

/**
 * One thing the server does. Actions of one reaction run in order; reactions run in the order they were triggered.
 *
 * @since 0.2.0
 * @category models
 */
export type Action =
  /** A `TextDelta`. */
  | { readonly text: string }
  /** One `ToolCall` holding these calls. */
  | { readonly calls: ReadonlyArray<ScriptCall> }
  /** A `ToolCallCancellation`, now or `after` a delay (without holding up the actions after it). */
  | { readonly cancel: ReadonlyArray<string>; readonly after?: Duration.DurationInput }
  | { readonly usage: Partial<Usage> }
  | { readonly interrupted: true }
  | { readonly generationComplete: true }
  | { readonly turnComplete: true; readonly reason?: string }
  /** A `GoAway`; when `timeLeft` has passed the server closes with 1001, unless the connection closed first. */
  | { readonly goAway: Duration.DurationInput }
  /** A resumption update with this handle — or an empty, non-resumable one while calls are outstanding. */
  | { readonly resumption: string }
  /** Closes the connection with this code (1006: a dropped socket), now or `after` a delay (not holding up the rest). */
  | { readonly drop: number; readonly reason?: string; readonly after?: Duration.DurationInput }
  /** The event stream fails with this error, as on a frame that cannot be read; the connection is then closed. */
  | { readonly fail: ModelError.ModelError }
  /** Waits before the next action. */
  | { readonly wait: Duration.DurationInput }
  /** Any event, as it is. */
  | { readonly event: LiveModel.Event }

/**
 * What a reaction knows.
 *
 * @since 0.2.0
 * @category models
 */
export interface Situation {
  /** The connect attempt (1-based) this connection came from. */
  readonly connection: number
  readonly setup: LiveModel.Setup
  /** The user texts received on this connection before this one. */
  readonly index: number
  /** The user texts this scripted model received before this one, over all connections. */
  readonly message: number
  /** Calls asked on this connection and neither answered nor cancelled. */
  readonly outstanding: ReadonlyArray<FunctionCall>
}

/**
 * What the server of one connection does.
 *
 * @since 0.2.0
 * @category models
 */
export interface ConnectionScript {
  /** Refuse the setup with this error (`InvalidRequest`: refused; `Unavailable`: unreachable). */
  readonly refuse?: ModelError.ModelError
  readonly onSetup?: ReadonlyArray<Action>
  readonly onText?: (text: string, situation: Situation) => ReadonlyArray<Action>
  readonly onToolResponses?: (responses: ReadonlyArray<LiveModel.ToolResponse>, situation: Situation) => ReadonlyArray<Action>
  /** When the last outstanding call was answered or cancelled. */
  readonly onIdle?: (situation: Situation) => ReadonlyArray<Action>
}

/**
 * The same script for every connection, one per connect attempt, or a function of the attempt (1-based).
 *
 * @since 0.2.0
 * @category models
 */
export type Script = ConnectionScript | ReadonlyArray<ConnectionScript> | ((connection: number, setup: LiveModel.Setup) => ConnectionScript)

/**
 * What the client sent.
 *
 * @since 0.2.0
 * @category models
 */
export type ClientMessage =
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "ToolResponses"; readonly responses: ReadonlyArray<LiveModel.ToolResponse> }
  | { readonly _tag: "Close" }

/**
 * One line of the log: what a side said on a connection, at a clock time (milliseconds).
 *
 * @since 0.2.0
 * @category models
 */
export type LogEntry =
  | { readonly connection: number; readonly at: number; readonly from: "server"; readonly event: LiveModel.Event }
  | { readonly connection: number; readonly at: number; readonly from: "client"; readonly message: ClientMessage }

/**
 * Inspects a scripted live model.
 *
 * @since 0.2.0
 * @category models
 */
export interface Inspector {
  /** The setup of every connect attempt, refused ones included. */
  readonly setups: Effect.Effect<ReadonlyArray<LiveModel.Setup>>
  readonly log: Effect.Effect<ReadonlyArray<LogEntry>>
  /** Every tool response the client sent, with its connection. */
  readonly responses: Effect.Effect<ReadonlyArray<{ readonly connection: number; readonly response: LiveModel.ToolResponse }>>
  /** What the client did that a strict server refuses (each closed its connection with 1007). */
  readonly violations: Effect.Effect<ReadonlyArray<string>>
  /** Performs actions now, on the latest connection (drops, `GoAway`, cancellations on demand). */
  readonly perform: (actions: ReadonlyArray<Action>) => Effect.Effect<void>
}

/**
 * The inspector of the scripted live model in the context, next to its `LiveModel`.
 *
 * @since 0.2.0
 * @category tags
 */
export class ScriptedLiveModel extends Context.Tag("@agentfx/core/testing/ScriptedLiveModel")<ScriptedLiveModel, Inspector>() {}

interface Server {
  readonly number: number
  readonly perform: (actions: ReadonlyArray<Action>) => Effect.Effect<void>
}

/**
 * The scripted live model's service and inspector.
 *
 * @since 0.2.0
 */
export const make = (script: Script, options: { readonly model?: string } = {}): Effect.Effect<Context.Context<LiveModel.LiveModel | ScriptedLiveModel>> =>
  Effect.sync(() => {
    const setups: Array<LiveModel.Setup> = []
    const log: Array<LogEntry> = []
    const violations: Array<string> = []
    let messages = 0
    let latest: Server | undefined

    const scriptFor = (connection: number, setup: LiveModel.Setup): ConnectionScript | undefined =>
      typeof script === "function" ? script(connection, setup) : isList(script) ? script[connection - 1] : script

    const connect = (setup: LiveModel.Setup) =>
      Effect.gen(function* () {
        setups.push(setup)
        const number = setups.length
        const plan = scriptFor(number, setup)
        if (plan === undefined) {
          return yield* Effect.fail(new ModelError.InvalidRequest({ message: `the script has no connection ${number}` }))
        }
        if (plan.refuse !== undefined) return yield* Effect.fail(plan.refuse)

        const scope = yield* Effect.scope
        const events = yield* Queue.unbounded<Either.Either<LiveModel.Event, ModelError.ModelError>>()
        const reactions = yield* Queue.unbounded<ReadonlyArray<Action>>()
        const outstanding = new Map<string, FunctionCall>()
        const answered = new Set<string>()
        const cancelled = new Set<string>()
        /** Cancelled ids whose cancellation the client has read. */
        const delivered = new Set<string>()
        let asked = 0
        let index = 0
        let closed = false

        const now = Clock.currentTimeMillis
        const emit = (event: LiveModel.Event) =>
          Effect.flatMap(now, (at) => {
            log.push({ connection: number, at, from: "server", event })
            return Queue.offer(events, Either.right(event))
          })
        const close = (code: number, reason: string) =>
          Effect.suspend(() => {
            if (closed) return Effect.void
            closed = true
            return emit({ _tag: "Closed", code, reason })
          })
        const situation = (text = false): Situation => ({
          connection: number,
          setup,
          index: text ? index++ : index,
          message: text ? messages++ : messages,
          outstanding: [...outstanding.values()]
        })
        const idle = () => (plan.onIdle === undefined ? [] : plan.onIdle(situation()))
        const nonBlocking = (name: string) => setup.declarations.some((declaration) => declaration.name === name && declaration.behavior === "nonBlocking")

        const cancel = (ids: ReadonlyArray<string>) =>
          Effect.suspend(() => {
            if (closed) return Effect.void
            const before = outstanding.size
            for (const id of ids) if (outstanding.delete(id)) cancelled.add(id)
            const emptied = before > 0 && outstanding.size === 0
            return Effect.zipRight(emit({ _tag: "ToolCallCancellation", ids }), emptied ? Queue.offer(reactions, idle()) : Effect.void)
          })

        const act = (action: Action): Effect.Effect<void> => {
          if ("wait" in action) return Effect.sleep(action.wait)
          if (closed) return Effect.void
          if ("text" in action) return emit({ _tag: "TextDelta", text: action.text })
          if ("calls" in action) {
            const calls = action.calls.map((call): FunctionCall => ({
              _tag: "FunctionCall",
              id: call.id ?? `call_${number}_${asked++}`,
              name: call.name,
              args: call.args ?? {}
            }))
            for (const call of calls) outstanding.set(call.id, call)
            return emit({ _tag: "ToolCall", calls })
          }
          if ("cancel" in action) {
            const ids = action.cancel
            return action.after === undefined ? cancel(ids) : Effect.asVoid(Effect.forkIn(Effect.zipRight(Effect.sleep(action.after), cancel(ids)), scope))
          }
          if ("usage" in action) {
            const input = action.usage.inputTokens ?? 0
            const output = action.usage.outputTokens ?? 0
            return emit({ _tag: "Usage", usage: { inputTokens: input, outputTokens: output, totalTokens: input + output, ...action.usage } })
          }
          if ("interrupted" in action) return emit({ _tag: "Interrupted" })
          if ("generationComplete" in action) return emit({ _tag: "GenerationComplete" })
          if ("turnComplete" in action) return emit({ _tag: "TurnComplete", ...(action.reason === undefined ? {} : { reason: action.reason }) })
          if ("goAway" in action) {
            const timeLeft = Duration.decode(action.goAway)
            return Effect.zipRight(
              emit({ _tag: "GoAway", timeLeft }),
              Effect.asVoid(Effect.forkIn(Effect.zipRight(Effect.sleep(timeLeft), close(LiveModel.CloseCode.goingAway, "the session went away")), scope))
            )
          }
          if ("resumption" in action) {
            return emit(outstanding.size === 0 ? { _tag: "ResumptionUpdate", handle: action.resumption, resumable: true } : { _tag: "ResumptionUpdate", handle: undefined, resumable: false })
          }
          if ("fail" in action) {
            closed = true
            return Queue.offer(events, Either.left(action.fail))
          }
          if ("drop" in action) {
            const drop = close(action.drop, action.reason ?? "")
            return action.after === undefined ? drop : Effect.asVoid(Effect.forkIn(Effect.zipRight(Effect.sleep(action.after), drop), scope))
          }
          return action.event._tag === "Closed" ? close(action.event.code, action.event.reason) : emit(action.event)
        }
        const perform = (actions: ReadonlyArray<Action>): Effect.Effect<void> => Effect.forEach(actions, act, { discard: true })

        yield* Effect.forkIn(Effect.forever(Effect.flatMap(Queue.take(reactions), perform)), scope)
        // The client's scope closing is the client closing the socket.
        yield* Effect.addFinalizer(() => Effect.suspend(() => connection.close))
        latest = { number, perform }
        if (plan.onSetup !== undefined) yield* Queue.offer(reactions, plan.onSetup)

        const receive = (message: ClientMessage) =>
          Effect.flatMap(now, (at) =>
            Effect.suspend(() => {
              if (closed) return Effect.fail(new ModelError.Unavailable({ message: "the connection is closed" }))
              log.push({ connection: number, at, from: "client", message })
              return Effect.void
            })
          )

        const connection: LiveModel.Connection = {
          // One event per pull, so an event counts as read once the client took it.
          events: Stream.fromQueue(events, { maxChunkSize: 1 }).pipe(
            Stream.mapEffect((next) => next),
            Stream.tap((event) =>
              Effect.sync(() => {
                if (event._tag === "ToolCallCancellation") for (const id of event.ids) if (cancelled.has(id)) delivered.add(id)
              })
            ),
            Stream.takeUntil((event) => event._tag === "Closed")
          ),
          sendText: (text) =>
            Effect.zipRight(
              receive({ _tag: "Text", text }),
              Effect.suspend(() => (plan.onText === undefined ? Effect.void : Queue.offer(reactions, plan.onText(text, situation(true)))))
            ),
          sendToolResponses: (responses) =>
            Effect.zipRight(
              receive({ _tag: "ToolResponses", responses }),
              Effect.suspend(() => {
                const before = outstanding.size
                for (const response of responses) {
                  // A response that crossed its cancellation on the wire is accepted and ignored; one sent after the
                  // client read the cancellation is the client's mistake.
                  const progress = response.willContinue === true
                  const wrong =
                    !isPlainObject(response.response)
                      ? "its response is not an object"
                      : answered.has(response.id)
                        ? "it was answered already"
                        : delivered.has(response.id)
                          ? "the client had read its cancellation"
                          : !outstanding.has(response.id) && !cancelled.has(response.id)
                            ? "it was never asked for on this connection"
                            : progress && !nonBlocking(response.name)
                              ? "it will continue, and only a non-blocking call may"
                              : undefined
                  if (wrong !== undefined) {
                    violations.push(`connection ${number}: a response to ${response.id} (${response.name}), but ${wrong}`)
                    return close(LiveModel.CloseCode.invalidPayload, "Request contains an invalid argument.")
                  }
                  // Progress: the call stays outstanding until its final response.
                  if (progress) continue
                  outstanding.delete(response.id)
                  answered.add(response.id)
                }
                const reaction = plan.onToolResponses === undefined ? [] : plan.onToolResponses(responses, situation())
                return Queue.offer(reactions, before > 0 && outstanding.size === 0 ? [...reaction, ...idle()] : reaction)
              })
            ),
          close: Effect.zipRight(Effect.ignore(receive({ _tag: "Close" })), close(LiveModel.CloseCode.normal, "closed by the client"))
        }
        return connection
      })

    const service: LiveModel.Service = { provider: "scripted-live", model: options.model ?? "scripted-live", connect }
    const inspector: Inspector = {
      setups: Effect.sync(() => [...setups]),
      log: Effect.sync(() => [...log]),
      responses: Effect.sync(() =>
        log.flatMap((entry) => (entry.from === "client" && entry.message._tag === "ToolResponses" ? entry.message.responses.map((response) => ({ connection: entry.connection, response })) : []))
      ),
      violations: Effect.sync(() => [...violations]),
      perform: (actions) => Effect.suspend(() => (latest === undefined ? Effect.void : latest.perform(actions)))
    }
    return Context.make(LiveModel.LiveModel, service).pipe(Context.add(ScriptedLiveModel, inspector))
  })

const isList = (script: Script): script is ReadonlyArray<ConnectionScript> => Array.isArray(script)

/**
 * A Layer with the scripted `LiveModel` and its `ScriptedLiveModel` inspector.
 *
 * @since 0.2.0
 */
export const layer = (script: Script, options: { readonly model?: string } = {}): Layer.Layer<LiveModel.LiveModel | ScriptedLiveModel> =>
  Layer.effectContext(make(script, options))

/**
 * One exchange of a `conversation`: the model's answer to one user message.
 *
 * @since 0.2.0
 * @category models
 */
export interface Exchange {
  /** Calls it asks for first, all in one `ToolCall`. */
  readonly calls?: ReadonlyArray<ScriptCall>
  /** Actions right after the calls (a cancellation, a `GoAway`, a drop, ...). */
  readonly then?: ReadonlyArray<Action>
  /** What it says once no call is outstanding (at once, without calls); then the turn completes. */
  readonly text?: string
  readonly usage?: Partial<Usage>
}

/**
 * A script for every connection: the n-th user message the model receives, over all connections, gets the n-th
 * exchange; a message beyond the last closes the connection with 1008. With `handles`, the server hands out a
 * resumption handle `handle_<n>` after the n-th turn completes, and tries to while calls are outstanding (which
 * gives an empty, non-resumable update).
 *
 * @since 0.2.0
 */
export const conversation = (exchanges: ReadonlyArray<Exchange>, options: { readonly handles?: boolean } = {}): Script =>
  () => {
    let finishing: ReadonlyArray<Action> = []
    const finish = (exchange: Exchange, message: number): ReadonlyArray<Action> => [
      ...(exchange.text === undefined ? [] : [{ text: exchange.text }]),
      ...(exchange.usage === undefined ? [] : [{ usage: exchange.usage }]),
      { turnComplete: true },
      ...(options.handles === true ? [{ resumption: `handle_${message + 1}` }] : [])
    ]
    return {
      onText: (_, situation) => {
        const exchange = exchanges[situation.message]
        if (exchange === undefined) return [{ drop: LiveModel.CloseCode.policyViolation, reason: `the script has no answer for message ${situation.message + 1}` }]
        if (exchange.calls === undefined || exchange.calls.length === 0) return [...(exchange.then ?? []), ...finish(exchange, situation.message)]
        finishing = finish(exchange, situation.message)
        return [{ calls: exchange.calls }, ...(options.handles === true ? [{ resumption: "busy" }] : []), ...(exchange.then ?? [])]
      },
      onIdle: () => {
        const actions = finishing
        finishing = []
        return actions
      }
    }
  }
