/** The words of a retried attempt: the wait counted in whole seconds, the next attempt of how many, the provider's ask. */
import { ModelError } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import { attemptFailed as failed } from "./support/attemptFailed.js"
import { failedText, retryingText, waitText } from "../src/internal/retryText.js"


describe("the retry's words", () => {
  it("a wait is whole seconds rounded up, so it never reads 0 while there is one; a minute or more in minutes and seconds", () => {
    expect([0, 1, 999, 1000, 1001, 2999, 59_000, 59_001, 60_000, 90_000, 3_600_000].map(waitText)).toEqual([
      "0 s", "1 s", "1 s", "1 s", "2 s", "3 s", "59 s", "1 min", "1 min", "1 min 30 s", "60 min"
    ])
  })

  it("names the next attempt of how many (just its number when the policy does not say), and whether the provider asked for the wait", () => {
    expect(retryingText(failed({}), 3000)).toBe("retrying (attempt 2/4, next in 3 s)")
    expect(retryingText(failed({ attempt: 2, maxAttempts: undefined }), 500)).toBe("retrying (attempt 3, next in 1 s)")
    const limited = new ModelError.RateLimited({ message: "slow down", retryAfter: Duration.seconds(7) })
    expect(retryingText(failed({ error: limited }), 7000)).toBe("retrying (attempt 2/4, next in 7 s, as the provider asked)")
  })

  it("the whole line gives the reason first, with the provider's words escaped for the terminal", () => {
    const error = new ModelError.Unavailable({ message: "reset\u001b[2J" })
    expect(failedText(failed({ error }))).toBe("the model request failed — Unavailable: reset\\u001b[2J; retrying (attempt 2/4, next in 3 s)")
  })
})
