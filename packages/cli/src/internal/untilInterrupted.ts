import * as Effect from "effect/Effect"
import { Interrupted } from "../CliError.js"
import { Io } from "../Io.js"

/** `effect`, stopped by the next Ctrl-C with `Interrupted` (its finalizers run: servers close, files are flushed). */
export const untilInterrupted = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | Interrupted, R | Io> =>
  Effect.flatMap(Io, (io) => Effect.raceFirst(effect, Effect.zipRight(io.interrupted, Effect.fail(new Interrupted()))))
