/**
 * The provider-neutral conversation: a turn is a role and its parts. Only providers translate it to a wire format.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { FunctionCall, Metadata } from "./FunctionCall.js"
import { FunctionResponse } from "./FunctionResponse.js"

export const Text = Schema.TaggedStruct("Text", { text: Schema.String, metadata: Schema.optional(Metadata) })
export interface Text extends Schema.Schema.Type<typeof Text> {}

/** The model's visible reasoning (GLM `reasoning_content`, Gemini thought summaries). */
export const Reasoning = Schema.TaggedStruct("Reasoning", { text: Schema.String, metadata: Schema.optional(Metadata) })
export interface Reasoning extends Schema.Schema.Type<typeof Reasoning> {}

/**
 * A provider part the neutral model has no name for (inline data, executable code, ...). It is kept so that the
 * model turn can be echoed exactly as received; only the provider that produced it re-emits it.
 */
export const Opaque = Schema.TaggedStruct("Opaque", { provider: Schema.String, data: Schema.Unknown })
export interface Opaque extends Schema.Schema.Type<typeof Opaque> {}

export const Part = Schema.Union(Text, Reasoning, FunctionCall, FunctionResponse, Opaque)
export type Part = Schema.Schema.Type<typeof Part>

export const Role = Schema.Literal("user", "model")
export type Role = typeof Role.Type

export const Turn = Schema.Struct({ role: Role, parts: Schema.Array(Part) })
export interface Turn extends Schema.Schema.Type<typeof Turn> {}

/** A user turn holding one text part. */
export const user = (text: string): Turn => ({ role: "user", parts: [Text.make({ text })] })

/** A model turn holding one text part. */
export const model = (text: string): Turn => ({ role: "model", parts: [Text.make({ text })] })

/** The function calls of a turn, in order. */
export const calls = (turn: Turn): ReadonlyArray<FunctionCall> =>
  turn.parts.filter((part): part is FunctionCall => part._tag === "FunctionCall")

/** The function responses of a turn, in order. */
export const responses = (turn: Turn): ReadonlyArray<FunctionResponse> =>
  turn.parts.filter((part): part is FunctionResponse => part._tag === "FunctionResponse")

/** The concatenated text parts of a turn (reasoning excluded). */
export const text = (turn: Turn): string =>
  turn.parts.reduce((acc, part) => (part._tag === "Text" ? acc + part.text : acc), "")
