import { describe, expect, it } from "@effect/vitest"
import { Duration, Schema } from "effect"
import { ToolError } from "../src/index.js"

const failed = (cause: unknown) => new ToolError.ExecutionFailed({ name: "t", cause, defect: false }).message

describe("ToolError", () => {
  it("UnknownFunction lists what the registry has, or says none", () => {
    expect(new ToolError.UnknownFunction({ name: "x", available: ["a", "b"] }).message).toBe('unknown function "x"; available: a, b')
    expect(new ToolError.UnknownFunction({ name: "x", available: [] }).message).toBe('unknown function "x"; available: none')
  })

  it("InvalidArguments gives each issue with its path, the whole object's without one", () => {
    const error = new ToolError.InvalidArguments({
      name: "f",
      issues: [{ path: "", message: "is missing b" }, { path: "items[2].sku", message: "expected string" }]
    })
    expect(error.message).toBe('invalid arguments for "f": is missing b; items[2].sku: expected string')
  })

  it("ExecutionFailed describes its cause: a string, a message, a tag with its fields, or the JSON", () => {
    expect(failed("boom")).toBe('"t" failed: boom')
    expect(failed({ message: "disk full", code: 28 })).toBe('"t" failed: disk full')
    expect(failed({ message: 42 })).toBe('"t" failed: {"message":42}')
    expect(failed({ _tag: "NotFound" })).toBe('"t" failed: NotFound')
    expect(failed({ _tag: "NotFound", id: 7 })).toBe('"t" failed: NotFound {"id":7}')
    expect(failed({ _tag: 1, id: 7 })).toBe('"t" failed: {"_tag":1,"id":7}')
    expect(failed(null)).toBe('"t" failed: null')
    expect(failed([1, "a"])).toBe('"t" failed: [1,"a"]')
    expect(failed(undefined)).toBe('"t" failed: undefined')
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(failed(cyclic)).toBe('"t" failed: [object Object]')
    const cyclicTagged: Record<string, unknown> = { _tag: "Loop" }
    cyclicTagged.self = cyclicTagged
    expect(failed(cyclicTagged)).toBe('"t" failed: Loop [object Object]')
  })

  it("ToolTimeout and ApprovalDenied say who and why", () => {
    expect(new ToolError.ToolTimeout({ name: "slow", after: Duration.seconds(2) }).message).toBe('"slow" timed out after 2s')
    expect(new ToolError.ApprovalDenied({ name: "rm", reason: "too risky" }).message).toBe('"rm" was not approved: too risky')
  })

  it("every tool error round-trips through its Schema", () => {
    const errors = [
      new ToolError.UnknownFunction({ name: "x", available: ["a"] }),
      new ToolError.InvalidArguments({ name: "x", issues: [{ path: "a", message: "m" }] }),
      new ToolError.ExecutionFailed({ name: "x", cause: { message: "m" }, defect: true }),
      new ToolError.ToolTimeout({ name: "x", after: Duration.millis(5) }),
      new ToolError.ApprovalDenied({ name: "x", reason: "r" })
    ]
    expect(errors.map((error) => error._tag)).toEqual(["UnknownFunction", "InvalidArguments", "ExecutionFailed", "ToolTimeout", "ApprovalDenied"])
    expect(Schema.decodeUnknownSync(ToolError.ArgumentIssue)({ path: "a", message: "m" })).toStrictEqual({ path: "a", message: "m" })
    for (const error of errors) {
      expect(Schema.decodeUnknownSync(ToolError.ToolError)(Schema.encodeSync(ToolError.ToolError)(error))).toEqual(error)
    }
  })
})
