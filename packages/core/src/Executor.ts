/**
 * Runs the calls a model asked for: `execute` one, `executeAll` a batch (sequential or bounded parallel, results
 * in call order, one failure never cancels its siblings), `buildResponses` turns results into the responses the
 * model is sent. Modelled on the GeminiEx executor, with its defects fixed: every outcome is a typed value,
 * a slow handler times out instead of crashing the caller, and interrupting a batch interrupts its handlers.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { Approval } from "./Approval.js"
import * as Telemetry from "./Telemetry.js"
import type { FunctionCall } from "./FunctionCall.js"
import { argumentsError } from "./FunctionCall.js"
import type * as FunctionResponse from "./FunctionResponse.js"
import type { ArgumentLimits } from "./internal/json.js"
import { checkArguments, defaultLimits, describeFailure, toJson } from "./internal/json.js"
import type { JsonObject } from "./Json.js"
import { tracing } from "./internal/tracer.js"
import { isPlainObject } from "./Json.js"
import type { Registry } from "./Registry.js"
import type { Scheduling } from "./LiveModel.js"
import type { HandlerFailure, ProgressOptions, Tool, ToolContext } from "./Tool.js"
import { context } from "./Tool.js"
import type { ToolError } from "./ToolError.js"
import { ApprovalDenied, ExecutionFailed, InvalidArguments, ToolTimeout, UnknownFunction } from "./ToolError.js"

export type {
  /**
   * Limits on untrusted arguments: nesting depth, number of values, total characters.
   *
   * @since 0.1.0
   * @category models
   */
  ArgumentLimits
} from "./internal/json.js"

/**
 * The outcome of one call: the handler's result as JSON, or why there is none.
 *
 * @since 0.1.0
 * @category models
 */
export type CallResult = Either.Either<unknown, ToolError>

/**
 * Options of one call.
 *
 * @example
 * ```ts
 * import { Executor, FunctionCall, Registry } from "@agentfx/core"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const registry = yield* Registry.fromFunctions({ add: ({ a, b }) => Number(a) + Number(b) })
 *   const call = FunctionCall.make({ id: "c1", name: "add", args: { a: 1, b: 2 } })
 *   return yield* Executor.execute(registry, call, { timeout: "30 seconds", limits: { maxDepth: 16 } })
 * })
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Timeout for tools that set none of their own. Default: none — a timeout is opt-in, per tool or here, because
   * supervising a call costs more than running a pure handler.
   */
  readonly timeout?: Duration.DurationInput
  /** Limits on untrusted arguments (defaults: depth 64, 100,000 values, 1,000,000 characters). */
  readonly limits?: Partial<ArgumentLimits>
  /** Where the handler's progress reports and final scheduling go (a live session's); by default nowhere. */
  readonly reporter?: Reporter | undefined
}

/**
 * Receives what a handler says before its result (`ToolContext.progress`, `finalScheduling`): a live session sends
 * progress to the model. `response` is the value rendered as a result is.
 *
 * @since 0.3.0
 * @category models
 */
export interface Reporter {
  readonly progress: (call: FunctionCall, response: JsonObject, scheduling: Scheduling | undefined) => Effect.Effect<void>
  readonly finalScheduling: (call: FunctionCall, scheduling: Scheduling) => Effect.Effect<void>
}

/**
 * Options of a batch: those of each call, how many handlers run at once, and hooks around each call (`RH`: what
 * the hooks require).
 *
 * @example
 * ```ts
 * import { Executor, FunctionCall, Registry } from "@agentfx/core"
 * import { Console, Duration, Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const registry = yield* Registry.fromFunctions({ add: ({ a, b }) => Number(a) + Number(b) })
 *   const calls = [1, 2, 3].map((n) => FunctionCall.make({ id: `c${n}`, name: "add", args: { a: n, b: n } }))
 *   return yield* Executor.executeAll(registry, calls, {
 *     concurrency: 4,
 *     onFinish: (call, _result, duration) => Console.log(`${call.name}: ${Duration.format(duration)}`)
 *   })
 * })
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export interface BatchOptions<R = never> extends Options {
  /** `"sequential"`, `"unbounded"` or the most handlers running at once (default 10). */
  readonly concurrency?: "sequential" | "unbounded" | number
  /** Called as a call starts (after its arguments were read), e.g. to emit an event. */
  readonly onStart?: (call: FunctionCall, index: number) => Effect.Effect<void, never, R>
  /** Called as a call finishes, with its result and how long it took. */
  readonly onFinish?: (call: FunctionCall, result: CallResult, duration: Duration.Duration, index: number) => Effect.Effect<void, never, R>
}

