/**
 * Reading a model's stream part by part.
 *
 * Some streams are replays: a complete response, obtained by an Effect, cut into deltas (`fromGenerate`
 * services, the scripted model, `streamOfResponse`). Such a stream is registered when it is built, and the loop
 * reads the response and its parts directly instead of running the Stream, whose machinery costs more than a whole
 * loop step. The registered Stream stays a real one: anything else that runs it sees the same parts.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { Response, StreamPart } from "../LanguageModel.js"
import { MalformedResponse } from "../ModelError.js"

/** Cuts a text into the deltas a replay emits. */
export type Split = (text: string) => ReadonlyArray<string>

interface Replay {
  readonly response: Effect.Effect<Response, unknown, unknown>
  readonly split: Split
}

const replays = new WeakMap<Stream.Stream<StreamPart, unknown, unknown>, Replay>()

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
  const stream = Stream.unwrap(Effect.map(response, (value) => Stream.fromIterable(partsOf(value, split))))
  replays.set(stream, { response, split })
  return stream
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
  const known = replays.get(stream)
  if (known !== undefined) {
    const { response, split } = known as { readonly response: Effect.Effect<Response, E, R>; readonly split: Split }
    return Effect.map(response, (value) => {
      for (const part of partsOf(value, split)) onPart(part)
      return value
    })
  }
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
