import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as LanguageModel from "../../LanguageModel.js"
import type { SendError } from "../../LiveError.js"
import { TurnLost } from "../../LiveError.js"
import type { LiveTurn, Segment } from "../../LiveTurn.js"

/**
 * The model turn in progress. Live servers do not number turns: a turn is what the model says between two
 * `TurnComplete`s, and a `send` is answered by the first `TurnComplete` after its text went out.
 */
export class Turns {
  /** The number of the turn in progress (or of the next one). */
  current = 1
  /** Whether a turn is under way: the user spoke or the model started answering, and it has not completed. */
  open = false
  /** In the turn under way, the model said something or a message of ours went out (not only the user's speech). */
  private said = false
  private text = ""
  /** The text before each interruption of the turn in progress; `text` is what followed the last one. */
  private cut: Array<Segment> = []
  private usage: LanguageModel.Usage | undefined
  private interrupted = false
  private total = LanguageModel.emptyUsage
  private waiter: Deferred.Deferred<LiveTurn, SendError> | undefined
  /**
   * A bounded `send` gave up on the turn in progress: what the model still says of it (until it completes, or the
   * user speaks again) is dropped, not taken as the next turn's.
   */
  abandoned = false
  readonly completed: Array<LiveTurn> = []

  /** A `send` waits for the turn in progress. */
  get awaited(): boolean {
    return this.waiter !== undefined
  }

  /** The model was interrupted during the turn in progress. */
  get wasInterrupted(): boolean {
    return this.interrupted
  }

  /** The `send` waiting for the turn. */
  waitFor(waiter: Deferred.Deferred<LiveTurn, SendError>): void {
    this.waiter = waiter
  }

  forget(waiter: Deferred.Deferred<LiveTurn, SendError>): void {
    if (this.waiter === waiter) this.waiter = undefined
  }

  /** The model started answering (a call, a transcription of its speech). */
  begin(): void {
    this.open = true
    this.said = true
  }

  /** The server heard the user speak (a transcription of the user's audio): a turn begins. */
  hear(): void {
    this.open = true
  }

  /** A message of ours went out: a new turn, and the output of an abandoned one is no longer expected. */
  speak(): void {
    this.abandoned = false
    this.open = true
    this.said = true
  }

  /** A turn is under way that the model is answering or owes an answer in: one only the user's speech began is not. */
  get busy(): boolean {
    return this.open && this.said
  }

  /**
   * A bounded `send` timed out on the turn in progress: its text and usage so far go (the usage still counts for
   * the session), its number is not reused, and its late output is dropped.
   */
  abandon(): void {
    if (!this.open) return
    this.reset()
    this.abandoned = true
  }

  output(text: string): void {
    this.open = true
    this.said = true
    this.text += text
  }

  report(usage: LanguageModel.Usage): void {
    this.usage = usage
  }

  /** The model was interrupted: what it said so far in this turn is a segment of its own. */
  interrupt(): void {
    this.interrupted = true
    this.cut.push({ text: this.text, interrupted: true })
    this.text = ""
  }

  /** Usage summed over the session's turns, the one in progress included. */
  get sessionUsage(): LanguageModel.Usage {
    return this.usage === undefined ? this.total : LanguageModel.addUsage(this.total, this.usage)
  }

  /** Completes the turn in progress with what the call table says of it, and answers the waiting `send`. */
  complete(turn: Omit<LiveTurn, "turn" | "text" | "segments" | "usage" | "interrupted">): Effect.Effect<LiveTurn> {
    return Effect.suspend(() => {
      const segments = this.text === "" ? this.cut : [...this.cut, { text: this.text, interrupted: false }]
      const done: LiveTurn = {
        turn: this.current,
        text: segments.map((segment) => segment.text).join(""),
        segments,
        usage: this.usage ?? LanguageModel.emptyUsage,
        interrupted: this.interrupted,
        ...turn
      }
      this.completed.push(done)
      const waiter = this.reset()
      return waiter === undefined ? Effect.succeed(done) : Effect.as(Deferred.succeed(waiter, done), done)
    })
  }

  /** The connection went away mid-turn: the turn is over without an answer, and its number is not reused. */
  lose(reason: string): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (!this.open) return Effect.void
      const turn = this.current
      const waiter = this.reset()
      return waiter === undefined ? Effect.void : Deferred.fail(waiter, new TurnLost({ turn, reason }))
    })
  }

  /** The session ended: the waiting `send`, if any, fails with `error`. */
  end(error: SendError): Effect.Effect<void> {
    return Effect.suspend(() => {
      const waiter = this.waiter
      this.waiter = undefined
      return waiter === undefined ? Effect.void : Deferred.fail(waiter, error)
    })
  }

  private reset(): Deferred.Deferred<LiveTurn, SendError> | undefined {
    if (this.usage !== undefined) this.total = LanguageModel.addUsage(this.total, this.usage)
    const waiter = this.waiter
    this.current += 1
    this.open = false
    this.said = false
    this.text = ""
    this.cut = []
    this.usage = undefined
    this.interrupted = false
    this.waiter = undefined
    return waiter
  }
}
