/**
 * Checks what an agent did against a case's expectations and reports every mismatch precisely, as data
 * (`Mismatch`, serialisable) with a readable `describe`.
 *
 * Calls are aligned by function name, keeping order (longest common subsequence); aligned pairs are checked for
 * `arguments` (exact), `arguments_contain` (partial), `result_contains` (partial, on the response the model
 * got: the result object, `{output: value}`, or `{error: {...}}`) and `body_contains` (phrases of the `body`
 * argument, case-insensitive, runs of white space counting as one space). Expected calls left over are
 * missing, or out of order when the same function was called elsewhere; actual calls left over are unexpected.
 * Calls of one function made in the same model turn (parallel calls) may come in any order among themselves.
 * `expected_output` is checked against the run's decoded final answer (partial, like `arguments_contain`), one
 * `OutputMismatch` per field that differs.
 *
 * @example
 * ```ts
 * import { EvalCase, EvalValidator } from "@agentfx/tools"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const evalCase = yield* EvalCase.make({
 *     id: "ticket",
 *     input: "Please open a ticket, it is urgent.",
 *     scenario: "support",
 *     expected_function_calls: [{ function_name: "create_ticket", arguments: { priority: "high" } }]
 *   })
 *   const calls = [{ name: "create_ticket", args: { priority: "low" }, response: { ticket_id: "T-1" }, isError: false, durationMs: 3 }]
 *   const mismatches = EvalValidator.validate(evalCase, { scenario: "support", calls })
 *   return mismatches.map((mismatch) => EvalValidator.describe(mismatch)) // ['call 1 create_ticket: arguments.priority: expected "high", got "low"']
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Json } from "@agentfx/core"
import type { EvalCase } from "./EvalCase.js"
import * as EvalJudge from "./EvalJudge.js"
import * as AnswerAssertions from "./internal/answerAssertions.js"
import type { Difference } from "./internal/jsonValue.js"
import { differences, show } from "./internal/jsonValue.js"

// A local schema rather than core's `Json.JsonObject`, so the declarations of every module embedding these
// Schemas can name their types.
const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * A call the agent made, as the validator and the reports see it.
 *
 * @since 0.1.0
 */
export const ObservedCall = Schema.Struct({
  id: Schema.optional(Schema.String),
  name: Schema.String,
  args: JsonObject,
  /** What the model was sent for this call. */
  response: JsonObject,
  isError: Schema.Boolean,
  durationMs: Schema.Number,
  turn: Schema.optional(Schema.Number)
})
/**
 * A call the agent made (the type of the `ObservedCall` schema).
 *
 * @since 0.1.0
 * @category models
 */
export interface ObservedCall extends Schema.Schema.Type<typeof ObservedCall> {}

/**
 * What the agent did for one case.
 *
 * @since 0.1.0
 * @category models
 */
export interface Observation {
  /** The scenario the input was handled as. */
  readonly scenario?: string | undefined
  readonly calls: ReadonlyArray<ObservedCall>
  /** The agent's final answer: given, it is checked against the case's `answer_*` fields. */
  readonly text?: string | undefined
  /** The run's decoded final answer, when it was given `output` (undefined: it gave none). */
  readonly output?: unknown
}

const Problem = Schema.Literal("missing", "unexpected", "different")

/**
 * The input was handled as another scenario (or none).
 *
 * @since 0.1.0
 */
export const ScenarioMismatch = Schema.TaggedStruct("ScenarioMismatch", {
  expected: Schema.String,
  actual: Schema.optional(Schema.String)
})

/**
 * More or fewer calls than expected.
 *
 * @since 0.1.0
 */
export const CallCountMismatch = Schema.TaggedStruct("CallCountMismatch", {
  expected: Schema.Number,
  actual: Schema.Number,
  expectedNames: Schema.Array(Schema.String),
  actualNames: Schema.Array(Schema.String)
})

/**
 * An expected call was not made. `expectedIndex` is 1-based.
 *
 * @since 0.1.0
 */
export const MissingCall = Schema.TaggedStruct("MissingCall", {
  expectedIndex: Schema.Number,
  functionName: Schema.String
})

/**
 * A call was made that no expectation accounts for. `actualIndex` is 1-based.
 *
 * @since 0.1.0
 */
export const UnexpectedCall = Schema.TaggedStruct("UnexpectedCall", {
  actualIndex: Schema.Number,
  functionName: Schema.String,
  args: JsonObject
})

/**
 * The function was called, but not where expected.
 *
 * @since 0.1.0
 */
export const OutOfOrder = Schema.TaggedStruct("OutOfOrder", {
  functionName: Schema.String,
  expectedIndex: Schema.Number,
  actualIndex: Schema.Number
})

