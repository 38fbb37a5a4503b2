import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { defaultConcurrency } from "../../Executor.js"
import type { Connected, Options, SendOptions, Session } from "../../LiveAgent.js"
import type { LiveAgentEvent } from "../../LiveAgentEvent.js"
import type { SendError, SessionError } from "../../LiveError.js"
import { ReconnectFailed, SessionEnded } from "../../LiveError.js"
import * as LiveModel from "../../LiveModel.js"
import * as Telemetry from "../../Telemetry.js"
import type { LiveTurn } from "../../LiveTurn.js"
import type * as ModelError from "../../ModelError.js"
import type * as Retry from "../../Retry.js"
import type { Link } from "./calls.js"
import { Calls } from "./calls.js"
import * as Deadline from "../deadline.js"
import type { Ending } from "./ending.js"
import { decide, lossReason } from "./ending.js"
import * as Hub from "./hub.js"
import { Tools } from "./tools.js"
import { spanEvent } from "./trace.js"
import { Turns } from "./turns.js"

/** What a model says within a turn (as opposed to what it says of the connection, or what the user said). */
const abandonedOutput = (event: LiveModel.Event): boolean => {
  switch (event._tag) {
    case "Transcription":
      return event.direction === "output"
    case "TextDelta":
    case "ToolCall":
    case "Usage":
    case "Interrupted":
    case "GenerationComplete":
    case "TurnComplete":
      return true
  }
  return false
}

/** The connection in use, with what the driver tracks of it. */
interface Active extends Link {
  /** It continued the session from a handle. */
  readonly resumed: boolean
  /** The server sent `GoAway`: move to a new connection at the first quiet moment. */
  leaving: boolean
  /** The driver has left it (after `GoAway`, or it closed): nothing more is read from it or sent on it. */
  left: boolean
  /** Nothing was sent since the last resumable handle (a reconnect with it would lose nothing). */
  fresh: boolean
  /**
   * The model said something on it (text, calls, a completed turn): it worked, whatever happens next. A server
   * that accepts connections and drops them before that is failing, and the reconnect schedule counts it.
   */
  progressed: boolean
  closed: { readonly code: number; readonly reason: string } | undefined
  /** Why its calls and turn are lost if it ends now. */
  lost: string
  /** The session goes on after it (so a turn under way is lost, rather than ended with the session). */
  replaced: boolean
  /** The driver leaves it, after `GoAway` or to declare changed tools. */
  readonly moveOn: Deferred.Deferred<"MovedOn" | "Redeclared">
}

/** The permits calls take to run: none to take when unbounded. */
const permitsOf = (concurrency: Options<never>["concurrency"]): Effect.Effect<Effect.Semaphore | undefined> => {
  if (concurrency === undefined) return Effect.makeSemaphore(defaultConcurrency)
  if (concurrency === "sequential") return Effect.makeSemaphore(1)
  if (concurrency === "unbounded") return Effect.succeed(undefined)
  return Number.isInteger(concurrency) && concurrency >= 1
    ? Effect.makeSemaphore(concurrency)
    : Effect.dieMessage(`concurrency must be "sequential", "unbounded" or an integer ≥ 1, got ${concurrency}`)
}

/** What `LiveAgent.session` fills in when the options leave it out. */
export interface Defaults {
  readonly reconnect: Retry.Policy
  readonly turnTimeout: Duration.Duration
  readonly ownTurnWait: Duration.Duration
}

