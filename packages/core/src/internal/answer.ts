/**
 * The second step of a loop turn: answer the calls the model asked for. They run through the executor (bounded
 * parallel, one result per call), each becomes a `CallRecord`, and one response turn answering all of them, in
 * the model's order, is appended. The transcript is then complete again and is committed.
 */
import * as Effect from "effect/Effect"
import type { CallRecord } from "../AgentResult.js"
import * as Executor from "../Executor.js"
import type { FunctionCall } from "../FunctionCall.js"
import type { TranscriptViolation } from "../Transcript.js"
import type { Run } from "./run.js"

/** Executes and answers `calls` of model turn `turn`; the results, in call order. */
export const answer = <R>(
  run: Run<R>,
  turn: number,
  calls: ReadonlyArray<FunctionCall>
): Effect.Effect<ReadonlyArray<Executor.CallResult>, TranscriptViolation, R> =>
  Effect.gen(function* () {
    // Stryker disable next-line ArrayDeclaration: every index is written before the array is read; presizing only saves growth
    const records = new Array<CallRecord>(calls.length)
    const onCallFinished = run.options.onCallFinished
    const results = yield* Executor.executeAll(run.registry, calls, {
      concurrency: run.options.concurrency,
      timeout: run.options.toolTimeout,
      limits: run.options.limits,
      onStart: run.emits ? (call) => Effect.sync(() => run.emit({ _tag: "CallStarted", turn, call })) : undefined,
      onFinish: (call, result, duration, index) => {
        const record: CallRecord = { id: call.id, name: call.name, args: call.args, result, response: Executor.responseFor(call, result), duration, turn }
        records[index] = record
        const emitted = run.emits ? Effect.sync(() => run.emit({ _tag: "CallFinished", turn, record })) : Effect.void
        return onCallFinished === undefined ? emitted : Effect.zipRight(emitted, onCallFinished(record))
      }
    })
    yield* run.append({ role: "user", parts: records.map((record) => record.response) })
    for (const record of records) run.calls.push(record)
    yield* run.commit
    return results
  })
