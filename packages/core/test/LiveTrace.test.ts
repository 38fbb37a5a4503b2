import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { spanEvent } from "../src/internal/live/trace.js"
import type { LiveAgentEvent } from "../src/LiveAgentEvent.js"
import type * as Telemetry from "../src/Telemetry.js"

/** The span events `spanEvent` adds for `events`, with their attributes as given. */
const recorded = (events: ReadonlyArray<LiveAgentEvent>, content = false) => {
  const out: Array<{ name: string; attributes: unknown }> = []
  const annotate: Telemetry.Annotate = {
    attributes: () => Effect.void,
    event: (name, attributes) => Effect.sync(() => out.push({ name, attributes })),
    active: true,
    content
  }
  return Effect.as(Effect.forEach(events, (event) => spanEvent(annotate, event), { discard: true }), out)
}

describe("what of a live session shows on its span", () => {
  it.effect("a reconnect is an event with its attempt and close code; its reason (the server's words) only with message contents", () =>
    Effect.gen(function* () {
      const reconnecting: LiveAgentEvent = { _tag: "Reconnecting", attempt: 2, reason: "the connection closed with code 1011 (quota of CANARY)", code: 1011, fresh: false }
      expect(yield* recorded([reconnecting])).toEqual([
        { name: "agentfx.live.reconnecting", attributes: { "agentfx.attempt": 2, "agentfx.reason": undefined, "agentfx.close_code": 1011 } }
      ])
      expect(yield* recorded([reconnecting], true)).toEqual([
        {
          name: "agentfx.live.reconnecting",
          attributes: { "agentfx.attempt": 2, "agentfx.reason": "the connection closed with code 1011 (quota of CANARY)", "agentfx.close_code": 1011 }
        }
      ])
    })
  )

  it.effect("GoAway is an event without attributes", () =>
    Effect.gen(function* () {
      expect(yield* recorded([{ _tag: "GoAway", timeLeft: Duration.seconds(5) }])).toEqual([{ name: "agentfx.live.go_away", attributes: undefined }])
    })
  )

  it.effect("a change of the tools is an event with the names joined, and an empty list left out", () =>
    Effect.gen(function* () {
      expect(yield* recorded([{ _tag: "ToolsChanged", added: ["a", "b"], removed: [], changed: ["c"], connection: 2 }])).toEqual([
        { name: "agentfx.live.tools_changed", attributes: { "agentfx.tools.added": "a, b", "agentfx.tools.removed": undefined, "agentfx.tools.changed": "c" } }
      ])
      expect(yield* recorded([{ _tag: "ToolsChanged", added: [], removed: ["x"], changed: [], connection: 3 }])).toEqual([
        { name: "agentfx.live.tools_changed", attributes: { "agentfx.tools.added": undefined, "agentfx.tools.removed": "x", "agentfx.tools.changed": undefined } }
      ])
    })
  )

  it.effect("other events add nothing to the span", () =>
    Effect.gen(function* () {
      expect(yield* recorded([{ _tag: "Connected", connection: 1, resumed: false }, { _tag: "TextDelta", turn: 1, text: "hi" }, { _tag: "Interrupted", turn: 1 }])).toEqual([])
    })
  )
})
