import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { LiveError, ModelError } from "../src/index.js"

describe("LiveError", () => {
  it("each live error's message says what happened", () => {
    expect(new LiveError.LiveClosed({ code: 1011, reason: "internal" }).message).toBe("the live session was closed with code 1011: internal")
    expect(new LiveError.LiveClosed({ code: 1000, reason: "" }).message).toBe("the live session was closed with code 1000")
    const down = new ModelError.Unavailable({ message: "refused" })
    expect(new LiveError.ReconnectFailed({ attempts: 1, error: down }).message).toBe("gave up reconnecting after 1 failed attempt: refused")
    expect(new LiveError.ReconnectFailed({ attempts: 3, error: down }).message).toBe("gave up reconnecting after 3 failed attempts: refused")
    expect(new LiveError.TurnLost({ turn: 2, reason: "GoAway" }).message).toBe("turn 2 was lost with its connection (GoAway)")
    expect(new LiveError.SessionEnded({ reason: "closed by the user" }).message).toBe("the live session has ended: closed by the user")
  })

  it("they round-trip through their Schemas", () => {
    const errors = [
      new LiveError.LiveClosed({ code: 1006, reason: "r" }),
      new LiveError.ReconnectFailed({ attempts: 2, error: new ModelError.Unauthorized({ message: "key" }) }),
      new LiveError.TurnLost({ turn: 1, reason: "r" }),
      new LiveError.SessionEnded({ reason: "r" })
    ]
    expect(errors.map((error) => error._tag)).toEqual(["LiveClosed", "ReconnectFailed", "TurnLost", "SessionEnded"])
    for (const error of errors) {
      const schema = error.constructor as unknown as Schema.Schema<typeof error, unknown>
      expect(Schema.decodeUnknownSync(schema)(Schema.encodeSync(schema)(error))).toEqual(error)
    }
  })
})
