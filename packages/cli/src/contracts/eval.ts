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
  Schema.TaggedStruct("BodyPhraseMissing", { ...pair, phrase: Schema.String, body: Schema.String })
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
  /** The scenario the input was handled as (absent when none could be chosen). */
  scenario: Schema.optional(Schema.String),
  status: Schema.Literal("passed", "failed", "error"),
  calls: Schema.Array(Call),
  mismatches: Schema.Array(Mismatch),
  /** Why the case could not run to its end (status `error`). */
  error: Schema.optional(Schema.String),
  text: Schema.String,
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
  durationMs: Schema.NonNegative
}).annotations({ identifier: "EvalReport", title: "agentfx eval --json" })
