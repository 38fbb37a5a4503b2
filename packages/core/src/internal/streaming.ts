/**
 * Reading a model's stream part by part.
 *
 * Running an Effect Stream has a fixed cost whatever it carries (the channel interpreter, its scope and fibers'
 * bookkeeping): 160 µs alone, some hundreds inside a busy process on this machine, the price of several loop
 * steps (bench/README.md). The streams the toolkit builds itself are
 * therefore registered, when they are built, with a reader that yields the same parts without that machinery:
 * - replays: a complete response, obtained by an Effect, cut into deltas (`fromGenerate` services, the scripted
 *   model, `streamOfResponse`): the reader runs the Effect and hands out the parts;
 * - pulled streams: chunks pulled one burst at a time from a source opened for each run (the providers' SDK
 *   streams, see `pump.ts`): the reader calls `pull` in a loop and closes the source however the loop ends.
 * A registered Stream stays a real one: anything else that runs it sees the same parts, in the same chunks.
 * Any other Stream is run as a Stream.
 */
import type * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { Response, StreamPart } from "../LanguageModel.js"
import { MalformedResponse } from "../ModelError.js"

/** Cuts a text into the deltas a replay emits. */
export type Split = (text: string) => ReadonlyArray<string>

/** Hands each part to `onPart`, waiting for `room` after each chunk; succeeds with the last `Finish`'s response. */
type Reader = (onPart: (part: StreamPart) => void, room: Effect.Effect<void>) => Effect.Effect<Response, unknown, unknown>

/**
 * The reader travels on the Stream object itself, under a symbol of ours: one property write per stream, where a
 * WeakMap entry (one per model step) costs the garbage collector an ephemeron to trace.
 */
const readerKey: unique symbol = Symbol("@agentfx/core/StreamReader")

interface Registered {
  [readerKey]?: Reader
}

const register = <S extends Stream.Stream<StreamPart, unknown, unknown>>(stream: S, reader: Reader): S => {
  ;(stream as S & Registered)[readerKey] = reader
  return stream
}

const whole: Split = (text) => [text]

/** The deltas of a response, then `Finish`. */
export const partsOf = (response: Response, split: Split = whole): Array<StreamPart> => {
  const parts: Array<StreamPart> = []
  for (const part of response.turn.parts) {
    if (part._tag === "Text" && part.text !== "") for (const text of split(part.text)) parts.push({ _tag: "TextDelta", text })
    else if (part._tag === "Reasoning" && part.text !== "") parts.push({ _tag: "ReasoningDelta", text: part.text })
    else if (part._tag === "FunctionCall") parts.push({ _tag: "CallDelta", call: part })
  }
  parts.push({ _tag: "Finish", response })
  return parts
}

/** The stream of the response `response` produces, cut by `split`, registered as a replay. */
export const replay = <E, R>(response: Effect.Effect<Response, E, R>, split: Split = whole): Stream.Stream<StreamPart, E, R> => {
  // Built lazily: the loop reads a replay without running it, and an unrun `Stream.unwrap` costs several objects.
  const stream = Stream.suspend(() => Stream.unwrap(Effect.map(response, (value) => Stream.fromIterable(partsOf(value, split)))))
  // The whole response is one chunk: `room` once after it, as a run of the Stream waits once per chunk it emits.
  return register(stream, (onPart, room) =>
    Effect.flatMap(response, (value) => {
      for (const part of partsOf(value, split)) onPart(part)
      return Effect.as(room, value)
    })
  )
}

/** A source of parts, opened afresh for each run of its stream. */
export interface Source<E> {
  /** The next chunk of parts; fails with `None` once the source has ended, with `Some` if it failed. */
  readonly pull: Effect.Effect<Chunk.Chunk<StreamPart>, Option.Option<E>>
  /** Runs once the run stops, however it stops (the end, a failure, an interruption, a consumer that stopped). */
  readonly close: Effect.Effect<void>
}

/** The stream of the chunks a source yields, registered as a pulled stream. */
export const pulled = <E>(open: () => Source<E>): Stream.Stream<StreamPart, E> => {
  const stream = Stream.suspend(() => {
    const source = open()
    return Stream.repeatEffectChunkOption(source.pull).pipe(Stream.ensuring(source.close))
  })
  return register(stream, (onPart, room) =>
    Effect.suspend(() => {
      const source = open()
      let last: Response | undefined
      const loop: Effect.Effect<void, Option.Option<E>> = Effect.flatMap(source.pull, (chunk) => {
        for (const part of chunk) {
          if (part._tag === "Finish") last = part.response
          onPart(part)
        }
        return Effect.zipRight(room, loop)
      })
      return loop.pipe(
        // The end of the source (`None`) ends the read; its failure (`Some`) is the stream's, as when run as a Stream.
        Effect.catchAll(Option.match({ onNone: () => Effect.void, onSome: Effect.fail })),
        Effect.ensuring(source.close),
        Effect.flatMap(() => (last === undefined ? Effect.fail(missingFinish()) : Effect.succeed(last)))
      )
    })
  )
}

const missingFinish = () => new MalformedResponse({ message: "the stream ended without a final response" })

/**
 * Runs `stream`, handing each part to `onPart` (synchronously, in order) and `room` after each chunk; succeeds with
 * the response of its `Finish` part (the last one, if several). A stream that ends without one is a
 * `MalformedResponse`.
 */
export const forEachPart = <E, R>(
  stream: Stream.Stream<StreamPart, E, R>,
  onPart: (part: StreamPart) => void,
  room: Effect.Effect<void> = Effect.void
): Effect.Effect<Response, E | MalformedResponse, R> => {
  const reader = (stream as Registered)[readerKey]
  // A registered stream's reader fails and requires exactly what the stream does.
  // Stryker disable next-line ConditionalExpression: a shortcut; run as a Stream, a registered stream gives the same parts, rooms and end (tested), only slower
  if (reader !== undefined) return reader(onPart, room) as Effect.Effect<Response, E | MalformedResponse, R>
  return Effect.suspend(() => {
    let last: Response | undefined
    return Stream.runForEachChunk(stream, (chunk) => {
      for (const part of chunk) {
        if (part._tag === "Finish") last = part.response
        onPart(part)
      }
      return room
    }).pipe(Effect.flatMap(() => (last === undefined ? Effect.fail(missingFinish()) : Effect.succeed(last))))
  })
}
