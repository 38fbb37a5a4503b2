import { describe, expect, it } from "@effect/vitest"
import { FunctionCall, StopCondition } from "../src/index.js"

const call = (name: string, args: Record<string, unknown> = {}, id = name) => FunctionCall.make({ id, name, args })

describe("StopCondition", () => {
  it("toolCalled stops after the turn that called the tool, whatever else it called", () => {
    const check = StopCondition.toolCalled("send").start()
    expect(check({ turn: 1, calls: [call("lookup")] })).toBeUndefined()
    expect(check({ turn: 2, calls: [call("lookup"), call("send")] })).toEqual({ _tag: "ToolCalled", name: "send" })
  })

  it("repeatedCall counts the same name and arguments across turns, whatever the key order", () => {
    const check = StopCondition.repeatedCall(3).start()
    expect(check({ turn: 1, calls: [call("add", { a: 1, b: 2 })] })).toBeUndefined()
    expect(check({ turn: 2, calls: [call("add", { b: 2, a: 1 }), call("add", { a: 9, b: 2 })] })).toBeUndefined()
    expect(check({ turn: 3, calls: [call("add", { a: 1, b: 2 })] })).toEqual({ _tag: "RepeatedCall", name: "add", times: 3 })
  })

  it("each start is a fresh check: two runs do not share counts", () => {
    const condition = StopCondition.repeatedCall(2)
    const first = condition.start()
    expect(first({ turn: 1, calls: [call("f")] })).toBeUndefined()
    const second = condition.start()
    expect(second({ turn: 1, calls: [call("f")] })).toBeUndefined()
    expect(first({ turn: 2, calls: [call("f")] })).toEqual({ _tag: "RepeatedCall", name: "f", times: 2 })
  })

  it("startAll asks the conditions in the order given: the first that says stop decides", () => {
    const step = { turn: 2, calls: [call("send")] }
    const repeatedFirst = StopCondition.startAll([StopCondition.repeatedCall(2), StopCondition.toolCalled("send")])
    expect(repeatedFirst({ turn: 1, calls: [call("send")] })).toEqual({ _tag: "ToolCalled", name: "send" })
    expect(repeatedFirst(step)).toEqual({ _tag: "RepeatedCall", name: "send", times: 2 })
    expect(StopCondition.startAll([])(step)).toBeUndefined()
  })

  it("each condition is tagged with its kind and keeps its setting", () => {
    expect(StopCondition.toolCalled("send")).toMatchObject({ _tag: "ToolCalled", name: "send" })
    expect(StopCondition.repeatedCall(4)).toMatchObject({ _tag: "RepeatedCall", times: 4 })
  })

  it("repeatedCall refuses a count below 2", () => {
    expect(() => StopCondition.repeatedCall(1)).toThrow("repeatedCall needs an integer ≥ 2, got 1")
    expect(() => StopCondition.repeatedCall(2.5)).toThrow(RangeError)
  })
})
