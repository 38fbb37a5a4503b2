/**
 * `agentfx run --json`: the run's answer, its calls, why it stopped, its usage and its transcript. With `--durable`
 * the command prints the durable run's outcome instead (`Runs.Outcome`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { providerNames } from "../commands/options.js"
import { Count, JsonObject, StopReason, Transcript, Usage } from "./shared.js"

/**
 * One call the run made, in turn order: what the model asked for and what it was answered.
 *
 * @since 0.1.0
 */
export const Call = Schema.Struct({
  id: Schema.NonEmptyString,
  name: Schema.String,
  args: JsonObject,
  /** The model turn (from 1) that asked for it. */
  turn: Schema.Int.pipe(Schema.positive()),
  durationMs: Count,
  /** The call failed; `response` is then `{ error: … }`. */
  isError: Schema.Boolean,
  /** What the model was sent. */
  response: JsonObject
}).annotations({ identifier: "Call" })

/**
 * What `agentfx run --json` prints on stdout (exit 0). A run that fails prints nothing on stdout.
 *
 * @since 0.1.0
 */
export const Run = Schema.Struct({
  provider: Schema.Literal(...providerNames),
  model: Schema.String,
  /** The last model turn's text. */
  text: Schema.String,
  turns: Count,
  stopReason: StopReason,
  usage: Usage,
  calls: Schema.Array(Call),
  transcript: Transcript,
  /** The final answer decoded by `--output-schema` (or the `--scenario`'s `output_schema`); absent without one. */
  output: Schema.optional(Schema.Unknown)
}).annotations({ identifier: "Run", title: "agentfx run --json" })

/**
 * The document as the command builds it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Run extends Schema.Schema.Type<typeof Run> {}