/**
 * The default bound of a batch: 10 handlers at once.
 *
 * @since 0.1.0
 */
export const defaultConcurrency = 10

const failureOf = (name: string, cause: Cause.Cause<HandlerFailure>): ExecutionFailed => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) return new ExecutionFailed({ name, cause: failure.value.cause, defect: failure.value.defect })
  const defect = Cause.dieOption(cause)
  if (Option.isSome(defect)) return new ExecutionFailed({ name, cause: describeFailure(defect.value), defect: true })
  return new ExecutionFailed({ name, cause: { message: "the handler interrupted itself" }, defect: true })
}

const approve = (tool: Tool<unknown>, call: FunctionCall): Effect.Effect<void, ApprovalDenied> =>
  Effect.flatMap(Effect.serviceOption(Approval), (service) =>
    Option.match(service, {
      onNone: () => Effect.fail(new ApprovalDenied({ name: call.name, reason: "this tool needs approval and no Approval service is provided" })),
      onSome: (approval) =>
        Effect.flatMap(approval.approve({ call, description: tool.description }), (decision) =>
          decision.approved ? Effect.void : Effect.fail(new ApprovalDenied({ name: call.name, reason: decision.reason }))
        )
    })
  )

/**
 * Runs one call against a registry: the handler's result as JSON, or a typed `ToolError`. The arguments are read
 * and decoded as the Effect is built; running it runs the handler.
 *
 * @example
 * ```ts
 * import { Executor, FunctionCall, Registry } from "@agentfx/core"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const registry = yield* Registry.fromFunctions({ add: ({ a, b }) => Number(a) + Number(b) })
 *   // Right(3); an unknown name, bad arguments or a failing handler would be a Left with a ToolError
 *   return yield* Effect.either(Executor.execute(registry, FunctionCall.make({ id: "c1", name: "add", args: { a: 1, b: 2 } })))
 * })
 *
 * Effect.runPromise(program).then(console.log)
 * ```
 *
 * @since 0.1.0
 */
