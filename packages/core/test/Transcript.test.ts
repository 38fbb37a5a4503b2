import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, Schema } from "effect"
import * as AppendOnly from "../src/internal/appendOnly.js"
import { FunctionCall, FunctionResponse, Transcript, Turn } from "../src/index.js"

const call = (id: string, name = "f", metadata?: Record<string, unknown>) =>
  FunctionCall.make({ id, name, args: { x: 1 }, ...(metadata ? { metadata } : {}) })
const response = (id: string, name = "f") => FunctionResponse.make({ id, name, response: { output: 1 }, isError: false })
const modelCalls = (...ids: Array<string>): Turn.Turn => ({ role: "model", parts: ids.map((id) => call(id)) })
const responses = (...ids: Array<string>): Turn.Turn => ({ role: "user", parts: ids.map((id) => response(id)) })

const violation = (transcript: Transcript.Transcript) => {
  const result = Transcript.validate(transcript)
  return Either.isLeft(result) ? result.left.message : "valid"
}

describe("Transcript.validate", () => {
  it("accepts a conversation with parallel calls answered in order", () => {
    expect(violation([Turn.user("hi"), modelCalls("a", "b"), responses("a", "b"), Turn.model("done")])).toBe("valid")
    expect(violation([])).toBe("valid")
  })

  it("returns the transcript it was given, and a violation tagged TranscriptViolation", () => {
    const transcript = [Turn.user("hi"), Turn.model("hello")]
    expect(Transcript.validate(transcript)).toEqual(Either.right(transcript))
    expect(Either.getOrThrow(Transcript.validate(transcript))).toBe(transcript)
    const refused = Transcript.validate([responses("a")])
    expect(Either.isLeft(refused) && refused.left._tag).toBe("TranscriptViolation")
  })

  it("accepts model turns in a row when they hold no calls", () => {
    expect(violation([Turn.user("hi"), Turn.model("a"), Turn.model("b"), Turn.user("c")])).toBe("valid")
  })

  it("refuses a response in a model turn right after a call turn as an unanswered call turn", () => {
    expect(violation([Turn.user("hi"), modelCalls("a"), { role: "model", parts: [response("a")] }] as unknown as Transcript.Transcript)).toBe(
      "transcript turn 2: a function call turn is not followed by its response turn"
    )
  })

  it.each([
    ["fewer responses than calls", [Turn.user("hi"), modelCalls("a", "b"), responses("a")], "transcript turn 2: 2 calls answered by 1 responses"],
    ["more responses than calls", [Turn.user("hi"), modelCalls("a"), responses("a", "b")], "transcript turn 2: 1 calls answered by 2 responses"],
    ["responses in another order", [Turn.user("hi"), modelCalls("a", "b"), responses("b", "a")], 'transcript turn 2: response 0 answers id "b", expected "a"'],
    ["a call left unanswered", [Turn.user("hi"), modelCalls("a")], "transcript turn 1: 1 calls are unanswered"],
    ["text between a call and its response", [Turn.user("hi"), modelCalls("a"), Turn.user("hm"), responses("a")], "transcript turn 2: a function call turn is not followed by its response turn"],
    ["responses without a call turn", [Turn.user("hi"), responses("a")], "transcript turn 1: function responses do not follow a function call turn"],
    ["a call turn first", [modelCalls("a"), responses("a")], "transcript turn 0: a function call turn must follow a user turn or a response turn"],
    ["a reused call id", [Turn.user("hi"), modelCalls("a"), responses("a"), modelCalls("a"), responses("a")], 'transcript turn 3: call id "a" is not unique'],
    ["a call in a user turn", [{ role: "user", parts: [call("a")] }], "transcript turn 0: a user turn holds a function call"],
    ["a response in a model turn", [Turn.user("hi"), { role: "model", parts: [response("a")] }], "transcript turn 1: a model turn holds a function response"],
    ["text mixed into a response turn", [Turn.user("hi"), modelCalls("a"), { role: "user", parts: [response("a"), Turn.Text.make({ text: "x" })] }], "transcript turn 2: a response turn holds parts other than function responses"]
  ] as const)("refuses %s", (_, transcript, message) => {
    expect(violation(transcript as unknown as Transcript.Transcript)).toBe(message)
  })
})

