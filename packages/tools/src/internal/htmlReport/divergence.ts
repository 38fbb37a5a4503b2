/**
 * Where a case's calls first part from the expected ones: the first position whose call is missing, extra, of
 * another function, or named by a mismatch of its arguments, result or body.
 */
import type * as EvalReport from "../../EvalReport.js"

/** 0-based position of the first divergence, or undefined when the calls agree with the expected ones all along. */
export const firstDivergence = (result: EvalReport.CaseResult): number | undefined => {
  const expected = result.expectedCalls ?? []
  const actual = result.calls
  const flagged = new Set<number>()
  for (const mismatch of result.mismatches) {
    if ("actualIndex" in mismatch) flagged.add(mismatch.actualIndex - 1)
    if ("expectedIndex" in mismatch) flagged.add(mismatch.expectedIndex - 1)
  }
  const length = Math.max(expected.length, actual.length)
  for (let i = 0; i < length; i++) {
    if (expected[i] === undefined || actual[i] === undefined || expected[i]!.function_name !== actual[i]!.name || flagged.has(i)) return i
  }
  return undefined
}
