/**
 * The provider-neutral conversation: a turn is a role and its parts. Only providers translate it to a wire format.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { FunctionCall, Metadata } from "./FunctionCall.js"
import { FunctionResponse } from "./FunctionResponse.js"

/**
 * Text the user wrote or the model answered.
 *
 * @since 0.1.0
 */
export const Text = Schema.TaggedStruct("Text", { text: Schema.String, metadata: Schema.optional(Metadata) })
/**
 * Text the user wrote or the model answered.
 *
 * @since 0.1.0
 * @category models
 */
export interface Text extends Schema.Schema.Type<typeof Text> {}

/**
 * The model's visible reasoning (GLM `reasoning_content`, Gemini thought summaries).
 *
 * @since 0.1.0
 */
export const Reasoning = Schema.TaggedStruct("Reasoning", { text: Schema.String, metadata: Schema.optional(Metadata) })
/**
 * The model's visible reasoning.
 *
 * @since 0.1.0
 * @category models
 */
export interface Reasoning extends Schema.Schema.Type<typeof Reasoning> {}

/**
 * A provider part the neutral model has no name for (inline data, executable code, ...). It is kept so that the
 * model turn can be echoed exactly as received; only the provider that produced it re-emits it.
 *
 * @since 0.1.0
 */
export const Opaque = Schema.TaggedStruct("Opaque", { provider: Schema.String, data: Schema.Unknown })
/**
 * A provider part the neutral model has no name for, kept to be echoed.
 *
 * @since 0.1.0
 * @category models
 */
export interface Opaque extends Schema.Schema.Type<typeof Opaque> {}

/**
 * The schema of a part: text, reasoning, a call, a response, or an opaque provider part.
 *
 * @since 0.1.0
 */
export const Part = Schema.Union(Text, Reasoning, FunctionCall, FunctionResponse, Opaque)
/**
 * One part of a turn.
 *
 * @since 0.1.0
 * @category models
 */
export type Part = Schema.Schema.Type<typeof Part>

/**
 * Who speaks: the user (prompts and function responses) or the model (answers and calls).
 *
 * @since 0.1.0
 */
export const Role = Schema.Literal("user", "model")
/**
 * Who speaks: the user (prompts and function responses) or the model (answers and calls).
 *
 * @since 0.1.0
 * @category models
 */
export type Role = typeof Role.Type

/**
 * The schema of a turn: a role and its parts.
 *
 * @since 0.1.0
 */
export const Turn = Schema.Struct({ role: Role, parts: Schema.Array(Part) })
/**
 * One message of the conversation.
 *
 * @example
 * ```ts
 * import type { Turn } from "@agentfx/core"
 *
 * const turn: Turn.Turn = { role: "model", parts: [{ _tag: "FunctionCall", id: "c1", name: "get_weather", args: { city: "Oslo" } }] }
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export interface Turn extends Schema.Schema.Type<typeof Turn> {}

/**
 * A user turn holding one text part.
 *
 * @since 0.1.0
 */
export const user = (text: string): Turn => ({ role: "user", parts: [Text.make({ text })] })

/**
 * A model turn holding one text part.
 *
 * @since 0.1.0
 */
export const model = (text: string): Turn => ({ role: "model", parts: [Text.make({ text })] })

/**
 * The function calls of a turn, in order.
 *
 * @since 0.1.0
 */
export const calls = (turn: Turn): ReadonlyArray<FunctionCall> =>
  turn.parts.filter((part): part is FunctionCall => part._tag === "FunctionCall")

/**
 * The function responses of a turn, in order.
 *
 * @since 0.1.0
 */
export const responses = (turn: Turn): ReadonlyArray<FunctionResponse> =>
  turn.parts.filter((part): part is FunctionResponse => part._tag === "FunctionResponse")

/**
 * The concatenated text parts of a turn (reasoning excluded).
 *
 * @since 0.1.0
 */
export const text = (turn: Turn): string =>
  turn.parts.reduce((acc, part) => (part._tag === "Text" ? acc + part.text : acc), "")