export const execute = <R>(registry: Registry<R>, call: FunctionCall, options: Options = {}): Effect.Effect<unknown, ToolError, R> =>
  Telemetry.span(
    `execute_tool ${call.name}`,
    { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": call.name, "gen_ai.tool.call.id": call.id, "gen_ai.tool.type": "function" },
    (annotate) =>
      annotate.content
        ? Effect.zipRight(
            annotate.attributes({ "gen_ai.tool.call.arguments": Telemetry.contentJson(call.args) }),
            Effect.tap(executeUntraced(registry, call, options), (result) => annotate.attributes({ "gen_ai.tool.call.result": Telemetry.contentJson(result) }))
          )
        : executeUntraced(registry, call, options)
  )

const executeUntraced = <R>(registry: Registry<R>, call: FunctionCall, options: Options = {}): Effect.Effect<unknown, ToolError, R> => {
  const tool = registry.tools.get(call.name)
  if (tool === undefined) return Effect.fail(new UnknownFunction({ name: call.name, available: registry.names }))
  const unreadable = argumentsError(call)
  if (unreadable !== undefined) {
    return Effect.fail(new InvalidArguments({ name: call.name, issues: [{ path: "", message: unreadable }] }))
  }
  // Stryker disable next-line ConditionalExpression: spreading undefined adds nothing; the shortcut only saves a copy
  const limits = options.limits === undefined ? defaultLimits : { ...defaultLimits, ...options.limits }
  const checked = checkArguments(call.args, limits)
  if (Either.isLeft(checked)) return Effect.fail(new InvalidArguments({ name: call.name, issues: checked.left }))
  const decoded = guard(call.name, () => tool.decode(checked.right))
  if (Either.isLeft(decoded)) return Effect.fail(decoded.left)
  if (Either.isLeft(decoded.right)) return Effect.fail(new InvalidArguments({ name: call.name, issues: decoded.right.left }))
  const args = decoded.right.right
  const after = Option.isSome(tool.timeout) ? tool.timeout.value : options.timeout === undefined ? undefined : Duration.decode(options.timeout)
  const handled = Effect.suspend(() => tool.run(args, contextOf(call, options.reporter))).pipe(
    Effect.catchAllCause((cause) => Effect.fail(failureOf(call.name, cause)))
  )
  const run: Effect.Effect<unknown, ToolError, R> =
    after === undefined || !Duration.isFinite(after)
      ? handled
      : Effect.timeoutFail(handled, { duration: after, onTimeout: () => new ToolTimeout({ name: call.name, after }) })
  const needsApproval = guard(call.name, () => tool.needsApproval(args))
  if (Either.isLeft(needsApproval)) return Effect.fail(needsApproval.left)
  return needsApproval.right ? Effect.zipRight(approve(tool, call), run) : run
}

/** The context a handler gets: its call, and where its progress goes. */
const contextOf = (call: FunctionCall, reporter: Reporter | undefined): ToolContext =>
  reporter === undefined
    ? context(call.id, call.name)
    : {
        callId: call.id,
        name: call.name,
        progress: (value: unknown, options?: ProgressOptions) =>
          Either.match(toJson(value), {
            // As a result that is not JSON fails its call (the handler dies with why, and the call is ExecutionFailed).
            onLeft: (reason) => Effect.die(new Error(`the progress reported is not JSON: ${reason}`)),
            onRight: (json) => reporter.progress(call, renderSuccess(json), options?.scheduling)
          }),
        finalScheduling: (scheduling) => reporter.finalScheduling(call, scheduling)
      }

/** Tool code called outside an Effect (decoders, approval predicates) may throw: that is the tool's failure. */
const guard = <A>(name: string, f: () => A): Either.Either<A, ExecutionFailed> => {
  try {
    return Either.right(f())
  } catch (error) {
    return Either.left(new ExecutionFailed({ name, cause: describeFailure(error), defect: true }))
  }
}

const boundOf = (concurrency: BatchOptions["concurrency"], calls: number): number => {
  if (concurrency === undefined) return defaultConcurrency
  if (concurrency === "sequential") return 1
  if (concurrency === "unbounded") return Math.max(1, calls)
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be "sequential", "unbounded" or an integer ≥ 1, got ${concurrency}`)
  }
  return concurrency
}

/**
 * Runs `task(0 … count-1)` with at most `bound` at once: `bound` workers each take the next index. One worker
 * runs in the calling fiber, so a sequential batch forks nothing. Interrupting the pool interrupts every worker
 * and waits for their finalizers.
 */
const pool = <R>(count: number, bound: number, task: (index: number) => Effect.Effect<void, never, R>): Effect.Effect<void, never, R> =>
  Effect.suspend(() => {
    let next = 0
    // A while loop is one instruction the runtime repeats, where a recursive suspend and zipRight are two per call.
    const worker: Effect.Effect<void, never, R> = Effect.whileLoop({ while: () => next < count, body: () => task(next++), step: () => {} })
    const extra = Math.min(bound, count) - 1
    // Stryker disable next-line EqualityOperator,ConditionalExpression: with no extra worker the masked path runs the same worker, only dearer
    if (extra <= 0) return worker
    // Plain forks (forkAll costs several times more); daemons, because this pool itself interrupts and awaits
    // them on every way out, which is cheaper than the runtime's supervision.
    return Effect.uninterruptibleMask((restore) => {
      const others: Array<Fiber.RuntimeFiber<void>> = []
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: the collected results are discarded either way
      return Effect.forEach(Array.from({ length: extra }), () => Effect.map(Effect.forkDaemon(restore(worker)), (fiber) => void others.push(fiber)), { discard: true }).pipe(
        // Stryker disable next-line ObjectLiteral,BooleanLiteral: the collected results are discarded either way
        Effect.zipRight(restore(Effect.zipRight(worker, Effect.forEach(others, Fiber.join, { discard: true })))),
        Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : Fiber.interruptAll(others)))
      )
    })
  })

/**
 * Runs a batch: one result per call, in call order, whatever each call did. A batch of one call runs it in the
 * calling fiber, as `execute` would. Interrupting the batch interrupts
 * every running handler (their finalizers run). A bad `concurrency` (0, negative, fractional) is a defect.
 *
 * @since 0.1.0
 */
export const executeAll = <R, RH = never>(
  registry: Registry<R>,
  calls: ReadonlyArray<FunctionCall>,
  options: BatchOptions<RH> = {}
): Effect.Effect<ReadonlyArray<CallResult>, never, R | RH> =>
  Effect.suspend(() => {
    const bound = boundOf(options.concurrency, calls.length)
    const { onStart, onFinish } = options
    // The usual loop step, one call, needs no pool.
    // Stryker disable next-line BlockStatement,ConditionalExpression: the general path gives the same result for one call without hooks; this only saves allocations
    if (calls.length === 1 && onStart === undefined && onFinish === undefined) {
      return Effect.map(Effect.either(execute(registry, calls[0]!, options)), (outcome) => [outcome])
    }
    // Whether spans are recorded is looked up once per batch: a call with no tracer then builds no span at all.
    return Effect.flatMap(tracing, (traced) => {
      const run = traced ? execute : executeUntraced
      // Every call is read and decoded here, in one pass, before any handler runs: a worker that a handler's answer
      // wakes then runs only the next handler, not the decoder too (on a busy machine, code woken after a wait runs
      // from cold caches, and paid several times its warm cost per call).
      const prepared = calls.map((call) => run(registry, call, options))
      // Stryker disable next-line ArrayDeclaration: every index is written before the array is returned; presizing only saves growth
      const results = new Array<CallResult>(calls.length)
      const one = (index: number): Effect.Effect<void, never, R | RH> => {
        // Stryker disable next-line ConditionalExpression,BlockStatement: the path with hooks stores the same outcome when there are none; this one only saves frames
        if (onStart === undefined && onFinish === undefined) {
          // One frame that stores the outcome, where Effect.either then a map make three.
          return Effect.match(prepared[index]!, {
            onFailure: (error) => void (results[index] = Either.left(error)),
            onSuccess: (value) => void (results[index] = Either.right(value))
          })
        }
        const call = calls[index]!
        return Effect.gen(function* () {
          if (onStart !== undefined) yield* onStart(call, index)
          const [duration, outcome] = yield* Effect.timed(Effect.either(prepared[index]!))
          results[index] = outcome
          if (onFinish !== undefined) yield* onFinish(call, outcome, duration, index)
        })
      }
      // Stryker disable next-line ConditionalExpression: a pool of one call runs it in the calling fiber too
      return Effect.as(calls.length === 1 ? one(0) : pool(calls.length, bound, one), results)
    })
  })

/**
 * `executeAll` with the default bound of 10 handlers at once.
 *
 * @since 0.1.0
 */
export const executeAllParallel = <R, RH = never>(
  registry: Registry<R>,
  calls: ReadonlyArray<FunctionCall>,
  options: Omit<BatchOptions<RH>, "concurrency"> = {}
): Effect.Effect<ReadonlyArray<CallResult>, never, R | RH> => executeAll(registry, calls, { ...options, concurrency: defaultConcurrency })

/**
 * `buildResponses` was given a different number of results than calls.
 *
 * @since 0.1.0
 * @category errors
 */
export class ResponseCountMismatch extends Schema.TaggedError<ResponseCountMismatch>()("ResponseCountMismatch", {
  calls: Schema.Number,
  results: Schema.Number
}) {
  override get message(): string {
    return `${this.calls} calls but ${this.results} results: every call needs exactly one result`
  }
}

/**
 * An error as the model sees it: `{error: {type, message, ...what it needs to correct itself}}`.
 *
 * @since 0.1.0
 */
export const renderError = (error: ToolError): JsonObject => {
  const base = { type: error._tag, message: error.message }
  switch (error._tag) {
    case "UnknownFunction":
      return { error: { ...base, available: error.available } }
    case "InvalidArguments":
      return { error: { ...base, issues: error.issues } }
    case "ExecutionFailed":
      return { error: isPlainObject(error.cause) && Object.keys(error.cause).some((k) => k !== "message") ? { ...base, details: error.cause } : base }
    case "ToolTimeout":
      return { error: { ...base, timeoutMs: Duration.toMillis(error.after) } }
    case "ApprovalDenied":
      return { error: { ...base, reason: error.reason } }
  }
}

/**
 * A result as the model sees it: a plain object as it is, anything else as `{output: value}`.
 *
 * @since 0.1.0
 */
export const renderSuccess = (value: unknown): JsonObject => (isPlainObject(value) ? value : { output: value })

/**
 * One response for one call: id and name echoed, the result or error rendered as a JSON object.
 *
 * @since 0.1.0
 */
export const responseFor = (call: FunctionCall, result: CallResult): FunctionResponse.FunctionResponse => ({
  // Built directly, not through the validating constructor: every field is correct by construction (hot path).
  _tag: "FunctionResponse",
  id: call.id,
  name: call.name,
  response: Either.isRight(result) ? renderSuccess(result.right) : renderError(result.left),
  isError: Either.isLeft(result)
})

/**
 * One response per call, in call order; a length mismatch is `ResponseCountMismatch`.
 *
 * @since 0.1.0
 */
export const buildResponses = (
  calls: ReadonlyArray<FunctionCall>,
  results: ReadonlyArray<CallResult>
): Either.Either<ReadonlyArray<FunctionResponse.FunctionResponse>, ResponseCountMismatch> =>
  calls.length === results.length
    ? Either.right(calls.map((call, i) => responseFor(call, results[i]!)))
    : Either.left(new ResponseCountMismatch({ calls: calls.length, results: results.length }))
