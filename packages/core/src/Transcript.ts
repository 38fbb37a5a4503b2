/**
 * A transcript is the whole neutral conversation. One validator states its invariants; tests use it and the
 * loop runs it before every provider request, so a violation is caught here as our bug, never sent to a provider.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Turn from "./Turn.js"

export const Transcript = Schema.Array(Turn.Turn)
export type Transcript = ReadonlyArray<Turn.Turn>

/** The transcript breaks an invariant at `turn` (0-based index). */
export class TranscriptViolation extends Schema.TaggedError<TranscriptViolation>()("TranscriptViolation", {
  turn: Schema.Number,
  reason: Schema.String
}) {
  override get message(): string {
    return `transcript turn ${this.turn}: ${this.reason}`
  }
}

/**
 * Checks: a model turn with N calls is followed immediately by one user turn holding exactly N responses with
 * the same ids in the same order; responses appear nowhere else; a call turn follows a user turn; calls sit only in
 * model turns and responses only in user turns; call ids are unique across the transcript.
 */
export const validate = (transcript: Transcript): Either.Either<Transcript, TranscriptViolation> => {
  const seenIds = new Set<string>()
  const violation = (turn: number, reason: string) => Either.left(new TranscriptViolation({ turn, reason }))
  for (let index = 0; index < transcript.length; index++) {
    const turn = transcript[index]!
    const calls = Turn.calls(turn)
    const responses = Turn.responses(turn)
    if (turn.role === "user") {
      if (calls.length > 0) return violation(index, "a user turn holds a function call")
      if (responses.length > 0) {
        const previous = index > 0 ? Turn.calls(transcript[index - 1]!) : []
        if (previous.length === 0) return violation(index, "function responses do not follow a function call turn")
        if (responses.length !== turn.parts.length) {
          return violation(index, "a response turn holds parts other than function responses")
        }
        if (responses.length !== previous.length) {
          return violation(index, `${previous.length} calls answered by ${responses.length} responses`)
        }
        for (let i = 0; i < previous.length; i++) {
          if (responses[i]!.id !== previous[i]!.id) {
            return violation(index, `response ${i} answers id "${responses[i]!.id}", expected "${previous[i]!.id}"`)
          }
        }
      }
      continue
    }
    if (responses.length > 0) return violation(index, "a model turn holds a function response")
    if (calls.length === 0) continue
    if (index === 0 || transcript[index - 1]!.role !== "user") {
      return violation(index, "a function call turn must follow a user turn or a response turn")
    }
    for (const call of calls) {
      if (seenIds.has(call.id)) return violation(index, `call id "${call.id}" is not unique`)
      seenIds.add(call.id)
    }
    const next = transcript[index + 1]
    if (next === undefined) return violation(index, `${calls.length} calls are unanswered`)
    if (next.role !== "user" || Turn.responses(next).length === 0) {
      return violation(index + 1, "a function call turn is not followed by its response turn")
    }
  }
  return Either.right(transcript)
}

/** True when `prefix` is a prefix of `transcript` (compared by reference: the transcript only grows). */
export const isPrefixOf = (prefix: Transcript, transcript: Transcript): boolean =>
  prefix.length <= transcript.length && prefix.every((turn, i) => transcript[i] === turn)
