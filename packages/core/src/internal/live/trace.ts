import * as Effect from "effect/Effect"
import type { LiveAgentEvent } from "../../LiveAgentEvent.js"
import type * as Telemetry from "../../Telemetry.js"

/**
 * What of a live session's events shows on its span: reconnects, `GoAway`s and changes of the tools. A reconnect's
 * reason quotes the server's close reason, its words: it is recorded only with message contents (`withContent`).
 */
export const spanEvent = (annotate: Telemetry.Annotate, event: LiveAgentEvent): Effect.Effect<void> => {
  switch (event._tag) {
    case "Reconnecting":
      return annotate.event("agentfx.live.reconnecting", { "agentfx.attempt": event.attempt, "agentfx.reason": annotate.content ? event.reason : undefined, "agentfx.close_code": event.code })
    case "GoAway":
      return annotate.event("agentfx.live.go_away")
    case "ToolsChanged":
      return annotate.event("agentfx.live.tools_changed", { "agentfx.tools.added": names(event.added), "agentfx.tools.removed": names(event.removed), "agentfx.tools.changed": names(event.changed) })
    default:
      return Effect.void
  }
}

// Joined: the tracer bridge would write an array as indented JSON text.
const names = (list: ReadonlyArray<string>): string | undefined => (list.length === 0 ? undefined : list.join(", "))
