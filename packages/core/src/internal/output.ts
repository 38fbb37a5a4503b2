/**
 * Typed output in the loop's steps (see `Output`). A run given `output` has a plan: its declaration, added to every
 * request (with the instructions in the system text unless the model's JSON mode enforces the schema); the decision
 * on a final turn (decoded: the run ends with its value; not decoded: a correction turn is appended and the model is
 * asked again, up to `maxOutputRetries` times, then `OutputInvalid`); and the end of a run that stopped before a final
 * answer (`OutputMissing`). A run without `output` has no plan, and each of these is what the loop did before.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Schema from "effect/Schema"
import type { AgentEvent } from "../AgentEvent.js"
import type { AgentResult, StopReason } from "../AgentResult.js"
import type * as LanguageModel from "../LanguageModel.js"
import * as ModelError from "../ModelError.js"
import * as Output from "../Output.js"
import type { TranscriptViolation } from "../Transcript.js"
import { parsePartial } from "./partialJson.js"
import type { Run } from "./run.js"

/** What a run given `output` keeps of it. */
export class Plan {
  /** Final answers that did not decode, so far. */
  failures = 0
  private readonly instructions: string

  private constructor(
    readonly schema: Schema.Schema.AnyNoContext,
    readonly declaration: Output.Declaration,
    readonly maxRetries: number
  ) {
    this.instructions = Output.instructions(declaration)
  }

  /** The plan of a run's options, if it has `output`; a Schema that cannot be declared fails the run at its start. */
  static of(options: {
    readonly output?: Schema.Schema.AnyNoContext | undefined
    readonly maxOutputRetries?: number | undefined
  }): Effect.Effect<Plan | undefined, ModelError.InvalidRequest> {
    const schema = options.output
    if (schema === undefined) return Effect.succeed(undefined)
    const maxRetries = options.maxOutputRetries ?? Output.defaultMaxRetries
    if (!Number.isInteger(maxRetries) || maxRetries < 0) return Effect.dieMessage(`maxOutputRetries must be an integer ≥ 0, got ${maxRetries}`)
    return Either.match(Output.declare(schema), {
      onLeft: (error) => Effect.fail(new ModelError.InvalidRequest({ message: error.message })),
      onRight: (declaration) => Effect.succeed(new Plan(schema, declaration, maxRetries))
    })
  }

  /** The request with the output declared, and told in the system text unless the model's JSON mode enforces it. */
  request(base: LanguageModel.Request, model: LanguageModel.Service): LanguageModel.Request {
    const request = { ...base, output: this.declaration }
    if ((model.outputMode?.(request) ?? "instructions") === "schema") return request
    return { ...request, system: base.system === undefined || base.system === "" ? this.instructions : `${base.system}\n\n${this.instructions}` }
  }
}

const finished: StopReason = { _tag: "Finished" }

/**
 * The decide step of a final turn (the model called nothing): the run's result, or `undefined` when the answer did
 * not decode and a correction was appended, so the loop asks again.
 */
export const finish = <R>(run: Run<R>, turn: number): Effect.Effect<AgentResult | undefined, Output.OutputInvalid | TranscriptViolation> => {
  const plan = run.output
  if (plan === undefined) return Effect.as(run.commit, run.result(turn, finished))
  const decoded = Output.decode(plan.schema, plan.declaration, run.lastText)
  if (Either.isRight(decoded)) {
    run.emit({ _tag: "OutputDecoded", turn, value: decoded.right })
    return Effect.as(run.commit, { ...run.result(turn, finished), output: decoded.right })
  }
  const issues = decoded.left
  plan.failures++
  const willRetry = plan.failures <= plan.maxRetries && turn < run.maxTurns
  run.emit({ _tag: "OutputRejected", turn, issues, attempt: plan.failures, willRetry })
  if (!willRetry) {
    return Effect.fail(new Output.OutputInvalid({ issues, text: run.lastText, attempts: plan.failures, transcript: run.transcript }))
  }
  return Effect.as(run.append(Output.correction(issues)), undefined)
}

/** The end of a run that stopped before a final answer: its result, or `OutputMissing` when it was to give one. */
export const stopped = <R>(run: Run<R>, turn: number, reason: Exclude<StopReason, { readonly _tag: "Finished" }>): Effect.Effect<AgentResult, Output.OutputMissing> =>
  run.output === undefined
    ? Effect.succeed(run.result(turn, reason))
    : Effect.fail(new Output.OutputMissing({ stopReason: reason, turns: turn, transcript: run.transcript }))

/**
 * The events of a run given `output`, with an `OutputDelta` after each text delta whose turn's text so far reads as
 * (the start of) a JSON value: the partial value, best effort. A turn's text starts afresh with each attempt.
 */
export const withDeltas = (emit: (event: AgentEvent) => void): ((event: AgentEvent) => void) => {
  let text = ""
  return (event) => {
    emit(event)
    if (event._tag === "TextDelta") {
      text += event.text
      const partial = parsePartial(text)
      if (partial !== undefined) emit({ _tag: "OutputDelta", turn: event.turn, partial })
    } else if (event._tag === "TurnStarted" || event._tag === "AttemptFailed") text = ""
  }
}
