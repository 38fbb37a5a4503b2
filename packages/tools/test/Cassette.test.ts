import { Turn } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { Cassette, EvalCase } from "../src/index.js"

const caseWith = (extensions: Record<string, unknown>) => ({
  ...Either.getOrThrow(EvalCase.make({ id: "c1", input: "hi", scenario: "s", expected_function_calls: [] }, "cases.yaml")),
  extensions
})

describe("Cassette", () => {
  it("reads a case's x-cassette, with args defaulting to {}", () => {
    const cassette = Cassette.ofCase(caseWith({ "x-cassette": [{ calls: [{ name: "f" }] }, { text: "done" }] }))
    expect(cassette && Either.getOrThrow(cassette)).toEqual([{ calls: [{ name: "f", args: {} }] }, { text: "done" }])
    expect(Cassette.ofCase(caseWith({}))).toBeUndefined()
  })

  it.each([
    ["not a list", { text: "x" }],
    ["an empty list", []],
    ["a step with neither text nor calls", [{}]],
    ["a call without a name", [{ calls: [{ args: {} }] }]],
    ["arguments that are not an object", [{ calls: [{ name: "f", args: [1] }] }]]
  ])("refuses %s, naming the case", (_, value) => {
    const result = Cassette.ofCase(caseWith({ "x-cassette": value }))
    expect(result !== undefined && Either.isLeft(result) && result.left.message).toMatch(/^cases\.yaml \(c1\): the cassette is invalid/)
  })

  it("records the model turns of a transcript and nothing else", () => {
    const transcript: ReadonlyArray<Turn.Turn> = [
      Turn.user("hi"),
      { role: "model", parts: [{ _tag: "Reasoning", text: "think" }, { _tag: "FunctionCall", id: "1", name: "f", args: { a: 1 } }] },
      { role: "user", parts: [{ _tag: "FunctionResponse", id: "1", name: "f", response: { output: 1 }, isError: false }] },
      Turn.model("done")
    ]
    expect(Cassette.fromTranscript(transcript)).toEqual([{ reasoning: "think", calls: [{ name: "f", args: { a: 1 } }] }, { text: "done" }])
  })

  it("replays a set of cases with one key scheme and one rule for a case without a cassette", () => {
    const recorded = { ...caseWith({ "x-cassette": [{ text: "a" }] }), id: "recorded" }
    const bare = { ...caseWith({}), id: "bare" }
    const broken = { ...caseWith({ "x-cassette": [{}] }), id: "broken" }
    const again = { ...caseWith({ "x-cassette": [{ text: "b" }] }), id: "again" }
    const replay = Cassette.replay([recorded, bare, broken, again])
    expect([replay.recorded, replay.invalid, replay.total]).toEqual([3, 1, 4])
    expect(replay.modelOf(recorded)).toEqual(Either.right("case-0"))
    expect(replay.modelOf(again)).toEqual(Either.right("case-3"))
    expect(replay.modelOf(bare)).toEqual(Either.right(Cassette.offlineModel))
    expect(Either.isLeft(replay.modelOf(broken))).toBe(true)
    expect([...replay.scripts]).toEqual([["case-0", [{ text: "a" }]], ["case-3", [{ text: "b" }]]])
  })
})
