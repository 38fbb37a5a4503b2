import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import * as Executor from "../../Executor.js"
import type { FunctionCall } from "../../FunctionCall.js"
import type { JsonObject } from "../../Json.js"
import type { LiveAgentEvent } from "../../LiveAgentEvent.js"
import type * as LiveModel from "../../LiveModel.js"
import type { CallOutcome, CallRecord } from "../../LiveTurn.js"
import type { Registry } from "../../Registry.js"
import { ExecutionFailed } from "../../ToolError.js"

/** A connection as the call table sees it: a call is answered only on the connection that asked for it. */
export interface Link {
  readonly epoch: number
  readonly connection: LiveModel.Connection
}

interface Entry {
  readonly call: FunctionCall
  readonly link: Link
  readonly turn: number
  startedAt: number | undefined
  fiber: Fiber.RuntimeFiber<void> | undefined
  /** The scheduling its handler chose for its final response (`finalScheduling`), if it chose one. */
  scheduling?: LiveModel.Scheduling | undefined
}

export interface Settings<R> {
  /** The tools calls run with: asked for each call, as a session may change its tools between turns. */
  readonly registry: () => Registry<R>
  readonly execute: Executor.Options
  /** At most this many handlers at once; undefined is unbounded. */
  readonly permits: Effect.Semaphore | undefined
  readonly publish: (event: LiveAgentEvent) => Effect.Effect<void>
  /** Told of each response as it goes out (under the wire lock), progress included. */
  readonly responded: (link: Link, response: LiveModel.ToolResponse) => void
  /** Told each time a call of `link` stops being outstanding: the driver may be waiting for a quiet moment. */
  readonly settled: (link: Link) => Effect.Effect<void>
}

type Settled = "CallFinished" | "CallCancelled" | "CallLost"

/**
 * Every call of a session by id, each running in its own fiber in its connection's scope, so the socket keeps
 * being read while handlers run. An id is run at most once and answered at most once over the whole session.
 */
export class Calls<R> {
  /** Every id the session was asked for. */
  private readonly seen = new Map<string, Entry>()
  /** The connections on which each id asked again was refused (answered once there, like a first ask). */
  private readonly refused = new Map<string, Set<number>>()
  /** The calls neither answered, cancelled, stopped nor lost yet. */
  private readonly pending = new Set<Entry>()
  readonly records: Array<CallRecord> = []
  // Deciding to answer and sending the answer happen under this lock, and so does reading a cancellation: a call
  // is then either answered before its cancellation was read, or never.
  private readonly wire = Effect.unsafeMakeSemaphore(1)

  constructor(private readonly settings: Settings<R>) {}

  /** Starts the calls of a `ToolCall` (a repeated id is not run again). */
  arrive(calls: ReadonlyArray<FunctionCall>, link: Link, turn: number, scope: Scope.Scope): Effect.Effect<void, never, R> {
    return Effect.forEach(
      calls,
      (call) => {
        const known = this.seen.get(call.id)
        if (known !== undefined) {
          // Twice on one connection is the server repeating itself: the first answer (or refusal) serves both.
          if (known.link.epoch === link.epoch) return Effect.void
          const refusedOn = this.refused.get(call.id) ?? new Set<number>()
          if (refusedOn.has(link.epoch)) return Effect.void
          this.refused.set(call.id, refusedOn.add(link.epoch))
          return this.refuse(call, link, turn, known.link.epoch)
        }
        const entry: Entry = { call, link, turn, startedAt: undefined, fiber: undefined }
        this.seen.set(call.id, entry)
        this.pending.add(entry)
        return this.settings.publish({ _tag: "CallStarted", turn, call }).pipe(
          Effect.zipRight(Effect.forkIn(this.run(entry), scope)),
          Effect.map((fiber) => void (entry.fiber = fiber))
        )
      },
      { discard: true }
    )
  }

  /**
   * Calls the model asked for in a turn a bounded `send` gave up on: each answered with an error, so that a server
   * waiting for the answer of a blocking call is not left waiting, but not run, and not recorded (nothing of that
   * turn's late output is). A repeated id is answered once.
   */
  decline(calls: ReadonlyArray<FunctionCall>, link: Link, turn: number): Effect.Effect<void> {
    return this.wire.withPermits(1)(
      Effect.forEach(
        calls,
        (call) => {
          if (this.seen.has(call.id)) return Effect.void
          this.seen.set(call.id, { call, link, turn, startedAt: undefined, fiber: undefined })
          const message = "the turn it belongs to was cut by its bound before it came; it was not run"
          // Stryker disable next-line ArrowFunction,ObjectLiteral,StringLiteral: a declined call is not recorded, so the outcome is dropped
          return this.send(call, link, failure(call, message), (response) => ({ _tag: "Stopped", response }))
        },
        // Stryker disable next-line ObjectLiteral,BooleanLiteral: the sends' outcomes are dropped by the caller whether collected or not
        { discard: true }
      )
    )
  }

