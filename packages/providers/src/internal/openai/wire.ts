/**
 * The chat-completions responses (OpenAI, GLM / Z.AI and other compatible servers) this package reads. Lenient
 * where servers differ: GLM error codes are strings (sometimes numbers), `arguments` is a JSON string but
 * sometimes an object, stream deltas may lack `index`.
 */
import * as Schema from "effect/Schema"
import { JsonObject } from "../json.js"
const optionalNullable = <S extends Schema.Schema.Any>(schema: S) => Schema.optional(Schema.NullOr(schema))

export const ToolCall = Schema.Struct({
  id: optionalNullable(Schema.String),
  type: optionalNullable(Schema.String),
  index: optionalNullable(Schema.Number),
  function: Schema.Struct({
    name: Schema.String,
    arguments: optionalNullable(Schema.Union(Schema.String, JsonObject))
  })
})
export type ToolCall = typeof ToolCall.Type

export const Usage = Schema.Struct({
  prompt_tokens: optionalNullable(Schema.Number),
  completion_tokens: optionalNullable(Schema.Number),
  total_tokens: optionalNullable(Schema.Number),
  prompt_tokens_details: optionalNullable(Schema.Struct({ cached_tokens: optionalNullable(Schema.Number) })),
  completion_tokens_details: optionalNullable(Schema.Struct({ reasoning_tokens: optionalNullable(Schema.Number) }))
})
export type Usage = typeof Usage.Type

export const ResponseMessage = Schema.Struct({
  role: optionalNullable(Schema.String),
  content: optionalNullable(Schema.String),
  reasoning_content: optionalNullable(Schema.String),
  tool_calls: optionalNullable(Schema.Array(ToolCall))
})
export type ResponseMessage = typeof ResponseMessage.Type

/** A non-streamed completion. */
export const Completion = Schema.Struct({
  id: optionalNullable(Schema.String),
  choices: Schema.Array(
    Schema.Struct({
      index: optionalNullable(Schema.Number),
      message: ResponseMessage,
      finish_reason: optionalNullable(Schema.String)
    })
  ),
  usage: optionalNullable(Usage)
})
export type Completion = typeof Completion.Type

export const ChunkToolCall = Schema.Struct({
  index: optionalNullable(Schema.Number),
  id: optionalNullable(Schema.String),
  type: optionalNullable(Schema.String),
  function: optionalNullable(
    Schema.Struct({
      name: optionalNullable(Schema.String),
      arguments: optionalNullable(Schema.String)
    })
  )
})
export type ChunkToolCall = typeof ChunkToolCall.Type

/** One `chat.completion.chunk` of a stream. */
export const Chunk = Schema.Struct({
  id: optionalNullable(Schema.String),
  choices: optionalNullable(
    Schema.Array(
      Schema.Struct({
        index: optionalNullable(Schema.Number),
        delta: optionalNullable(
          Schema.Struct({
            role: optionalNullable(Schema.String),
            content: optionalNullable(Schema.String),
            reasoning_content: optionalNullable(Schema.String),
            tool_calls: optionalNullable(Schema.Array(ChunkToolCall))
          })
        ),
        finish_reason: optionalNullable(Schema.String)
      })
    )
  ),
  usage: optionalNullable(Usage)
})
export type Chunk = typeof Chunk.Type

/** `{error: {code, message}}`: GLM business codes are strings ("1302"), OpenAI's are names ("invalid_api_key"). */
export const ErrorObject = Schema.Struct({
  code: optionalNullable(Schema.Union(Schema.String, Schema.Number)),
  message: optionalNullable(Schema.String),
  type: optionalNullable(Schema.String),
  param: optionalNullable(Schema.String)
})
export type ErrorObject = typeof ErrorObject.Type

const options = { onExcessProperty: "preserve" } as const

export const decodeCompletion = Schema.decodeUnknownEither(Completion, options)
export const decodeChunk = Schema.decodeUnknownEither(Chunk, options)
export const decodeErrorObject = Schema.decodeUnknownEither(ErrorObject, options)
