import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as Take from "effect/Take"
import type { AgentEvent } from "../AgentEvent.js"
import type { AgentResult, CallRecord, StopReason } from "../AgentResult.js"
import * as Executor from "../Executor.js"
import type { FunctionCall } from "../FunctionCall.js"
import * as Json from "../Json.js"
import * as LanguageModel from "../LanguageModel.js"
import * as ModelError from "../ModelError.js"
import type { Registry } from "../Registry.js"
import * as Retry from "../Retry.js"
import type { StopCondition } from "../StopCondition.js"
import type { ToolError } from "../ToolError.js"
import type { Transcript, TranscriptViolation } from "../Transcript.js"
import { Validator } from "../Transcript.js"
import * as Turn from "../Turn.js"

/** Everything a run can be configured with (see `Agent.Options` for the documentation). */
export interface LoopOptions<R> {
  readonly registry: Registry<R>
  readonly prompt?: string | Turn.Turn | undefined
  readonly history?: Transcript | undefined
  readonly system?: string | undefined
  readonly maxTurns?: number | undefined
  readonly concurrency?: Executor.BatchOptions["concurrency"]
  readonly toolTimeout?: Duration.DurationInput | undefined
  readonly turnTimeout?: Duration.DurationInput | undefined
  readonly retry?: Retry.Policy | undefined
  readonly toolChoice?: LanguageModel.ToolChoice | undefined
  readonly temperature?: number | undefined
  readonly maxOutputTokens?: number | undefined
  readonly stopWhen?: ReadonlyArray<StopCondition> | undefined
  readonly onToolError?: "feedback" | "fail" | undefined
  readonly limits?: Executor.Options["limits"]
  readonly streaming?: boolean | undefined
}

export type LoopError = ModelError.ModelError | TranscriptViolation | ToolError

export interface Hooks {
  /** Receives every event; the run waits for it (this is the stream's back-pressure). */
  readonly emit?: ((event: AgentEvent) => Effect.Effect<void>) | undefined
  /**
   * Receives the transcript each time the model has answered and every call is answered: a message that fails or is
   * interrupted before the model's first answer leaves no trace, so resending it does not repeat it.
   */
  readonly commit?: ((transcript: Transcript) => Effect.Effect<void>) | undefined
}

export const defaultMaxTurns = 10
export const defaultTurnTimeout = Duration.seconds(15)

const callKey = (call: FunctionCall): string => `${call.name}\u0000${Json.canonical(call.args)}`

/** A model turn the provider gave us that cannot be appended is the provider's fault, and worth a retry. */
const checkModelTurn = (turn: Turn.Turn, validator: Validator): ModelError.MalformedResponse | undefined => {
  if (turn.role !== "model") return new ModelError.MalformedResponse({ message: `the model answered with a "${turn.role}" turn` })
  const ids = new Set<string>()
  for (const part of turn.parts) {
    if (part._tag === "FunctionResponse") return new ModelError.MalformedResponse({ message: "the model turn holds a function response" })
    if (part._tag === "FunctionCall") {
      if (validator.hasCallId(part.id) || ids.has(part.id)) {
        return new ModelError.MalformedResponse({ message: `the model reused the call id "${part.id}"` })
      }
      ids.add(part.id)
    }
  }
  return undefined
}

const noEmit = (_: AgentEvent) => Effect.void

/**
 * `attempt`, retried on retryable errors as `policy` schedules. Same as `Effect.retry` with a `while`, but the
 * schedule is only started after a first failure: most model requests succeed, and starting a schedule driver
 * costs more than the rest of a step.
 */
const retrying = <A, R>(
  attempt: Effect.Effect<A, ModelError.ModelError, R>,
  policy: Retry.Policy
): Effect.Effect<A, ModelError.ModelError, R> =>
  Effect.catchAll(attempt, (first) =>
    first.retryable
      ? Effect.flatMap(Schedule.driver(policy), (driver) => {
          const again = (error: ModelError.ModelError): Effect.Effect<A, ModelError.ModelError, R> =>
            Effect.matchEffect(driver.next(error), {
              onFailure: () => Effect.fail(error),
              onSuccess: () => Effect.catchAll(attempt, (next) => (next.retryable ? again(next) : Effect.fail(next)))
            })
          return again(first)
        })
      : Effect.fail(first)
  )