  /** The server cancelled these ids: interrupt their handlers, never answer them. Unknown or settled ids are ignored. */
  cancel(ids: ReadonlyArray<string>, link: Link): Effect.Effect<void> {
    return this.settleAll(
      (entry) => ids.includes(entry.call.id) && entry.link.epoch === link.epoch,
      () => Effect.succeed<CallOutcome>({ _tag: "Cancelled" }),
      "CallCancelled"
    ).pipe(Effect.zipRight(this.settings.settled(link)))
  }

  /**
   * The user stopped turn `turn`: interrupt its calls and answer each with an error saying so. Completes once
   * their handlers have stopped (unlike a server's cancellation, which must not hold up the socket).
   */
  stop(turn: number): Effect.Effect<void> {
    return this.settleAll(
      (entry) => entry.turn === turn,
      (entry) => this.send(entry.call, entry.link, failure(entry.call, "the user stopped this call before it finished"), (response) => ({ _tag: "Stopped", response })),
      "CallCancelled"
    ).pipe(Effect.flatMap((fibers) => Effect.forEach(fibers, Fiber.await, { discard: true })))
  }

  /** Connection `epoch` is gone: its outstanding calls are interrupted and never answered. */
  lose(epoch: number, reason: string): Effect.Effect<void> {
    return Effect.asVoid(
      this.settleAll(
        (entry) => entry.link.epoch === epoch,
        () => Effect.succeed<CallOutcome>({ _tag: "Lost", reason }),
        // Stryker disable next-line StringLiteral: every outcome here is Lost, and settleAll publishes CallLost for a Lost outcome whatever the tag
        "CallLost"
      )
    )
  }

  /**
   * Whether a blocking call is outstanding: the model waits for its answer. (All outstanding calls are of the
   * connection in use: a connection's are lost before the next one opens.) A call of a function the tools do not
   * have is blocking too: nothing declared it otherwise.
   */
  waiting(): boolean {
    const tools = this.settings.registry().tools
    for (const entry of this.pending) if (tools.get(entry.call.name)?.scheduling === undefined) return true
    return false
  }

  /** How many calls of connection `epoch` are outstanding. */
  outstanding(epoch: number): number {
    let count = 0
    for (const entry of this.pending) if (entry.link.epoch === epoch) count++
    return count
  }

  /** The records of turn `turn`, and its calls still running. */
  ofTurn(turn: number): { readonly calls: ReadonlyArray<CallRecord>; readonly running: ReadonlyArray<FunctionCall> } {
    return {
      calls: this.records.filter((record) => record.turn === turn),
      running: [...this.pending].filter((entry) => entry.turn === turn).map((entry) => entry.call)
    }
  }

  private run(entry: Entry): Effect.Effect<void, never, R> {
    const { registry, execute, permits } = this.settings
    const body = Effect.gen(this, function* () {
      // A call settled before its handler got going (stopped, cancelled or lost while its start was being published,
      // or before its fiber was known to the table) must not run at all.
      if (!this.pending.has(entry)) return
      entry.startedAt = yield* Clock.currentTimeMillis
      // What the handler reports before its result: progress goes out at once, its final scheduling is kept for it.
      const reporter: Executor.Reporter = {
        progress: (_, response, scheduling) => this.progress(entry, response, scheduling),
        finalScheduling: (_, scheduling) => Effect.sync(() => void (entry.scheduling = scheduling))
      }
      const result = yield* Effect.either(Executor.execute(registry(), entry.call, { ...execute, reporter }))
      yield* this.answer(entry, result)
    })
    return permits === undefined ? body : permits.withPermits(1)(body)
  }

  private answer(entry: Entry, result: Executor.CallResult): Effect.Effect<void> {
    return this.wire.withPermits(1)(
      Effect.suspend(() => {
        if (!this.pending.delete(entry)) return Effect.void
        const rendered = Executor.responseFor(entry.call, result).response
        return Effect.flatMap(
          this.send(entry.call, entry.link, rendered, (response) => ({ _tag: "Answered", result, response }), entry.scheduling),
          (outcome) => this.record(entry, outcome, outcome._tag === "Lost" ? "CallLost" : "CallFinished")
        )
      })
    ).pipe(Effect.uninterruptible, Effect.zipRight(this.settings.settled(entry.link)))
  }

  /**
   * A progress report of a running call: a non-blocking call's goes to the model as a response that will continue
   * (default `silent`), a blocking call's is only an event (a live server takes progress only for non-blocking calls).
   * Under the wire lock, like answers and cancellations: a call already answered, cancelled, stopped or lost reports
   * nothing more. A report that cannot be delivered is dropped: the connection is going, and its end loses the call.
   */
  private progress(entry: Entry, rendered: JsonObject, scheduling: LiveModel.Scheduling | undefined): Effect.Effect<void> {
    const call = entry.call
    return this.wire.withPermits(1)(
      Effect.suspend(() => {
        if (!this.pending.has(entry)) return Effect.logDebug(`a progress report of call ${call.id} (${call.name}) came after it ended, and goes nowhere`)
        const base = { _tag: "CallProgress", turn: entry.turn, call, response: rendered } as const
        // The tools change only when no call is outstanding, so the tool of a running call is always there.
        // Stryker disable next-line OptionalChaining
        if (this.settings.registry().tools.get(call.name)?.scheduling === undefined) return this.settings.publish({ ...base, sent: false })
        const response: LiveModel.ToolResponse = { id: call.id, name: call.name, response: rendered, scheduling: scheduling ?? "silent", willContinue: true }
        return Effect.matchEffect(entry.link.connection.sendToolResponses([response]), {
          onFailure: () => Effect.void,
          onSuccess: () => {
            this.settings.responded(entry.link, response)
            return this.settings.publish({ ...base, sent: true, scheduling: response.scheduling })
          }
        })
      })
    ).pipe(Effect.uninterruptible)
  }

