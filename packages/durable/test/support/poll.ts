/** Polls a run's status until `until` holds, every 20 ms, at most `times` times (then fails with the last status). */
import { Effect } from "effect"
import { DurableAgent, type RunStatus } from "../../src/index.js"

export const statusUntil = (runId: string, until: (status: RunStatus.RunStatus) => boolean, times = 500) =>
  Effect.gen(function* () {
    for (let i = 0; i < times; i++) {
      const status = yield* DurableAgent.status(runId)
      if (until(status)) return status
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.dieMessage(`run ${runId} never reached the awaited status`)
  })
