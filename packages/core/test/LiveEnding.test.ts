import { describe, expect, it } from "@effect/vitest"
import { decide, lossReason } from "../src/internal/live/ending.js"
import { ModelError } from "../src/index.js"

const closed = (code: number, progressed = true, leaving = false) => decide({ _tag: "Closed", code, reason: "r", progressed, leaving })

describe("how a live connection's end is decided", () => {
  it("1001, 1006, 1011, 1012, 1013 and 1014 reconnect; counted as a failed attempt only if the connection said nothing", () => {
    for (const code of [1001, 1006, 1011, 1012, 1013, 1014]) {
      expect(closed(code)).toMatchObject({ _tag: "Reconnect", code, failed: false })
      expect(closed(code, false)).toMatchObject({ _tag: "Reconnect", code, failed: true })
    }
  })

  it("1007, 1008 and unknown codes end the session with LiveClosed", () => {
    for (const code of [1002, 1007, 1008, 1009, 4000]) {
      expect(closed(code)).toMatchObject({ _tag: "Fail", error: { _tag: "LiveClosed", code, reason: "r" } })
      expect(closed(code, true, true)._tag).toBe("Fail")
    }
  })

  it("a normal close ends the session, unless the server announced it with GoAway", () => {
    expect(closed(1000)).toEqual({ _tag: "End", reason: "the server closed the session: r" })
    expect(closed(1000, true, true)).toMatchObject({ _tag: "Reconnect", code: 1000, failed: false })
  })

  it("a failed connect or event stream reconnects if retryable, else ends the session with that error", () => {
    const down = new ModelError.Unavailable({ message: "down" })
    const refused = new ModelError.InvalidRequest({ message: "bad setup" })
    const garbled = new ModelError.MalformedResponse({ message: "not JSON" })
    expect(decide({ _tag: "ConnectFailed", error: down })).toEqual({ _tag: "Reconnect", error: down, failed: true })
    expect(decide({ _tag: "ConnectFailed", error: refused })).toEqual({ _tag: "Fail", error: refused })
    expect(decide({ _tag: "Failed", error: garbled, progressed: true })).toEqual({ _tag: "Reconnect", error: garbled, failed: false })
    expect(decide({ _tag: "Failed", error: new ModelError.Unauthorized({ message: "key" }), progressed: true })._tag).toBe("Fail")
  })

  it("moving on after GoAway reconnects without counting as a failure", () => {
    expect(decide({ _tag: "MovedOn" })).toMatchObject({ _tag: "Reconnect", code: 1001, failed: false })
  })

  it("leaving to declare changed tools resumes at once, as no failure, and says why a late call would be lost", () => {
    expect(decide({ _tag: "Redeclared" })).toEqual({ _tag: "Redeclare" })
    expect(lossReason({ _tag: "Redeclared" })).toBe("the connection was replaced to declare the changed tools")
  })
})
