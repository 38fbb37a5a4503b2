import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Approval, FunctionCall } from "../src/index.js"

const request: Approval.Request = { call: FunctionCall.make({ id: "c", name: "pay", args: {} }), description: "Pays" }
const decide = (layer: typeof Approval.allowAll) => Effect.flatMap(Approval.Approval, (service) => service.approve(request)).pipe(Effect.provide(layer))

describe("Approval", () => {
  it("approved and denied are the two decisions", () => {
    expect(Approval.approved).toEqual({ approved: true })
    expect(Approval.denied("no")).toEqual({ approved: false, reason: "no" })
    expect(Approval.Approval.key).toBe("@agentfx/core/Approval")
  })

  it.effect("allowAll approves, denyAll denies saying so, layer asks the function given the request", () =>
    Effect.gen(function* () {
      expect(yield* decide(Approval.allowAll)).toEqual({ approved: true })
      expect(yield* decide(Approval.denyAll)).toEqual({ approved: false, reason: "approval policy denies all calls" })
      const seen: Array<Approval.Request> = []
      const custom = Approval.layer((asked) => Effect.sync(() => (seen.push(asked), Approval.denied(asked.call.name))))
      expect(yield* decide(custom)).toEqual({ approved: false, reason: "pay" })
      expect(seen).toEqual([request])
    }))
})
