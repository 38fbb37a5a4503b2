/**
 * Conditions that end a run early, checked after each turn's calls were executed and answered (so the
 * transcript stays valid and the run can be resumed). Each condition owns its check; the loop only asks it.
 *
 * @example
 * ```ts
 * import { Agent, Registry, StopCondition } from "@agentfx/core"
 *
 * const run = Agent.run({
 *   registry: Registry.empty,
 *   prompt: "Answer the customer",
 *   stopWhen: [StopCondition.toolCalled("send_email"), StopCondition.repeatedCall(3)]
 * })
 * ```
 *
 * @since 0.1.0
 */
import type { StopReason } from "./AgentResult.js"
import type { FunctionCall } from "./FunctionCall.js"
import * as Json from "./Json.js"

/**
 * What a condition is shown after each turn whose calls were answered.
 *
 * @since 0.2.0
 * @category models
 */
export interface Step {
  /** The model turn, 1-based within the run. */
  readonly turn: number
  /** That turn's calls, in the model's order; every one has been executed and answered. */
  readonly calls: ReadonlyArray<FunctionCall>
}

/**
 * Why the run stops after a step, when a condition says it should.
 *
 * @since 0.2.0
 * @category models
 */
export type Stop = Extract<StopReason, { readonly _tag: "ToolCalled" | "RepeatedCall" }>

/**
 * A condition's check over one run: called once per step, in order, so it may keep what it needs from earlier
 * steps (and must cost no more than the step it is shown).
 *
 * @since 0.2.0
 * @category models
 */
export type Check = (step: Step) => Stop | undefined

/**
 * Stop once a call to `name` has been executed (whatever its outcome).
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolCalled {
  readonly _tag: "ToolCalled"
  readonly name: string
  /** A fresh check for one run. */
  readonly start: () => Check
}

/**
 * Stop once the same call (name and arguments, whatever their key order) has been made `times` times in the run.
 *
 * @since 0.1.0
 * @category models
 */
export interface RepeatedCall {
  readonly _tag: "RepeatedCall"
  readonly times: number
  /** A fresh check for one run. */
  readonly start: () => Check
}

/**
 * A condition that can end a run early.
 *
 * @since 0.1.0
 * @category models
 */
export type StopCondition = ToolCalled | RepeatedCall

/**
 * Stop after the turn in which `name` was called.
 *
 * @example
 * ```ts
 * import { StopCondition } from "@agentfx/core"
 *
 * const once = StopCondition.toolCalled("send_email") // stops with ToolCalled after the turn that called it
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolCalled = (name: string): StopCondition => ({
  _tag: "ToolCalled",
  name,
  start: () => (step) => (step.calls.some((call) => call.name === name) ? { _tag: "ToolCalled", name } : undefined)
})

/**
 * Stop after the turn in which one call (same name, same arguments) was made for the `times`-th time; catches a
 * model that keeps asking for the same thing. Throws a `RangeError` unless `times` is an integer ≥ 2.
 *
 * @example
 * ```ts
 * import { StopCondition } from "@agentfx/core"
 *
 * const loopGuard = StopCondition.repeatedCall(3) // stops with RepeatedCall at the third identical call
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const repeatedCall = (times: number): StopCondition => {
  if (!Number.isInteger(times) || times < 2) throw new RangeError(`repeatedCall needs an integer ≥ 2, got ${times}`)
  return {
    _tag: "RepeatedCall",
    times,
    start: () => {
      const seen = new Map<string, number>()
      return (step) => {
        for (const call of step.calls) {
          const key = `${call.name}\u0000${Json.canonical(call.args)}`
          const count = (seen.get(key) ?? 0) + 1
          seen.set(key, count)
          if (count >= times) return { _tag: "RepeatedCall", name: call.name, times: count }
        }
        return undefined
      }
    }
  }
}

/**
 * One check for a run's conditions: the first condition, in the order given, that says stop decides.
 *
 * @since 0.2.0
 * @category combinators
 */
export const startAll = (conditions: ReadonlyArray<StopCondition>): Check => {
  const checks = conditions.map((condition) => condition.start())
  // Stryker disable next-line ConditionalExpression: the loop below returns undefined for no checks too; this only saves it
  if (checks.length === 0) return () => undefined
  return (step) => {
    for (const check of checks) {
      const stop = check(step)
      if (stop !== undefined) return stop
    }
    return undefined
  }
}
