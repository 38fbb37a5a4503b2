// Non-blocking results over the real SDK and the emulator's Live endpoint: progress that will continue, each
// response's scheduling, and the turns the model takes on its own to speak of a result, which a `send` made just
// then must not take for its answer.
import { LiveAgent, Registry, Tool, Turn } from "@agentfx/core"
import { Emulator, Policy } from "@agentfx/emulator"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted, Schema, Stream } from "effect"
import * as GeminiLive from "../src/GeminiLive.js"

/** A lookup the model does not wait for: it reports progress (silent), then answers `{found: 3}` with `scheduling`. */
const lookup = (scheduling: "whenIdle" | "interrupt") =>
  Tool.make("lookup", {
    description: "Looks flights up while the model talks",
    parameters: Schema.Struct({}),
    nonBlocking: { scheduling },
    handler: (_, { progress }) => Effect.zipRight(progress({ searched: "outbound" }), Effect.as(Effect.sleep("50 millis"), { found: 3 }))
  })

/** The model: a call to `lookup` for "find", a sentence about each result it hears, an answer to anything else. */
const policy = Policy.fromFunction((request) => {
  const last = request.transcript.at(-1)
  const results = last === undefined ? [] : Turn.responses(last)
  if (results.length > 0) return { text: `Found ${String((results[0]!.response as { found?: unknown }).found ?? "nothing yet")}.` }
  const text = last === undefined ? "" : Turn.text(last)
  return text === "find" ? { calls: [{ name: "lookup", args: {} }] } : { text: `About ${text}.` }
})

describe("Gemini Live — non-blocking results through the SDK and the emulator", () => {
  it.scopedLive("a send made just as a whenIdle result went out is answered by its own turn, not by the one the model takes to speak of the result", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy })
      const layer = GeminiLive.layer({ apiKey: Redacted.make(emulator.apiKey), baseUrl: emulator.geminiBaseUrl })
      const { turns, answer } = yield* Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: Registry.unsafeMake(lookup("whenIdle")) })
        const events = yield* session.subscribe
        const answered = yield* Effect.fork(Stream.runDrain(Stream.takeUntil(events, (event) => event._tag === "CallFinished")))
        yield* session.send("find")
        // The moment the result has gone out (its record is published after the response is sent).
        yield* answered.await
        const answer = yield* session.send("next")
        return { answer, turns: yield* session.turns }
      }).pipe(Effect.provide(layer))
      expect(answer.text).toBe("About next.")
      expect(turns.map((turn) => turn.text)).toEqual(["", "Found 3.", "About next."])
      const [record] = yield* emulator.live
      expect(record!.violations).toEqual([])
      expect(record!.responses.map((response) => [response.response, response.scheduling, response.willContinue])).toEqual([
        [{ searched: "outbound" }, "SILENT", true],
        [{ found: 3 }, "WHEN_IDLE", undefined]
      ])
      // The message went out after the model's own turn was over.
      const sent = record!.sent.map((frame) => JSON.stringify(frame))
      const received = record!.received.map((frame) => JSON.stringify(frame))
      expect(sent.filter((frame) => frame.includes('"turnComplete":true'))).toHaveLength(3)
      expect(received.findIndex((frame) => frame.includes('"text":"next"'))).toBeGreaterThan(received.findIndex((frame) => frame.includes('"found":3')))
    }))

  it.scopedLive("progress scheduled interrupt makes the model speak of it at once; silent progress does not", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy })
      const reporter = Tool.make("lookup", {
        description: "Looks flights up while the model talks",
        parameters: Schema.Struct({}),
        nonBlocking: { scheduling: "silent" },
        handler: (_, { progress }) =>
          Effect.gen(function* () {
            yield* progress({ searched: "outbound" })
            yield* progress({ found: 2 }, { scheduling: "interrupt" })
            return { found: 3 }
          })
      })
      const layer = GeminiLive.layer({ apiKey: Redacted.make(emulator.apiKey), baseUrl: emulator.geminiBaseUrl })
      const turns = yield* Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: Registry.unsafeMake(reporter) })
        yield* session.send("find")
        yield* session.send("next")
        return yield* session.turns
      }).pipe(Effect.provide(layer))
      expect(turns.map((turn) => turn.text)).toEqual(["", "Found 2.", "About next."])
      const [record] = yield* emulator.live
      expect(record!.violations).toEqual([])
      expect(record!.responses.map((response) => [response.response, response.scheduling, response.willContinue])).toEqual([
        [{ searched: "outbound" }, "SILENT", true],
        [{ found: 2 }, "INTERRUPT", true],
        [{ found: 3 }, "SILENT", undefined]
      ])
    }))
})
