import { describe, expect, it } from "@effect/vitest"
import { Duration, Option, Schema } from "effect"
import { ModelError } from "../src/index.js"

const transient = [
  new ModelError.RateLimited({ message: "slow down" }),
  new ModelError.Overloaded({ message: "busy" }),
  new ModelError.Unavailable({ message: "down" }),
  new ModelError.ModelTimeout({ after: Duration.seconds(1) }),
  new ModelError.MalformedResponse({ message: "bad json" }),
  new ModelError.MalformedResponse({ message: "unexpected response shape: n should be a number, got \"7\"", details: 'n should be a number, got "7"' })
]
const final = [
  new ModelError.QuotaExhausted({ message: "no balance" }),
  new ModelError.InvalidRequest({ message: "400" }),
  new ModelError.Unauthorized({ message: "no key" }),
  new ModelError.Blocked({ message: "safety" })
]

describe("ModelError", () => {
  it("rate limits, overload, outages, timeouts and malformed answers are retryable; the rest are not", () => {
    expect(transient.map((error) => [error._tag, error.retryable])).toEqual(transient.map((error) => [error._tag, true]))
    expect(final.map((error) => [error._tag, error.retryable])).toEqual(final.map((error) => [error._tag, false]))
  })

  it("each error has its tag, and keeps the provider's message and status", () => {
    expect([...transient, ...final].map((error) => error._tag)).toEqual([
      "RateLimited", "Overloaded", "Unavailable", "ModelTimeout", "MalformedResponse", "MalformedResponse", "QuotaExhausted", "InvalidRequest", "Unauthorized", "Blocked"
    ])
    const errors = [ModelError.QuotaExhausted, ModelError.Unavailable, ModelError.InvalidRequest, ModelError.Unauthorized, ModelError.Blocked]
    for (const make of errors) expect(new make({ message: "said", status: 418 })).toMatchObject({ message: "said", status: 418 })
  })

  it("a timeout's message names the bound that was hit and how long it is", () => {
    const after = Duration.millis(1500)
    expect(new ModelError.ModelTimeout({ after }).message).toBe("the model did not finish its answer within 1s 500ms (turnTimeout)")
    expect(new ModelError.ModelTimeout({ after, limit: "turn" }).message).toBe(
      "the model did not finish its answer within 1s 500ms (turnTimeout)"
    )
    expect(new ModelError.ModelTimeout({ after, limit: "firstByte" }).message).toBe("the model sent nothing within 1s 500ms (firstByteTimeout)")
    expect(new ModelError.ModelTimeout({ after, limit: "idle" }).message).toBe(
      "the model's stream stalled: nothing for 1s 500ms (idleTimeout)"
    )
    expect(new ModelError.ModelTimeout({ after, limit: "connect" }).message).toBe("the live connection was not set up within 1s 500ms (connectTimeout)")
    expect(new ModelError.ModelTimeout({ after, limit: "run" }).message).toBe("the run has waited 1s 500ms on the model in all, its limit (runTimeout)")
  })

  it("the run's bound (limit run) is the one timeout not retried, and it survives encoding like the others", () => {
    const run = new ModelError.ModelTimeout({ after: Duration.minutes(15), limit: "run" })
    expect(run.retryable).toBe(false)
    expect(["turn", "firstByte", "idle", "connect"].map((limit) => new ModelError.ModelTimeout({ after: Duration.seconds(1), limit: limit as "turn" }).retryable)).toEqual([true, true, true, true])
    const decoded = Schema.decodeUnknownSync(ModelError.ModelError)(Schema.encodeSync(ModelError.ModelError)(run))
    expect(decoded).toEqual(run)
    expect(decoded.retryable).toBe(false)
  })

  it("retryAfter is the provider's wait for rate limits and overload only", () => {
    const wait = Duration.seconds(3)
    expect(ModelError.retryAfter(new ModelError.RateLimited({ message: "", retryAfter: wait }))).toEqual(Option.some(wait))
    expect(ModelError.retryAfter(new ModelError.Overloaded({ message: "", retryAfter: wait }))).toEqual(Option.some(wait))
    expect(ModelError.retryAfter(new ModelError.RateLimited({ message: "" }))).toEqual(Option.none())
    expect(ModelError.retryAfter(new ModelError.Overloaded({ message: "" }))).toEqual(Option.none())
    expect(ModelError.retryAfter(new ModelError.Unavailable({ message: "" }))).toEqual(Option.none())
  })

  it("isMalformedCall is a MalformedResponse that carries the model's attempt", () => {
    expect(ModelError.isMalformedCall(new ModelError.MalformedResponse({ message: "", malformedCall: "call(" }))).toBe(true)
    expect(ModelError.isMalformedCall(new ModelError.MalformedResponse({ message: "" }))).toBe(false)
    expect(ModelError.isMalformedCall(new ModelError.Unavailable({ message: "" }))).toBe(false)
  })

  it("every model error round-trips through its Schema, and isModelError knows them all", () => {
    for (const error of [...transient, ...final]) {
      expect(ModelError.isModelError(error)).toBe(true)
      const json = Schema.encodeSync(ModelError.ModelError)(error)
      expect(Schema.decodeUnknownSync(ModelError.ModelError)(json)).toEqual(error)
    }
    expect(ModelError.isModelError(new Error("x"))).toBe(false)
    expect(ModelError.isModelError({ _tag: "RateLimited" })).toBe(false)
  })
})
