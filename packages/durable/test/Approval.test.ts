/**
 * Approvals that park a run: the call waits durably (a DurableDeferred) until `DurableAgent.approve` decides it,
 * or its deadline passes (then it is denied as timed out). The run shows the calls that wait.
 */
import { Approval, Turn } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { DurableAgent } from "../src/index.js"
import { freshStore, registry, runtime } from "./support/inProcess.js"
import { statusUntil } from "./support/poll.js"

const script = [{ calls: [{ id: "t1", name: "create_ticket", args: { subject: "kettle" } }] }, { text: "Done." }]

describe("approvals of durable runs", () => {
  it.live("a call that needs approval parks the run, Waiting with the call; approve resumes it to the end", () =>
    Effect.gen(function* () {
      const agent = DurableAgent.make("support", { registry })
      const { events, result, waiting } = yield* Effect.gen(function* () {
        yield* agent.start({ runId: "mail-1", prompt: "My kettle broke." })
        const waiting = yield* statusUntil("mail-1", (status) => status._tag === "Waiting")
        yield* DurableAgent.approve("mail-1", "t1", Approval.approved)
        const result = yield* DurableAgent.attach("mail-1")
        return { events: yield* DurableAgent.events("mail-1"), result, waiting }
      }).pipe(Effect.provide(runtime(agent, freshStore(), script)))
      expect(waiting._tag === "Waiting" && waiting.pending).toEqual([
        { callId: "t1", name: "create_ticket", args: { subject: "kettle" }, description: "Opens a support ticket", deadline: null }
      ])
      expect(result.text).toBe("Done.")
      expect(result.calls.map((call) => Either.getOrNull(call.result))).toEqual([{ ticket: "T-kettle" }])
      expect(events.map((e) => e.event._tag)).toEqual(["TurnFinished", "ApprovalRequested", "ApprovalDecided", "CallStarted", "CallFinished", "TurnFinished", "Done"])
    }))

  it.live("a denial goes back to the model as ApprovalDenied with its reason; the handler never runs", () =>
    Effect.gen(function* () {
      const agent = DurableAgent.make("support", { registry })
      const result = yield* Effect.gen(function* () {
        yield* agent.start({ runId: "mail-1", prompt: "My kettle broke." })
        yield* statusUntil("mail-1", (status) => status._tag === "Waiting")
        yield* DurableAgent.approve("mail-1", "t1", Approval.denied("not under warranty"))
        return yield* DurableAgent.attach("mail-1")
      }).pipe(Effect.provide(runtime(agent, freshStore(), script)))
      expect(Turn.responses(result.transcript[2]!)[0]!.response).toEqual({
        error: { type: "ApprovalDenied", message: '"create_ticket" was not approved: not under warranty', reason: "not under warranty" }
      })
    }))

  it.live("no decision before the deadline: the call is denied as timed out, and the run goes on", () =>
    Effect.gen(function* () {
      const agent = DurableAgent.make("support", { registry, approvalTimeout: "300 millis" })
      const { late, result } = yield* Effect.gen(function* () {
        const result = yield* agent.run({ runId: "mail-1", prompt: "My kettle broke." })
        const late = yield* Effect.flip(DurableAgent.approve("mail-1", "t1", Approval.approved))
        return { late, result }
      }).pipe(Effect.provide(runtime(agent, freshStore(), script)))
      const denied = result.calls[0]!.result
      expect(Either.isLeft(denied) && denied.left._tag === "ApprovalDenied" && denied.left.reason).toBe("timed out: no decision within 300ms")
      expect(late.message).toBe('run "mail-1" has no call "t1" waiting for approval')
    }))

  it.live("cancel: the waiting run is Cancelled, attach fails with RunCancelled, and its calls never run", () =>
    Effect.gen(function* () {
      const agent = DurableAgent.make("support", { registry })
      const { attached, status } = yield* Effect.gen(function* () {
        yield* agent.start({ runId: "mail-1", prompt: "My kettle broke." })
        yield* statusUntil("mail-1", (status) => status._tag === "Waiting")
        yield* DurableAgent.cancel("mail-1")
        yield* DurableAgent.cancel("mail-1")
        const attached = yield* Effect.flip(DurableAgent.attach("mail-1"))
        return { attached, status: yield* DurableAgent.status("mail-1") }
      }).pipe(Effect.provide(runtime(agent, freshStore(), script)))
      expect(status._tag).toBe("Cancelled")
      expect(attached.message).toBe('run "mail-1" was cancelled')
    }))
})
