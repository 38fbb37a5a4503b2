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
 * Checks a transcript incrementally, turn by turn, so a loop that appends can validate each request in time
 * proportional to what it appended. `validate` runs one over a whole transcript.
 */
export class Validator {
  private readonly seenIds = new Set<string>()
  private previous: Turn.Turn | undefined = undefined
  private pending: ReadonlyArray<string> = []
  private index = 0

  /** Call ids seen so far (to check a candidate model turn before it is appended). */
  hasCallId(id: string): boolean {
    return this.seenIds.has(id)
  }

  /** Appends one turn, or says which invariant it breaks (the validator is then unchanged). */
  push(turn: Turn.Turn): Either.Either<void, TranscriptViolation> {
    const reason = this.check(turn)
    if (reason !== undefined) return Either.left(new TranscriptViolation({ turn: this.index, reason }))
    const calls = Turn.calls(turn)
    for (const call of calls) this.seenIds.add(call.id)
    this.pending = calls.map((call) => call.id)
    this.previous = turn
    this.index++
    return Either.right(undefined)
  }

  /** Fails unless every call turn has been answered: what must hold before a request is sent. */
  complete(): Either.Either<void, TranscriptViolation> {
    return this.pending.length === 0
      ? Either.right(undefined)
      : Either.left(new TranscriptViolation({ turn: this.index - 1, reason: `${this.pending.length} calls are unanswered` }))
  }

  private check(turn: Turn.Turn): string | undefined {
    const calls = Turn.calls(turn)
    const responses = Turn.responses(turn)
    if (this.pending.length > 0 && (turn.role !== "user" || responses.length === 0)) {
      return "a function call turn is not followed by its response turn"
    }
    if (turn.role === "user") {
      if (calls.length > 0) return "a user turn holds a function call"
      if (responses.length === 0) return undefined
      if (this.pending.length === 0) return "function responses do not follow a function call turn"
      if (responses.length !== turn.parts.length) return "a response turn holds parts other than function responses"
      if (responses.length !== this.pending.length) return `${this.pending.length} calls answered by ${responses.length} responses`
      for (let i = 0; i < responses.length; i++) {
        if (responses[i]!.id !== this.pending[i]) return `response ${i} answers id "${responses[i]!.id}", expected "${this.pending[i]}"`
      }
      return undefined
    }
    if (responses.length > 0) return "a model turn holds a function response"
    if (calls.length === 0) return undefined
    if (this.previous === undefined || this.previous.role !== "user") {
      return "a function call turn must follow a user turn or a response turn"
    }
    const ids = new Set<string>()
    for (const call of calls) {
      if (this.seenIds.has(call.id) || ids.has(call.id)) return `call id "${call.id}" is not unique`
      ids.add(call.id)
    }
    return undefined
  }
}

/**
 * Checks: a model turn with N calls is followed immediately by one user turn holding exactly N responses with
 * the same ids in the same order; responses appear nowhere else; a call turn follows a user turn; calls sit only in
 * model turns and responses only in user turns; call ids are unique across the transcript; no call is left unanswered.
 */
export const validate = (transcript: Transcript): Either.Either<Transcript, TranscriptViolation> => {
  const validator = new Validator()
  for (const turn of transcript) {
    const pushed = validator.push(turn)
    if (Either.isLeft(pushed)) return Either.left(pushed.left)
  }
  return Either.map(validator.complete(), () => transcript)
}

/** True when `prefix` is a prefix of `transcript` (compared by reference: the transcript only grows). */
export const isPrefixOf = (prefix: Transcript, transcript: Transcript): boolean =>
  prefix.length <= transcript.length && prefix.every((turn, i) => transcript[i] === turn)
