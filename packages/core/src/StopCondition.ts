/**
 * Conditions that end a run early, checked after each turn's calls were executed and answered (so the
 * transcript stays valid and the run can be resumed).
 *
 * @example Agent.run({ registry, prompt, stopWhen: [StopCondition.toolCalled("send_email"), StopCondition.repeatedCall(3)] })
 *
 * @since 0.1.0
 */

/** Stop once a call to `name` has been executed (whatever its outcome). */
export interface ToolCalled {
  readonly _tag: "ToolCalled"
  readonly name: string
}

/** Stop once the same call (name and arguments) has been made `times` times in the run. */
export interface RepeatedCall {
  readonly _tag: "RepeatedCall"
  readonly times: number
}

export type StopCondition = ToolCalled | RepeatedCall

export const toolCalled = (name: string): StopCondition => ({ _tag: "ToolCalled", name })

export const repeatedCall = (times: number): StopCondition => {
  if (!Number.isInteger(times) || times < 2) throw new RangeError(`repeatedCall needs an integer ≥ 2, got ${times}`)
  return { _tag: "RepeatedCall", times }
}