describe("Transcript.Validator", () => {
  const violationOf = (either: Either.Either<unknown, Transcript.TranscriptViolation>) => (Either.isLeft(either) ? either.left.message : "valid")

  it.each([
    ["a model answer right after a call turn", [Turn.user("hi"), modelCalls("a"), Turn.model("done")]],
    ["another call turn right after a call turn", [Turn.user("hi"), modelCalls("a"), modelCalls("b")]],
    ["an empty user turn right after a call turn", [Turn.user("hi"), modelCalls("a"), { role: "user", parts: [] }]]
  ] as const)("a call turn must be followed by its response turn: refuses %s", (_, transcript) => {
    expect(violation(transcript as unknown as Transcript.Transcript)).toBe("transcript turn 2: a function call turn is not followed by its response turn")
  })

  it("a call turn may follow a response turn, and text may follow a response turn", () => {
    expect(violation([Turn.user("hi"), modelCalls("a"), responses("a"), modelCalls("b", "c"), responses("b", "c"), Turn.model("ok"), Turn.user("more")])).toBe("valid")
  })

  it("a call turn after a model turn is refused", () => {
    expect(violation([Turn.user("hi"), Turn.model("thinking"), modelCalls("a"), responses("a")])).toBe(
      "transcript turn 2: a function call turn must follow a user turn or a response turn"
    )
  })

  it("a call id repeated within one turn is refused, and a refused turn leaves the validator unchanged", () => {
    const validator = Either.getOrThrow(Transcript.Validator.of([Turn.user("hi")]))
    expect(violationOf(validator.push(modelCalls("a", "a")))).toBe('transcript turn 1: call id "a" is not unique')
    expect(validator.hasCallId("a")).toBe(false)
    expect(violationOf(validator.complete())).toBe("valid")
    expect(violationOf(validator.push(modelCalls("a", "b")))).toBe("valid")
    expect(validator.hasCallId("a") && validator.hasCallId("b")).toBe(true)
    expect(violationOf(validator.complete())).toBe("transcript turn 1: 2 calls are unanswered")
    expect(violationOf(validator.push(responses("a", "b")))).toBe("valid")
    expect(violationOf(validator.complete())).toBe("valid")
  })

  it("Validator.of fails with the first violation of the transcript", () => {
    expect(violationOf(Transcript.Validator.of([Turn.user("hi"), responses("a"), modelCalls("a", "a")]))).toBe(
      "transcript turn 1: function responses do not follow a function call turn"
    )
  })

  it("checkModelTurn: a user turn, a function response, an id seen before or repeated are MalformedResponses", () => {
    const validator = Either.getOrThrow(Transcript.Validator.of([Turn.user("hi"), modelCalls("a"), responses("a")]))
    const message = (turn: Turn.Turn) => validator.checkModelTurn(turn)?.message ?? "fine"
    expect(message(Turn.user("hello"))).toBe('the model answered with a "user" turn')
    expect(message({ role: "model", parts: [Turn.Text.make({ text: "x" }), response("b")] })).toBe("the model turn holds a function response")
    expect(message(modelCalls("b", "a"))).toBe('the model reused the call id "a"')
    expect(message(modelCalls("b", "b"))).toBe('the model reused the call id "b"')
    expect(message(modelCalls("b", "c"))).toBe("fine")
    expect(message(Turn.model("just text"))).toBe("fine")
    expect(message({ role: "model", parts: [Turn.Text.make({ text: "x" }), Turn.Text.make({ text: "y" })] }), "parts without ids are no reused ids").toBe("fine")
    expect(validator.checkModelTurn(Turn.user("hello"))?._tag).toBe("MalformedResponse")
  })

  it("a handed-over validator is taken over by Validator.of on a continuation, and only the new turns are checked", () => {
    const history = Transcript.append([], [Turn.user("hi"), modelCalls("a"), responses("a"), Turn.model("done")])
    const first = Either.getOrThrow(Transcript.Validator.of(history))
    first.handOver(history)
    const next = Transcript.append(history, [Turn.user("again")])
    const second = Either.getOrThrow(Transcript.Validator.of(next))
    expect(second).toBe(first)
    expect(second.hasCallId("a")).toBe(true)
    // Taken once: a second continuation of the same line gets a fresh validator, which checks everything.
    const third = Either.getOrThrow(Transcript.Validator.of(next))
    expect(third).not.toBe(first)
    expect(third.hasCallId("a")).toBe(true)
  })

  it("a handed-over validator is taken over by Validator.of on the very transcript it checked", () => {
    const history = Transcript.append([], [Turn.user("hi"), modelCalls("a"), responses("a")])
    const first = Either.getOrThrow(Transcript.Validator.of(history))
    first.handOver(history)
    expect(Either.getOrThrow(Transcript.Validator.of(history))).toBe(first)
  })

  it("a validator is not handed over for a transcript it has not checked to its end", () => {
    const history = Transcript.append([], [Turn.user("hi"), modelCalls("a"), responses("a")])
    const validator = Either.getOrThrow(Transcript.Validator.of(Transcript.append([], [Turn.user("other")])))
    validator.handOver(history)
    expect(Either.getOrThrow(Transcript.Validator.of(history))).not.toBe(validator)
    const plain = [Turn.user("hi")]
    const fromPlain = Either.getOrThrow(Transcript.Validator.of(plain))
    fromPlain.handOver(plain)
    expect(Either.getOrThrow(Transcript.Validator.of(plain))).not.toBe(fromPlain)
  })

  it("a handed-over validator is not reused for a shorter transcript of the same line", () => {
    const short = Transcript.append([], [Turn.user("hi")])
    const long = Transcript.append(short, [modelCalls("a"), responses("a")])
    const validator = Either.getOrThrow(Transcript.Validator.of(long))
    validator.handOver(long)
    const again = Either.getOrThrow(Transcript.Validator.of(short))
    expect(again).not.toBe(validator)
    expect(again.hasCallId("a")).toBe(false)
  })
})

