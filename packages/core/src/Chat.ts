/**
 * A multi-message chat session on one transcript. Each `send` runs the agent loop on the transcript so far plus
 * the new message. The transcript is kept at every complete point, so a failed or interrupted message (Ctrl-C)
 * loses nothing that was answered; sessions export to JSON and resume exactly where they stopped.
 *
 * @example
 * ```ts
 * import { Chat, Registry } from "@agentfx/core"
 * import { Scripted } from "@agentfx/core/testing"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const registry = Registry.empty
 *   const chat = yield* Chat.make({ registry, system: "You are helpful." })
 *   yield* chat.send("What is 2 + 2?")
 *   const saved = yield* chat.export // JSON: store it, resume it later
 *   const again = yield* Chat.fromJson(saved, { registry })
 *   return yield* again.send("And 3 + 3?")
 * })
 *
 * const model = Scripted.layer([{ text: "4" }, { text: "6" }])
 * Effect.runPromise(program.pipe(Effect.provide(model))).then((result) => console.log(result.text)) // "6"
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type * as Agent from "./Agent.js"
import { loop, loopStream } from "./internal/loop.js"
import type { LanguageModel } from "./LanguageModel.js"
import type { Registry } from "./Registry.js"
import type { TranscriptViolation } from "./Transcript.js"
import * as Transcript from "./Transcript.js"
import type * as Turn from "./Turn.js"

/**
 * The saved form of a session.
 *
 * @since 0.1.0
 */
export const Session = Schema.Struct({
  version: Schema.Literal(1),
  system: Schema.optional(Schema.String),
  transcript: Transcript.Transcript
})
/**
 * The saved form of a session: what `export` writes and `fromJson` reads.
 *
 * @since 0.1.0
 * @category models
 */
export interface Session extends Schema.Schema.Type<typeof Session> {}

/**
 * Options of every message of the session (`prompt` and `history` are the session's own).
 *
 * @since 0.1.0
 * @category models
 */
export type Options<R> = Omit<Agent.Options<R>, "prompt" | "history">

/**
 * What may change between messages.
 *
 * @since 0.1.0
 * @category models
 */
export interface Changes<R> {
  /** The new system instruction. */
  readonly system?: string | undefined
  /** The new tools. */
  readonly registry?: Registry<R>
  /** Run options to change; the others stay. */
  readonly options?: Partial<Omit<Options<R>, "registry" | "system">>
}

/**
 * A conversation that continues one transcript across messages; each message is a run of the agent loop.
 *
 * @since 0.1.0
 * @category models
 */
export interface Chat<R> {
  /** Sends a message and runs the loop to its end. */
  readonly send: (message: string | Turn.Turn) => Effect.Effect<Agent.AgentResult, Agent.AgentError, LanguageModel | R>
  /** `send` as a stream of events. */
  readonly stream: (message: string | Turn.Turn) => Stream.Stream<Agent.AgentEvent, Agent.AgentError, LanguageModel | R>
  /** Continues without a new message, e.g. after a run stopped at `maxTurns`. */
  readonly resume: Effect.Effect<Agent.AgentResult, Agent.AgentError, LanguageModel | R>
  /** The conversation so far, at its last complete point (every call answered). */
  readonly transcript: Effect.Effect<Transcript.Transcript>
  /** Changes the system instruction, tools or options for the following messages. */
  readonly update: (changes: Changes<R>) => Effect.Effect<void>
  /** Replaces the history (validated). */
  readonly setHistory: (transcript: Transcript.Transcript) => Effect.Effect<void, TranscriptViolation>
  /** The session as JSON (`Session`). */
  readonly export: Effect.Effect<string>
}

const SessionJson = Schema.parseJson(Session)

/**
 * A new session, optionally on an existing (validated) history.
 *
 * @since 0.1.0
 */
export const make = <R>(
  options: Options<R> & { readonly history?: Transcript.Transcript }
): Effect.Effect<Chat<R>, TranscriptViolation> =>
  Effect.gen(function* () {
    const { history, ...rest } = options
    yield* Transcript.validate(history ?? [])
    const transcript = yield* Ref.make<Transcript.Transcript>(history ?? [])
    const settings = yield* Ref.make<Options<R>>(rest)
    // One message at a time: two concurrent sends would both append to the same transcript.
    const lock = yield* Effect.makeSemaphore(1)
    const commit = (next: Transcript.Transcript) => Ref.set(transcript, next)

    const runOptions = (message: string | Turn.Turn | undefined) =>
      Effect.zipWith(Ref.get(settings), Ref.get(transcript), (current, history): Agent.Options<R> => ({
        ...current,
        history,
        prompt: message
      }))

    const send = (message: string | Turn.Turn | undefined) =>
      lock.withPermits(1)(Effect.flatMap(runOptions(message), (opts) => loop(opts, { commit })))

    return {
      send,
      resume: send(undefined),
      stream: (message) =>
        Stream.unwrapScoped(
          Effect.gen(function* () {
            yield* Effect.acquireRelease(lock.take(1), () => lock.release(1))
            const opts = yield* runOptions(message)
            return loopStream(opts, { commit })
          })
        ),
      transcript: Ref.get(transcript),
      update: (changes) =>
        Ref.update(settings, (current) => ({
          ...current,
          ...changes.options,
          ...(changes.registry === undefined ? {} : { registry: changes.registry }),
          ...("system" in changes ? { system: changes.system } : {})
        })),
      setHistory: (next) => Effect.flatMap(Transcript.validate(next), (valid) => lock.withPermits(1)(Ref.set(transcript, valid))),
      export: Effect.zipWith(Ref.get(settings), Ref.get(transcript), (current, turns) =>
        Schema.encodeSync(SessionJson)({ version: 1, system: current.system, transcript: turns })
      )
    }
  })

/**
 * A session restored from `export`'s JSON; it continues exactly where it stopped.
 *
 * @since 0.1.0
 */
export const fromJson = <R>(
  json: string,
  options: Options<R>
): Effect.Effect<Chat<R>, SessionDecodeError | TranscriptViolation> =>
  Schema.decodeUnknown(SessionJson)(json).pipe(
    Effect.mapError((error) => new SessionDecodeError({ message: error.message })),
    Effect.flatMap((session) => make({ ...options, system: options.system ?? session.system, history: session.transcript }))
  )

/**
 * The saved session is not valid JSON of the `Session` schema.
 *
 * @since 0.1.0
 * @category errors
 */
export class SessionDecodeError extends Schema.TaggedError<SessionDecodeError>()("SessionDecodeError", {
  message: Schema.String
}) {}
