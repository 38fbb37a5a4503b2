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

  it("a reconnect after a close carries Unavailable with the close's code and reason in its message", () => {
    const withReason = decide({ _tag: "Closed", code: 1011, reason: "overloaded", progressed: false, leaving: false })
    expect(withReason).toMatchObject({ _tag: "Reconnect", code: 1011, failed: true })
    const error = (withReason as { error: ModelError.ModelError }).error
    expect(error).toBeInstanceOf(ModelError.Unavailable)
    expect(error).toMatchObject({ message: "the connection closed with code 1011 (overloaded)", status: 1011 })
    const bare = decide({ _tag: "Closed", code: 1006, reason: "", progressed: true, leaving: false })
    expect((bare as { error: ModelError.ModelError }).error).toMatchObject({ _tag: "Unavailable", message: "the connection closed with code 1006", status: 1006 })
  })

  it("a normal close without a reason ends the session with a plain reason", () => {
    expect(decide({ _tag: "Closed", code: 1000, reason: "", progressed: false, leaving: false })).toEqual({ _tag: "End", reason: "the server closed the session" })
  })

  it("a normal close announced with GoAway on a connection that said nothing counts as a failed attempt", () => {
    expect(decide({ _tag: "Closed", code: 1000, reason: "", progressed: false, leaving: true })).toMatchObject({ _tag: "Reconnect", code: 1000, failed: true })
  })

  it("a retryable stream failure before anything was said counts as a failed attempt", () => {
    const down = new ModelError.Unavailable({ message: "down" })
    expect(decide({ _tag: "Failed", error: down, progressed: false })).toEqual({ _tag: "Reconnect", error: down, failed: true })
    const key = new ModelError.Unauthorized({ message: "key" })
    expect(decide({ _tag: "Failed", error: key, progressed: false })).toEqual({ _tag: "Fail", error: key })
  })

  it("moving on after GoAway reconnects with Unavailable 1001, saying the server is going away", () => {
    const decision = decide({ _tag: "MovedOn" })
    expect(decision).toEqual({ _tag: "Reconnect", error: expect.any(ModelError.Unavailable), code: 1001, failed: false })
    expect((decision as { error: ModelError.ModelError }).error).toMatchObject({ message: "the server is going away", status: 1001 })
  })

  it("the reason the calls of an ended connection were lost names how it ended", () => {
    expect(lossReason({ _tag: "ConnectFailed", error: new ModelError.Unavailable({ message: "unreachable" }) })).toBe("unreachable")
    expect(lossReason({ _tag: "MovedOn" })).toBe("the connection was replaced after the server's GoAway")
    expect(lossReason({ _tag: "Failed", error: new ModelError.MalformedResponse({ message: "not JSON" }), progressed: true })).toBe("the connection failed: not JSON")
    expect(lossReason({ _tag: "Closed", code: 1008, reason: "policy", progressed: true, leaving: false })).toBe("the connection closed with code 1008 (policy)")
    expect(lossReason({ _tag: "Closed", code: 1006, reason: "", progressed: true, leaving: false })).toBe("the connection closed with code 1006")
  })
})
