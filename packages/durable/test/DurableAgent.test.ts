/**
 * DurableAgent in one process on a real SQLite store: a run's result is Agent.run's, a run id names one run, and
 * status, list and events read what the run recorded.
 */
import { Agent, Approval, ModelError, Retry } from "@agentfx/core"
import { Scripted } from "@agentfx/core/testing"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Exit, Schema } from "effect"
import { DurableAgent } from "../src/index.js"
import { freshStore, registry, runtime } from "./support/inProcess.js"

const twoTurns: Parameters<typeof Scripted.layer>[0] = [
  { calls: [{ name: "add", args: { a: 2, b: 3 } }, { name: "add", args: { a: 1, b: 1 } }], usage: { inputTokens: 10, outputTokens: 5 } },
  { text: "5 and 2.", usage: { inputTokens: 20, outputTokens: 3 } }
]

describe("DurableAgent.run", () => {
  it.live("returns what Agent.run returns: the transcript, every call and the usage", () =>
    Effect.gen(function* () {
      const plain = yield* Agent.run({ registry, prompt: "2+3 and 1+1?" }).pipe(Effect.provide(Scripted.layer(twoTurns)))
      const agent = DurableAgent.make("adder", { registry })
      const durable = yield* agent.run({ runId: "sum-1", prompt: "2+3 and 1+1?" }).pipe(Effect.provide(runtime(agent, freshStore(), twoTurns)))
      expect(durable.transcript).toEqual(plain.transcript)
      expect(durable.usage).toEqual(plain.usage)
      expect(durable.stopReason).toEqual(plain.stopReason)
      expect(durable.calls.map((call) => [call.id, call.name, call.args, Either.getOrNull(call.result), call.response, call.turn])).toEqual(
        plain.calls.map((call) => [call.id, call.name, call.args, Either.getOrNull(call.result), call.response, call.turn])
      )
    }))

  it("takes no output Schema: a run's result is stored as text, so make refuses one rather than lose the decoded answer", () => {
    // @ts-expect-error: the definition has no `output`
    expect(() => DurableAgent.make("typed", { registry, output: Schema.Struct({ total: Schema.Number }) })).toThrow(
      new TypeError('durable agent "typed": a durable run gives a text answer, and takes no output Schema')
    )
  })

  it.live("a run id names one run: starting it again attaches to it, and the model is asked once per turn", () =>
    Effect.gen(function* () {
      const agent = DurableAgent.make("adder", { registry })
      const { first, requests, second } = yield* Effect.gen(function* () {
        const first = yield* agent.run({ runId: "sum-1", prompt: "2+3 and 1+1?" })
        const second = yield* agent.run({ runId: "sum-1", prompt: "2+3 and 1+1?" })
        const requests = yield* (yield* Scripted.ScriptedModel).requests
        return { first, second, requests }
      }).pipe(Effect.provide(runtime(agent, freshStore(), twoTurns)))
      expect(second.transcript).toEqual(first.transcript)
      expect(requests).toHaveLength(2)
    }))

  it.live("a run id reused with another prompt, or by another agent, is RunConflict; the first run is untouched", () =>
    Effect.gen(function* () {
      const agent = DurableAgent.make("adder", { registry })
      const other = DurableAgent.make("other", { registry })
      const store = freshStore()
      const outcome = yield* Effect.gen(function* () {
        const first = yield* agent.run({ runId: "sum-1", prompt: "2+3 and 1+1?" })
        const prompt = yield* Effect.flip(agent.start({ runId: "sum-1", prompt: "something else" }))
        const agentClash = yield* Effect.flip(other.start({ runId: "sum-1", prompt: "2+3 and 1+1?" }))
        const status = yield* DurableAgent.status("sum-1")
        return { first, prompt, agentClash, status }
      }).pipe(Effect.provide(runtime(agent, store, twoTurns)))
      expect(outcome.prompt._tag).toBe("RunConflict")
      expect(outcome.prompt.message).toBe('run "sum-1" already exists with another prompt or history: choose another run id, or attach to it')
      expect(outcome.agentClash.message).toBe('run "sum-1" already exists for agent "adder", not "other": choose another run id')
      expect(outcome.status._tag === "Finished" && outcome.status.result.text).toBe(outcome.first.text)
    }))

  it.live("a retry wait sleeps on the durable clock: it is a recorded step of the run", () =>
    Effect.gen(function* () {
      const agent = DurableAgent.make("adder", { registry, retry: Retry.policy({ base: "10 millis" }) })
      const script: Parameters<typeof Scripted.layer>[0] = [{ error: new ModelError.RateLimited({ message: "slow down", retryAfter: Duration.millis(300) }) }, { text: "done" }]
      const { result, waits } = yield* Effect.gen(function* () {
        const result = yield* agent.run({ runId: "r", prompt: "hi" })
        const sql = yield* SqlClient.SqlClient
        const waits = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM cluster_messages WHERE tag = 'activity' AND payload LIKE '%DurableClock/retry/1%'`
        return { result, waits }
      }).pipe(Effect.provide(runtime(agent, freshStore(), script)))
      expect(result.text).toBe("done")
      expect(Number(waits[0]!.n)).toBe(1)
    }))

  it.live("a failed run is Failed with its typed error, and run fails with it", () =>
    Effect.gen(function* () {
      const agent = DurableAgent.make("adder", { registry, retry: Retry.never })
      const { exit, status } = yield* Effect.gen(function* () {
        const exit = yield* Effect.exit(agent.run({ runId: "r", prompt: "hi" }))
        return { exit, status: yield* DurableAgent.status("r") }
      }).pipe(Effect.provide(runtime(agent, freshStore(), [{ error: new ModelError.Unauthorized({ message: "bad key" }) }])))
      expect(Exit.isFailure(exit) && Exit.causeOption(exit)).toBeTruthy()
      expect(status._tag).toBe("Failed")
      expect(status._tag === "Failed" && status.error).toEqual(new ModelError.Unauthorized({ message: "bad key" }))
    }))
})

describe("DurableAgent status, list and events", () => {
  it.live("events are numbered from 0 and read from any offset; list shows every run", () =>
    Effect.gen(function* () {
      const agent = DurableAgent.make("adder", { registry, concurrency: "sequential" })
      const { all, later, listed } = yield* Effect.gen(function* () {
        yield* agent.run({ runId: "a", prompt: "2+3 and 1+1?" })
        const all = yield* DurableAgent.events("a")
        const later = yield* DurableAgent.events("a", 3)
        const listed = yield* DurableAgent.list
        return { all, later, listed }
      }).pipe(Effect.provide(runtime(agent, freshStore(), twoTurns)))
      expect(all.map((e) => [e.offset, e.event._tag])).toEqual([
        [0, "TurnFinished"],
        [1, "CallStarted"],
        [2, "CallFinished"],
        [3, "CallStarted"],
        [4, "CallFinished"],
        [5, "TurnFinished"],
        [6, "Done"]
      ])
      expect(later).toEqual(all.slice(3))
      expect(all[6]!.event).toEqual({ _tag: "Done", outcome: "finished", text: "5 and 2." })
      expect(listed.map((run) => [run.runId, run.agent, run.state])).toEqual([["a", "adder", "Finished"]])
    }))

  it.live("an unknown run id is UnknownRun for status, events, attach, approve and cancel", () =>
    Effect.gen(function* () {
      const agent = DurableAgent.make("adder", { registry })
      const errors = yield* Effect.all([
        Effect.flip(DurableAgent.status("nope")),
        Effect.flip(DurableAgent.events("nope")),
        Effect.flip(DurableAgent.attach("nope")),
        Effect.flip(DurableAgent.approve("nope", "c1", Approval.approved)),
        Effect.flip(DurableAgent.cancel("nope"))
      ]).pipe(Effect.provide(runtime(agent, freshStore(), [])))
      for (const error of errors) expect(error.message).toBe('no run "nope" in the store')
    }))
})
