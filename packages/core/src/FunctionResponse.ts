/**
 * The answer to one call. `response` is always a JSON object: a success is `{output: value}` unless the value
 * already is a plain object; a failure is `{error: {type, message, ...}}` and sets `isError`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Metadata } from "./FunctionCall.js"
import { JsonObject } from "./Json.js"

export const FunctionResponse = Schema.TaggedStruct("FunctionResponse", {
  id: Schema.NonEmptyString,
  name: Schema.String,
  response: JsonObject,
  isError: Schema.Boolean,
  metadata: Schema.optional(Metadata)
})

export interface FunctionResponse extends Schema.Schema.Type<typeof FunctionResponse> {}

export const make = (fields: Omit<FunctionResponse, "_tag">): FunctionResponse => FunctionResponse.make(fields)