const pair = { expectedIndex: Schema.Number, actualIndex: Schema.Number, functionName: Schema.String }
const difference = { path: Schema.String, problem: Problem, expected: Schema.optional(Schema.Unknown), actual: Schema.optional(Schema.Unknown) }

/**
 * An argument differs from `arguments` (exact) or `arguments_contain` (partial).
 *
 * @since 0.1.0
 */
export const ArgumentMismatch = Schema.TaggedStruct("ArgumentMismatch", {
  ...pair,
  rule: Schema.Literal("arguments", "arguments_contain"),
  ...difference
})

/**
 * The response the model got lacks what `result_contains` expects. `callError` is set when the call failed.
 *
 * @since 0.1.0
 */
export const ResultMismatch = Schema.TaggedStruct("ResultMismatch", {
  ...pair,
  ...difference,
  callError: Schema.optional(Schema.String)
})

/**
 * `body_contains` was given, but the call has no string `body` argument.
 *
 * @since 0.1.0
 */
export const BodyMissing = Schema.TaggedStruct("BodyMissing", pair)

/**
 * The `body` argument does not contain a phrase.
 *
 * @since 0.1.0
 */
export const BodyPhraseMissing = Schema.TaggedStruct("BodyPhraseMissing", {
  ...pair,
  phrase: Schema.String,
  body: Schema.String
})

/**
 * The final answer misses an `answer_*` check of the case: which, what it expected, and the answer.
 *
 * @since 0.2.0
 */
export const AnswerMismatch = AnswerAssertions.AnswerMismatch

/**
 * The judge failed the final answer on a rubric (see `EvalJudge`).
 *
 * @since 0.2.0
 */
export const JudgeMismatch = EvalJudge.JudgeMismatch

/**
 * The decoded final answer differs from `expected_output` at `path` (one per field); at path "" with problem
 * `missing`, the run gave no decoded answer at all.
 *
 * @since 0.2.0
 */
export const OutputMismatch = Schema.TaggedStruct("OutputMismatch", difference)

/**
 * Every kind of mismatch (a Schema, so reports round-trip through JSON).
 *
 * @since 0.1.0
 */
export const Mismatch = Schema.Union(
  ScenarioMismatch,
  CallCountMismatch,
  MissingCall,
  UnexpectedCall,
  OutOfOrder,
  ArgumentMismatch,
  ResultMismatch,
  BodyMissing,
  BodyPhraseMissing,
  AnswerMismatch,
  JudgeMismatch,
  OutputMismatch
)
/**
 * Any mismatch (the type of the `Mismatch` schema).
 *
 * @since 0.1.0
 * @category models
 */
export type Mismatch = typeof Mismatch.Type

/** Indices of an order-preserving alignment of `a` and `b` by equality (longest common subsequence). */
const align = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): ReadonlyArray<readonly [number, number]> => {
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0))
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!)
    }
  }
  const pairs: Array<readonly [number, number]> = []
  let i = 0
  let j = 0
  // Stryker disable next-line EqualityOperator: at j = b.length nothing matches and the table's missing column compares false, so `j <= b.length` only takes one more step out
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      pairs.push([i, j])
      i++
      j++
    } else if (table[i + 1]![j]! >= table[i]![j + 1]!) {
      i++
    } else {
      j++
    }
  }
  return pairs
}

// Stryker disable next-line MethodExpression: folding to upper case instead differs only for letters whose two cases differ in length (ß, SS)
const foldCase = (text: string): string => text.toLowerCase()

const normaliseSpace = (text: string): string => foldCase(text.replace(/\s+/g, " ").trim())

const fromDifference = (d: Difference) => ({
  path: d.path,
  problem: d.problem,
  ...(Object.hasOwn(d, "expected") ? { expected: d.expected } : {}),
  ...(Object.hasOwn(d, "actual") ? { actual: d.actual } : {})
})

const errorMessageOf = (call: ObservedCall): string | undefined => {
  if (!call.isError) return undefined
  const error = call.response.error
  return Json.isPlainObject(error) && typeof error.message === "string" ? error.message : show(error)
}