/** The agent loop. `Agent.run` and `Agent.stream` are both this, with different hooks. */
export const loop = <R>(
  options: LoopOptions<R>,
  hooks: Hooks = {}
): Effect.Effect<AgentResult, LoopError, LanguageModel.LanguageModel | R> =>
  Effect.gen(function* () {
    const model = yield* LanguageModel.LanguageModel
    const emit = hooks.emit ?? noEmit
    const maxTurns = options.maxTurns ?? defaultMaxTurns
    if (!Number.isInteger(maxTurns) || maxTurns < 1) return yield* Effect.dieMessage(`maxTurns must be an integer ≥ 1, got ${maxTurns}`)
    const turnTimeout = options.turnTimeout === undefined ? defaultTurnTimeout : Duration.decode(options.turnTimeout)
    const retry = options.retry ?? Retry.defaultPolicy
    const registry = options.registry
    const stopWhen = options.stopWhen ?? []
    const repeatLimit = stopWhen.reduce((min, c) => (c._tag === "RepeatedCall" ? Math.min(min, c.times) : min), Infinity)
    const stopNames = new Set(stopWhen.flatMap((c) => (c._tag === "ToolCalled" ? [c.name] : [])))
    const repeats = new Map<string, number>()

    const validator = new Validator()
    let transcript: Transcript = options.history ?? []
    for (const turn of transcript) yield* validator.push(turn)
    if (options.prompt !== undefined) {
      const prompt = typeof options.prompt === "string" ? Turn.user(options.prompt) : options.prompt
      yield* validator.push(prompt)
      transcript = [...transcript, prompt]
    }
    if (transcript.length === 0) {
      return yield* Effect.fail(new ModelError.InvalidRequest({ message: "nothing to send: the run has no prompt and no history" }))
    }
    const last = transcript[transcript.length - 1]!
    if (options.prompt === undefined && last.role === "model" && Turn.calls(last).length === 0) {
      return yield* Effect.fail(
        new ModelError.InvalidRequest({ message: "nothing to continue: the transcript ends with the model's answer; send a new message" })
      )
    }

    let usage = LanguageModel.emptyUsage
    const calls: Array<CallRecord> = []
    const finish = (text: string, turns: number, stopReason: StopReason): AgentResult => ({
      text,
      calls,
      turns,
      stopReason,
      transcript,
      usage
    })

    let lastText = ""
    for (let turn = 1; ; turn++) {
      if (turn > maxTurns) return finish(lastText, maxTurns, { _tag: "MaxTurns", maxTurns })
      yield* validator.complete()
      yield* emit({ _tag: "TurnStarted", turn })
      const request: LanguageModel.Request = {
        system: options.system,
        transcript,
        declarations: registry.declarations,
        toolChoice: options.toolChoice,
        temperature: options.temperature ?? 0,
        maxOutputTokens: options.maxOutputTokens
      }
      const ask = options.streaming === true
        ? LanguageModel.collect(
            Stream.tap(model.stream(request), (part) =>
              part._tag === "TextDelta"
                ? emit({ _tag: "TextDelta", turn, text: part.text })
                : part._tag === "ReasoningDelta"
                  ? emit({ _tag: "ReasoningDelta", turn, text: part.text })
                  : Effect.void
            )
          )
        : model.generate(request)
      const attempt = ask.pipe(
        Effect.timeoutFail({ duration: turnTimeout, onTimeout: () => new ModelError.ModelTimeout({ after: turnTimeout }) }),
        Effect.flatMap((response) => {
          const malformed = checkModelTurn(response.turn, validator)
          return malformed === undefined ? Effect.succeed(response) : Effect.fail(malformed)
        }),
        Effect.tapError((error) => emit({ _tag: "AttemptFailed", turn, error }))
      )
      const response = yield* retrying(attempt, retry)
      usage = LanguageModel.addUsage(usage, response.usage)
      const modelTurn = response.turn
      lastText = Turn.text(modelTurn)
      yield* validator.push(modelTurn)
      transcript = [...transcript, modelTurn]
      yield* emit({ _tag: "TurnFinished", turn, response })

      const turnCalls = Turn.calls(modelTurn)
      if (turnCalls.length === 0) {
        if (hooks.commit !== undefined) yield* hooks.commit(transcript)
        return finish(lastText, turn, { _tag: "Finished" })
      }

      const records = new Array<CallRecord>(turnCalls.length)
      const results = yield* Executor.executeAll(registry, turnCalls, {
        concurrency: options.concurrency,
        timeout: options.toolTimeout,
        limits: options.limits,
        onStart: (call) => emit({ _tag: "CallStarted", turn, call }),
        onFinish: (call, result, duration, index) => {
          const record: CallRecord = {
            id: call.id,
            name: call.name,
            args: call.args,
            result,
            response: Executor.responseFor(call, result),
            duration,
            turn
          }
          records[index] = record
          return emit({ _tag: "CallFinished", turn, record })
        }
      })
      const responseTurn: Turn.Turn = { role: "user", parts: records.map((record) => record.response) }
      yield* validator.push(responseTurn)
      transcript = [...transcript, responseTurn]
      for (const record of records) calls.push(record)
      if (hooks.commit !== undefined) yield* hooks.commit(transcript)

      if (options.onToolError === "fail") {
        const failed = results.find(Either.isLeft)
        if (failed !== undefined) return yield* Effect.fail(failed.left)
      }
      for (const call of turnCalls) {
        if (stopNames.has(call.name)) return finish(lastText, turn, { _tag: "ToolCalled", name: call.name })
      }
      if (repeatLimit === Infinity) continue
      for (const call of turnCalls) {
        const key = callKey(call)
        const seen = (repeats.get(key) ?? 0) + 1
        repeats.set(key, seen)
        if (seen >= repeatLimit) return finish(lastText, turn, { _tag: "RepeatedCall", name: call.name, times: seen })
      }
    }
  })

/**
 * The loop as a stream of its events, ending with `Done`; closing the stream interrupts the run. Events pass
 * through a bounded queue (back-pressure without promise-based emitters, which do not interrupt cleanly from
 * the executor's child fibers).
 */
export const loopStream = <R>(
  options: LoopOptions<R>,
  hooks: Omit<Hooks, "emit"> = {}
): Stream.Stream<AgentEvent, LoopError, LanguageModel.LanguageModel | R> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const queue = yield* Effect.acquireRelease(Queue.bounded<Take.Take<AgentEvent, LoopError>>(64), Queue.shutdown)
      yield* loop({ ...options, streaming: options.streaming ?? true }, {
        ...hooks,
        emit: (event) => Queue.offer(queue, Take.of(event))
      }).pipe(
        Effect.matchCauseEffect({
          onSuccess: (result) => Queue.offerAll(queue, [Take.of<AgentEvent>({ _tag: "Done", result }), Take.end]),
          onFailure: (cause) => Queue.offer(queue, Take.failCause(cause))
        }),
        Effect.forkScoped
      )
      return Stream.flattenTake(Stream.fromQueue(queue))
    })
  )
