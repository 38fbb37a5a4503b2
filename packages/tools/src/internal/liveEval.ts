/**
 * One eval case as a Live session (`mode: live`): the case's scenario (its instructions, its functions with the
 * case's mocks in place) on a session of the runner's live model, the case's `input` then each `follow_up` sent
 * in turn (a message lost with its connection is sent again once), and what the session recorded read back as the
 * calls the validator checks, in the order the model asked for them, and the answers' text.
 */
import type { LiveModel } from "@agentfx/core"
import { LiveAgent } from "@agentfx/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import type { EvalCase } from "../EvalCase.js"
import type { ObservedCall } from "../EvalValidator.js"
import type * as Scenario from "../Scenario.js"

/**
 * The live model of a suite's Live cases, and the sessions' options (`R`: what the scenarios' tools need; `RL`: the
 * model layers).
 */
export interface LiveOptions<R, RL> {
  /** One Layer for every Live case, or a Layer per case (a per-case Live cassette, say); built afresh per case. */
  readonly model: Layer.Layer<LiveModel.LiveModel, unknown, RL> | ((evalCase: EvalCase) => Layer.Layer<LiveModel.LiveModel, unknown, RL>)
  /** Further options of each session (tool concurrency and timeout, bounds, reconnect policy). */
  readonly session?: Omit<LiveAgent.Options<R>, "registry" | "system"> | undefined
}

/** What a Live case did: its calls, the model's turns and their text. */
export interface LiveOutcome {
  readonly calls: ReadonlyArray<ObservedCall>
  /** The text of every turn that said something, one per line. */
  readonly text: string
  readonly turns: number
}

/** Whether the case runs live: its own `mode`, else its scenario's. */
export const isLive = (evalCase: EvalCase, scenario: Scenario.Definition): boolean => (evalCase.mode ?? scenario.mode) === "live"

/** A call as the validator sees it; a call that was never answered reads as an error saying why. */
const observedOf = (record: LiveAgent.CallRecord): ObservedCall => {
  const base = { id: record.id, name: record.name, args: record.args, durationMs: Duration.toMillis(record.duration), turn: record.turn }
  const outcome = record.outcome
  switch (outcome._tag) {
    case "Answered":
      return { ...base, response: outcome.response.response, isError: Either.isLeft(outcome.result) }
    case "Stopped":
    case "Repeated":
      return { ...base, response: outcome.response.response, isError: true }
    case "Cancelled":
      return { ...base, response: { error: { type: "Cancelled", message: "the server cancelled the call; it was not answered" } }, isError: true }
    case "Lost":
      return { ...base, response: { error: { type: "Lost", message: outcome.reason } }, isError: true }
  }
}

/**
 * The session's calls in the order the model asked for them (`asked`, the ids as they started); a call asked
 * again on a later connection is one call, not two.
 */
export const observedCalls = (records: ReadonlyArray<LiveAgent.CallRecord>, asked: ReadonlyArray<string>): ReadonlyArray<ObservedCall> => {
  const order = new Map(asked.map((id, i) => [id, i]))
  return records
    .filter((record) => record.outcome._tag !== "Repeated")
    .map((record, i) => ({ record, at: order.get(record.id) ?? asked.length + i }))
    .sort((a, b) => a.at - b.at)
    .map(({ record }) => observedOf(record))
}

/**
 * Runs the case on a session; fails with why it could not finish. `watch` is given a way to read the calls so far,
 * for a case cut short by its timeout.
 */
export const run = <R, RL>(
  evalCase: EvalCase,
  scenario: Scenario.Scenario<R>,
  options: LiveOptions<R, RL>,
  watch: (calls: Effect.Effect<ReadonlyArray<ObservedCall>>) => void
): Effect.Effect<LiveOutcome, string, R | RL> => {
  const layer = typeof options.model === "function" ? options.model(evalCase) : options.model
  const asked: Array<string> = []
  return Effect.scoped(
    Effect.gen(function* () {
      const session = yield* LiveAgent.session({ ...options.session, registry: scenario.registry, system: scenario.instructions })
      const events = yield* session.subscribe
      yield* Effect.forkScoped(Stream.runForEach(events, (event) => Effect.sync(() => event._tag === "CallStarted" && asked.push(event.call.id))).pipe(Effect.ignore))
      watch(Effect.map(session.calls, (records) => observedCalls(records, asked)))
      for (const message of [evalCase.input, ...(evalCase.follow_up ?? [])]) yield* session.send(message, { resendOnTurnLost: true })
      const records = yield* session.calls
      // The reader of the events may be a step behind the session: let it see every call start.
      for (let i = 0; i < 100 && records.some((record) => !asked.includes(record.id)); i++) yield* Effect.yieldNow()
      const turns = yield* session.turns
      return {
        calls: observedCalls(records, asked),
        text: turns.map((turn) => turn.text.trim()).filter((text) => text !== "").join("\n"),
        turns: turns.length
      }
    })
  ).pipe(
    Effect.provide(layer),
    Effect.mapError((error) => (typeof error === "object" && error !== null && "_tag" in error && "message" in error ? `${String(error._tag)}: ${String(error.message)}` : String(error)))
  )
}
