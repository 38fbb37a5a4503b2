/**
 * The dispatcher of one scenario: it exposes only the scenario's functions (a call to anything else is an
 * `UnknownFunction` error the model is told about) and logs every dispatched call with its arguments, result
 * and duration — to its own call log (`calls`) and to Effect's logger at debug level.
 *
 * @example
 * ```ts
 * import { Registry, Tool } from "@agentfx/core"
 * import { Scripted } from "@agentfx/core/testing"
 * import { Dispatcher, Scenario } from "@agentfx/tools"
 * import { Effect, Schema } from "effect"
 *
 * const scenarioFile = `---
 * name: valid-warranty
 * description: The product is under warranty
 * available_functions:
 *   - name: check_warranty
 *     description: Looks up the warranty of a serial number
 *     parameters: { type: object, properties: { serial_number: { type: string } }, required: [serial_number] }
 * ---
 * You answer warranty e-mails. Check the warranty first.`
 *
 * const checkWarranty = Tool.make("check_warranty", {
 *   description: "Looks up the warranty of a serial number",
 *   parameters: Schema.Struct({ serial_number: Schema.String }),
 *   handler: ({ serial_number }) => Effect.succeed({ serial_number, valid: true })
 * })
 *
 * const program = Effect.gen(function* () {
 *   const definition = yield* Scenario.parse(scenarioFile, "valid-warranty.md")
 *   const scenario = yield* Scenario.resolve(definition, Registry.unsafeMake(checkWarranty))
 *   const dispatcher = yield* Dispatcher.make(scenario)
 *   const result = yield* dispatcher.run({ prompt: "My kettle SN-1 broke." }) // the agent loop, with the scenario's instructions
 *   const log = yield* dispatcher.calls // every call, even if the run failed midway
 *   return [result.text, log.map((call) => call.name)] as const
 * })
 *
 * const model = Scripted.layer([{ calls: [{ name: "check_warranty", args: { serial_number: "SN-1" } }] }, { text: "It is under warranty." }])
 * Effect.runPromise(program.pipe(Effect.provide(model))).then(console.log) // ["It is under warranty.", ["check_warranty"]]
 * ```
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Ref from "effect/Ref"
import type * as Schema from "effect/Schema"
import type { FunctionCall, Json, LanguageModel, Registry, ToolError, Turn } from "@agentfx/core"
import { Agent, Executor } from "@agentfx/core"
import type * as Scenario from "./Scenario.js"

/**
 * One dispatched call, as logged.
 *
 * @since 0.1.0
 * @category models
 */
export interface DispatchedCall {
  readonly id: string
  readonly name: string
  readonly args: Json.JsonObject
  readonly result: Either.Either<unknown, ToolError.ToolError>
  /** Exactly what the model was sent for this call. */
  readonly response: Json.JsonObject
  readonly isError: boolean
  readonly duration: Duration.Duration
  /** The model turn (1-based) that asked for it, when it came from a run. */
  readonly turn?: number | undefined
}

/**
 * The options of `run`: those of `Agent.run`, less the registry (always the scenario's).
 *
 * @since 0.1.0
 * @category models
 */
export interface RunOptions<R> extends Omit<Agent.Options<R>, "registry" | "system" | "prompt"> {
  readonly prompt?: string | Turn.Turn | undefined
  /** Overrides the scenario's instructions as the system prompt. */
  readonly system?: string | undefined
}

/**
 * A scenario's dispatcher: its registry, its call log, and ways to dispatch through it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Dispatcher<R> {
  readonly scenario: Scenario.Scenario<R>
  /** Only the scenario's functions, declared as the scenario declares them. */
  readonly registry: Registry.Registry<R>
  /** The calls dispatched so far, in completion order. */
  readonly calls: Effect.Effect<ReadonlyArray<DispatchedCall>>
  /** Dispatches one call (outside a run, e.g. for a Live session). */
  readonly execute: (call: FunctionCall.FunctionCall, options?: Executor.Options) => Effect.Effect<Executor.CallResult, never, R>
  /** Dispatches a batch; results in call order. */
  readonly executeAll: (
    calls: ReadonlyArray<FunctionCall.FunctionCall>,
    options?: Omit<Executor.BatchOptions, "onStart" | "onFinish">
  ) => Effect.Effect<ReadonlyArray<Executor.CallResult>, never, R>
  /**
   * Runs the agent loop with the scenario's instructions and functions, logging each call as it finishes; given
   * `output` (else the scenario's `output_schema`), the result's `output` is the final answer decoded by it (see
   * `Agent.run`).
   */
  readonly run: {
    <S extends Schema.Schema.AnyNoContext>(
      options: RunOptions<R> & { readonly output: S }
    ): Effect.Effect<Agent.Typed<Schema.Schema.Type<S>>, Agent.AgentError, LanguageModel.LanguageModel | R>
    (options: RunOptions<R>): Effect.Effect<Agent.AgentResult, Agent.AgentError, LanguageModel.LanguageModel | R>
  }
}

/**
 * A dispatcher for a (resolved) scenario, with an empty call log.
 *
 * @since 0.1.0
 */
export const make = <R>(scenario: Scenario.Scenario<R>): Effect.Effect<Dispatcher<R>> =>
  Effect.map(Ref.make<ReadonlyArray<DispatchedCall>>([]), (log) => {
    const registry = scenario.registry

    const record = (entry: DispatchedCall): Effect.Effect<void> =>
      Ref.update(log, (calls) => [...calls, entry]).pipe(
        Effect.zipRight(
          Effect.logDebug(`dispatched ${entry.name}`).pipe(
            Effect.annotateLogs({
              scenario: scenario.name,
              callId: entry.id,
              function: entry.name,
              args: entry.args,
              ...(Either.isRight(entry.result) ? { result: entry.result.right } : { error: entry.response.error }),
              durationMs: Duration.toMillis(entry.duration)
            })
          )
        )
      )

    const entryOf = (call: FunctionCall.FunctionCall, result: Executor.CallResult, duration: Duration.Duration, turn?: number): DispatchedCall => {
      const response = Executor.responseFor(call, result)
      return { id: call.id, name: call.name, args: call.args, result, response: response.response, isError: response.isError, duration, turn }
    }

    const executeAll: Dispatcher<R>["executeAll"] = (calls, options = {}) =>
      Executor.executeAll(registry, calls, {
        ...options,
        onFinish: (call, result, duration) => record(entryOf(call, result, duration))
      })

    // Each call is logged as it finishes, so a run that fails later keeps its log. `Agent.run` with a per-call hook,
    // not `Agent.stream`: a stream's fixed cost was most of a short eval case's.
    const run = (options: RunOptions<R>): Effect.Effect<Agent.AgentResult, Agent.AgentError, LanguageModel.LanguageModel | R> => {
      const theirs = options.onCallFinished
      return Agent.run({
        ...options,
        registry,
        system: options.system ?? scenario.instructions,
        output: options.output ?? scenario.output,
        onCallFinished: (call) => {
          const logged = record({
            id: call.id,
            name: call.name,
            args: call.args,
            result: call.result,
            response: call.response.response,
            isError: call.response.isError,
            duration: call.duration,
            turn: call.turn
          })
          return theirs === undefined ? logged : Effect.zipRight(logged, theirs(call))
        }
      })
    }

    return {
      scenario,
      registry,
      calls: Ref.get(log),
      execute: (call, options) => Effect.map(executeAll([call], { ...options, concurrency: 1 }), (results) => results[0]!),
      executeAll,
      // The loop decoded the output with the Schema the overload names: the typed form is what it returns.
      run: run as Dispatcher<R>["run"]
    }
  })
