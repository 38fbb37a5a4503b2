import { describe, expect, it } from "@effect/vitest"
import { LiveModel } from "../src/index.js"

describe("LiveModel", () => {
  it("the service's tag key", () => {
    expect(LiveModel.LiveModel.key).toBe("@agentfx/core/LiveModel")
  })

  it("CloseCode names the WebSocket close codes (RFC 6455 and the IANA registry)", () => {
    expect(LiveModel.CloseCode).toEqual({
      normal: 1000,
      goingAway: 1001,
      abnormal: 1006,
      invalidPayload: 1007,
      policyViolation: 1008,
      internalError: 1011,
      serviceRestart: 1012,
      tryAgainLater: 1013,
      badGateway: 1014
    })
  })
})
