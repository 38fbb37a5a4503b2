/** The scripted runs the kill tests play, and what of a result they compare. */
import type { Agent, Turn } from "@agentfx/core"
import * as Either from "effect/Either"

/** One model turn of a script: calls to make (with their ids), or a final text; optionally failing its first attempt. */
export interface TurnSpec {
  readonly calls?: ReadonlyArray<{ readonly id: string; readonly name: "lookup" | "create_ticket" | "notify"; readonly key: string }>
  readonly text?: string
  /** The first request for this turn in a process gets a 503 (retried). */
  readonly failFirst?: boolean
}

export interface ChildConfig {
  readonly mode: "run" | "park" | "approve" | "attach" | "serve"
  readonly store: string
  readonly runId: string
  readonly counter: string
  /** A file each model request appends its turn number to (1-based), before it answers or blocks. */
  readonly models?: string
  readonly script: ReadonlyArray<TurnSpec>
  /** `model:N` (inside the N-th model request), `event:KEY` (as the store records that event), `inside:CALL` (after a call's side effect). */
  readonly block?: string
  /** Tools that need approval. */
  readonly approve?: ReadonlyArray<string>
  readonly approvalTimeout?: string
  readonly callId?: string
  /** Deny (with this reason) instead of approving. */
  readonly deny?: string
  /** PostgreSQL stores: the port this runner listens on for the others. */
  readonly port?: number
  /** `serve`: the runs this runner starts (each prompted with its id) before it serves. */
  readonly starts?: ReadonlyArray<string>
  /** How long each tool takes. */
  readonly toolDelayMs?: number
  /** Tools that must never run twice (default create_ticket and notify). */
  readonly nonIdempotent?: ReadonlyArray<string>
  /** `run`: approve each call that waits, from this process, as a person would. */
  readonly autoApprove?: boolean
}

/** What a run's result is compared on: the transcript without provider metadata (signatures differ between emulators), each call's answer, the usage. */
export interface Summary {
  readonly text: string
  readonly turns: number
  readonly usage: unknown
  readonly transcript: ReadonlyArray<{ readonly role: string; readonly parts: ReadonlyArray<unknown> }>
  readonly calls: ReadonlyArray<{ readonly id: string; readonly name: string; readonly args: unknown; readonly turn: number; readonly ok: boolean; readonly response: unknown }>
}

export const summaryOf = (result: Agent.AgentResult): Summary => ({
  text: result.text,
  turns: result.turns,
  usage: result.usage,
  transcript: result.transcript.map((turn: Turn.Turn) => ({ role: turn.role, parts: turn.parts.map(({ metadata: _, ...part }: Turn.Part & { metadata?: unknown }) => part) })),
  calls: result.calls.map((call) => ({ id: call.id, name: call.name, args: call.args, turn: call.turn, ok: Either.isRight(call.result), response: call.response.response }))
})

/** The scenario of the kill matrix: a lookup and a ticket in turn one, a notification in turn two, then the answer. */
export const threeTurns: ReadonlyArray<TurnSpec> = [
  { calls: [{ id: "c1", name: "lookup", key: "order-7" }, { id: "c2", name: "create_ticket", key: "kettle" }] },
  { calls: [{ id: "c3", name: "notify", key: "customer" }] },
  { text: "Ticket opened and the customer told." }
]