/** JSON as it crosses the wire: JSON has no -0, so a generated -0 could never round-trip. */
const json = fc.jsonValue().map((value): unknown => JSON.parse(JSON.stringify(value)))

const partArb: fc.Arbitrary<Turn.Part> = fc.oneof(
  fc.string().map((text) => Turn.Text.make({ text })),
  fc.record({ text: fc.string(), sig: fc.base64String() }).map(({ text, sig }) => Turn.Text.make({ text, metadata: { thoughtSignature: sig } })),
  fc.string().map((text) => Turn.Reasoning.make({ text })),
  fc.record({ id: fc.string({ minLength: 1 }), name: fc.string(), args: fc.dictionary(fc.string(), json) }).map((c) => FunctionCall.make(c)),
  fc.record({ id: fc.string({ minLength: 1 }), name: fc.string(), response: fc.dictionary(fc.string(), json), isError: fc.boolean() }).map((r) => FunctionResponse.make(r)),
  json.map((data) => Turn.Opaque.make({ provider: "gemini", data }))
)

describe("neutral schemas", () => {
  it.prop("any transcript round-trips through its JSON encoding", [fc.array(fc.record({ role: fc.constantFrom("user" as const, "model" as const), parts: fc.array(partArb, { maxLength: 4 }) }), { maxLength: 6 })], ([transcript]) => {
    const codec = Schema.parseJson(Transcript.Transcript)
    const decoded = Schema.decodeUnknownSync(codec)(Schema.encodeSync(codec)(transcript))
    expect(decoded).toEqual(transcript)
  })

  it("a call without an id, or with non-object args, does not decode", () => {
    expect(Either.isLeft(Schema.decodeUnknownEither(FunctionCall.FunctionCall)({ _tag: "FunctionCall", id: "", name: "f", args: {} }))).toBe(true)
    expect(Either.isLeft(Schema.decodeUnknownEither(FunctionCall.FunctionCall)({ _tag: "FunctionCall", id: "a", name: "f", args: [] }))).toBe(true)
    expect(Either.isLeft(Schema.decodeUnknownEither(FunctionResponse.FunctionResponse)({ _tag: "FunctionResponse", id: "a", name: "f", response: "text", isError: false }))).toBe(true)
  })

  it("isPrefixOf compares turns by identity", () => {
    const a = Turn.user("a")
    const b = Turn.model("b")
    expect(Transcript.isPrefixOf([a], [a, b])).toBe(true)
    expect(Transcript.isPrefixOf([Turn.user("a")], [a, b])).toBe(false)
    expect(Transcript.isPrefixOf([a, b, a], [a, b])).toBe(false)
    expect(Transcript.isPrefixOf([a, b], [a, b]), "a transcript is a prefix of itself").toBe(true)
    expect(Transcript.isPrefixOf([a, Turn.user("b")], [a, b]), "every turn must match, not only the first").toBe(false)
  })
})

