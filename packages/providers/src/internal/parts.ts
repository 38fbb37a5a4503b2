/**
 * Neutral parts built as plain values. The Schema constructors (`Turn.Text.make`, `FunctionCall.make`) validate
 * every part they build, which costs a few microseconds each on a hot path (a stream makes one per chunk), and
 * `FunctionCall.make` rebuilds `args` key by key, turning an own `"__proto__"` key into the object's prototype
 * (see `json.JsonObject`). Here the decoders have already checked the shapes.
 */
import type { FunctionCall, FunctionResponse, Turn } from "@agentfx/core"

type Metadata = { readonly [key: string]: unknown }

const withMetadata = <A extends object>(part: A, metadata: Metadata | undefined): A => (metadata === undefined ? part : { ...part, metadata })

export const text = (value: string, metadata?: Metadata): Turn.Text => withMetadata({ _tag: "Text" as const, text: value }, metadata)

export const reasoning = (value: string, metadata?: Metadata): Turn.Reasoning =>
  withMetadata({ _tag: "Reasoning" as const, text: value }, metadata)

export const opaque = (provider: string, data: unknown): Turn.Opaque => ({ _tag: "Opaque", provider, data })

export const functionCall = (fields: Omit<FunctionCall.FunctionCall, "_tag">): FunctionCall.FunctionCall => ({ _tag: "FunctionCall", ...fields })

export const functionResponse = (fields: Omit<FunctionResponse.FunctionResponse, "_tag">): FunctionResponse.FunctionResponse => ({
  _tag: "FunctionResponse",
  ...fields
})
