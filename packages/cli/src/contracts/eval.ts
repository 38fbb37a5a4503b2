/**
 * `agentfx eval --json` (and the file `--report-json` writes): every case's outcome, in case order, and the summary
 * the exit code comes from.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Count, JsonObject } from "./shared.js"

/**
 * A call the agent made in a case.
 *
 * @since 0.1.0
 */
export const Call = Schema.Struct({
  id: Schema.optional(Schema.String),
  name: Schema.String,
  args: JsonObject,
  /** What the model was sent for this call. */
  response: JsonObject,
  isError: Schema.Boolean,
  durationMs: Schema.NonNegative,
  turn: Schema.optional(Schema.Int.pipe(Schema.positive()))
}).annotations({ identifier: "EvalCall" })

/**
 * One expected call of a case, as its file gives it (`body_contains` always a list).
 *
 * @since 0.2.0
 */
export const ExpectedCall = Schema.Struct({
  function_name: Schema.NonEmptyString,
  arguments: Schema.optional(JsonObject),
  arguments_contain: Schema.optional(JsonObject),
  result_contains: Schema.optional(JsonObject),
  body_contains: Schema.optional(Schema.Array(Schema.String))
}).annotations({ identifier: "EvalExpectedCall" })

/**
 * The judge's verdict on one rubric: pass or fail, why, and a score from 0 to 1 when it gave one.
 *
 * @since 0.2.0
 */
export const Verdict = Schema.Struct({
  rubric: Schema.String,
  pass: Schema.Boolean,
  reason: Schema.String,
  score: Schema.optional(Schema.Number.pipe(Schema.between(0, 1)))
}).annotations({ identifier: "EvalVerdict" })

const Index = Schema.Int.pipe(Schema.positive())
const pair = { expectedIndex: Index, actualIndex: Index, functionName: Schema.String }
const difference = {
  path: Schema.String,
  problem: Schema.Literal("missing", "unexpected", "different"),
  expected: Schema.optional(Schema.Unknown),
  actual: Schema.optional(Schema.Unknown)
}

/**
 * What did not match in a case, one kind per tag (indices count from 1).
 *
 * @since 0.1.0
 */
export const Mismatch = Schema.Union(
  Schema.TaggedStruct("ScenarioMismatch", { expected: Schema.String, actual: Schema.optional(Schema.String) }),
  Schema.TaggedStruct("CallCountMismatch", {
    expected: Count,
    actual: Count,
    expectedNames: Schema.Array(Schema.String),
    actualNames: Schema.Array(Schema.String)
  }),
  Schema.TaggedStruct("MissingCall", { expectedIndex: Index, functionName: Schema.String }),
  Schema.TaggedStruct("UnexpectedCall", { actualIndex: Index, functionName: Schema.String, args: JsonObject }),
  Schema.TaggedStruct("OutOfOrder", pair),
  Schema.TaggedStruct("ArgumentMismatch", { ...pair, rule: Schema.Literal("arguments", "arguments_contain"), ...difference }),
  Schema.TaggedStruct("ResultMismatch", { ...pair, ...difference, callError: Schema.optional(Schema.String) }),
  Schema.TaggedStruct("BodyMissing", pair),
  Schema.TaggedStruct("BodyPhraseMissing", { ...pair, phrase: Schema.String, body: Schema.String }),
  Schema.TaggedStruct("AnswerMismatch", {
    rule: Schema.Literal("answer_contains", "answer_matches", "answer_equals", "answer_max_chars"),
    expected: Schema.Union(Schema.String, Schema.Number),
    answer: Schema.String
  }),
  Schema.TaggedStruct("JudgeMismatch", { rubric: Schema.String, reason: Schema.String, score: Schema.optional(Schema.Number.pipe(Schema.between(0, 1))) }),
  /** The decoded final answer differs from `expected_output` at `path` ("" and `missing`: the run gave none). */
  Schema.TaggedStruct("OutputMismatch", difference)
).annotations({ identifier: "Mismatch" })

/**
 * One case's outcome: `passed` (every expectation met), `failed` (mismatches) or `error` (it could not run to its end).
 *
 * @since 0.1.0
 */
export const Case = Schema.Struct({
  id: Schema.String,
  description: Schema.String,
  file: Schema.optional(Schema.String),
  expectedScenario: Schema.String,
  /** The case's expected calls, as its file gives them (absent from reports of earlier versions). */
  expectedCalls: Schema.optional(Schema.Array(ExpectedCall)),
  /** The scenario the input was handled as (absent when none could be chosen). */
  scenario: Schema.optional(Schema.String),
  status: Schema.Literal("passed", "failed", "error"),
  calls: Schema.Array(Call),
  mismatches: Schema.Array(Mismatch),
  /** Why the case could not run to its end (status `error`). */
  error: Schema.optional(Schema.String),
  text: Schema.String,
  /** The judge's verdict on each of the case's `judge:` rubrics (absent when it has none). */
  verdicts: Schema.optional(Schema.Array(Verdict)),
  /** The run's decoded final answer, when its scenario (or the caller) gave an output Schema. */
  output: Schema.optional(Schema.Unknown),
  turns: Count,
  stopReason: Schema.String,
  durationMs: Schema.NonNegative
}).annotations({ identifier: "EvalCase" })

/**
 * The counts, the pass rate and the decision the exit code follows (`ok`: exit 0).
 *
 * @since 0.1.0
 */
export const Summary = Schema.Struct({
  total: Count,
  passed: Count,
  failed: Count,
  errored: Count,
  /** passed ÷ total; 0 for an empty suite. */
  passRate: Schema.Number.pipe(Schema.between(0, 1)),
  threshold: Schema.Number.pipe(Schema.between(0, 1)),
  ok: Schema.Boolean
}).annotations({ identifier: "EvalSummary" })

/**
 * What `agentfx eval --json` prints (exit 0 when `summary.ok`, else 1); `--report-json FILE` writes the same.
 *
 * @since 0.1.0
 */
export const Report = Schema.Struct({
  /** The cases directory's name. */
  suite: Schema.String,
  cases: Schema.Array(Case),
  summary: Summary,
  durationMs: Schema.NonNegative,
  /** `--bail N` stopped the run after N failures: the cases that never ran. */
  stopped: Schema.optional(Schema.Struct({ bail: Schema.Int.pipe(Schema.positive()), notRun: Schema.Array(Schema.String) }))
}).annotations({ identifier: "EvalReport", title: "agentfx eval --json" })
