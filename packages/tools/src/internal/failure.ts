import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

const Encoded = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * A tool's failure Schema whose encoded form also carries the error's `message`. The executor sends the encoded
 * failure to the model; without the message it would only see the tag and the fields.
 */
export const withMessage = <S extends Schema.Schema.AnyNoContext>(
  failure: S
): Schema.Schema<Schema.Schema.Type<S>, { readonly [key: string]: unknown }> =>
  Schema.transformOrFail(Encoded, Schema.typeSchema(failure), {
    strict: false,
    // Decoding ignores the extra `message` key: it is derived from the fields.
    decode: (encoded) => ParseResult.decodeUnknown(failure)(encoded),
    encode: (error) =>
      ParseResult.map(ParseResult.encodeUnknown(failure)(error), (fields) => ({
        ...(fields as object),
        message: (error as { readonly message: string }).message
      }))
  }) as unknown as Schema.Schema<Schema.Schema.Type<S>, { readonly [key: string]: unknown }>
