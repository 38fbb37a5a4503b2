import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import { EvalReport } from "@agentfx/tools"
import { findAll, parseXml, XmlError } from "./support/xml.js"

const passed: EvalReport.CaseResult = {
  id: "valid-1",
  description: "Valid warranty",
  file: "cases/valid-1.yaml",
  expectedScenario: "valid-warranty",
  scenario: "valid-warranty",
  status: "passed",
  calls: [
    { id: "c1", name: "check_warranty", args: { serial_number: "SN-1" }, response: { valid: true }, isError: false, durationMs: 3, turn: 1 },
    { id: "c2", name: "send_email", args: { to: "ada@example.com", body: "Hi" }, response: { sent: true }, isError: false, durationMs: 1, turn: 2 }
  ],
  mismatches: [],
  text: "Done.",
  turns: 3,
  stopReason: "finished",
  durationMs: 12
}

const failed: EvalReport.CaseResult = {
  id: "degradation-1",
  description: "",
  expectedScenario: "degradation",
  scenario: "degradation",
  status: "failed",
  calls: [{ name: "check_warranty", args: { serial_number: "<SN & 'x'>" }, response: { error: { type: "ExecutionFailed", message: "down" } }, isError: true, durationMs: 0 }],
  mismatches: [
    { _tag: "CallCountMismatch", expected: 2, actual: 1, expectedNames: ["check_warranty", "send_email"], actualNames: ["check_warranty"] },
    { _tag: "MissingCall", expectedIndex: 2, functionName: "send_email" }
  ],
  text: "",
  turns: 2,
  stopReason: "finished",
  durationMs: 1500
}

const errored: EvalReport.CaseResult = {
  id: "weird-\u0001-chars",
  description: `quotes " and ' and ]]> and \uD800 lone`,
  expectedScenario: "valid-warranty",
  status: "error",
  calls: [],
  mismatches: [],
  error: "the case timed out after 2m <&>",
  text: "",
  turns: 0,
  stopReason: "error",
  durationMs: 120000
}

const report = EvalReport.make({ suite: "warranty", cases: [passed, failed, errored], durationMs: 2000 })

describe("EvalReport.summarize", () => {
  it("counts passed, failed and errored cases and decides against the threshold", () => {
    expect(report.summary).toStrictEqual({ total: 3, passed: 1, failed: 1, errored: 1, passRate: 1 / 3, threshold: 0.99, ok: false })
    expect(EvalReport.exitCode(report)).toBe(1)
    expect(EvalReport.summarize([passed, failed, errored], 0.3)).toMatchObject({ ok: true })
    expect(EvalReport.exitCode(EvalReport.make({ suite: "s", cases: [passed], durationMs: 0 }))).toBe(0)
  })

  it("passes exactly at the threshold (99 of 100 at 0.99) and fails just below", () => {
    const cases = (n: number, bad: number) => Array.from({ length: n }, (_, i) => (i < bad ? failed : passed))
    expect(EvalReport.summarize(cases(100, 1))).toMatchObject({ passRate: 0.99, ok: true })
    expect(EvalReport.summarize(cases(100, 2))).toMatchObject({ passRate: 0.98, ok: false })
    expect(EvalReport.summarize(cases(16, 1))).toMatchObject({ ok: false })
  })

  it("never passes an empty suite, and refuses a threshold outside [0, 1]", () => {
    expect(EvalReport.summarize([], 0)).toStrictEqual({ total: 0, passed: 0, failed: 0, errored: 0, passRate: 0, threshold: 0, ok: false })
    expect(() => EvalReport.summarize([passed], 1.5)).toThrow("the threshold is a fraction between 0 and 1, got 1.5")
    expect(() => EvalReport.summarize([passed], Number.NaN)).toThrow(RangeError)
  })
})

describe("EvalReport.checkThreshold", () => {
  it("takes a fraction from 0 to 1, both ends included, and refuses anything else as a RangeError", () => {
    expect([0, 0.5, 1].map(EvalReport.checkThreshold)).toStrictEqual([0, 0.5, 1])
    for (const bad of [-0.01, 1.01, Number.NaN]) {
      expect(() => EvalReport.checkThreshold(bad)).toThrow(new RangeError(`the threshold is a fraction between 0 and 1, got ${bad}`))
    }
  })
})

