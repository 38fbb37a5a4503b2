/**
 * `onEvent`: a run's events handed to a callback as they happen, then `Done` with the result — the sequence
 * `Agent.stream` emits, without a Stream's fixed cost (a Stream run costs as much as several loop steps) and
 * without a fiber or a buffer between the loop and its reader: the loop calls the callback where it would push
 * the event into the stream's buffer.
 *
 * The callback runs inside the loop, where a throw would land wherever the loop happened to be (in a model
 * stream's reader it would read as the model's failure, and be retried). So a throw is caught and kept: the
 * callback is not called again, and the run dies with what was thrown at its next safe point (each model turn,
 * each chunk of a model stream, its end), whatever else it was doing.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { AgentEvent } from "../AgentEvent.js"
import type { AgentResult } from "../AgentResult.js"
import type { Hooks } from "./run.js"

/**
 * Runs `loop` with `onEvent` receiving its events (besides any listener `hooks` already has), then `Done` if it
 * succeeded.
 */
export const following = <E, R>(
  onEvent: (event: AgentEvent) => void,
  hooks: Hooks,
  loop: (hooks: Hooks) => Effect.Effect<AgentResult, E, R>
): Effect.Effect<AgentResult, E, R> =>
  Effect.suspend(() => {
    let thrown: { readonly error: unknown } | undefined
    const call = (event: AgentEvent): void => {
      if (thrown !== undefined) return
      try {
        onEvent(event)
      } catch (error) {
        thrown = { error }
      }
    }
    const listener = hooks.emit
    const emit =
      listener === undefined
        ? call
        : (event: AgentEvent) => {
          listener(event)
          call(event)
        }
    const stopIfThrown: Effect.Effect<void> = Effect.suspend(() => (thrown === undefined ? Effect.void : Effect.die(thrown.error)))
    const room = hooks.room === undefined ? stopIfThrown : Effect.zipRight(stopIfThrown, hooks.room)
    return Effect.flatMap(Effect.exit(loop({ ...hooks, emit, room })), (exit) => {
      if (Exit.isSuccess(exit)) call({ _tag: "Done", result: exit.value })
      return thrown === undefined ? exit : Effect.die(thrown.error)
    })
  })
