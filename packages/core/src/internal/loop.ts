/**
 * The agent loop, as its steps: ask the model (with retry; an answer that cannot be appended counts as a failed
 * attempt), answer its calls, decide whether to stop. `Agent.run`, `Agent.stream` and `Chat` are all this loop,
 * with different hooks. A final turn (no calls) is decided by `finish`: with typed output, an answer that does not
 * decode is corrected and the loop asks again (see `output.ts`).
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Stream from "effect/Stream"
import type { AgentError, Options } from "../Agent.js"
import type { AgentEvent } from "../AgentEvent.js"
import type { AgentResult, StopReason } from "../AgentResult.js"
import type { CallResult } from "../Executor.js"
import type { FunctionCall } from "../FunctionCall.js"
import type { LanguageModel } from "../LanguageModel.js"
import type { ToolError } from "../ToolError.js"
import * as Telemetry from "../Telemetry.js"
import * as Turn from "../Turn.js"
import { answer } from "./answer.js"
import { ask } from "./ask.js"
import * as EventCallback from "./eventCallback.js"
import * as Events from "./events.js"
import { finish, stopped, withDeltas } from "./output.js"
import type { Hooks } from "./run.js"
import { Run } from "./run.js"

/** The third step: a tool error when they are fatal, else what the stop conditions say. */
const decide = <R>(run: Run<R>, turn: number, calls: ReadonlyArray<FunctionCall>, results: ReadonlyArray<CallResult>) => {
  if (run.options.onToolError === "fail") {
    const failed = results.find(Either.isLeft)
    if (failed !== undefined) return Effect.fail<ToolError>(failed.left)
  }
  return Effect.succeed<Exclude<StopReason, { readonly _tag: "Finished" }> | undefined>(run.stop({ turn, calls }))
}

/**
 * Runs the conversation to its end; with `onEvent`, streamed unless told otherwise, as `Agent.stream` is, and given
 * the same events (with `output`, its `OutputDelta`s: they are made from the deltas, outside the loop).
 */
export const loop = <R>(options: Options<R>, hooks: Hooks = {}): Effect.Effect<AgentResult, AgentError, LanguageModel | R> =>
  options.onEvent === undefined
    ? runLoop(options, hooks)
    : EventCallback.following(options.output === undefined ? options.onEvent : withDeltas(options.onEvent), hooks, (withCallback) =>
      runLoop({ ...options, streaming: options.streaming ?? true }, withCallback)
    )

const runLoop = <R>(options: Options<R>, hooks: Hooks): Effect.Effect<AgentResult, AgentError, LanguageModel | R> =>
  Effect.flatMap(Run.start(options, hooks), (run) =>
    Telemetry.span(
      "invoke_agent agentfx",
      { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "agentfx", "gen_ai.provider.name": run.model.provider, "gen_ai.request.model": run.model.model },
      (annotate) =>
        Effect.gen(function* () {
          if (annotate.content) yield* annotate.attributes({ "gen_ai.input.messages": Telemetry.contentJson(options.prompt ?? null) })
          const result = yield* turns(run)
          yield* annotate.attributes({
            "gen_ai.usage.input_tokens": result.usage.inputTokens,
            "gen_ai.usage.output_tokens": result.usage.outputTokens,
            "agentfx.turns": result.turns,
            "agentfx.stop_reason": result.stopReason._tag,
            "gen_ai.output.messages": annotate.content ? Telemetry.contentJson(result.text) : undefined
          })
          return result
        }),
      // Stryker disable next-line StringLiteral: a span without a kind is an internal one to OpenTelemetry; this says it
      "internal"
    ).pipe(Effect.ensuring(Effect.sync(() => run.handOver())))
  )

/** The turns of a run, to its end. */
const turns = <R>(run: Run<R>): Effect.Effect<AgentResult, AgentError, R> =>
  Effect.gen(function* () {
    for (let turn = 1; turn <= run.maxTurns; turn++) {
      const response = yield* ask(run, turn)
      const calls = Turn.calls(response.turn)
      if (calls.length === 0) {
        const result = yield* finish(run, turn)
        if (result !== undefined) return result
        continue
      }
      const results = yield* answer(run, turn, calls)
      const stop = yield* decide(run, turn, calls, results)
      if (stop !== undefined) return yield* stopped(run, turn, stop)
    }
    return yield* stopped(run, run.maxTurns, { _tag: "MaxTurns", maxTurns: run.maxTurns })
  })

/** The loop as a stream of its events, ending with `Done`; closing the stream interrupts the run. */
export const loopStream = <R>(
  options: Options<R>,
  hooks: Omit<Hooks, "emit" | "room"> = {}
): Stream.Stream<AgentEvent, AgentError, LanguageModel | R> =>
  Events.streamOf((events) =>
    loop(
      { ...options, streaming: options.streaming ?? true },
      { ...hooks, emit: options.output === undefined ? events.emit : withDeltas(events.emit), room: events.room }
    )
  )
