/**
 * The first step of a loop turn: ask the model. One attempt sends the request (streamed or not) within the
 * run's deadlines and checks that the answer can be appended; retryable failures are retried as the run's policy
 * says, each announced as `AttemptFailed`. The accepted model turn is appended to the transcript. The time the step
 * waited, requests and retry waits, is taken from what is left of the run's `runTimeout`; no attempt outlives it.
 */
import * as Effect from "effect/Effect"
import type { AttemptFailed } from "../AgentEvent.js"
import * as LanguageModel from "../LanguageModel.js"
import type { ModelError } from "../ModelError.js"
import * as Retry from "../Retry.js"
import * as Telemetry from "../Telemetry.js"
import type { TranscriptViolation } from "../Transcript.js"
import * as Turn from "../Turn.js"
import * as Deadline from "./deadline.js"
import * as MalformedCall from "./malformedCall.js"
import type { Run } from "./run.js"
import { forEachPart } from "./streaming.js"

/** One request, streamed: deltas become events as they arrive. */
const streamed = <R>(run: Run<R>, turn: number, request: LanguageModel.Request, onPart: Deadline.OnPart) =>
  forEachPart(
    run.model.stream(request),
    (part: LanguageModel.StreamPart) => {
      onPart()
      if (part._tag === "TextDelta") run.emit({ _tag: "TextDelta", turn, text: part.text })
      else if (part._tag === "ReasoningDelta") run.emit({ _tag: "ReasoningDelta", turn, text: part.text })
    },
    run.room
  )

/** One attempt: the request within its deadlines, and an answer that can be appended. */
const attempt = <R>(run: Run<R>, turn: number, request: LanguageModel.Request, annotate: Telemetry.Annotate): Effect.Effect<LanguageModel.Response, ModelError> =>
  Deadline.within(
    run.runtime,
    run.clock,
    run.limits,
    run.streamed,
    (onPart) => (run.streamed ? streamed(run, turn, request, onPart) : run.model.generate(request)),
    undefined,
    run.deadline
  ).pipe(
    Effect.flatMap((response) => {
      const malformed = run.validator.checkModelTurn(response.turn)
      return malformed === undefined ? Effect.succeed(response) : Effect.fail(malformed)
    }),
    Effect.tapError((error) => annotate.event("gen_ai.attempt_failed", { "error.type": error._tag, "agentfx.retryable": error.retryable }))
  )

/** Asks the model for turn `turn` (retrying as the policy says) and appends its answer. */
export const ask = <R>(run: Run<R>, turn: number): Effect.Effect<LanguageModel.Response, ModelError | TranscriptViolation> =>
  Effect.gen(function* () {
    yield* run.validator.complete()
    yield* run.room
    run.emit({ _tag: "TurnStarted", turn })
    // Stryker disable next-line ConditionalExpression: without a source refreshTools does nothing; the flag only spares the call
    if (run.toolsMayChange) yield* run.refreshTools()
    const base = run.request()
    const onMalformedCall = run.options.onMalformedCall ?? "feedback"
    // What the next attempt sends: the request, or after a malformed call (by default) the request with a note.
    let request = base
    let attempts = 0
    const once = (annotate: Telemetry.Annotate) =>
      Effect.suspend(() => run.recordAttempt(turn, ++attempts, attempt(run, turn, request, annotate))).pipe(
        Effect.tapError((error) =>
          Effect.sync(() => {
            request = MalformedCall.nextRequest(onMalformedCall, base, error) ?? base
          })
        )
      )
    const onAttemptFailed = run.options.onAttemptFailed
    const failed = (error: ModelError, willRetry: boolean, { attempt, retryIn }: Retry.FailedAttempt) => {
      const event: AttemptFailed = { _tag: "AttemptFailed", turn, error, willRetry, attempt, maxAttempts: run.maxAttempts, retryIn }
      run.emit(event)
      return onAttemptFailed === undefined ? Effect.void : onAttemptFailed(event)
    }
    // The turn's share of the run's time with the model starts now (tools refreshed, the events' reader caught up).
    const started = run.clock.unsafeCurrentTimeMillis()
    run.deadline.ends = started + run.modelTimeLeft
    const response = yield* Telemetry.span(
      `chat ${run.model.model}`,
      { "gen_ai.operation.name": "chat", "gen_ai.provider.name": run.model.provider, "gen_ai.request.model": run.model.model, "agentfx.turn": turn },
      (annotate) =>
        Effect.tap(run.retryWaits(Retry.retrying(once(annotate), run.retry, MalformedCall.retryable(onMalformedCall), failed, run.deadline.ends)), (response) =>
          annotate.attributes({
            "gen_ai.usage.input_tokens": response.usage.inputTokens,
            "gen_ai.usage.output_tokens": response.usage.outputTokens,
            "gen_ai.response.finish_reasons": [response.finishReason],
            "gen_ai.output.messages": annotate.content ? Telemetry.contentJson(response.turn.parts) : undefined
          })
        ),
      "client"
    )
    run.modelTimeLeft -= run.clock.unsafeCurrentTimeMillis() - started
    yield* run.append(response.turn)
    run.usage = LanguageModel.addUsage(run.usage, response.usage)
    run.lastText = Turn.text(response.turn)
    run.emit({ _tag: "TurnFinished", turn, response })
    return response
  })