  /** An id asked again on a later connection: it already ran, so it is answered with an error, not run. */
  private refuse(call: FunctionCall, link: Link, turn: number, first: number): Effect.Effect<void> {
    const entry: Entry = { call, link, turn, startedAt: undefined, fiber: undefined }
    const message = `call ${call.id} was already asked for on connection ${first}; it is not run twice`
    return this.wire.withPermits(1)(
      Effect.flatMap(this.send(call, link, failure(call, message), (response) => ({ _tag: "Repeated", response })), (outcome) =>
        this.record(entry, outcome, outcome._tag === "Lost" ? "CallLost" : "CallFinished")
      )
    )
  }

  /**
   * Settles the pending calls that `select` picks, under the wire lock, and starts interrupting their handlers;
   * returns their fibers. (Awaiting them under the lock could deadlock: a handler that just finished waits for it.)
   */
  private settleAll(
    select: (entry: Entry) => boolean,
    outcomeOf: (entry: Entry) => Effect.Effect<CallOutcome>,
    tag: Settled
  ): Effect.Effect<ReadonlyArray<Fiber.RuntimeFiber<void>>> {
    return this.wire.withPermits(1)(
      Effect.suspend(() => {
        const chosen = [...this.pending].filter(select)
        for (const entry of chosen) this.pending.delete(entry)
        const fibers = chosen.flatMap((entry) => (entry.fiber === undefined ? [] : [entry.fiber]))
        // Stryker disable next-line ObjectLiteral,BooleanLiteral: interruptFork's results are voids that nothing reads (zipRight drops them)
        return Effect.forEach(fibers, Fiber.interruptFork, { discard: true }).pipe(
          Effect.zipRight(
            // Stryker disable next-line ObjectLiteral: the records' voids are dropped by Effect.as(fibers) whether collected or not
            Effect.forEach(chosen, (entry) => Effect.flatMap(outcomeOf(entry), (outcome) => this.record(entry, outcome, outcome._tag === "Lost" ? "CallLost" : tag)), {
              // Stryker disable next-line BooleanLiteral: the records' voids are dropped by Effect.as(fibers) whether collected or not
              discard: true
            })
          ),
          Effect.as(fibers)
        )
      })
    )
  }

  /**
   * Sends one response (a non-blocking call's with `chosen`, its handler's scheduling, else its tool's); an answer
   * that cannot be delivered makes the call `Lost` (it is never sent again).
   */
  private send(
    call: FunctionCall,
    link: Link,
    rendered: JsonObject,
    outcome: (response: LiveModel.ToolResponse) => CallOutcome,
    chosen?: LiveModel.Scheduling
  ): Effect.Effect<CallOutcome> {
    const own = this.settings.registry().tools.get(call.name)?.scheduling
    const scheduling = own === undefined ? undefined : (chosen ?? own)
    const response: LiveModel.ToolResponse = { id: call.id, name: call.name, response: rendered, ...(scheduling === undefined ? {} : { scheduling }) }
    return Effect.match(link.connection.sendToolResponses([response]), {
      onFailure: (error): CallOutcome => ({ _tag: "Lost", reason: `the answer could not be sent: ${error.message}` }),
      onSuccess: () => {
        this.settings.responded(link, response)
        return outcome(response)
      }
    })
  }

  private record(entry: Entry, outcome: CallOutcome, tag: Settled): Effect.Effect<void> {
    return Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const record: CallRecord = {
        id: entry.call.id,
        name: entry.call.name,
        args: entry.call.args,
        outcome,
        // Stryker disable next-line ConditionalExpression: Duration.millis(NaN) is zero too, as for a call that never started
        duration: Duration.millis(entry.startedAt === undefined ? 0 : now - entry.startedAt),
        turn: entry.turn,
        connection: entry.link.epoch
      }
      this.records.push(record)
      return this.settings.publish({ _tag: tag, record })
    })
  }
}

/** An error response for a call that did not (or will not) produce its own. */
const failure = (call: FunctionCall, message: string): JsonObject =>
  // Stryker disable next-line BooleanLiteral: renderError renders an ExecutionFailed's tag, message and cause only; `defect` never reaches the response
  Executor.renderError(new ExecutionFailed({ name: call.name, cause: { message }, defect: false }))