describe("EvalReport.pretty", () => {
  it("prints each case with ✓/✗, its numbered calls with arguments and results, then its failures, then the summary", () => {
    expect(EvalReport.pretty(report)).toBe(
      [
        "warranty: 3 cases",
        "",
        "✓ valid-1 — Valid warranty  [valid-warranty] 12 ms",
        `    1. check_warranty({"serial_number":"SN-1"}) → {"valid":true}`,
        `    2. send_email({"to":"ada@example.com","body":"Hi"}) → {"sent":true}`,
        "✗ degradation-1  [degradation] 1.50 s",
        `    1. check_warranty({"serial_number":"<SN & 'x'>"}) ✗ {"error":{"type":"ExecutionFailed","message":"down"}}`,
        "    failures:",
        "      - expected 2 calls (check_warranty, send_email), got 1 (check_warranty)",
        "      - expected call 2 send_email was not made",
        `✗ weird-\u0001-chars — quotes " and ' and ]]> and \uD800 lone  [no scenario] 120.00 s`,
        "    (no calls)",
        "    error: the case timed out after 2m <&>",
        "",
        "1/3 passed (33.33 %), 1 failed, 1 errored — threshold 99 %: FAIL  2.00 s"
      ].join("\n")
    )
  })

  it("colours only when asked, and cuts long values", () => {
    expect(EvalReport.pretty(report)).not.toContain("\u001b[")
    const coloured = EvalReport.pretty(report, { color: true })
    expect(coloured).toContain("\u001b[32m✓\u001b[0m valid-1")
    expect(coloured).toContain("\u001b[31mFAIL\u001b[0m")
    const long = EvalReport.make({ suite: "s", cases: [{ ...passed, calls: [{ ...passed.calls[0]!, args: { body: "y".repeat(500) } }] }], durationMs: 0 })
    expect(EvalReport.pretty(long, { maxValueLength: 20 })).toContain(`1. check_warranty({"body":"yyyyyyyyyy…) → {"valid":true}`)
    expect(EvalReport.pretty(long)).toContain("PASS")
  })

  it("says case for one, cases for more; a second is written in seconds from exactly 1,000 ms", () => {
    const one = EvalReport.pretty(EvalReport.make({ suite: "s", cases: [{ ...passed, durationMs: 999.6 }], durationMs: 1000 }))
    expect(one.split("\n")[0]).toBe("s: 1 case")
    expect(one).toContain("[valid-warranty] 1000 ms")
    expect(one.trimEnd().endsWith("1.00 s")).toBe(true)
    expect(EvalReport.pretty(EvalReport.make({ suite: "s", cases: [], durationMs: 999 })).split("\n")[0]).toBe("s: 0 cases")
  })
})

describe("EvalReport.json", () => {
  it("round-trips through the Schema", () => {
    const text = EvalReport.json(report)
    expect(JSON.parse(text)).toMatchObject({ suite: "warranty", summary: { total: 3 } })
    expect(EvalReport.fromJson(text)).toStrictEqual(Either.right(report))
  })

  it("refuses text that is not a report", () => {
    expect(Either.isLeft(EvalReport.fromJson("{"))).toBe(true)
    expect(Either.isLeft(EvalReport.fromJson(JSON.stringify({ ...JSON.parse(EvalReport.json(report)), summary: { total: "3" } })))).toBe(true)
    const wrongStatus = JSON.parse(EvalReport.json(report)) as { cases: Array<{ status: string }> }
    wrongStatus.cases[0]!.status = "skipped"
    expect(Either.isLeft(EvalReport.fromJson(JSON.stringify(wrongStatus)))).toBe(true)
  })
})

