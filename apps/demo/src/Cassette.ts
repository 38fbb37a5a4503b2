/**
 * A cassette: the model turns of one conversation, stored with an eval case (`x-cassette`) or a sample, and
 * replayed offline by the emulator so that everything but the model runs for real. `--record` writes new ones
 * from a real model's turns.
 */
import type { Transcript } from "@agentfx/core"
import { Turn } from "@agentfx/core"
import type { Scripted } from "@agentfx/core/testing"
import { Either, Schema } from "effect"

const CassetteCall = Schema.Struct({
  name: Schema.String,
  args: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { default: () => ({}) })
})

export const CassetteStep = Schema.Struct({
  text: Schema.optional(Schema.String),
  reasoning: Schema.optional(Schema.String),
  calls: Schema.optional(Schema.Array(CassetteCall))
}).pipe(Schema.filter((step) => step.text !== undefined || (step.calls?.length ?? 0) > 0 || "a step holds text or calls"))
export type CassetteStep = typeof CassetteStep.Type

export const Cassette = Schema.NonEmptyArray(CassetteStep)
export type Cassette = typeof Cassette.Type

export class CassetteError extends Schema.TaggedError<CassetteError>()("CassetteError", {
  source: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `${this.source}: ${this.reason}`
  }
}

/** Decodes a stored cassette; `source` names it in errors (file and case id). */
export const decode = (value: unknown, source: string): Either.Either<Cassette, CassetteError> =>
  value === undefined
    ? Either.left(new CassetteError({ source, reason: "there is no cassette (x-cassette); record one with --record and GEMINI_API_KEY set" }))
    : Either.mapLeft(Schema.decodeUnknownEither(Cassette)(value, { errors: "all" }), (error) => new CassetteError({ source, reason: `the cassette is invalid: ${error.message}` }))

/** The steps the emulator replays. */
export const toScript = (cassette: Cassette): ReadonlyArray<Scripted.Step> => cassette

/** A cassette from the model turns of a transcript (what `--record` stores). */
export const fromTranscript = (transcript: Transcript.Transcript): Cassette => {
  const steps = transcript
    .filter((turn) => turn.role === "model")
    .map((turn): CassetteStep => {
      const calls = Turn.calls(turn).map((call) => ({ name: call.name, args: call.args }))
      const text = Turn.text(turn)
      const reasoning = turn.parts.flatMap((part) => (part._tag === "Reasoning" ? [part.text] : [])).join("")
      return {
        ...(text === "" && calls.length > 0 ? {} : { text }),
        ...(reasoning === "" ? {} : { reasoning }),
        ...(calls.length === 0 ? {} : { calls })
      }
    })
  return steps.length === 0 ? [{ text: "" }] : (steps as unknown as Cassette)
}
