/**
 * The smart-home demo: a Gemini Live session that reads and changes three devices through two tools, answering
 * every call by id while the socket keeps talking. Offline by default: the emulator serves the Live WebSocket and
 * plays the model (`offlineModel.ts`) through the real SDK and the real provider layer; with GEMINI_API_KEY (or
 * GOOGLE_API_KEY) set it talks to Gemini Live and says so. `--offline` keeps it offline with a key set.
 *
 * `main.ts` runs it; `run` takes where to print, so tests can read what a person would see.
 */
import { LiveAgent } from "@agentfx/core"
import type { LiveModel } from "@agentfx/core"
import { Emulator } from "@agentfx/emulator"
import { GeminiLive } from "@agentfx/providers"
import { Duration, Effect, Either, Fiber, Queue, Redacted, Stream } from "effect"
import type { Layer, Scope } from "effect"
import * as Home from "./Home.js"
import { policy } from "./offlineModel.js"

/** What the user says, in order. */
export const messages = ["Is the living room lamp on?", "Okay, please turn it on and set its color to blue.", "What's the kitchen thermostat set to?"]

const keyVariable = (): string | undefined =>
  ["GEMINI_API_KEY", "GOOGLE_API_KEY"].find((name) => (process.env[name] ?? "").trim() !== "")

/** The Live model to use, one line saying which and why, and whether it is the real one. */
export const source = (
  offline: boolean
): Effect.Effect<{ readonly layer: Layer.Layer<LiveModel.LiveModel, unknown>; readonly announcement: string; readonly online: boolean }, never, Scope.Scope> =>
  Effect.gen(function* () {
    const variable = keyVariable()
    if (variable !== undefined && !offline) {
      return { layer: GeminiLive.layerConfig(), announcement: `Gemini Live, model ${process.env.GEMINI_LIVE_MODEL ?? GeminiLive.defaultModel} (${variable} is set)`, online: true }
    }
    const emulator = yield* Emulator.make({ policy })
    const why = offline ? "--offline" : "no GEMINI_API_KEY or GOOGLE_API_KEY: set one to talk to Gemini Live"
    return {
      layer: GeminiLive.layer({ apiKey: Redacted.make(emulator.apiKey), baseUrl: emulator.geminiBaseUrl }),
      announcement: `emulator — the Live WebSocket on 127.0.0.1, the model played by the demo's offline policy, through @google/genai (${why})`,
      online: false
    }
  })

const json = (value: unknown) => JSON.stringify(value)

/** A line for the events a person wants to see while the model works; undefined for the others. */
const lineOf = (event: LiveAgent.LiveAgentEvent): string | undefined => {
  switch (event._tag) {
    case "CallStarted":
      return `  → ${event.call.name} ${json(event.call.args)}   (id ${event.call.id})`
    case "CallFinished": {
      const outcome = event.record.outcome
      const answer = outcome._tag === "Answered" || outcome._tag === "Repeated" ? json(outcome.response.response) : ""
      return `  ← ${event.record.name} answered ${answer}   [${Duration.toMillis(event.record.duration).toFixed(1)} ms]`
    }
    case "CallCancelled":
      return `  ✗ ${event.record.name} ${event.record.outcome._tag === "Stopped" ? "stopped by you" : "cancelled by the server"} (id ${event.record.id})`
    case "CallLost":
      return `  ✗ ${event.record.name} lost with its connection: ${event.record.outcome._tag === "Lost" ? event.record.outcome.reason : ""}`
    case "GoAway":
      return `  … the server will close this connection in ${Duration.format(event.timeLeft)}`
    case "Reconnecting":
      return `  … ${event.reason}${event.code === undefined ? "" : ` (${event.code})`}: reconnecting, attempt ${event.attempt}${event.fresh ? " (no resumption handle: a fresh conversation)" : ""}`
    case "Connected":
      return event.resumed ? `  … connected again, session resumed (connection ${event.connection})` : undefined
    default:
      return undefined
  }
}

/** The conversation on the model `layer`, each line given to `print`; returns the calls and the home's state. */
export const run = (options: {
  readonly layer: Layer.Layer<LiveModel.LiveModel, unknown>
  readonly announcement: string
  readonly print: (line: string) => void
}) =>
  Effect.gen(function* () {
    const { layer, announcement, print } = options
    const home = yield* Home.make()
    print(`agentfx smart-home demo — Gemini Live: ${announcement}`)
    print(`devices: ${(yield* home.devices).map(Home.describeDevice).join("; ")}`)
    print("")
    const live = yield* Effect.gen(function* () {
      const session = yield* LiveAgent.session({ registry: home.registry, system: Home.systemInstruction(yield* home.devices) })
      // The printer shows calls as they happen; `completed` tells the conversation which turns it has shown.
      const completed = yield* Queue.unbounded<number>()
      const events = yield* session.subscribe
      const printer = yield* Effect.fork(
        Stream.runForEach(events, (event) =>
          Effect.sync(() => {
            const line = lineOf(event)
            if (line !== undefined) print(line)
          }).pipe(Effect.zipRight(event._tag === "TurnComplete" ? Queue.offer(completed, event.turn.turn) : Effect.void))
        )
      )
      for (const message of messages) {
        print(`you   › ${message}`)
        const answer = yield* Effect.either(session.send(message))
        if (Either.isLeft(answer)) {
          print(`  ✗ ${answer.left._tag}: ${answer.left.message}`)
          print("")
          continue
        }
        while ((yield* Queue.take(completed)) < answer.right.turn) continue
        print(`model › ${answer.right.text.trim()}`)
        print("")
      }
      const calls = yield* session.calls
      const total = yield* session.usage
      yield* session.close
      yield* Fiber.interrupt(printer)
      return { calls, total }
    }).pipe(Effect.provide(layer))
    print(`devices now: ${(yield* home.devices).map(Home.describeDevice).join("; ")}`)
    const answered = live.calls.filter((call) => call.outcome._tag === "Answered").length
    print(`${live.calls.length} calls, ${answered} answered by id; ${live.total.totalTokens} tokens`)
    return { calls: live.calls, devices: yield* home.devices }
  })

