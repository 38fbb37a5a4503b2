/**
 * A call the model asked for. `id` is always set: providers that give none get one synthesised, unique across
 * the conversation. `metadata` carries opaque provider data (Gemini `thoughtSignature`, GLM `reasoning_content`)
 * that must round-trip untouched.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { JsonObject } from "./Json.js"

/**
 * Opaque provider data attached to a part; providers own its keys.
 *
 * @since 0.1.0
 */
export const Metadata = Schema.Record({ key: Schema.String, value: Schema.Unknown })
/**
 * Opaque provider data attached to a part; providers own its keys.
 *
 * @since 0.1.0
 * @category models
 */
export type Metadata = typeof Metadata.Type

/**
 * The schema of a call: `id`, `name`, `args` (a JSON object) and optional provider `metadata`.
 *
 * @since 0.1.0
 */
export const FunctionCall = Schema.TaggedStruct("FunctionCall", {
  id: Schema.NonEmptyString,
  name: Schema.String,
  args: JsonObject,
  metadata: Schema.optional(Metadata)
})

/**
 * A call the model asked for.
 *
 * @example
 * ```ts
 * import { FunctionCall } from "@agentfx/core"
 *
 * const call = FunctionCall.make({ id: "c1", name: "get_weather", args: { city: "Oslo" } })
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export interface FunctionCall extends Schema.Schema.Type<typeof FunctionCall> {}

/**
 * A call from its fields (the tag is added).
 *
 * @since 0.1.0
 */
export const make = (fields: Omit<FunctionCall, "_tag">): FunctionCall => FunctionCall.make(fields)

/**
 * The metadata key under which a provider reports arguments it could not parse (invalid, truncated or
 * concatenated JSON). The call then carries `args: {}`, and the executor answers it with `InvalidArguments`
 * quoting this text, so the model can correct itself.
 *
 * @since 0.1.0
 */
export const argumentsErrorKey = "argumentsError"

/**
 * Why the provider could not read this call's arguments, if it could not.
 *
 * @since 0.1.0
 */
export const argumentsError = (call: FunctionCall): string | undefined => {
  const error = call.metadata?.[argumentsErrorKey]
  return typeof error === "string" ? error : undefined
}
