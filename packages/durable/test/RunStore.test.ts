/**
 * The run store's own guarantees, on SQLite and on PostgreSQL: nothing is appended to a run after its Done, whoever
 * appends (here two connections to one store, as a runner and a canceller in two processes hold), and a run takes
 * one outcome.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import type { Scope } from "effect"
import { DurableAgent, RunStore } from "../src/index.js"
import type { RunEvent } from "../src/index.js"
import { freshStore } from "./support/inProcess.js"
import { freshDatabase } from "./support/postgres.js"

const turn = (n: number): RunEvent.RunEvent => ({ _tag: "TurnFinished", turn: n, text: "", calls: [], usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } })
const done: RunEvent.RunEvent = { _tag: "Done", outcome: "cancelled", text: null }

/** A store of the test's own; each call of the function it gives opens a connection of its own to it. */
const stores: ReadonlyArray<readonly [string, Effect.Effect<() => Layer.Layer<RunStore.RunStore, unknown>, never, Scope.Scope>]> = [
  [
    "SQLite",
    Effect.sync(() => {
      const filename = freshStore()
      return () => DurableAgent.layerSqliteReader({ filename })
    })
  ],
  [
    "PostgreSQL",
    Effect.map(
      Effect.acquireRelease(Effect.promise(freshDatabase), (db) => Effect.promise(db.drop)),
      (db) => () => DurableAgent.layerPgReader({ url: db.url })
    )
  ]
]

const open = (layer: Layer.Layer<RunStore.RunStore, unknown>) => Effect.map(Effect.orDie(Layer.build(layer)), (context) => Context.get(context, RunStore.RunStore))

const claim = (store: RunStore.Service, runId: string) => store.claim({ runId, agent: "a", workflow: "agentfx/a", fingerprint: "f" })

describe.each(stores)("the run store on %s", (_, make) => {
  it.scopedLive("nothing is appended after a run's Done: the append does nothing, and says so", () =>
    Effect.gen(function* () {
      const store = yield* open((yield* make)())
      yield* claim(store, "r")
      expect(yield* store.append("r", "turn/1", turn(1))).toBe(true)
      expect(yield* store.append("r", "done", done)).toBe(true)
      expect(yield* store.append("r", "turn/2", turn(2))).toBe(false)
      expect(yield* store.append("r", "done", { _tag: "Done", outcome: "finished", text: "late" })).toBe(false)
      // An event appended again under its key (a replayed step) is not a refusal while the run goes on.
      yield* claim(store, "s")
      expect(yield* store.append("s", "turn/1", turn(1))).toBe(true)
      expect(yield* store.append("s", "turn/1", turn(1))).toBe(true)
      expect((yield* store.events("r", 0)).map(({ event, offset }) => [offset, event._tag, event._tag === "Done" && event.outcome])).toEqual([
        [0, "TurnFinished", false],
        [1, "Done", "cancelled"]
      ])
    }), 60_000)

  it.scopedLive("appends from another connection racing a Done are stored before it or not at all", () =>
    Effect.gen(function* () {
      const connect = yield* make
      const runner = yield* open(connect())
      const canceller = yield* open(connect())
      yield* claim(runner, "r")
      const appends = Effect.forEach(Array.from({ length: 20 }, (_, i) => i + 1), (n) => runner.append("r", `turn/${n}`, turn(n)), { concurrency: 4 })
      yield* Effect.all([appends, Effect.zipRight(Effect.yieldNow(), canceller.append("r", "done", done))], { concurrency: 2 })
      const events = yield* canceller.events("r", 0)
      expect(events.at(-1)!.event).toEqual(done)
      expect(events.map(({ offset }) => offset)).toEqual(events.map((_, i) => i))
    }), 60_000)

  it.scopedLive("a run takes one outcome: a cancelled run is not finished, a finished one is not cancelled; settling again says so", () =>
    Effect.gen(function* () {
      const store = yield* open((yield* make)())
      yield* claim(store, "c")
      yield* claim(store, "f")
      expect(yield* store.settle("c", "cancelled", null)).toBe(true)
      expect(yield* store.settle("c", "finished", "{}")).toBe(false)
      expect(yield* store.settle("f", "finished", "{}")).toBe(true)
      expect(yield* store.settle("f", "cancelled", null)).toBe(false)
      expect(yield* store.settle("f", "finished", "{}")).toBe(true)
      expect([(yield* store.get("c"))?.state, (yield* store.get("f"))?.state]).toEqual(["cancelled", "finished"])
    }), 60_000)
})
