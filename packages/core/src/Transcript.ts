/**
 * A transcript is the whole neutral conversation. One validator states its invariants; tests use it and the
 * loop runs it before every provider request, so a violation is caught here as our bug, never sent to a provider.
 *
 * Transcripts only grow. `append` returns a new transcript in time proportional to what it adds: the result is an
 * immutable snapshot sharing its storage with the transcript it extends, so a request keeps seeing exactly the
 * turns it was sent, whatever is appended later.
 *
 * @example
 * ```ts
 * import { Transcript, Turn } from "@agentfx/core"
 *
 * const history: Transcript.Transcript = [Turn.user("Weather in Oslo?"), Turn.model("7 °C.")]
 * const next = Transcript.append(history, [Turn.user("And in Bergen?")])
 * Transcript.validate(next) // Either.right(next), or the first TranscriptViolation
 * ```
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as AppendOnly from "./internal/appendOnly.js"
import { MalformedResponse } from "./ModelError.js"
import * as Turn from "./Turn.js"

/**
 * Schema of a transcript (an array of turns), for saving and restoring conversations.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Transcript = Schema.Array(Turn.Turn)

/**
 * The whole conversation, oldest turn first. Read it like any readonly array; grow it with `append`.
 *
 * @since 0.1.0
 * @category models
 */
export type Transcript = ReadonlyArray<Turn.Turn>

/**
 * The transcript breaks an invariant at `turn` (0-based index).
 *
 * @since 0.1.0
 * @category errors
 */
export class TranscriptViolation extends Schema.TaggedError<TranscriptViolation>()("TranscriptViolation", {
  turn: Schema.Number,
  reason: Schema.String
}) {
  override get message(): string {
    return `transcript turn ${this.turn}: ${this.reason}`
  }
}

/**
 * `transcript` followed by `turns`, as a new transcript; `transcript` is unchanged. Costs O(`turns`) when
 * `transcript` is the newest transcript of its line (what a loop that appends always holds), and one copy
 * otherwise (a plain array, or an older transcript that has been extended already). No validation: see `validate`.
 *
 * @example
 * ```ts
 * import { Transcript, Turn } from "@agentfx/core"
 *
 * const asked = Transcript.append([], [Turn.user("Weather in Oslo?")])
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const append = (transcript: Transcript, turns: ReadonlyArray<Turn.Turn>): Transcript => AppendOnly.append(transcript, turns)

/** Validators left by finished runs, keyed by the storage of the transcript they checked to its end. */
const handedOver = new WeakMap<object, Validator>()

/**
 * Checks a transcript incrementally, turn by turn, so a loop that appends can validate each request in time
 * proportional to what it appended. `validate` runs one over a whole transcript.
 *
 * @since 0.1.0
 * @category validation
 */
export class Validator {
  private readonly seenIds = new Set<string>()
  private previous: Turn.Turn | undefined = undefined
  private pending: ReadonlyArray<string> = []
  private index = 0

  /**
   * A validator that has checked `transcript` (failing with its first violation). When `transcript` continues
   * the transcript a validator was handed over with (see `handOver`), that validator is taken over and only the
   * new turns are checked: a chat session does not re-check its whole history at every message.
   *
   * @since 0.1.0
   */
  static of(transcript: Transcript): Either.Either<Validator, TranscriptViolation> {
    const tip = AppendOnly.tipOf(transcript)
    // Stryker disable next-line ConditionalExpression: a WeakMap has no entry for undefined either
    const kept = tip === undefined ? undefined : handedOver.get(tip)
    let validator = new Validator()
    // Stryker disable next-line ConditionalExpression: a kept validator implies a tip; a tip is its backing's newest view, never shorter than at hand-over
    if (tip !== undefined && kept !== undefined && kept.index <= transcript.length) {
      handedOver.delete(tip)
      validator = kept
    }
    for (let i = validator.index; i < transcript.length; i++) {
      const pushed = validator.push(transcript[i]!)
      if (Either.isLeft(pushed)) return Either.left(pushed.left)
    }
    return Either.right(validator)
  }

  /**
   * Leaves this validator for the next `Validator.of` on a transcript that continues `transcript`, when it has
   * checked exactly `transcript`. Whoever hands a validator over must not use it afterwards.
   *
   * @since 0.1.0
   */
  handOver(transcript: Transcript): void {
    const tip = AppendOnly.tipOf(transcript)
    if (tip !== undefined && this.index === transcript.length) handedOver.set(tip, this)
  }

  /**
   * Call ids seen so far (to check a candidate model turn before it is appended).
   *
   * @since 0.1.0
   */
  hasCallId(id: string): boolean {
    return this.seenIds.has(id)
  }

  /**
   * Appends one turn, or says which invariant it breaks (the validator is then unchanged).
   *
   * @since 0.1.0
   */
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

  /**
   * Fails unless every call turn has been answered: what must hold before a request is sent.
   *
   * @since 0.1.0
   */
  complete(): Either.Either<void, TranscriptViolation> {
    return this.pending.length === 0
      ? Either.right(undefined)
      : Either.left(new TranscriptViolation({ turn: this.index - 1, reason: `${this.pending.length} calls are unanswered` }))
  }

  /**
   * Why the model's answer `turn` cannot be appended next, or undefined. A provider that hands us such a turn
   * (a user turn, a function response, a reused call id) answered wrongly: that is a `MalformedResponse`, worth
   * a retry, not a violation of ours.
   *
   * @since 0.1.0
   */
  checkModelTurn(turn: Turn.Turn): MalformedResponse | undefined {
    if (turn.role !== "model") return new MalformedResponse({ message: `the model answered with a "${turn.role}" turn` })
    const ids = new Set<string>()
    for (const part of turn.parts) {
      if (part._tag === "FunctionResponse") return new MalformedResponse({ message: "the model turn holds a function response" })
      if (part._tag === "FunctionCall") {
        if (this.seenIds.has(part.id) || ids.has(part.id)) return new MalformedResponse({ message: `the model reused the call id "${part.id}"` })
        ids.add(part.id)
      }
    }
    return undefined
  }

  /**
   * Why `turn` cannot come next, or undefined when it can.
   *
   * @internal
   */
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
 *
 * @example
 * ```ts
 * import { Transcript, Turn } from "@agentfx/core"
 * import { Either } from "effect"
 *
 * console.log(Either.isRight(Transcript.validate([Turn.user("hi"), Turn.model("hello")]))) // true
 * ```
 *
 * @since 0.1.0
 * @category validation
 */
export const validate = (transcript: Transcript): Either.Either<Transcript, TranscriptViolation> => {
  const validator = new Validator()
  for (const turn of transcript) {
    const pushed = validator.push(turn)
    if (Either.isLeft(pushed)) return Either.left(pushed.left)
  }
  return Either.map(validator.complete(), () => transcript)
}

/**
 * True when `prefix` is a prefix of `transcript` (compared by reference: the transcript only grows). Two
 * transcripts of one line (one extended from the other with `append`) are compared in constant time.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isPrefixOf = (prefix: Transcript, transcript: Transcript): boolean =>
  prefix.length <= transcript.length && (AppendOnly.sameBacking(prefix, transcript) || prefix.every((turn, i) => transcript[i] === turn))
