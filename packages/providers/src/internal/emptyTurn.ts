import type { LanguageModel } from "@agentfx/core"
import { ModelError } from "@agentfx/core"
import * as Either from "effect/Either"

/**
 * A model turn with no text, no function call and nothing opaque is refused: passed on, it would end the run
 * with an empty answer and exit 0. (Reasoning alone is no answer.) Retryable, as a malformed response is.
 */
export const requireContent = (response: LanguageModel.Response): Either.Either<LanguageModel.Response, ModelError.ModelError> =>
  response.turn.parts.some((part) => part._tag === "FunctionCall" || part._tag === "Opaque" || (part._tag === "Text" && part.text !== ""))
    ? Either.right(response)
    : Either.left(
        new ModelError.MalformedResponse({
          message: `the model's turn is empty (finish reason ${response.finishReason}): no text and no function call`
        })
      )
