import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import * as Schema from "effect/Schema"
import type { Json } from "@agentfx/core"
import { EvalCase, EvalValidator } from "@agentfx/tools"

type Expected = Schema.Schema.Encoded<typeof EvalCase.ExpectedCall>

const caseOf = (expected: ReadonlyArray<Expected>, scenario = "valid-warranty") =>
  Either.getOrThrow(EvalCase.make({ id: "c", input: "x", scenario, expected_function_calls: expected }))

const call = (name: string, args: Json.JsonObject = {}, response: Json.JsonObject = { ok: true }, isError = false): EvalValidator.ObservedCall => ({
  name,
  args,
  response,
  isError,
  durationMs: 1
})

const check = (expected: ReadonlyArray<Expected>, calls: ReadonlyArray<EvalValidator.ObservedCall>, scenario = "valid-warranty") =>
  EvalValidator.validate(caseOf(expected), { scenario, calls })

const described = (mismatches: ReadonlyArray<EvalValidator.Mismatch>) => mismatches.map((m) => EvalValidator.describe(m))

const flow = [{ function_name: "check_warranty" }, { function_name: "create_ticket" }, { function_name: "send_email" }]

describe("EvalValidator.validate", () => {
  it("passes when every expectation is met", () => {
    const mismatches = check(
      [
        { function_name: "check_warranty", arguments: { serial_number: "SN-1" } },
        { function_name: "create_ticket", arguments_contain: { serial_number: "SN-1", details: { model: "K2" } }, result_contains: { ticket_id: "T-1" } },
        { function_name: "send_email", arguments_contain: { to: "ada@example.com" }, body_contains: ["ticket T-1", "UNDER WARRANTY"] }
      ],
      [
        call("check_warranty", { serial_number: "SN-1" }, { valid: true }),
        call("create_ticket", { serial_number: "SN-1", summary: "x", details: { model: "K2", color: "red" } }, { ticket_id: "T-1", eta: 3 }),
        call("send_email", { to: "ada@example.com", subject: "Re", body: "Your kettle is under\n  warranty; Ticket   T-1 is open." })
      ]
    )
    expect(mismatches).toStrictEqual([])
  })

  it("reports the wrong scenario, or none", () => {
    expect(described(check([], [], "invalid-warranty"))).toStrictEqual([`scenario: expected "valid-warranty", got "invalid-warranty"`])
    expect(EvalValidator.validate(caseOf([]), { calls: [] })).toStrictEqual([{ _tag: "ScenarioMismatch", expected: "valid-warranty" }])
    expect(described(EvalValidator.validate(caseOf([]), { calls: [] }))).toStrictEqual([`scenario: expected "valid-warranty", got none`])
  })

  it("reports a missing call with the count", () => {
    const mismatches = check(flow, [call("check_warranty"), call("send_email")])
    expect(mismatches).toStrictEqual([
      {
        _tag: "CallCountMismatch",
        expected: 3,
        actual: 2,
        expectedNames: ["check_warranty", "create_ticket", "send_email"],
        actualNames: ["check_warranty", "send_email"]
      },
      { _tag: "MissingCall", expectedIndex: 2, functionName: "create_ticket" }
    ])
    expect(described(mismatches)).toStrictEqual([
      "expected 3 calls (check_warranty, create_ticket, send_email), got 2 (check_warranty, send_email)",
      "expected call 2 create_ticket was not made"
    ])
  })

  it("reports an unexpected call with its arguments", () => {
    const mismatches = check([{ function_name: "send_email" }], [call("create_ticket", { serial_number: "SN-9" }), call("send_email")])
    expect(mismatches).toStrictEqual([
      { _tag: "CallCountMismatch", expected: 1, actual: 2, expectedNames: ["send_email"], actualNames: ["create_ticket", "send_email"] },
      { _tag: "UnexpectedCall", actualIndex: 1, functionName: "create_ticket", args: { serial_number: "SN-9" } }
    ])
    expect(described(mismatches)[1]).toBe(`call 1 create_ticket({"serial_number":"SN-9"}) was not expected`)
    expect(described(check([], [call("send_email")]))).toStrictEqual(["expected 0 calls (none), got 1 (send_email)", "call 1 send_email({}) was not expected"])
  })

  it("reports calls out of order, and still checks their arguments", () => {
    const mismatches = check(
      [{ function_name: "check_warranty", arguments: { serial_number: "SN-1" } }, { function_name: "send_email" }],
      [call("send_email"), call("check_warranty", { serial_number: "SN-2" })]
    )
    expect(mismatches).toStrictEqual([
      { _tag: "OutOfOrder", functionName: "check_warranty", expectedIndex: 1, actualIndex: 2 },
      {
        _tag: "ArgumentMismatch",
        expectedIndex: 1,
        actualIndex: 2,
        functionName: "check_warranty",
        rule: "arguments",
        path: "serial_number",
        problem: "different",
        expected: "SN-1",
        actual: "SN-2"
      }
    ])
    expect(described(mismatches)).toStrictEqual([
      "check_warranty was expected as call 1 but came as call 2",
      `call 2 check_warranty (expected as call 1): arguments.serial_number: expected "SN-1", got "SN-2"`
    ])
  })

  it("reports a wrong function at a position as a missing and an unexpected call", () => {
    expect(described(check(flow, [call("check_warranty"), call("refund"), call("send_email")]))).toStrictEqual([
      "expected call 2 create_ticket was not made",
      "call 2 refund({}) was not expected"
    ])
  })

  it("reports each exact-argument difference: different, missing and unexpected", () => {
    const mismatches = check(
      [{ function_name: "create_ticket", arguments: { serial_number: "SN-1", summary: "Broken", items: [1, 2], meta: { a: 1 } } }],
      [call("create_ticket", { serial_number: "SN-2", items: [1, 3], meta: { a: 1, b: 2 }, priority: "high" })]
    )
    expect(mismatches.map((m) => (m._tag === "ArgumentMismatch" ? [m.path, m.problem, m.expected, m.actual] : m._tag))).toStrictEqual([
      ["serial_number", "different", "SN-1", "SN-2"],
      ["summary", "missing", "Broken", undefined],
      ["items[1]", "different", 2, 3],
      ["meta.b", "unexpected", undefined, 2],
      ["priority", "unexpected", undefined, "high"]
    ])
    expect(described(mismatches)).toStrictEqual([
      `call 1 create_ticket: arguments.serial_number: expected "SN-1", got "SN-2"`,
      `call 1 create_ticket: arguments.summary: expected "Broken", but it is absent`,
      `call 1 create_ticket: arguments.items[1]: expected 2, got 3`,
      `call 1 create_ticket: arguments.meta.b: not expected, got 2`,
      `call 1 create_ticket: arguments.priority: not expected, got "high"`
    ])
  })

  it("reports partial-argument differences, ignoring extra arguments", () => {
    const mismatches = check(
      [{ function_name: "send_email", arguments_contain: { to: "ada@example.com", cc: ["b@x"], headers: { lang: "en" } } }],
      [call("send_email", { to: "bob@example.com", cc: ["b@x", "c@x"], headers: { lang: "en", x: 1 }, body: "hi" })]
    )
    expect(described(mismatches)).toStrictEqual([
      `call 1 send_email: arguments_contain.to: expected "ada@example.com", got "bob@example.com"`,
      `call 1 send_email: arguments_contain.cc: expected ["b@x"], got ["b@x","c@x"]`
    ])
    expect(mismatches[0]).toMatchObject({ _tag: "ArgumentMismatch", rule: "arguments_contain" })
  })

  it("reports result fields the response lacks, and says when the call failed", () => {
    const wrong = check([{ function_name: "create_ticket", result_contains: { ticket_id: "T-1", status: "open" } }], [call("create_ticket", {}, { ticket_id: "T-2" })])
    expect(described(wrong)).toStrictEqual([
      `call 1 create_ticket: result.ticket_id: expected "T-1", got "T-2"`,
      `call 1 create_ticket: result.status: expected "open", but it is absent`
    ])
    const failed = check(
      [{ function_name: "check_warranty", result_contains: { valid: true } }],
      [call("check_warranty", {}, { error: { type: "ExecutionFailed", message: "warranty service down" } }, true)]
    )
    expect(failed).toStrictEqual([
      {
        _tag: "ResultMismatch",
        expectedIndex: 1,
        actualIndex: 1,
        functionName: "check_warranty",
        path: "valid",
        problem: "missing",
        expected: true,
        callError: "warranty service down"
      }
    ])
    expect(described(failed)).toStrictEqual([`call 1 check_warranty: result.valid: expected true, but it is absent (the call failed: warranty service down)`])
    expect(check([{ function_name: "check_warranty", result_contains: { error: { type: "ExecutionFailed" } } }], [call("check_warranty", {}, { error: { type: "ExecutionFailed", message: "m" } }, true)])).toStrictEqual([])
  })

  it("reports each body phrase that is missing (case-insensitive), and a missing body", () => {
    const mismatches = check(
      [{ function_name: "send_email", body_contains: ["Ticket T-1", "sorry", "warranty"] }],
      [call("send_email", { body: "Your WARRANTY is valid; ticket t-1 is open." })]
    )
    expect(mismatches).toStrictEqual([
      {
        _tag: "BodyPhraseMissing",
        expectedIndex: 1,
        actualIndex: 1,
        functionName: "send_email",
        phrase: "sorry",
        body: "Your WARRANTY is valid; ticket t-1 is open."
      }
    ])
    expect(described(mismatches)).toStrictEqual([
      `call 1 send_email: the body does not contain "sorry" (case-insensitive); body: "Your WARRANTY is valid; ticket t-1 is open."`
    ])
    expect(check([{ function_name: "send_email", body_contains: "x" }], [call("send_email", { body: 42 })])).toStrictEqual([
      { _tag: "BodyMissing", expectedIndex: 1, actualIndex: 1, functionName: "send_email" }
    ])
    expect(described(check([{ function_name: "send_email", body_contains: "x" }], [call("send_email", {})]))).toStrictEqual([
      `call 1 send_email: body_contains needs a string "body" argument, and there is none`
    ])
  })

  it("reports every mismatch of a case at once", () => {
    const mismatches = check(
      [
        { function_name: "check_warranty", arguments: { serial_number: "SN-1" } },
        { function_name: "create_ticket" },
        { function_name: "send_email", body_contains: ["ticket"] }
      ],
      [call("check_warranty", { serial_number: "SN-3" }), call("send_email", { body: "Sorry." })],
      "degradation"
    )
    expect(mismatches.map((m) => m._tag)).toStrictEqual(["ScenarioMismatch", "CallCountMismatch", "MissingCall", "ArgumentMismatch", "BodyPhraseMissing"])
  })

  it("cuts long values in descriptions only", () => {
    const body = "x".repeat(1000)
    const [mismatch] = check([{ function_name: "send_email", body_contains: "y" }], [call("send_email", { body })])
    expect(mismatch).toMatchObject({ body })
    expect(EvalValidator.describe(mismatch!, 50)).toBe(`call 1 send_email: the body does not contain "y" (case-insensitive); body: "${"x".repeat(48)}…`)
  })

  const names = fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 6 })
  it.prop("the calls an agent made always satisfy the expectations listing them", [names], ([list]) => {
    expect(check(list.map((function_name) => ({ function_name })), list.map((name) => call(name)))).toStrictEqual([])
  })

  it.prop("every expected call is accounted for once: matched, missing or out of order", [names, names], ([expected, actual]) => {
    const mismatches = check(expected.map((function_name) => ({ function_name })), actual.map((name) => call(name)))
    const missing = mismatches.filter((m) => m._tag === "MissingCall").length
    const reordered = mismatches.filter((m) => m._tag === "OutOfOrder").length
    const unexpected = mismatches.filter((m) => m._tag === "UnexpectedCall").length
    const matched = expected.length - missing - reordered
    expect(matched + reordered + unexpected).toBe(actual.length)
    expect(mismatches.length === 0).toBe(expected.join() === actual.join())
  })
})