/** Checks one aligned pair; indices are 0-based here, 1-based in the mismatches. */
const checkPair = (expected: EvalCase["expected_function_calls"][number], actual: ObservedCall, e: number, a: number): Array<Mismatch> => {
  const at = { expectedIndex: e + 1, actualIndex: a + 1, functionName: actual.name }
  const out: Array<Mismatch> = []
  if (expected.arguments !== undefined) {
    for (const d of differences(expected.arguments, actual.args, false)) out.push(ArgumentMismatch.make({ ...at, rule: "arguments", ...fromDifference(d) }))
  }
  if (expected.arguments_contain !== undefined) {
    for (const d of differences(expected.arguments_contain, actual.args, true)) out.push(ArgumentMismatch.make({ ...at, rule: "arguments_contain", ...fromDifference(d) }))
  }
  if (expected.result_contains !== undefined) {
    const callError = errorMessageOf(actual)
    for (const d of differences(expected.result_contains, actual.response, true)) {
      out.push(ResultMismatch.make({ ...at, ...fromDifference(d), ...(callError === undefined ? {} : { callError }) }))
    }
  }
  // The case's Schema refuses an empty list: a list here has a phrase to look for.
  if (expected.body_contains !== undefined) {
    const body = actual.args.body
    if (typeof body !== "string") {
      out.push(BodyMissing.make(at))
    } else {
      const haystack = normaliseSpace(body)
      for (const phrase of expected.body_contains) {
        if (!haystack.includes(normaliseSpace(phrase))) out.push(BodyPhraseMissing.make({ ...at, phrase, body }))
      }
    }
  }
  return out
}

/**
 * Calls of one function that the model made in the same turn run in parallel: the order it listed them in says
 * nothing, so within each such group the aligned expected calls are paired with the actual ones by best fit (fewest
 * mismatches, then position) instead of by position. Order across turns, and between functions, still counts.
 */
const pairWithinTurns = (
  pairs: ReadonlyArray<readonly [number, number]>,
  expected: EvalCase["expected_function_calls"],
  actual: Observation["calls"]
): ReadonlyArray<readonly [number, number]> => {
  const groups = new Map<string, Array<readonly [number, number]>>()
  for (const pair of pairs) {
    const call = actual[pair[1]]!
    if (call.turn === undefined) continue
    const key = `${call.turn}\u0000${call.name}`
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [pair])
    else group.push(pair)
  }
  const repaired = new Map<number, number>()
  for (const group of groups.values()) {
    // Stryker disable next-line ConditionalExpression: a call alone in its group is paired with itself all the same; this saves the work
    if (group.length < 2) continue
    // The closest pair first, again and again (ties: the earlier expected call, then the earlier actual one).
    const cost = group.map(([e]) => group.map(([, a]) => checkPair(expected[e]!, actual[a]!, e, a).length))
    const usedE = new Set<number>()
    const usedA = new Set<number>()
    while (usedE.size < group.length) {
      // Stryker disable next-line ArrayDeclaration,UnaryOperator: every cost is below Infinity, so the first pair looked at replaces it
      let best: readonly [number, number] = [-1, -1]
      let fewest = Infinity
      for (let i = 0; i < group.length; i++) {
        // Stryker disable next-line EqualityOperator: past the end the cost is undefined, and `undefined < fewest` is false
        for (let j = 0; j < group.length; j++) {
          if (!usedE.has(i) && !usedA.has(j) && cost[i]![j]! < fewest) [best, fewest] = [[i, j], cost[i]![j]!]
        }
      }
      usedE.add(best[0])
      usedA.add(best[1])
      repaired.set(group[best[0]]![0], group[best[1]]![1])
    }
  }
  // Stryker disable next-line ConditionalExpression: with nothing repaired the map gives the same pairs; this saves a copy
  return repaired.size === 0 ? pairs : pairs.map(([e, a]) => [e, repaired.get(e) ?? a] as const)
}

/**
 * Every way the observation differs from the case's expectations; empty when the case passes.
 *
 * @since 0.1.0
 */
