/**
 * One run's settings and state: what the loop's steps share. The transcript and its validator change together,
 * one turn at a time (`append`), so at every point the validator has checked exactly the transcript.
 */
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Runtime from "effect/Runtime"
import type { Options } from "../Agent.js"
import type { AgentEvent } from "../AgentEvent.js"
import type { AgentResult, CallRecord, StopReason } from "../AgentResult.js"
import * as LanguageModel from "../LanguageModel.js"
import * as ModelError from "../ModelError.js"
import type { Registry } from "../Registry.js"
import * as Retry from "../Retry.js"
import * as StopCondition from "../StopCondition.js"
import * as Transcript from "../Transcript.js"
import * as Turn from "../Turn.js"
import type { Limits, RunDeadline } from "./deadline.js"
import { bound } from "./deadline.js"
import { Plan } from "./output.js"

/**
 * The default `maxTurns`: 10 model turns.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxTurns = 10

/**
 * The default `turnTimeout`: 10 minutes for a whole model request, so that a slow but healthy answer finishes.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultTurnTimeout: Duration.Duration = Duration.minutes(10)

/**
 * The default `firstByteTimeout`: 2 minutes until a streamed answer's first part (thinking models are slow to start).
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultFirstByteTimeout: Duration.Duration = Duration.minutes(2)

/**
 * The default `idleTimeout`: 1 minute without a part once a stream has started.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultIdleTimeout: Duration.Duration = Duration.minutes(1)

/**
 * The default `runTimeout`: 15 minutes of waiting on the model per run, every request and retry wait of every turn
 * counted (tool calls are not). Room for one answer as slow as `turnTimeout` allows and the retries around it, and
 * for ten turns of a slow thinking model; a model that never answers no longer holds a run for the whole retry
 * policy at ten minutes an attempt.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultRunTimeout: Duration.Duration = Duration.minutes(15)

/** How a caller follows a run. */
export interface Hooks {
  /** Receives every event, synchronously (`Agent.stream`). */
  readonly emit?: ((event: AgentEvent) => void) | undefined
  /** Waits until the receiver of the events has room for more (the stream's back-pressure). */
  readonly room?: Effect.Effect<void> | undefined
  /**
   * Receives the transcript each time the model has answered and every call is answered: a message that fails or is
   * interrupted before the model's first answer leaves no trace, so resending it does not repeat it.
   */
  readonly commit?: ((transcript: Transcript.Transcript) => Effect.Effect<void>) | undefined
  /**
   * Wraps each attempt at a model turn (the request under its deadlines, and the check that its answer can be
   * appended), `attempt` counting from 1 within the turn: a durable run records it as a step, and a replayed
   * attempt hands back what was recorded.
   */
  readonly attempt?:
    | ((turn: number, attempt: number, request: Effect.Effect<LanguageModel.Response, ModelError.ModelError>) => Effect.Effect<LanguageModel.Response, ModelError.ModelError>)
    | undefined
  /** The clock the waits between attempts sleep on (a durable run's survives a restart); default the run's own. */
  readonly retryClock?: Clock.Clock | undefined
}

const noEmit = (_: AgentEvent): void => {}

export class Run<R> {
  /** Every call executed so far, in turn order and, within a turn, in the model's order. */
  readonly calls: Array<CallRecord> = []
  usage: LanguageModel.Usage = LanguageModel.emptyUsage
  /** Text of the latest model turn. */
  // Stryker disable next-line StringLiteral: every result is built after at least one model turn has set it
  lastText = ""
  /** The tools of this turn: the options' registry, or what its source last gave. */
  registry: Registry<R>
  /** The source's version `registry` was read at. */
  private toolsVersion: number
  /** Whether the registry has a source to ask before each turn (false: the loop does not even look). */
  readonly toolsMayChange: boolean
  /** What is left of `runTimeout`, in milliseconds: each model turn spends the time it waited. */
  modelTimeLeft: number
  /** Where the run's time with the model ends, set as each model turn starts; its requests and retries read it. */
  readonly deadline: RunDeadline
  /** The most attempts per turn the retry policy makes, when it says. */
  readonly maxAttempts: number | undefined

  private constructor(
    readonly options: Options<R>,
    readonly maxTurns: number,
    readonly model: LanguageModel.Service,
    /** The run's runtime and clock, for model requests run under their deadlines. */
    readonly runtime: Runtime.Runtime<never>,
    readonly clock: Clock.Clock,
    readonly limits: Limits,
    runTimeout: Duration.Duration,
    readonly retry: Retry.Policy,
    readonly stop: StopCondition.Check,
    /** Whether anyone listens to events (`Agent.stream`): `Agent.run` skips building them. */
    readonly emits: boolean,
    readonly emit: (event: AgentEvent) => void,
    readonly room: Effect.Effect<void>,
    private readonly hooks: Hooks,
    /** The transcript so far: history, prompt, and every turn of this run. */
    public transcript: Transcript.Transcript,
    readonly validator: Transcript.Validator,
    /** The typed output the run is to give (`output`), if any. */
    readonly output: Plan | undefined
  ) {
    this.registry = options.registry
    this.modelTimeLeft = Duration.toMillis(runTimeout)
    this.deadline = { ends: Infinity, after: runTimeout }
    this.maxAttempts = Retry.maxAttempts(retry)
    // Stryker disable next-line ConditionalExpression: without a source refreshTools does nothing; the flag only spares the call
    this.toolsMayChange = options.registry.source !== undefined
    // The version the registry's tools were read at, not the source's version now: a run that starts after a change
    // asks the source on its first turn.
    this.toolsVersion = options.registry.source === undefined ? 0 : (options.registry.sourceVersion ?? options.registry.source.version())
  }