describe("Mismatch", () => {
  it("round-trips through its Schema as JSON", () => {
    const mismatches = check(
      [{ function_name: "create_ticket", arguments: { a: 1 }, result_contains: { t: 1 } }, { function_name: "send_email", body_contains: "x" }],
      [call("send_email", { body: "y" }), call("create_ticket", { b: null }, { error: { message: "m" } }, true), call("z")],
      "other"
    )
    const schema = Schema.parseJson(Schema.Array(EvalValidator.Mismatch))
    const decoded = Schema.decodeUnknownSync(schema)(Schema.encodeSync(schema)(mismatches))
    expect(decoded).toStrictEqual(mismatches)
    expect(new Set(mismatches.map((m) => m._tag)).size).toBeGreaterThanOrEqual(6)
  })
})

describe("EvalValidator: alignment, phrases, failed calls and descriptions at their edges", () => {
  it("aligns by the longest common subsequence, so one early stray call does not make the rest out of order", () => {
    const names = (mismatches: ReadonlyArray<EvalValidator.Mismatch>) => mismatches.map((m) => m._tag)
    // b, c, d keep their order; a came last: only a is out of order.
    expect(check([{ function_name: "a" }, { function_name: "b" }, { function_name: "c" }, { function_name: "d" }], [call("b"), call("c"), call("d"), call("a")])).toStrictEqual([
      { _tag: "OutOfOrder", functionName: "a", expectedIndex: 1, actualIndex: 4 }
    ])
    // Strays between aligned calls are unexpected; the aligned calls are neither missing nor out of order.
    expect(names(check([{ function_name: "a" }, { function_name: "b" }, { function_name: "c" }], [call("x"), call("a"), call("y"), call("b"), call("c")]))).toStrictEqual([
      "CallCountMismatch",
      "UnexpectedCall",
      "UnexpectedCall"
    ])
    // Two ways to align two calls out of three: the longer subsequence (b, c) wins over (a).
    expect(check([{ function_name: "a" }, { function_name: "b" }, { function_name: "c" }], [call("b"), call("c"), call("a")])).toStrictEqual([
      { _tag: "OutOfOrder", functionName: "a", expectedIndex: 1, actualIndex: 3 }
    ])
    expect(check([{ function_name: "b" }, { function_name: "c" }, { function_name: "a" }], [call("a"), call("b"), call("c")])).toStrictEqual([
      { _tag: "OutOfOrder", functionName: "a", expectedIndex: 3, actualIndex: 1 }
    ])
  })

  it("checks pairs in the order the calls were made, out-of-order ones included", () => {
    const mismatches = check(
      [
        { function_name: "a", arguments: { n: 1 } },
        { function_name: "b", arguments: { n: 2 } },
        { function_name: "c", arguments: { n: 3 } }
      ],
      [call("c", { n: 0 }), call("a", { n: 0 }), call("b", { n: 0 })]
    )
    expect(mismatches.map((m) => (m._tag === "ArgumentMismatch" ? `${m.functionName}@${m.actualIndex}` : m._tag))).toStrictEqual(["OutOfOrder", "c@1", "a@2", "b@3"])
  })

  it("calls of one function made in the same turn (in parallel) may come in any order; across turns the order counts", () => {
    const inTurn = (turn: number | undefined, name: string, args: Json.JsonObject): EvalValidator.ObservedCall => ({ ...call(name, args), ...(turn === undefined ? {} : { turn }) })
    const expected: ReadonlyArray<Expected> = [
      { function_name: "check_warranty", arguments: { serial_number: "SN-A" } },
      { function_name: "check_warranty", arguments: { serial_number: "SN-B" } },
      { function_name: "send_email", arguments_contain: { to: "x@y.z" } }
    ]
    const swapped = (turns: readonly [number | undefined, number | undefined]) => [
      inTurn(turns[0], "check_warranty", { serial_number: "SN-B" }),
      inTurn(turns[1], "check_warranty", { serial_number: "SN-A" }),
      inTurn(2, "send_email", { to: "x@y.z" })
    ]
    expect(check(expected, swapped([1, 1]))).toStrictEqual([])
    // In two turns, or without turns, the second check came first: each pair is checked where it stands.
    for (const turns of [[1, 2], [undefined, undefined]] as const) {
      expect(described(check(expected, swapped(turns)))).toStrictEqual([
        'call 1 check_warranty: arguments.serial_number: expected "SN-A", got "SN-B"',
        'call 2 check_warranty: arguments.serial_number: expected "SN-B", got "SN-A"'
      ])
    }
    // Within the turn, a call that fits none is reported against the call left to it, the best fits paired first.
    const threeInTurn = [
      inTurn(1, "check_warranty", { serial_number: "SN-B" }),
      inTurn(1, "check_warranty", { serial_number: "SN-C" }),
      inTurn(2, "send_email", { to: "x@y.z" })
    ]
    expect(described(check(expected, threeInTurn))).toStrictEqual([
      'call 2 check_warranty (expected as call 1): arguments.serial_number: expected "SN-A", got "SN-C"'
    ])
    // A tie goes to the earlier expected call: both expect SN-A, the first gets the call that has it.
    const twice: ReadonlyArray<Expected> = [expected[0]!, expected[0]!]
    const tied = check(twice, [inTurn(1, "check_warranty", { serial_number: "SN-A" }), inTurn(1, "check_warranty", { serial_number: "SN-Z" })])
    expect(described(tied)).toStrictEqual(['call 2 check_warranty: arguments.serial_number: expected "SN-A", got "SN-Z"'])
  })

  it("finds an expected call after calls that were not expected, keeping the order", () => {
    const mismatches = check([{ function_name: "check_warranty" }], [call("send_email"), call("send_email"), call("check_warranty")])
    expect(mismatches.map((m) => m._tag)).toStrictEqual(["CallCountMismatch", "UnexpectedCall", "UnexpectedCall"])
  })

  it("matches phrases ignoring case and runs of white space, but not missing spaces", () => {
    const send = (body: string, phrases: Array<string>) => check([{ function_name: "send_email", body_contains: phrases }], [call("send_email", { body })])
    expect(send("  Your TICKET\n\tis   open  ", ["ticket is open", "YOUR ticket"])).toStrictEqual([])
    expect(send("thankyou", ["thank you"])).toStrictEqual([
      { _tag: "BodyPhraseMissing", expectedIndex: 1, actualIndex: 1, functionName: "send_email", phrase: "thank you", body: "thankyou" }
    ])
    expect(send("Thank you", [" thank you "])).toStrictEqual([])
  })

  it("an empty body_contains is refused (it would check nothing); a phrase needs a string body", () => {
    const made = EvalCase.make({ id: "c", input: "x", scenario: "valid-warranty", expected_function_calls: [{ function_name: "send_email", body_contains: [] }] })
    expect(Either.isLeft(made) && made.left.message).toMatch(/body_contains: the list is empty/)
    expect(check([{ function_name: "send_email", body_contains: ["hi"] }], [call("send_email", { to: "a@b.c" })])).toStrictEqual([
      { _tag: "BodyMissing", expectedIndex: 1, actualIndex: 1, functionName: "send_email" }
    ])
  })

  it("a result mismatch of a failed call says why it failed: the error's message, or the error itself when it has none", () => {
    const failed = (error: unknown) => check([{ function_name: "f", result_contains: { ok: true } }], [call("f", {}, { error }, true)])
    expect(failed({ message: "the ledger is down", code: 503 })).toStrictEqual([
      { _tag: "ResultMismatch", expectedIndex: 1, actualIndex: 1, functionName: "f", path: "ok", problem: "missing", expected: true, callError: "the ledger is down" }
    ])
    expect(failed({ code: 503 })).toStrictEqual([
      { _tag: "ResultMismatch", expectedIndex: 1, actualIndex: 1, functionName: "f", path: "ok", problem: "missing", expected: true, callError: `{"code":503}` }
    ])
    expect(failed("gone")).toStrictEqual([
      { _tag: "ResultMismatch", expectedIndex: 1, actualIndex: 1, functionName: "f", path: "ok", problem: "missing", expected: true, callError: `"gone"` }
    ])
    // A call that did not fail has no `callError` key at all, even when its response holds an `error` field.
    const [mismatch] = check([{ function_name: "f", result_contains: { ok: true } }], [call("f", {}, { error: { message: "not a failure" } })])
    expect(mismatch).toStrictEqual({ _tag: "ResultMismatch", expectedIndex: 1, actualIndex: 1, functionName: "f", path: "ok", problem: "missing", expected: true })
    expect(Object.keys(mismatch!)).not.toContain("callError")
  })

  it("describes counts in the singular and plural, and a difference at the top of a value by its rule alone", () => {
    const count = (expected: number, actual: number, expectedNames: Array<string>, actualNames: Array<string>) =>
      EvalValidator.describe({ _tag: "CallCountMismatch", expected, actual, expectedNames, actualNames })
    expect(count(1, 2, ["a"], ["a", "b"])).toBe("expected 1 call (a), got 2 (a, b)")
    expect(count(2, 1, ["a", "b"], ["a"])).toBe("expected 2 calls (a, b), got 1 (a)")
    expect(count(0, 1, [], ["a"])).toBe("expected 0 calls (none), got 1 (a)")
    const top = { _tag: "ArgumentMismatch", expectedIndex: 1, actualIndex: 1, functionName: "f", rule: "arguments", path: "", problem: "different", expected: 1, actual: 2 } as const
    expect(EvalValidator.describe(top)).toBe("call 1 f: arguments: expected 1, got 2")
    expect(EvalValidator.describe({ ...top, path: "a.b" })).toBe("call 1 f: arguments.a.b: expected 1, got 2")
  })

  it("ObservedCall decodes a call as reports store it and refuses one without a name or with arguments that are not an object", () => {
    const decode = Schema.decodeUnknownEither(EvalValidator.ObservedCall)
    const stored = { id: "c1", name: "f", args: { n: 1 }, response: { ok: true }, isError: false, durationMs: 3, turn: 2 }
    expect(decode(stored)).toStrictEqual(Either.right(stored))
    expect(Either.isLeft(decode({ ...stored, name: 1 }))).toBe(true)
    expect(Either.isLeft(decode({ ...stored, args: [1] }))).toBe(true)
    expect(Either.isLeft(decode({ ...stored, args: { 1: 2 }, response: "ok" }))).toBe(true)
    const { name: _name, ...nameless } = stored
    expect(Either.isLeft(decode(nameless))).toBe(true)
  })
})
