/**
 * The pieces several `--json` documents share: a JSON object, token usage, why a run stopped, the transcript. Each is
 * written out here, field by field, rather than taken from the libraries' own schemas: a contract changes only when
 * this file does, and a library that renames a field breaks a test instead of the users' scripts.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * A JSON object: a call's arguments, what a call answered, a tool's parameter schema.
 *
 * @since 0.1.0
 */
export const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ identifier: "JsonObject", description: "a JSON object" })

/**
 * A count: turns, tokens, milliseconds.
 *
 * @since 0.1.0
 */
export const Count = Schema.NonNegativeInt

/**
 * Tokens used, summed over the run's model turns (`reasoningTokens` and `cachedTokens` when the provider reports them).
 *
 * @since 0.1.0
 */
export const Usage = Schema.Struct({
  inputTokens: Count,
  outputTokens: Count,
  totalTokens: Count,
  reasoningTokens: Schema.optional(Count),
  cachedTokens: Schema.optional(Count)
}).annotations({ identifier: "Usage" })

/**
 * Why a run ended without an error: the model answered without calls, the turn cap was reached, a stop condition held.
 *
 * @since 0.1.0
 */
export const StopReason = Schema.Union(
  Schema.TaggedStruct("Finished", {}),
  Schema.TaggedStruct("MaxTurns", { maxTurns: Schema.Int.pipe(Schema.positive()) }),
  Schema.TaggedStruct("ToolCalled", { name: Schema.String }),
  Schema.TaggedStruct("RepeatedCall", { name: Schema.String, times: Schema.Int.pipe(Schema.positive()) })
).annotations({ identifier: "StopReason" })

const metadata = { metadata: Schema.optional(JsonObject) }

/**
 * One part of a turn: text, the model's reasoning, a call, a call's response, or a provider part kept to be echoed.
 *
 * @since 0.1.0
 */
export const Part = Schema.Union(
  Schema.TaggedStruct("Text", { text: Schema.String, ...metadata }),
  Schema.TaggedStruct("Reasoning", { text: Schema.String, ...metadata }),
  Schema.TaggedStruct("FunctionCall", { id: Schema.NonEmptyString, name: Schema.String, args: JsonObject, ...metadata }),
  Schema.TaggedStruct("FunctionResponse", { id: Schema.NonEmptyString, name: Schema.String, response: JsonObject, isError: Schema.Boolean, ...metadata }),
  Schema.TaggedStruct("Opaque", { provider: Schema.String, data: Schema.Unknown })
).annotations({ identifier: "Part" })

/**
 * The whole conversation, turn by turn: what `Transcript.Transcript` of @agentfx/core encodes to.
 *
 * @since 0.1.0
 */
export const Transcript = Schema.Array(Schema.Struct({ role: Schema.Literal("user", "model"), parts: Schema.Array(Part) }).annotations({ identifier: "Turn" }))