  /** Checks the options and the history, and appends the prompt; nothing is sent yet. */
  static start<R>(
    options: Options<R>,
    hooks: Hooks
  ): Effect.Effect<Run<R>, ModelError.InvalidRequest | Transcript.TranscriptViolation, LanguageModel.LanguageModel> {
    return Effect.gen(function* () {
      const maxTurns = options.maxTurns ?? defaultMaxTurns
      if (!Number.isInteger(maxTurns) || maxTurns < 1) return yield* Effect.dieMessage(`maxTurns must be an integer ≥ 1, got ${maxTurns}`)
      const [limits, runTimeout] = yield* Effect.try({
        try: (): [Limits, Duration.Duration] => [
          {
            turn: bound("turnTimeout", options.turnTimeout, defaultTurnTimeout),
            firstByte: bound("firstByteTimeout", options.firstByteTimeout, defaultFirstByteTimeout),
            idle: bound("idleTimeout", options.idleTimeout, defaultIdleTimeout)
          },
          bound("runTimeout", options.runTimeout, defaultRunTimeout)
        ],
        catch: (error) => error
      }).pipe(Effect.orDie)
      const output = yield* Plan.of(options)
      const history = options.history ?? []
      const validator = yield* Transcript.Validator.of(history)
      let transcript = history
      if (options.prompt !== undefined) {
        const prompt = typeof options.prompt === "string" ? Turn.user(options.prompt) : options.prompt
        yield* validator.push(prompt)
        transcript = Transcript.append(history, [prompt])
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
      return new Run(
        options,
        maxTurns,
        yield* LanguageModel.LanguageModel,
        yield* Effect.runtime<never>(),
        yield* Effect.clock,
        limits,
        runTimeout,
        options.retry ?? Retry.defaultPolicy,
        StopCondition.startAll(options.stopWhen ?? []),
        // Stryker disable next-line ConditionalExpression: without a listener the events go to noEmit; the flag only spares building them
        hooks.emit !== undefined,
        hooks.emit ?? noEmit,
        hooks.room ?? Effect.void,
        hooks,
        transcript,
        validator,
        output
      )
    })
  }

  /** Whether the model is streamed. */
  get streamed(): boolean {
    return this.options.streaming === true
  }

  /** The request for the next model turn: the transcript as it is now (an immutable snapshot). */
  request(): LanguageModel.Request {
    const request: LanguageModel.Request = {
      system: this.options.system,
      transcript: this.transcript,
      declarations: this.registry.declarations,
      toolChoice: this.options.toolChoice,
      // Unset means the provider's default: a forced 0 hurts reasoning models (Gemini 3 loops or degrades at 0).
      temperature: this.options.temperature,
      maxOutputTokens: this.options.maxOutputTokens
    }
    return this.output === undefined ? request : this.output.request(request, this.model)
  }

  /**
   * The tools for the next turn, from a dynamic registry's source: asked for its tools only when its version moved
   * since they were last read, else nothing is allocated. A source that fails keeps the tools the run has and is
   * asked again before the next turn (a warning is logged).
   */
  refreshTools(): Effect.Effect<void> {
    const source = this.options.registry.source
    if (source === undefined) return Effect.void
    const version = source.version()
    if (version === this.toolsVersion) return Effect.void
    // Read before asking: a change announced while the tools are being fetched moves the version again.
    return source.current.pipe(
      Effect.matchEffect({
        onFailure: (error) =>
          Effect.logWarning("the tools could not be refreshed; the run keeps its tools and tries again before the next turn", error),
        onSuccess: (registry) =>
          Effect.sync(() => {
            this.registry = registry
            this.toolsVersion = version
          })
      })
    )
  }

  /** Appends one turn, validated; a turn that breaks an invariant is not appended. */
  append(turn: Turn.Turn): Either.Either<void, Transcript.TranscriptViolation> {
    const pushed = this.validator.push(turn)
    // Stryker disable next-line ConditionalExpression: a refused turn fails the run at once, so the transcript it would extend is never read
    if (Either.isRight(pushed)) this.transcript = Transcript.append(this.transcript, [turn])
    return pushed
  }

  /** One attempt at model turn `turn`, as the hooks record it. */
  recordAttempt(
    turn: number,
    attempt: number,
    request: Effect.Effect<LanguageModel.Response, ModelError.ModelError>
  ): Effect.Effect<LanguageModel.Response, ModelError.ModelError> {
    const recorded = this.hooks.attempt === undefined ? request : this.hooks.attempt(turn, attempt, request)
    // The retry clock is for the waits between attempts alone: an attempt (and whatever records it) keeps the run's.
    return this.hooks.retryClock === undefined ? recorded : Effect.withClock(recorded, this.clock)
  }

  /** The retry waits on the hooks' clock, when they give one. */
  retryWaits<A, E, R>(retried: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> {
    return this.hooks.retryClock === undefined ? retried : Effect.withClock(retried, this.hooks.retryClock)
  }

  /** Hands the transcript to the caller at a complete point (every call answered). */
  get commit(): Effect.Effect<void> {
    return this.hooks.commit === undefined ? Effect.void : this.hooks.commit(this.transcript)
  }

  /** The result, as the run stands. */
  result(turns: number, stopReason: StopReason): AgentResult {
    return { text: this.lastText, calls: this.calls, turns, stopReason, transcript: this.transcript, usage: this.usage }
  }

  /** Leaves the validator to whoever continues this run's transcript (a chat's next message). */
  handOver(): void {
    this.validator.handOver(this.transcript)
  }
}
