/**
 * The answer to one call. `response` is always a JSON object: a success is `{output: value}` unless the value
 * already is a plain object; a failure is `{error: {type, message, ...}}` and sets `isError`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Metadata } from "./FunctionCall.js"
import { JsonObject } from "./Json.js"

/**
 * The schema of a response: the call's `id` and `name` echoed, a JSON object `response`, and `isError`.
 *
 * @since 0.1.0
 */
export const FunctionResponse = Schema.TaggedStruct("FunctionResponse", {
  id: Schema.NonEmptyString,
  name: Schema.String,
  response: JsonObject,
  isError: Schema.Boolean,
  metadata: Schema.optional(Metadata)
})

/**
 * The answer to one call, as the model is sent it (see `Executor.responseFor`).
 *
 * @example
 * ```ts
 * import { FunctionResponse } from "@agentfx/core"
 *
 * const response = FunctionResponse.make({ id: "c1", name: "get_weather", response: { celsius: 7 }, isError: false })
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export interface FunctionResponse extends Schema.Schema.Type<typeof FunctionResponse> {}

/**
 * A response from its fields (the tag is added).
 *
 * @since 0.1.0
 */
export const make = (fields: Omit<FunctionResponse, "_tag">): FunctionResponse => FunctionResponse.make(fields)
