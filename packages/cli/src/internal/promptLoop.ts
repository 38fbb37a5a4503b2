/**
 * The read loop of the interactive commands (`chat`, `live`): a prompt, then a line. Blank lines are skipped;
 * Ctrl-C with text typed discards it, Ctrl-C at an empty prompt asks for a second one to quit (a line typed in
 * between disarms it); the end of input quits, and so does `onLine` answering `false` (e.g. `/exit`).
 */
import * as Effect from "effect/Effect"
import type * as Io from "../Io.js"

export const promptLoop = <E, R>(io: Io.Service, prompt: string, onLine: (line: string) => Effect.Effect<boolean, E, R>): Effect.Effect<void, E, R> =>
  Effect.gen(function* () {
    let armed = false
    for (;;) {
      const input = yield* io.readLine(prompt)
      if (input._tag === "End") return
      if (input._tag === "Interrupt") {
        if (input.partial !== "") {
          armed = false
          continue
        }
        if (armed) return
        armed = true
        yield* io.out("(press Ctrl-C again to quit, or type /exit)\n")
        continue
      }
      armed = false
      const line = input.text.trim()
      if (line === "") continue
      if (!(yield* onLine(line))) return
    }
  })
