/** A failed model attempt as the agent reports it: an overloaded provider, attempt 1 of 4, retried in 3 s unless told otherwise. */
import { ModelError } from "@agentfx/core"
import type { Agent } from "@agentfx/core"
import * as Duration from "effect/Duration"

export const attemptFailed = (fields: Partial<Agent.AttemptFailed> = {}): Agent.AttemptFailed => ({
  _tag: "AttemptFailed",
  turn: 1,
  error: new ModelError.Overloaded({ message: "busy" }),
  willRetry: true,
  attempt: 1,
  maxAttempts: 4,
  retryIn: Duration.seconds(3),
  ...fields
})
