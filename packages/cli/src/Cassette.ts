/**
 * Cassettes: the model turns of one eval case, stored in the case under `x-cassette` and replayed offline by the
 * emulator, so that everything but the model (the provider layer, the loop, the tools and mocks, the validator)
 * runs for real. A step is `{text?, reasoning?, calls?: [{name, args}]}`.
 *
 * ```yaml
 * x-cassette:
 *   - calls: [{ name: check_warranty, args: { serial_number: SN-1 } }]
 *   - text: The product is under warranty.
 * ```
 *
 * One emulator serves every case: each case asks for a model named by its key, and gets the step of its cassette at
 * its position — the number of model turns in its transcript so far — so retries repeat a step and cases can run
 * concurrently. A request for a model with no cassette is answered by the fallback policy (the offline rule model).
 *
 * @since 0.1.0
 */
import type { Turn } from "@agentfx/core"
import { ModelError } from "@agentfx/core"
import type { Scripted } from "@agentfx/core/testing"
import { Policy } from "@agentfx/providers/emulator"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

/** The case field a cassette is stored under. */
export const field = "x-cassette"

const Call = Schema.Struct({
  name: Schema.NonEmptyString,
  args: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { default: () => ({}) })
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

/** The cassette stored in `extensions` (a case's `x-` fields): `None`-like `undefined` when there is none. */
export const fromExtensions = (
  extensions: Readonly<Record<string, unknown>>,
  source: string
): Either.Either<Cassette, CassetteError> | undefined => {
  const value = extensions[field]
  if (value === undefined) return undefined
  return Either.mapLeft(
    Schema.decodeUnknownEither(Cassette)(value, { errors: "all" }),
    (error) => new CassetteError({ source, reason: `the ${field} is invalid: ${error.message}` })
  )
}

/** Replays `cassettes` by model name and position; other models get `fallback`'s answer. */
export const policy = (cassettes: ReadonlyMap<string, Cassette>, fallback: Policy.Policy = Policy.offline): Policy.Policy =>
  Policy.fromFunction((request) => {
    const cassette = cassettes.get(request.model)
    if (cassette === undefined) return fallback.reply(request)
    const position = request.transcript.filter((turn: Turn.Turn) => turn.role === "model").length
    const step: Scripted.Step | undefined = cassette[position]
    return (
      step ?? {
        error: new ModelError.InvalidRequest({
          message: `the cassette has ${cassette.length} steps, and the conversation asked for step ${position + 1}`
        })
      }
    )
  })