describe("Transcript.append", () => {
  const a = Turn.user("a")
  const b = Turn.model("b")
  const c = Turn.user("c")

  it("a snapshot never changes when the transcript it was taken from grows", () => {
    const first = Transcript.append([], [a])
    const second = Transcript.append(first, [b])
    const third = Transcript.append(second, [c])
    expect(first).toEqual([a])
    expect(second).toEqual([a, b])
    expect(third).toEqual([a, b, c])
    expect([first.length, second.length, third.length]).toEqual([1, 2, 3])
    expect(second[2]).toBeUndefined()
    expect(2 in second).toBe(false)
  })

  it("extends the newest snapshot in place and shares its storage; a plain array is copied once", () => {
    const plain = [a]
    const first = Transcript.append(plain, [b])
    expect(plain).toEqual([a])
    expect(AppendOnly.sameBacking(first, plain)).toBe(false)
    const second = Transcript.append(first, [c])
    expect(AppendOnly.sameBacking(first, second)).toBe(true)
    expect(Transcript.isPrefixOf(first, second)).toBe(true)
    expect(Transcript.isPrefixOf(second, first)).toBe(false)
  })

  it("appending to an older snapshot starts a branch; neither branch sees the other's turns", () => {
    const base = Transcript.append([], [a])
    const left = Transcript.append(base, [b])
    const right = Transcript.append(base, [c])
    expect(left).toEqual([a, b])
    expect(right).toEqual([a, c])
    expect(AppendOnly.sameBacking(left, right)).toBe(false)
    expect(Transcript.isPrefixOf(base, right)).toBe(true)
  })

  it("reads as a real readonly array: isArray, iteration, spread, methods, JSON, Schema encoding", () => {
    const view = Transcript.append(Transcript.append([], [a]), [b, c])
    expect(Array.isArray(view)).toBe(true)
    expect([...view]).toEqual([a, b, c])
    const seen: Array<Turn.Turn> = []
    for (const turn of view) seen.push(turn)
    expect(seen).toEqual([a, b, c])
    expect(view.map((turn) => turn.role)).toEqual(["user", "model", "user"])
    expect(view.slice(1)).toEqual([b, c])
    expect(view.at(-1)).toBe(c)
    expect(Object.keys(view)).toEqual(["0", "1", "2"])
    expect(JSON.parse(JSON.stringify(view))).toEqual(JSON.parse(JSON.stringify([a, b, c])))
    expect(Schema.encodeSync(Transcript.Transcript)(view)).toEqual([a, b, c])
    expect(Either.isRight(Transcript.validate(view))).toBe(true)
  })

  it("refuses writes", () => {
    const view = Transcript.append([], [a, b]) as Array<Turn.Turn>
    expect(() => {
      view[0] = c
    }).toThrow(TypeError)
    expect(() => view.push(c)).toThrow(TypeError)
    expect(() => view.pop()).toThrow(TypeError)
    expect(() => {
      view.length = 0
    }).toThrow(TypeError)
    expect(() => Object.defineProperty(view, "0", { value: c })).toThrow(TypeError)
    expect(view).toEqual([a, b])
  })

  it.prop(
    "any sequence of appends, to any earlier snapshot, gives each snapshot exactly the turns it was built from",
    [fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 3 })), { maxLength: 40 })],
    ([operations]) => {
      const snapshots: Array<Transcript.Transcript> = [[]]
      const expected: Array<ReadonlyArray<Turn.Turn>> = [[]]
      operations.forEach(([pick, count], i) => {
        const from = pick % snapshots.length
        const turns = Array.from({ length: count }, (_, k) => Turn.user(`${i}.${k}`))
        snapshots.push(Transcript.append(snapshots[from]!, turns))
        expected.push([...expected[from]!, ...turns])
      })
      snapshots.forEach((snapshot, i) => {
        expect(snapshot.length).toBe(expected[i]!.length)
        expected[i]!.forEach((turn, k) => expect(snapshot[k]).toBe(turn))
      })
    }
  )
})
