// Tools that report their lifecycle (started, finished, interrupted, finalized, with the clock time), for the
// live session tests and properties.
import { Clock, Duration, Effect, Schema, Stream } from "effect"
import type { Scope } from "effect"
import { expect } from "@effect/vitest"
import type { LiveAgent, LiveModel } from "../src/index.js"
import { Registry, Tool } from "../src/index.js"
import { ScriptedLive } from "../src/testing.js"

/** `reported`: a handler asked to report progress (whether or not it went out). */
export type Moment = "started" | "finished" | "interrupted" | "finalized" | "reported"
export interface Note {
  readonly at: number
  readonly id: string
  readonly what: Moment
}

export const makeProbe = Effect.sync(() => {
  const notes: Array<Note> = []
  const note = (id: string, what: Moment) => Effect.flatMap(Clock.currentTimeMillis, (at) => Effect.sync(() => void notes.push({ at, id, what })))
  const lifecycle = <A, E>(id: string, body: Effect.Effect<A, E>) =>
    note(id, "started").pipe(
      Effect.zipRight(body),
      Effect.tap(() => note(id, "finished")),
      Effect.onInterrupt(() => note(id, "interrupted")),
      Effect.ensuring(note(id, "finalized"))
    )
  const seconds = Schema.Struct({ seconds: Schema.Number })
  const lamp = Tool.make("lamp", {
    description: "Switches the lamp",
    parameters: Schema.Struct({ on: Schema.Boolean }),
    handler: ({ on }, { callId }) => lifecycle(callId, Effect.succeed({ lamp: on ? "on" : "off" }))
  })
  const slow = Tool.make("slow", {
    description: "Takes its time",
    parameters: seconds,
    handler: ({ seconds }, { callId }) => lifecycle(callId, Effect.as(Effect.sleep(Duration.seconds(seconds)), { slept: seconds }))
  })
  // Cannot be interrupted: it finishes whatever happens (and its late result must still be dropped).
  const stubborn = Tool.make("stubborn", {
    description: "Finishes what it started",
    parameters: seconds,
    handler: ({ seconds }, { callId }) =>
      lifecycle(callId, Effect.uninterruptible(Effect.sleep(Duration.seconds(seconds)).pipe(Effect.zipRight(note(callId, "finished")), Effect.as("finished anyway"))))
  })
  class Jammed extends Schema.TaggedError<Jammed>()("Jammed", { door: Schema.String }) {}
  const door = Tool.make("door", {
    description: "Opens a door",
    parameters: Schema.Struct({ door: Schema.String }),
    failure: Jammed,
    handler: ({ door }, { callId }) => lifecycle(callId, Effect.fail(new Jammed({ door })))
  })
  const search = Tool.make("search", {
    description: "Searches, the model talking meanwhile",
    parameters: seconds,
    nonBlocking: { scheduling: "interrupt" },
    handler: ({ seconds }, { callId }) => lifecycle(callId, Effect.as(Effect.sleep(Duration.seconds(seconds)), ["a result"]))
  })
  // Reports progress every `seconds` (silent, then whenIdle, alternately), `steps` times, then answers with
  // `interrupt` when `steps` is odd (its own scheduling, whenIdle, otherwise). `stubborn`: it cannot be interrupted,
  // so it keeps reporting after a cancellation; `late`: one more report a second after its final response.
  const report = Tool.make("report", {
    description: "Reports how it goes, then answers",
    parameters: Schema.Struct({ steps: Schema.Number, seconds: Schema.Number, stubborn: Schema.Boolean, late: Schema.Boolean }),
    nonBlocking: { scheduling: "whenIdle" },
    handler: ({ late, seconds, steps, stubborn }, { callId, finalScheduling, progress }) => {
      const tell = (step: number) => Effect.zipRight(note(callId, "reported"), progress({ step }, step % 2 === 0 ? { scheduling: "whenIdle" } : undefined))
      const work = Effect.forEach(
        Array.from({ length: steps }, (_, i) => i + 1),
        (step) => Effect.zipRight(Effect.sleep(Duration.seconds(seconds)), tell(step)),
        { discard: true }
      )
      const after = late ? Effect.forkDaemon(Effect.zipRight(Effect.sleep("1 second"), tell(steps + 1))) : Effect.void
      return lifecycle(
        callId,
        (stubborn ? Effect.uninterruptible(work) : work).pipe(
          Effect.zipRight(steps % 2 === 1 ? finalScheduling("interrupt") : Effect.void),
          Effect.zipRight(after),
          Effect.as({ steps })
        )
      )
    }
  })
  return {
    registry: Registry.unsafeMake(lamp, slow, stubborn, door, search, report),
    notes: Effect.sync((): ReadonlyArray<Note> => [...notes]),
    /** The moments of one call id, in order. */
    of: (id: string) => Effect.sync(() => notes.filter((n) => n.id === id).map((n) => n.what))
  }
})

/** Polls `effect` (yielding in between, a bounded number of times) until `ok`; returns the last value. */
export const eventually = <A, E, R>(effect: Effect.Effect<A, E, R>, ok: (a: A) => boolean): Effect.Effect<A, E, R> =>
  Effect.gen(function* () {
    for (let i = 0; i < 500; i++) {
      const value = yield* effect
      if (ok(value)) return value
      yield* Effect.yieldNow()
    }
    return yield* effect
  })

/** Records the session's events with the clock time each was seen, from now on. */
export const record = (session: LiveAgent.Session): Effect.Effect<Effect.Effect<ReadonlyArray<readonly [number, LiveAgent.LiveAgentEvent]>>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const seen: Array<readonly [number, LiveAgent.LiveAgentEvent]> = []
    const events = yield* session.subscribe
    yield* Effect.forkScoped(Stream.runForEach(events, (event) => Effect.map(Clock.currentTimeMillis, (at) => void seen.push([at, event]))).pipe(Effect.ignore))
    return Effect.sync(() => [...seen])
  })

type Probe = Effect.Effect.Success<typeof makeProbe>

/** Runs a test against a scripted live model, with the lifecycle-reporting tools; the server must see no violation. */
export const live = <A, E>(
  script: ScriptedLive.Script,
  body: (probe: Probe, server: ScriptedLive.Inspector) => Effect.Effect<A, E, LiveModel.LiveModel | Scope.Scope>
) =>
  Effect.gen(function* () {
    const probe = yield* makeProbe
    const server = yield* ScriptedLive.ScriptedLiveModel
    const result = yield* body(probe, server)
    expect(yield* server.violations).toEqual([])
    return result
  }).pipe(Effect.provide(ScriptedLive.layer(script)))
