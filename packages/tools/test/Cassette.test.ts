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
    expect(result !== undefined && Either.isLeft(result) && result.left.message).toMatch(/^cases\.yaml: case "c1": the cassette is invalid: x-cassette/)
  })

  const invalid = (value: unknown) => Either.getOrThrowWith(Either.flip(Cassette.decode(value, "c")), () => new Error("decoded"))

  it("refuses a field it does not know instead of dropping it, naming the field", () => {
    const renamed = invalid([{ calls: [{ name: "check_warranty", arguments: { serial_number: "SN-1" } }] }])
    expect(renamed).toMatchObject({ _tag: "CassetteError", source: "c", field: "[0].calls[0].arguments", reason: "unknown field; expected one of name | args" })
    expect(renamed.message).toBe("c: the cassette is invalid: [0].calls[0].arguments: unknown field; expected one of name | args")
    expect(invalid([{ text: "hi", call: [{ name: "f" }] }])).toMatchObject({ field: "[0].call", reason: expect.stringMatching(/^unknown field \(did you mean "calls"\?\); expected one of text \| reasoning \| calls/) })
  })

  it("an error carries only what is known: no line without a file, no case outside one, no field for the whole cassette", () => {
    const whole = invalid({ text: "x" })
    expect([whole.line, whole.caseId, whole.field].map((value) => value === undefined)).toStrictEqual([true, true, true])
    expect(["line", "caseId", "field"].map((key) => Object.hasOwn(whole, key))).toStrictEqual([false, false, false])
    expect(whole.message).toBe(`c: the cassette is invalid: has the wrong shape (got {"text":"x"})`)
    // A case made in code has no lines to give; its error still names the case and the field.
    const { lineOf: _, ...bare } = caseWith({ "x-cassette": [{}] })
    const result = Cassette.ofCase(bare)
    const error = result !== undefined && Either.isLeft(result) ? result.left : undefined
    expect(error).toMatchObject({ source: "cases.yaml", caseId: "c1", field: "x-cassette[0]" })
    expect(Object.hasOwn(error!, "line")).toBe(false)
  })

  it("names the field of a wrong value, without spelling out the schema", () => {
    const error = invalid([{ text: "a" }, { calls: [{ name: 3 }] }])
    expect(error).toMatchObject({ field: "[1].calls[0].name" })
    expect(error.message).not.toMatch(/ReadonlyArray|\{ readonly/)
  })

  it("gives the file's line of the problem in a case read from YAML", () => {
    const text = `id: c1
input: hi
scenario: s
expected_function_calls: []
x-cassette:
  - calls:
      - name: check_warranty
        arguments: { serial_number: SN-1 }
  - text: done
`
    const [evalCase] = Either.getOrThrow(EvalCase.parse(text, "cases.yaml"))
    const result = Cassette.ofCase(evalCase!)
    const error = result !== undefined && Either.isLeft(result) ? result.left : undefined
    expect(error).toMatchObject({ source: "cases.yaml", caseId: "c1", line: 8, field: "x-cassette[0].calls[0].arguments" })
    expect(error?.message).toBe(`cases.yaml:8: case "c1": the cassette is invalid: x-cassette[0].calls[0].arguments: unknown field; expected one of name | args`)
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

  it("records text beside calls only when there is some, reasoning parts joined, and a transcript without a model turn as one empty answer", () => {
    const transcript: ReadonlyArray<Turn.Turn> = [
      Turn.user("hi"),
      { role: "model", parts: [{ _tag: "Reasoning", text: "a" }, { _tag: "Reasoning", text: "b" }, { _tag: "Text", text: "let me look" }, { _tag: "FunctionCall", id: "1", name: "f", args: {} }] },
      { role: "user", parts: [{ _tag: "FunctionResponse", id: "1", name: "f", response: { output: 1 }, isError: false }] },
      Turn.model("")
    ]
    expect(Cassette.fromTranscript(transcript)).toStrictEqual([{ text: "let me look", reasoning: "ab", calls: [{ name: "f", args: {} }] }, { text: "" }])
    expect(Cassette.fromTranscript([Turn.user("hi")])).toStrictEqual([{ text: "" }])
  })

  it("says why a step is refused: it holds neither text nor calls", () => {
    expect(invalid([{ text: "a" }, { reasoning: "only" }])).toMatchObject({ field: "[1]", reason: "a step holds `text` or `calls`" })
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