describe("EvalReport.junit", () => {
  it("is well-formed XML with one testcase per case, failures and errors", () => {
    const xml = EvalReport.junit(report)
    const root = parseXml(xml)
    expect(root.name).toBe("testsuites")
    expect(root.attributes).toMatchObject({ name: "warranty", tests: "3", failures: "1", errors: "1", time: "2.000" })
    const [suite] = findAll(root, "testsuite")
    expect(suite!.attributes).toMatchObject({ tests: "3", failures: "1", errors: "1", skipped: "0" })
    const cases = findAll(root, "testcase")
    expect(cases.map((c) => [c.attributes.name, c.attributes.classname, c.attributes.time])).toStrictEqual([
      ["valid-1: Valid warranty", "valid-warranty", "0.012"],
      ["degradation-1", "degradation", "1.500"],
      [`weird--chars: quotes " and ' and ]]> and  lone`, "valid-warranty", "120.000"]
    ])
    expect(cases[0]!.children.map((c) => c.name)).toStrictEqual(["system-out"])
    expect(cases[0]!.attributes.file).toBe("cases/valid-1.yaml")
    const [failure] = findAll(cases[1]!, "failure")
    expect(failure!.attributes.message).toBe("expected 2 calls (check_warranty, send_email), got 1 (check_warranty) (+1 more)")
    expect(failure!.text).toBe("expected 2 calls (check_warranty, send_email), got 1 (check_warranty)\nexpected call 2 send_email was not made")
    expect(findAll(cases[1]!, "system-out")[0]!.text).toBe(`1. check_warranty({"serial_number":"<SN & 'x'>"}) ✗ {"error":{"type":"ExecutionFailed","message":"down"}}`)
    const [error] = findAll(cases[2]!, "error")
    expect(error!.attributes.message).toBe("the case timed out after 2m <&>")
    expect(findAll(cases[2]!, "failure")).toStrictEqual([])
    expect(findAll(root, "property").map((p) => [p.attributes.name, p.attributes.value])).toStrictEqual([["passRate", String(1 / 3)], ["threshold", "0.99"]])
  })

  it("starts with the XML declaration, one element a line; what a case lacks is left out or said plainly", () => {
    const bare: EvalReport.CaseResult = { ...errored, id: "bare", description: "", error: undefined, calls: [] }
    const oneMismatch: EvalReport.CaseResult = { ...failed, mismatches: [failed.mismatches[1]!], calls: [] }
    const xml = EvalReport.junit(EvalReport.make({ suite: "s", cases: [bare, oneMismatch], durationMs: 0 }))
    const lines = xml.split("\n")
    expect(lines[0]).toBe(`<?xml version="1.0" encoding="UTF-8"?>`)
    expect(lines[1]).toMatch(/^<testsuites name="s" /)
    expect(lines.slice(-3)).toStrictEqual(["  </testsuite>", "</testsuites>", ""])
    const cases = findAll(parseXml(xml), "testcase")
    // An error without a message still says what happened; a case without calls has no system-out.
    expect(findAll(cases[0]!, "error")[0]!.attributes.message).toBe("the case did not complete")
    expect(findAll(cases[0]!, "error")[0]!.text).toBe("")
    expect(cases.map((c) => c.children.map((child) => child.name))).toStrictEqual([["error"], ["failure"]])
    expect(findAll(cases[1]!, "failure")[0]!.attributes.message).toBe("expected call 2 send_email was not made")
  })

  it("lists a case's calls in its system-out, a line each; characters XML cannot hold are dropped from text", () => {
    const withBadText: EvalReport.CaseResult = { ...errored, error: "stopped \u0001 here", calls: passed.calls }
    const [testcase] = findAll(parseXml(EvalReport.junit(EvalReport.make({ suite: "s", cases: [withBadText], durationMs: 0 }))), "testcase")
    expect(findAll(testcase!, "error")[0]!.text).toBe("stopped  here")
    expect(findAll(testcase!, "system-out")[0]!.text).toBe(
      `1. check_warranty({"serial_number":"SN-1"}) → {"valid":true}\n2. send_email({"to":"ada@example.com","body":"Hi"}) → {"sent":true}`
    )
  })

  it("escapes a carriage return in an attribute as a reference", () => {
    expect(EvalReport.escapeXml("a\r\nb")).toBe("a&#13;&#10;b")
  })

  it("keeps line breaks in attributes as references", () => {
    const multi = EvalReport.make({ suite: "s\nt", cases: [], durationMs: 0 })
    expect(parseXml(EvalReport.junit(multi)).attributes.name).toBe("s\nt")
  })

  it("has a checker that rejects what is not well-formed", () => {
    const bad = [
      "<a>",
      "<a></b>",
      "<a x=1/>",
      `<a x="1" x="2"/>`,
      "<a>&nope;</a>",
      "<a>& </a>",
      "<a><</a>",
      "<a/><b/>",
      "text<a/>",
      "<a>\u0001</a>",
      `<a x="<"/>`,
      "<a>]]></a>",
      ""
    ]
    for (const text of bad) expect(() => parseXml(text), text).toThrow(XmlError)
    expect(parseXml(`<?xml version="1.0"?>\n<a x='1'><!-- c --><b>t&amp;&#65;&#x42;</b><![CDATA[<raw>]]></a>`)).toStrictEqual({
      name: "a",
      attributes: { x: "1" },
      children: [{ name: "b", attributes: {}, children: [], text: "t&AB" }],
      text: "<raw>"
    })
  })
})