export const make = <R>(options: Options<R>, defaults: Defaults): Effect.Effect<Session, SessionError, LiveModel.LiveModel | R | Scope.Scope> =>
  Effect.gen(function* () {
    const reconnect = defaults.reconnect
    const live = yield* LiveModel.LiveModel
    const hub = yield* Hub.make<LiveAgentEvent, SessionError>()
    const turns = new Turns()
    const permits = yield* permitsOf(options.concurrency)
    const sendLock = yield* Effect.makeSemaphore(1)
    const done = yield* Deferred.make<void, SessionError>()

    let handle = options.resumptionHandle === "" ? undefined : options.resumptionHandle
    let epochs = 0
    let active: Active | undefined
    let next = yield* Deferred.make<Active, SendError>()
    /** `next` has given out a connection (sends waiting for one have it). */
    // Stryker disable next-line BooleanLiteral: read only by `detach`, which nothing calls before the first connection is given out
    let given = false
    const first = next
    let ended: SendError | undefined

    /**
     * A connection stops being the one messages go to: later sends wait for the next. Idempotent. Synchronous, so
     * that the decision to leave and the leaving are one step: Effect may yield between two steps, and a `send`
     * that ran in between would go out on a connection nobody reads any more.
     */
    const detach = (current: Active): void => {
      current.left = true
      // Stryker disable next-line ConditionalExpression: connections follow one another, so the one left is the one in use or was left before (and none is in use)
      if (active === current) {
        active = undefined
        // What the model owed on it is gone with it: a resumed server does not speak of results on its own.
        owed = 0
        foldable = 0
      }
      changed()
      // Stryker disable next-line ConditionalExpression: the session ends once its last connection was left, so nothing is left after
      if (ended === undefined && given) {
        next = Deferred.unsafeMake<Active, SendError>(FiberId.none)
        given = false
      }
    }

    /** Leaves a connection for a new one (its scope, socket and outstanding calls are closed after). */
    const moveOn = (current: Active, why: "MovedOn" | "Redeclared" = "MovedOn"): Effect.Effect<void> =>
      Effect.suspend(() => {
        // Stryker disable next-line ConditionalExpression: only the GoAway timer asks this of a connection already left (its close read meanwhile), and that close reconnects as a move does
        if (current.left) return Effect.void
        detach(current)
        return Deferred.succeed(current.moveOn, why)
      })

    /**
     * A quiet moment on a connection: no call outstanding, no turn under way. After `GoAway` it is the moment to move
     * (once nothing the handle lacks was sent); else the moment to follow changed tools.
     */
    const quiet = (link: Link): Effect.Effect<void> =>
      Effect.suspend(() => {
        const current = active
        // Only the connection in use has quiet moments; what else asks is a late handler of a connection already lost.
        // Stryker disable next-line ConditionalExpression,LogicalOperator: asking of the connection in use instead finds what its own events find
        if (current === undefined || current.epoch !== link.epoch) return Effect.void
        if (calls.outstanding(current.epoch) > 0 || turns.open) return Effect.void
        if (!current.leaving) return tools.check()
        return current.fresh || handle === undefined ? moveOn(current) : Effect.void
      })

    // The bounds on a `send`, and what tells the watcher the model said something.
    const limits: Deadline.Limits = yield* Effect.try({
      try: () => ({
        turn: Deadline.bound("turnTimeout", options.turnTimeout, defaults.turnTimeout),
        firstByte: Deadline.bound("firstByteTimeout", options.firstByteTimeout, Duration.infinity),
        idle: Deadline.bound("idleTimeout", options.idleTimeout, Duration.infinity)
      }),
      catch: (error) => error
    }).pipe(Effect.orDie)
    const ownTurnWait = yield* Effect.try({ try: () => Deadline.bound("ownTurnWait", options.ownTurnWait, defaults.ownTurnWait), catch: (error) => error }).pipe(Effect.orDie)
    let heard: Deadline.OnPart | undefined
    const runtime = yield* Effect.runtime<never>()
    const clock = yield* Effect.clock

    /**
     * Turns the model owes on its own on the connection in use: a non-blocking result sent with `whenIdle` or
     * `interrupt` while the model waited for no blocking call makes it speak of the result in a turn of its own.
     * `foldable`: those sent with `interrupt` during a turn under way, which a server may speak of inside that turn
     * (cutting it) instead: an interrupted turn settles them.
     */
    let owed = 0
    let foldable = 0
    /** Resumable handles received so far: a lost message is re-sent only if none came after it went out. */
    let handles = 0
    /** How many handles the session had when it lost its last turn (a handle of the next connection comes after). */
    let handlesAtLoss = 0
    /** When the model last said something, on the clock: a send waits for an owed turn only while the model talks. */
    let lastHeard = clock.unsafeCurrentTimeMillis()
    /** Completed when what a waiting `send` looks at may have changed; made only while one waits. */
    let change: Deferred.Deferred<void> | undefined
    const changed = (): void => {
      if (change === undefined) return
      Deferred.unsafeDone(change, Exit.void)
      change = undefined
    }
    const nextChange = Effect.suspend(() => Deferred.await((change ??= Deferred.unsafeMake<void>(FiberId.none))))
    const waitMillis = Duration.toMillis(ownTurnWait)
    /**
     * Waits until the model is quiet: no turn under way and none owed. While the model stays silent for
     * `ownTurnWait` the owed turns are given up on (a server may not speak of every result) and the text goes out.
     */
    const quieted: Effect.Effect<void> = Effect.suspend(() => {
      // Once the session has ended the text cannot go out: the send fails with the end at once.
      if ((!turns.busy && owed === 0) || ended !== undefined) return Effect.void
      const silence = clock.unsafeCurrentTimeMillis() - lastHeard
      if (silence >= waitMillis) {
        owed = 0
        foldable = 0
        return Effect.logDebug(`the model stayed silent for ${Duration.format(ownTurnWait)} instead of completing a turn of its own: the message goes out`)
      }
      return Effect.zipRight(Effect.raceFirst(nextChange, Effect.sleep(Duration.millis(waitMillis - silence))), quieted)
    })
    /** Waits until connection `epoch` is no longer the one in use. */
    const leftBehind = (epoch: number): Effect.Effect<void> =>
      Effect.suspend(() => (active?.epoch === epoch ? Effect.zipRight(nextChange, leftBehind(epoch)) : Effect.void))

    /** A response went out: one that makes the model speak of a result on its own owes a turn (see `owed`). */
    const responded = (link: Link, response: LiveModel.ToolResponse): void => {
      if (response.scheduling === undefined || response.scheduling === "silent" || active?.epoch !== link.epoch) return
      // The model waits for a blocking call: it hears this result with that call's answer, in the turn under way.
      if (calls.waiting()) return
      owed += 1
      if (response.scheduling === "interrupt" && turns.busy) foldable += 1
    }

    const calls = new Calls<R>({
      registry: () => tools.current,
      execute: { timeout: options.toolTimeout, limits: options.limits },
      permits,
      publish: hub.publish,
      responded,
      // A call answered is the model's turn again: its silence counts from here.
      settled: (link) => Effect.zipRight(Effect.sync(() => heard?.()), quiet(link))
    })

    // Where the tool listings run: a scope of the session's own, closed when the session ends (a `close` leaves the
    // scope it was opened in open, and a listing left running there would hold up a `send` waiting for it).
    const listings = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
    const tools: Tools<R> = new Tools(options.registry, {
      quiet: () => active !== undefined && !active.leaving && calls.outstanding(active.epoch) === 0 && !turns.open && !turns.abandoned,
      resumable: () => {
        if (handle === undefined) return "none"
        // Stryker disable next-line OptionalChaining: asked only right after `quiet` said yes, which needs a connection in use
        return active?.fresh === true ? "fresh" : "stale"
      },
      turn: () => turns.current,
      redeclare: (change) =>
        Effect.suspend(() => {
          const current = active
          // Stryker disable next-line ConditionalExpression: asked only right after `quiet` said yes, which needs a connection in use
          if (current === undefined) return Effect.void
          return Effect.zipRight(hub.publish({ _tag: "ToolsChanged", ...change, connection: current.epoch + 1 }), moveOn(current, "Redeclared"))
        }),
      scope: listings
    })

    const setup = (resumptionHandle: string | undefined): LiveModel.Setup => ({
      system: options.system,
      declarations: tools.current.declarations,
      resumptionHandle,
      temperature: options.temperature,
      maxOutputTokens: options.maxOutputTokens
    })

    const onEvent = (current: Active, scope: Scope.Scope) => (event: LiveModel.Event): Effect.Effect<void, never, R> => {
      // Once left, the connection is only waiting to be closed: what it still says goes unread (calls asked then
      // are never answered; the server loses them with the connection anyway).
      if (current.left) return Effect.void
      if (abandonedOutput(event)) lastHeard = clock.unsafeCurrentTimeMillis()
      changed()
      if (event._tag === "Closed") {
        current.closed = { code: event.code, reason: event.reason }
        detach(current)
        return Effect.void
      }
      if (turns.abandoned && abandonedOutput(event)) {
        // The late output of a turn a bounded `send` gave up on: not the next turn's; its completion ends it. Its
        // calls are answered with an error and not run (a server may wait for them before it completes the turn).
        if (event._tag === "TurnComplete") turns.abandoned = false
        if (event._tag === "ToolCall") return calls.decline(event.calls, current, turns.current)
        return event._tag === "TurnComplete" ? quiet(current) : Effect.void
      }
      const turn = turns.current
      if (event._tag === "TextDelta" || event._tag === "Transcription" || event._tag === "ToolCall" || event._tag === "TurnComplete") {
        current.progressed = true
        // The model said something: a bounded `send` is not waiting on silence.
        heard?.()
      }
      switch (event._tag) {
        case "TextDelta":
          turns.output(event.text)
          return hub.publish({ _tag: "TextDelta", turn, text: event.text })
        case "Transcription":
          if (event.direction === "input") turns.hear()
          else turns.begin()
          return hub.publish({ _tag: "Transcription", turn, direction: event.direction, text: event.text })
        case "ToolCall":
          turns.begin()
          return calls.arrive(event.calls, current, turn, scope)
        case "ToolCallCancellation":
          return calls.cancel(event.ids, current)
        case "Usage":
          turns.report(event.usage)
          return hub.publish({ _tag: "Usage", turn, usage: event.usage })
        case "Interrupted":
          turns.interrupt()
          return hub.publish({ _tag: "Interrupted", turn })
        case "GenerationComplete":
          return hub.publish({ _tag: "GenerationComplete", turn })
        case "TurnComplete":
          // A turn no send waits for is one the model owed (a send goes out only once none is owed, and a turn
          // completes before the next starts); an interrupted one settles what it may have folded in.
          if (!turns.awaited && owed > 0) owed -= 1
          if (turns.wasInterrupted) owed = Math.max(0, owed - foldable)
          foldable = 0
          return turns.complete({ ...calls.ofTurn(turn), ...(event.reason === undefined ? {} : { reason: event.reason }) }).pipe(
            Effect.flatMap((completed) => hub.publish({ _tag: "TurnComplete", turn: completed })),
            Effect.zipRight(quiet(current))
          )
        case "GoAway":
          current.leaving = true
          return hub.publish({ _tag: "GoAway", timeLeft: event.timeLeft }).pipe(
            // The server closes when the time is up; should it not, the driver moves on anyway.
            Effect.zipRight(Effect.forkIn(Effect.zipRight(Effect.sleep(event.timeLeft), moveOn(current)), scope)),
            Effect.zipRight(quiet(current))
          )
        case "ResumptionUpdate":
          // Only a resumable, non-empty handle replaces the last one: an empty update (calls running) says nothing.
          if (!event.resumable || event.handle === undefined || event.handle === "") return Effect.void
          handle = event.handle
          handles += 1
          current.fresh = true
          return quiet(current)
      }
    }

    /** Tracks what was sent on a connection since its last resumable handle. */
    const watched = (connection: LiveModel.Connection, current: () => Active): LiveModel.Connection => ({
      ...connection,
      sendText: (text) => Effect.suspend(() => ((current().fresh = false), connection.sendText(text))),
      sendToolResponses: (responses) => Effect.suspend(() => ((current().fresh = false), connection.sendToolResponses(responses)))
    })

    /** One connection, from connect to its end. Its scope holds the socket and its calls' fibers. */
    const connection = (resumptionHandle: string | undefined): Effect.Effect<Ending, never, LiveModel.LiveModel | R | Scope.Scope> =>
      Effect.gen(function* () {
        const scope = yield* Effect.scope
        const connected = yield* Effect.either(live.connect(setup(resumptionHandle)))
        if (Either.isLeft(connected)) return { _tag: "ConnectFailed", error: connected.left } satisfies Ending
        tools.confirm()
        const self: Active = {
          epoch: ++epochs,
          resumed: resumptionHandle !== undefined,
          connection: watched(connected.right, () => self),
          leaving: false,
          left: false,
          fresh: true,
          progressed: false,
          closed: undefined,
          lost: "the session was closed",
          replaced: false,
          moveOn: yield* Deferred.make<"MovedOn" | "Redeclared">()
        }
        // When this scope closes (the connection ended, or the session did) its outstanding calls are lost, and so
        // is the turn under way; the scope then interrupts their fibers and closes the socket.
        // (When the session ends with it, a waiting `send` fails with the session's end instead.)
        yield* Effect.addFinalizer(() =>
          Effect.gen(function* () {
            detach(self)
            yield* calls.lose(self.epoch, self.lost)
            if (self.replaced) {
              handlesAtLoss = handles
              yield* turns.lose(self.lost)
            }
          })
        )
        active = self
        given = true
        Deferred.unsafeDone(next, Exit.succeed(self))
        yield* hub.publish({ _tag: "Connected", connection: self.epoch, resumed: resumptionHandle !== undefined })
        const reading = Stream.runForEach(connected.right.events, onEvent(self, scope)).pipe(
          Effect.map((): Ending => ({
            _tag: "Closed",
            ...(self.closed ?? { code: LiveModel.CloseCode.abnormal, reason: "the event stream ended without a close" }),
            progressed: self.progressed,
            leaving: self.leaving
          })),
          Effect.catchAll((error) => Effect.succeed<Ending>({ _tag: "Failed", error, progressed: self.progressed }))
        )
        const ending = yield* Effect.raceFirst(reading, Effect.map(Deferred.await(self.moveOn), (why): Ending => ({ _tag: why })))
        self.lost = lossReason(ending)
        const decision = decide(ending)._tag
        self.replaced =
          decision === "Reconnect" ||
          // Stryker disable next-line ConditionalExpression,StringLiteral: a move to redeclare waits for a quiet moment, so no turn is under way to lose
          decision === "Redeclare"
        return ending
      })

    /** Connections one after the other until the session ends; fails with what ended it abnormally. */
    const main = Effect.gen(function* () {
      let driver: Schedule.ScheduleDriver<unknown, ModelError.ModelError> | undefined
      let failures = 0
      for (;;) {
        const ending = yield* Effect.scoped(connection(handle))
        const decision = decide(ending)
        if (decision._tag === "End") return decision.reason
        if (decision._tag === "Fail") {
          // A refused setup that declared changed tools: the session goes back to its earlier tools. (Any other ending
          // follows a setup that was accepted, and `refused` then has nothing to go back to.)
          const back = yield* tools.refused(decision.error.message)
          if (back === undefined) return yield* Effect.fail(decision.error)
          yield* hub.publish({ _tag: "ToolsChanged", ...back, connection: epochs + 1 })
          continue
        }
        // Announced as `ToolsChanged`: the session resumes at once, and nothing failed.
        if (decision._tag === "Redeclare") {
          driver = undefined
          failures = 0
          continue
        }
        if (decision.failed) {
          failures += 1
          driver ??= yield* Schedule.driver(reconnect)
          const again = yield* Effect.either(driver.next(decision.error))
          if (Either.isLeft(again)) return yield* Effect.fail(new ReconnectFailed({ attempts: failures, error: decision.error }))
        } else {
          driver = undefined
          failures = 0
        }
        yield* hub.publish({
          _tag: "Reconnecting",
          attempt: failures + 1,
          reason: decision.error.message,
          code: decision.code,
          fresh: handle === undefined
        })
      }
    })

    const finish = (exit: Exit.Exit<string, SessionError>): Effect.Effect<void> =>
      Effect.gen(function* () {
        const failure = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none()
        const error: SendError = Option.isSome(failure)
          ? failure.value
          : new SessionEnded({ reason: Exit.isSuccess(exit) ? exit.value : "the session was closed" })
        ended = error
        yield* Scope.close(listings, Exit.void)
        yield* Deferred.fail(next, error)
        yield* turns.end(error)
        const outcome: Exit.Exit<void, SessionError> = Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause) ? Exit.failCause(exit.cause) : Exit.void
        yield* hub.end(outcome)
        yield* Deferred.done(done, outcome)
      })

    // The session's span covers its connections; each reconnect and each change of the tools is an event on it.
    const traced = Telemetry.span(
      "live_session agentfx",
      { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "agentfx", "gen_ai.provider.name": live.provider, "gen_ai.request.model": live.model },
      (annotate) =>
        Effect.gen(function* () {
          // Stryker disable next-line ConditionalExpression: untraced, span events are dropped anyway; this only saves following them
          if (!annotate.active) return yield* main
          const events = yield* hub.subscribe
          yield* Effect.forkScoped(Effect.ignore(Stream.runForEach(events, (event) => spanEvent(annotate, event))))
          return yield* main
        }).pipe(Effect.scoped)
    )
    // Interruptible whatever the region the session was opened in (`acquireRelease` acquires uninterruptibly): the
    // session's connections, calls and timers are forked from this fiber, and its scope's end interrupts them.
    const fiber = yield* traced.pipe(Effect.onExit(finish), Effect.ignore, Effect.interruptible, Effect.forkScoped)

    // `next` is given the connection as it becomes the one in use, replaced when it is left and failed when the session
    // ends: waiting on it is waiting for the connection in use.
    const current: Effect.Effect<Active, SendError> = Effect.suspend(() => Deferred.await(next))
    /**
     * Sends a user text on the connection in use (waiting for one while reconnecting); returns its turn. `sent` is
     * told the connection it goes out on, just before it does.
     */
    const say = (text: string, waiter?: Deferred.Deferred<LiveTurn, SendError>, sent?: (link: Active) => void): Effect.Effect<number, SendError> =>
      // A turn boundary: tools that changed meanwhile are declared before the text goes out (on a resumed connection).
      Effect.flatMap(Effect.zipRight(tools.settled, current), (link) =>
        Effect.suspend((): Effect.Effect<number, SendError> => {
          // Left since `current` gave it (a move after GoAway, a redeclaration): the text waits for the next one.
          if (link.left) return say(text, waiter, sent)
          turns.speak()
          // Waiting from just before the text goes out, so the answer cannot be missed.
          if (waiter !== undefined) turns.waitFor(waiter)
          sent?.(link)
          const turn = turns.current
          return Effect.as(link.connection.sendText(text), turn)
        })
      )
    const cancelTurn = Effect.suspend(() => calls.stop(turns.current))
    /** Whether a call of the connection in use is running: the model is waiting for us, not silent. */
    // Stryker disable next-line ConditionalExpression: asked by a bounded send's watch, whose turn is lost with its connection (and the send ended) before none is in use
    const busy = () => active !== undefined && calls.outstanding(active.epoch) > 0

    /** Where a message went out: its connection, and how many handles the session had then. */
    interface Sent {
      readonly epoch: number
      readonly handles: number
    }

    /** One message, once: waits for the model to be quiet, sends, and waits within `bounds` for its turn. */
    const exchange = (text: string, bounds: Deadline.Limits, sent: (at: Sent) => void): Effect.Effect<LiveTurn, SendError> =>
      sendLock.withPermits(1)(
        Effect.suspend(() => {
          const waiter = Deferred.unsafeMake<LiveTurn, SendError>(FiberId.none)
          // The model may answer before the deadline watch starts (it starts once the text is out): what it says
          // meanwhile counts as its first part.
          let early = false
          const exchange = Effect.uninterruptibleMask((restore) =>
            Effect.gen(function* () {
              yield* restore(quieted)
              heard = () => (early = true)
              const turn = yield* restore(say(text, waiter, (link) => sent({ epoch: link.epoch, handles })))
              const answer = Deadline.within(
                runtime,
                clock,
                bounds,
                true,
                (onPart) => Effect.zipRight(Effect.sync(() => ((heard = onPart), early && onPart())), Deferred.await(waiter)),
                busy
              ).pipe(Effect.tapErrorTag("ModelTimeout", () => Effect.zipRight(calls.stop(turn), Effect.sync(() => turns.current === turn && turns.abandon()))))
              return yield* restore(answer).pipe(Effect.onInterrupt(() => calls.stop(turn)))
            })
          )
          // Stryker disable next-line ArrowFunction: only a leak would show (a waiter left behind is answered by a later turn that nobody awaits; a stale `heard` marks a part nobody watches)
          return Effect.ensuring(exchange, Effect.sync(() => ((heard = undefined), turns.forget(waiter))))
        })
      )

    const send = (text: string, sendOptions: SendOptions = {}): Effect.Effect<LiveTurn, SendError> =>
      Effect.suspend(() => {
        const bounds = sendOptions.timeout === undefined ? limits : { ...limits, turn: Deadline.bound("timeout", sendOptions.timeout, Duration.infinity) }
        const once = (resent: boolean): Effect.Effect<LiveTurn, SendError> => {
          let at: Sent | undefined
          return exchange(text, bounds, (where) => (at = where)).pipe(
            Effect.catchIf(
              // Lost with its connection, and the state resumed from predates it: the new connection never heard it.
              (error) =>
                sendOptions.resendOnTurnLost === true &&
                !resent &&
                at !== undefined &&
                ((error._tag === "TurnLost" && at.handles === handlesAtLoss) || (error._tag === "Unavailable" && at.handles === handles)),
              () => Effect.zipRight(leftBehind(at!.epoch), once(true))
            )
          )
        }
        return once(false)
      })

    // The session exists once its first connection does; a refused setup is the constructor's failure.
    yield* Effect.catchAll(Deferred.await(first), () => Deferred.await(done))

    return {
      send,
      sendText: (text) => Effect.asVoid(say(text)),
      awaitConnected: Effect.map(current, (link): Connected => ({ connection: link.epoch, resumed: link.resumed })),
      cancelTurn,
      events: Stream.unwrapScoped(hub.subscribe),
      subscribe: hub.subscribe,
      calls: Effect.sync(() => [...calls.records]),
      turns: Effect.sync(() => [...turns.completed]),
      usage: Effect.sync(() => turns.sessionUsage),
      declarations: Effect.sync(() => tools.current.declarations),
      resumptionHandle: Effect.sync(() => Option.fromNullable(handle)),
      close: Effect.asVoid(Fiber.interrupt(fiber)),
      await: Deferred.await(done)
    } satisfies Session
  })