export const validate = (evalCase: EvalCase, observation: Observation): ReadonlyArray<Mismatch> => {
  const out: Array<Mismatch> = []
  if (observation.scenario !== evalCase.scenario) {
    out.push(ScenarioMismatch.make({ expected: evalCase.scenario, ...(observation.scenario === undefined ? {} : { actual: observation.scenario }) }))
  }
  const expected = evalCase.expected_function_calls
  const actual = observation.calls
  const expectedNames = expected.map((call) => call.function_name)
  const actualNames = actual.map((call) => call.name)
  if (expected.length !== actual.length) {
    out.push(CallCountMismatch.make({ expected: expected.length, actual: actual.length, expectedNames, actualNames }))
  }
  const pairs = pairWithinTurns(align(expectedNames, actualNames), expected, actual)
  const pairedExpected = new Set(pairs.map(([e]) => e))
  const pairedActual = new Set(pairs.map(([, a]) => a))
  // Left-over expected calls whose function was called at a left-over position came out of order.
  const reordered: Array<readonly [number, number]> = []
  for (let e = 0; e < expected.length; e++) {
    if (pairedExpected.has(e)) continue
    const a = actualNames.findIndex((name, index) => name === expectedNames[e] && !pairedActual.has(index))
    if (a === -1) {
      out.push(MissingCall.make({ expectedIndex: e + 1, functionName: expectedNames[e]! }))
    } else {
      pairedActual.add(a)
      reordered.push([e, a])
      out.push(OutOfOrder.make({ functionName: expectedNames[e]!, expectedIndex: e + 1, actualIndex: a + 1 }))
    }
  }
  for (let a = 0; a < actual.length; a++) {
    if (!pairedActual.has(a)) out.push(UnexpectedCall.make({ actualIndex: a + 1, functionName: actualNames[a]!, args: actual[a]!.args }))
  }
  for (const [e, a] of [...pairs, ...reordered].sort((x, y) => x[1] - y[1])) out.push(...checkPair(expected[e]!, actual[a]!, e, a))
  if (observation.text !== undefined) out.push(...AnswerAssertions.check(evalCase, observation.text))
  if (Object.hasOwn(evalCase, "expected_output")) {
    const wanted = evalCase.expected_output
    if (observation.output === undefined) out.push(OutputMismatch.make({ path: "", problem: "missing", expected: wanted }))
    else for (const d of differences(wanted, observation.output, true)) out.push(OutputMismatch.make(fromDifference(d)))
  }
  return out
}

const callLabel = (m: { readonly actualIndex: number; readonly expectedIndex: number; readonly functionName: string }): string =>
  m.actualIndex === m.expectedIndex ? `call ${m.actualIndex} ${m.functionName}` : `call ${m.actualIndex} ${m.functionName} (expected as call ${m.expectedIndex})`

const describeDifference = (field: string, d: { readonly path: string; readonly problem: string; readonly expected?: unknown; readonly actual?: unknown }, max: number): string => {
  const where = d.path === "" ? field : `${field}.${d.path}`
  switch (d.problem) {
    case "missing":
      return `${where}: expected ${show(d.expected, max)}, but it is absent`
    case "unexpected":
      return `${where}: not expected, got ${show(d.actual, max)}`
    default:
      return `${where}: expected ${show(d.expected, max)}, got ${show(d.actual, max)}`
  }
}

/**
 * A one-line description of a mismatch; JSON values longer than `max` characters are cut.
 *
 * @since 0.1.0
 */
export const describe = (mismatch: Mismatch, max = 300): string => {
  switch (mismatch._tag) {
    case "ScenarioMismatch":
      return `scenario: expected "${mismatch.expected}", got ${mismatch.actual === undefined ? "none" : `"${mismatch.actual}"`}`
    case "CallCountMismatch":
      return `expected ${mismatch.expected} call${mismatch.expected === 1 ? "" : "s"} (${mismatch.expectedNames.join(", ") || "none"}), got ${mismatch.actual} (${mismatch.actualNames.join(", ") || "none"})`
    case "MissingCall":
      return `expected call ${mismatch.expectedIndex} ${mismatch.functionName} was not made`
    case "UnexpectedCall":
      return `call ${mismatch.actualIndex} ${mismatch.functionName}(${show(mismatch.args, max)}) was not expected`
    case "OutOfOrder":
      return `${mismatch.functionName} was expected as call ${mismatch.expectedIndex} but came as call ${mismatch.actualIndex}`
    case "ArgumentMismatch":
      return `${callLabel(mismatch)}: ${describeDifference(mismatch.rule, mismatch, max)}`
    case "ResultMismatch":
      return `${callLabel(mismatch)}: ${describeDifference("result", mismatch, max)}${mismatch.callError === undefined ? "" : ` (the call failed: ${mismatch.callError})`}`
    case "BodyMissing":
      return `${callLabel(mismatch)}: body_contains needs a string "body" argument, and there is none`
    case "BodyPhraseMissing":
      return `${callLabel(mismatch)}: the body does not contain ${JSON.stringify(mismatch.phrase)} (case-insensitive); body: ${show(mismatch.body, max)}`
    case "AnswerMismatch":
      return AnswerAssertions.describe(mismatch, (value) => show(value, max))
    case "JudgeMismatch":
      return `judge: the answer fails ${JSON.stringify(mismatch.rubric)}${mismatch.score === undefined ? "" : ` (score ${mismatch.score})`}: ${mismatch.reason}`
    case "OutputMismatch":
      return mismatch.path === "" && mismatch.problem === "missing"
        ? `output: expected ${show(mismatch.expected, max)}, but the run gave no decoded output (is the agent given an output Schema?)`
        : describeDifference("output", mismatch, max)
  }
}
