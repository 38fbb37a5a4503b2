/**
 * Cassettes: the model turns of one conversation, stored with an eval case under `x-cassette` and replayed offline
 * (e.g. by the emulator's `Policy.byModel`), so that everything but the model — provider layer, loop, tools and
 * mocks, validator — runs for real. A step is `{text?, reasoning?, calls?: [{name, args}]}`.
 *
 * ```yaml
 * x-cassette:
 *   - calls: [{ name: check_warranty, args: { serial_number: SN-1 } }]
 *   - text: The product is under warranty.
 * ```
 *
 * @since 0.1.0
 */
import type { Transcript } from "@agentfx/core"
import { Json, Turn } from "@agentfx/core"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { EvalCase } from "./EvalCase.js"

/** The case field a cassette is stored under. */
export const field = "x-cassette"

const Call = Schema.Struct({
  name: Schema.NonEmptyString,
  args: Schema.optionalWith(Json.JsonObject, { default: () => ({}) })
})

export const Step = Schema.Struct({
  text: Schema.optional(Schema.String),
  reasoning: Schema.optional(Schema.String),
  calls: Schema.optional(Schema.Array(Call))
}).pipe(Schema.filter((step) => step.text !== undefined || (step.calls?.length ?? 0) > 0 || "a step holds `text` or `calls`"))
export type Step = typeof Step.Type

export const Cassette = Schema.NonEmptyArray(Step)
export type Cassette = typeof Cassette.Type

/** A stored cassette is not a list of steps. */
export class CassetteError extends Schema.TaggedError<CassetteError>()("CassetteError", {
  source: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `${this.source}: ${this.reason}`
  }
}

/** Decodes a stored cassette; `source` names it in errors. */
export const decode = (value: unknown, source: string): Either.Either<Cassette, CassetteError> =>
  Either.mapLeft(
    Schema.decodeUnknownEither(Cassette)(value, { errors: "all" }),
    (error) => new CassetteError({ source, reason: `the cassette is invalid: ${error.message}` })
  )

/** The case's cassette: `undefined` when it has none, else the decoded cassette or why it is invalid. */
export const ofCase = (evalCase: EvalCase): Either.Either<Cassette, CassetteError> | undefined => {
  const value = evalCase.extensions[field]
  return value === undefined ? undefined : decode(value, `${evalCase.file} (${evalCase.id})`)
}

/** A cassette from the model turns of a transcript (what recording stores). */
export const fromTranscript = (transcript: Transcript.Transcript): Cassette => {
  const steps = transcript
    .filter((turn) => turn.role === "model")
    .map((turn): Step => {
      const calls = Turn.calls(turn).map((call) => ({ name: call.name, args: call.args }))
      const text = Turn.text(turn)
      const reasoning = turn.parts.flatMap((part) => (part._tag === "Reasoning" ? [part.text] : [])).join("")
      return {
        ...(text === "" && calls.length > 0 ? {} : { text }),
        ...(reasoning === "" ? {} : { reasoning }),
        ...(calls.length === 0 ? {} : { calls })
      }
    })
  const [first, ...rest] = steps
  return first === undefined ? [{ text: "" }] : [first, ...rest]
}
