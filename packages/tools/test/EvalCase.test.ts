import { NodeFileSystem } from "@effect/platform-node"
import * as FileSystem from "@effect/platform/FileSystem"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as NodePath from "node:path"
import { EvalCase } from "@agentfx/tools"
import { recordSpans } from "./support/spans.js"

const full = `id: valid-two-serials
description: The customer gives two serial numbers
input: |
  From: ada@example.com
  Subject: Broken kettles
scenario: valid-warranty
x-cassette: cassettes/valid-two-serials.json
mock_function_responses:
  check_warranty:
    - when: { serial_number: SN-1 }
      response: { valid: true, expires: "2026-01-01" }
    - response: { valid: false }
  create_ticket:
    response: { ticket_id: T-100 }
  send_email:
    error: mail server unavailable
  archive:
    error: { message: disk full, code: 507 }
expected_function_calls:
  - function_name: check_warranty
    arguments: { serial_number: SN-1 }
  - function_name: create_ticket
    arguments_contain: { serial_number: SN-1 }
    result_contains: { ticket_id: T-100 }
  - function_name: send_email
    body_contains: T-100
`

const parsed = (text: string) => Either.getOrThrowWith(EvalCase.parse(text, "cases/c.yaml"), (e) => new Error(e.message))
const failure = (text: string) => Either.getOrThrowWith(Either.flip(EvalCase.parse(text, "cases/c.yaml")), () => new Error("parsed"))
const caseError = (text: string) => {
  const error = failure(text)
  if (error._tag !== "EvalCaseError") throw new Error(`expected EvalCaseError, got ${error.message}`)
  return error
}

describe("EvalCase.parse", () => {
  it("reads every field, normalising mocks and body phrases to lists", () => {
    const [evalCase] = parsed(full)
    expect(evalCase).toStrictEqual({
      id: "valid-two-serials",
      description: "The customer gives two serial numbers",
      input: "From: ada@example.com\nSubject: Broken kettles\n",
      scenario: "valid-warranty",
      mock_function_responses: {
        check_warranty: [{ when: { serial_number: "SN-1" }, response: { valid: true, expires: "2026-01-01" } }, { response: { valid: false } }],
        create_ticket: [{ response: { ticket_id: "T-100" } }],
        send_email: [{ error: "mail server unavailable" }],
        archive: [{ error: { message: "disk full", code: 507 } }]
      },
      expected_function_calls: [
        { function_name: "check_warranty", arguments: { serial_number: "SN-1" } },
        { function_name: "create_ticket", arguments_contain: { serial_number: "SN-1" }, result_contains: { ticket_id: "T-100" } },
        { function_name: "send_email", body_contains: ["T-100"] }
      ],
      file: "cases/c.yaml",
      line: 1,
      lineOf: expect.any(Function),
      extensions: { "x-cassette": "cassettes/valid-two-serials.json" }
    })
    // Lines reach into the x- keys too, for the tools that check them later.
    expect(evalCase!.lineOf?.(["x-cassette"])).toBe(7)
    expect(evalCase!.lineOf?.(["expected_function_calls", 2, "body_contains"])).toBe(26)
  })

  it("takes body_contains as one phrase or a list of them", () => {
    const head = "id: a\ninput: x\nscenario: s\nexpected_function_calls:\n  - function_name: send_email\n"
    expect(parsed(`${head}    body_contains: [T-100, Ada]\n`)[0]!.expected_function_calls[0]!.body_contains).toStrictEqual(["T-100", "Ada"])
    expect(parsed(`${head}    body_contains: T-100\n`)[0]!.expected_function_calls[0]!.body_contains).toStrictEqual(["T-100"])
  })

  it("defaults description and mocks, and keeps a null response", () => {
    const [evalCase] = parsed("id: a\ninput: hi\nscenario: s\nexpected_function_calls: []\n")
    expect(evalCase).toMatchObject({ description: "", mock_function_responses: {}, expected_function_calls: [] })
    const [nullResponse] = parsed("id: a\ninput: hi\nscenario: s\nmock_function_responses:\n  f: { response: null }\nexpected_function_calls: []\n")
    expect(nullResponse!.mock_function_responses).toStrictEqual({ f: [{ response: null }] })
  })

  it("reads a list of cases, and several documents, each with its line", () => {
    const list = parsed("- id: a\n  input: x\n  scenario: s\n  expected_function_calls: []\n- id: b\n  input: y\n  scenario: s\n  expected_function_calls: []\n")
    expect(list.map((c) => [c.id, c.line])).toStrictEqual([["a", 1], ["b", 5]])
    const documents = parsed("id: a\ninput: x\nscenario: s\nexpected_function_calls: []\n---\nid: b\ninput: y\nscenario: s\nexpected_function_calls: []\n---\n")
    expect(documents.map((c) => [c.id, c.line])).toStrictEqual([["a", 1], ["b", 6]])
  })

  describe("refuses an invalid case, naming the file, the line and the field", () => {
    it("a missing field", () => {
      const error = failure("id: a\ninput: x\nexpected_function_calls: []\n")
      expect(error).toMatchObject({ _tag: "EvalCaseError", file: "cases/c.yaml", line: 1, field: "scenario", reason: "is required but missing" })
      expect(error.message).toBe('cases/c.yaml:1: case "a": scenario: is required but missing')
      // A case without a readable id is named by its line alone.
      expect(failure("input: x\nscenario: s\nexpected_function_calls: []\n").message).toBe("cases/c.yaml:1: id: is required but missing")
    })

    it("a misspelt field of an expected call", () => {
      const error = caseError("id: a\ninput: x\nscenario: s\nexpected_function_calls:\n  - function_name: f\n    argument: { a: 1 }\n")
      expect(error).toMatchObject({ line: 6, field: "expected_function_calls[0].argument" })
      expect(error.reason).toMatch(/^unknown field \(did you mean "arguments"\?\); expected one of function_name \| arguments \| arguments_contain \| result_contains \| body_contains/)
    })

    it("a field of the wrong type", () => {
      expect(failure("id: a\ninput: x\nscenario: s\nexpected_function_calls:\n  - function_name: f\n    arguments: [1, 2]\n")).toMatchObject({
        line: 6,
        field: "expected_function_calls[0].arguments"
      })
      expect(failure("id: a\ninput: 12\nscenario: s\nexpected_function_calls: []\n")).toMatchObject({ line: 2, field: "input", reason: "Expected string, actual 12" })
      expect(failure("id: ''\ninput: x\nscenario: s\nexpected_function_calls: []\n")).toMatchObject({ line: 1, field: "id" })
    })

    it("a mock with both or neither of response and error, or an empty list", () => {
      const both = caseError("id: a\ninput: x\nscenario: s\nmock_function_responses:\n  f:\n    response: 1\n    error: boom\nexpected_function_calls: []\n")
      expect(both).toMatchObject({ field: "mock_function_responses.f", line: 5 })
      expect(both.reason).toContain("give either `response` or `error`, not both")
      const neither = caseError("id: a\ninput: x\nscenario: s\nmock_function_responses:\n  f:\n    - when: { a: 1 }\nexpected_function_calls: []\n")
      expect(neither).toMatchObject({ field: "mock_function_responses.f[0]", line: 6 })
      expect(neither.reason).toContain("give a `response` to return or an `error` to raise")
      const typo = failure("id: a\ninput: x\nscenario: s\nmock_function_responses:\n  f:\n    respone: 1\nexpected_function_calls: []\n")
      expect(typo).toMatchObject({ field: "mock_function_responses.f.respone", line: 6 })
      expect(failure("id: a\ninput: x\nscenario: s\nmock_function_responses:\n  f: []\nexpected_function_calls: []\n")).toMatchObject({
        field: "mock_function_responses.f",
        line: 5,
        reason: "the list is empty: give at least one entry"
      })
      const shape = failure("id: a\ninput: x\nscenario: s\nmock_function_responses:\n  f: 42\nexpected_function_calls: []\n")
      expect(shape).toMatchObject({ field: "mock_function_responses.f", line: 5, reason: "has the wrong shape (got 42)" })
    })

    it("a mock entry that can never answer: after one without `when`, or after one whose `when` it contains", () => {
      const head = "id: a\ninput: x\nscenario: s\nmock_function_responses:\n  check_warranty:\n"
      const afterFallback = caseError(`${head}    - error: down\n    - when: { serial_number: SN-1 }\n      response: ok\nexpected_function_calls: []\n`)
      expect(afterFallback).toMatchObject({ line: 7, field: "mock_function_responses.check_warranty[1]" })
      expect(afterFallback.reason).toBe("this entry is never used: entry [0] has no `when`, so it answers every call first")
      const repeated = caseError(
        `${head}    - when: { serial_number: SN-1 }\n      response: one\n    - when: { serial_number: SN-2 }\n      response: two\n    - when: { serial_number: SN-1 }\n      response: again\nexpected_function_calls: []\n`
      )
      expect(repeated).toMatchObject({ line: 10, field: "mock_function_responses.check_warranty[2]" })
      expect(repeated.reason).toBe('this entry is never used: entry [0] answers first every call it matches (its `when` {"serial_number":"SN-1"} is contained in this one\'s)')
      const narrower = caseError(`${head}    - when: { a: 1 }\n      response: one\n    - when: { a: 1, b: 2 }\n      response: never\nexpected_function_calls: []\n`)
      expect(narrower).toMatchObject({ line: 8, field: "mock_function_responses.check_warranty[1]" })
      expect(narrower.message).toMatch(/^cases\/c\.yaml:8: case "a": mock_function_responses\.check_warranty\[1\]: this entry is never used/)
      // Distinct `when`s, then a fallback last: every entry can answer.
      const fine = parsed(`${head}    - when: { a: 1, b: 2 }\n      response: both\n    - when: { a: 1 }\n      response: one\n    - response: rest\nexpected_function_calls: []\n`)
      expect(fine[0]!.mock_function_responses.check_warranty).toHaveLength(3)
    })

    it("an empty or blank body_contains phrase, which every body contains", () => {
      const head = "id: a\ninput: x\nscenario: s\nexpected_function_calls:\n  - function_name: send_email\n"
      const empty = caseError(`${head}    body_contains: ''\n`)
      expect(empty).toMatchObject({ line: 6, field: "expected_function_calls[0].body_contains", reason: "an empty phrase is in every body: give the words to look for" })
      expect(caseError(`${head}    body_contains: "   "\n`)).toMatchObject({ line: 6, field: "expected_function_calls[0].body_contains" })
      expect(caseError(`${head}    body_contains:\n      - T-100\n      - "\\t "\n`)).toMatchObject({ line: 8, field: "expected_function_calls[0].body_contains[1]" })
      const made = EvalCase.make({ id: "g", input: "x", scenario: "s", expected_function_calls: [{ function_name: "send_email", body_contains: [" "] }] })
      expect(Either.isLeft(made)).toBe(true)
      // An empty list checks nothing either.
      expect(caseError(`${head}    body_contains: []\n`)).toMatchObject({ line: 6, field: "expected_function_calls[0].body_contains", reason: "the list is empty: give the words to look for, or leave body_contains out" })
      const none = EvalCase.make({ id: "g", input: "x", scenario: "s", expected_function_calls: [{ function_name: "send_email", body_contains: [] }] })
      expect(Either.isLeft(none)).toBe(true)
    })

    it("invalid YAML, a case that is not a mapping, an empty file", () => {
      const yaml = failure("id: a\ninput: [x\nscenario: s\n")
      expect(yaml).toMatchObject({ _tag: "EvalCaseError", line: 3, reason: expect.stringContaining("Flow sequence") })
      expect(failure("just a string\n")).toMatchObject({ line: 1, reason: "a case must be a YAML mapping with id, input, scenario and expected_function_calls" })
      expect(failure("- id: a\n  input: x\n  scenario: s\n  expected_function_calls: []\n- 42\n")).toMatchObject({ line: 5 })
      expect(failure("# nothing\n")).toMatchObject({ reason: "the file holds no case" })
      // Without a field, the message names the file and says what is wrong, nothing between.
      expect(failure("# nothing\n").message).toBe("cases/c.yaml: the file holds no case")
    })

    it("a problem without a line or a field carries neither", () => {
      const uses = Array.from({ length: 50 }, () => "*a").join(", ")
      const aliases = caseError(`id: &a x\ninput: [${uses}]\n`)
      expect(aliases).toMatchObject({ file: "cases/c.yaml", reason: "Excessive alias count indicates a resource exhaustion attack" })
      expect([Object.hasOwn(aliases, "line"), Object.hasOwn(aliases, "field")]).toStrictEqual([false, false])
      const syntax = caseError("id: [\n")
      expect([syntax.line, Object.hasOwn(syntax, "field")]).toStrictEqual([2, false])
    })

    it("a repeated id", () => {
      const error = failure("- id: a\n  input: x\n  scenario: s\n  expected_function_calls: []\n- id: a\n  input: y\n  scenario: s\n  expected_function_calls: []\n")
      expect(error).toMatchObject({ _tag: "DuplicateCaseId", id: "a", files: ["cases/c.yaml:1", "cases/c.yaml:5"] })
      expect(error.message).toBe('the case id "a" is used twice: cases/c.yaml:1 and cases/c.yaml:5')
    })
  })
})

describe("EvalCase keys that would merge", () => {
  it("two keys that are one property once made JSON (1 and '1') are refused at their line, not merged", () => {
    const error = caseError(
      "id: a\ninput: x\nscenario: s\nmock_function_responses:\n  lookup:\n    response: {1: first, '1': second}\nexpected_function_calls: []\n"
    )
    expect(error).toMatchObject({ line: 6, reason: 'the key "1" is given twice in one mapping: keys must be unique' })
    // Keys that differ stay apart.
    expect(parsed("id: a\ninput: x\nscenario: s\nmock_function_responses:\n  lookup:\n    response: {1: first, 2: second}\nexpected_function_calls: []\n")[0]!.mock_function_responses.lookup).toEqual([
      { response: { 1: "first", 2: "second" } }
    ])
  })
})

describe("EvalCase keys that reach a prototype", () => {
  it("__proto__ anywhere (YAML or JSON) and constructor / prototype as a mocked function's name are refused, with file, path and line", () => {
    const nested = caseError("id: a\ninput: hi\nscenario: s\nexpected_function_calls:\n  - function_name: f\n    arguments:\n      __proto__: { admin: true }\n")
    expect(nested).toMatchObject({ file: "cases/c.yaml", line: 7, field: "expected_function_calls[0].arguments.__proto__" })
    expect(nested.message).toBe(
      `cases/c.yaml:7: expected_function_calls[0].arguments.__proto__: the key "__proto__" is not allowed here: it names a member of every JavaScript object, so it would not be read as written`
    )
    const json = caseError(`{"id": "a", "input": "hi", "scenario": "s", "expected_function_calls": [], "__proto__": {"x": 1}}\n`)
    expect(json).toMatchObject({ line: 1, field: "__proto__" })
    const listed = caseError("- id: a\n  input: hi\n  scenario: s\n  expected_function_calls: []\n  mock_function_responses:\n    constructor: { response: 1 }\n")
    expect(listed).toMatchObject({ line: 6, field: "[0].mock_function_responses.constructor" })
    // As an argument's name, constructor is only data.
    expect(parsed("id: a\ninput: hi\nscenario: s\nexpected_function_calls:\n  - function_name: f\n    arguments: { constructor: 1 }\n")[0]!.expected_function_calls[0]!.arguments).toEqual({ constructor: 1 })
  })

  it("an alias key pointing at __proto__ (or at constructor under a name map) is refused like the key itself", () => {
    const aliased = caseError("id: &k __proto__\ninput: hi\nscenario: s\nexpected_function_calls:\n  - function_name: f\n    arguments:\n      *k : { admin: true }\n")
    expect(aliased).toMatchObject({ file: "cases/c.yaml", line: 7, field: "expected_function_calls[0].arguments.__proto__" })
    const named = caseError("- id: &c constructor\n  input: hi\n  scenario: s\n  expected_function_calls: []\n  mock_function_responses:\n    *c : { response: 1 }\n")
    expect(named).toMatchObject({ line: 6, field: "[0].mock_function_responses.constructor" })
  })
})

describe("EvalCase.make", () => {
  it("checks a case built in code like a file's", () => {
    const made = EvalCase.make({ id: "g1", input: "x", scenario: "s", expected_function_calls: [{ function_name: "f", body_contains: "a" }] })
    expect(Either.getOrThrow(made)).toMatchObject({ file: "<inline>", expected_function_calls: [{ body_contains: ["a"] }] })
    const bad = EvalCase.make({ id: "g2", input: "x", scenario: "s", expected_function_calls: [{ function_name: "" }] })
    expect(Either.flip(bad).pipe(Either.getOrThrow)).toMatchObject({ file: "<inline>", field: "expected_function_calls[0].function_name" })
  })
})

describe("EvalCase.parseEach (issue 39, item 1)", () => {
  const typo = `- id: typo
  scenario: math
  input: hi
  expected_function_calls:
    - functon_name: calculator
      arguments: { expression: "2 + 2" }
      result_contain: { result: 4 }
- id: sound
  scenario: maths
  input: hi
  expected_function_calls: []
- id: mocks
  scenario: math
  input: hi
  mock_function_responses:
    notify: { respons: { sent: true } }
  expected_function_calls: []
`

  it("gives every problem of every case, each with its line, case and field, and keeps the sound cases", () => {
    const { cases, problems } = EvalCase.parseEach(typo, "cases/c.yaml")
    expect(cases.map((c) => c.id)).toStrictEqual(["sound"])
    expect(problems.map((p) => p.message)).toStrictEqual([
      'cases/c.yaml:5: case "typo": expected_function_calls[0].functon_name: unknown field (did you mean "function_name"?); expected one of function_name | arguments | arguments_contain | result_contains | body_contains',
      'cases/c.yaml:7: case "typo": expected_function_calls[0].result_contain: unknown field (did you mean "result_contains"?); expected one of function_name | arguments | arguments_contain | result_contains | body_contains',
      'cases/c.yaml:16: case "mocks": mock_function_responses.notify.respons: unknown field (did you mean "response"?); expected one of when | response | error'
    ])
  })

  it("a file that is not YAML is its first syntax problem; a file of no case says so", () => {
    const broken = EvalCase.parseEach("- id: [\n", "cases/c.yaml")
    expect(broken.cases).toStrictEqual([])
    expect(broken.problems).toMatchObject([{ _tag: "EvalCaseError", file: "cases/c.yaml", line: 2 }])
    expect(EvalCase.parseEach("# nothing\n", "cases/c.yaml").problems.map((p) => p.message)).toStrictEqual(["cases/c.yaml: the file holds no case"])
    expect(EvalCase.parseEach("- 1\n- id: a\n  input: x\n  scenario: s\n  expected_function_calls: []\n", "cases/c.yaml").problems.map((p) => p.message)).toStrictEqual([
      "cases/c.yaml:1: a case must be a YAML mapping with id, input, scenario and expected_function_calls"
    ])
  })

  it("parse still stops at a case's first problem and counts the others", () => {
    expect(failure(typo).message).toBe(
      'cases/c.yaml:5: case "typo": expected_function_calls[0].functon_name: unknown field (did you mean "function_name"?); expected one of function_name | arguments | arguments_contain | result_contains | body_contains (and 1 more problem)'
    )
  })

  it.scoped("loadEach reads a file, and a file that cannot be read is its one problem", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "agentfx-cases-" })
      yield* fs.writeFileString(NodePath.join(dir, "c.yaml"), typo)
      const loaded = yield* EvalCase.loadEach(NodePath.join(dir, "c.yaml"))
      expect([loaded.cases.length, loaded.problems.length]).toStrictEqual([1, 3])
      const missing = yield* EvalCase.loadEach(NodePath.join(dir, "nope.yaml"))
      expect(missing.cases).toStrictEqual([])
      expect(missing.problems).toHaveLength(1)
      expect(missing.problems[0]!.message).toContain("cannot be read")
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )
})

describe("EvalCase.loadDirectory", () => {
  it.scoped("loads every YAML file under a directory, recursively and in path order; ids are unique across files", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "agentfx-cases-" })
      const one = (id: string) => `id: ${id}\ninput: x\nscenario: s\nexpected_function_calls: []\n`
      yield* fs.makeDirectory(NodePath.join(dir, "valid"))
      yield* fs.writeFileString(NodePath.join(dir, "valid", "b.yaml"), one("b"))
      yield* fs.writeFileString(NodePath.join(dir, "a.yml"), one("a"))
      yield* fs.writeFileString(NodePath.join(dir, "z.yaml"), `${one("z1")}---\n${one("z2")}`)
      yield* fs.writeFileString(NodePath.join(dir, "notes.md"), "ignored")
      yield* fs.writeFileString(NodePath.join(dir, "old.yaml.bak"), "not a case: ignored")
      const cases = yield* EvalCase.loadDirectory(dir)
      expect(cases.map((c) => [c.id, NodePath.relative(dir, c.file)])).toStrictEqual([
        ["a", "a.yml"],
        ["b", NodePath.join("valid", "b.yaml")],
        ["z1", "z.yaml"],
        ["z2", "z.yaml"]
      ])
      yield* fs.writeFileString(NodePath.join(dir, "valid", "c.yaml"), one("a"))
      const duplicate = yield* Effect.flip(EvalCase.loadDirectory(dir))
      expect(duplicate).toMatchObject({ _tag: "DuplicateCaseId", id: "a", files: [`${NodePath.join(dir, "a.yml")}:1`, `${NodePath.join(dir, "valid", "c.yaml")}:1`] })
      yield* fs.writeFileString(NodePath.join(dir, "valid", "c.yaml"), "id: [\n")
      const broken = yield* Effect.flip(EvalCase.loadDirectory(dir))
      expect(broken).toMatchObject({ _tag: "EvalCaseError", file: NodePath.join(dir, "valid", "c.yaml"), line: 2 })
      // Each file read is traced, named by its path.
      const { spans, tracer: recording } = yield* recordSpans
      yield* Effect.withTracer(EvalCase.load(NodePath.join(dir, "a.yml")), recording)
      expect(spans.map((span) => [span.name, Object.fromEntries(span.attributes)])).toStrictEqual([["EvalCase.load", { file: NodePath.join(dir, "a.yml") }]])
      const missing = yield* Effect.flip(EvalCase.load(NodePath.join(dir, "nope.yaml")))
      expect(missing.message).toContain("cannot be read")
      const noDirectory = NodePath.join(dir, "no-such-folder")
      const unreadable = yield* Effect.flip(EvalCase.loadDirectory(noDirectory))
      expect(unreadable).toMatchObject({ _tag: "EvalCaseError", file: noDirectory, reason: expect.stringMatching(/^the case directory cannot be read: ./) })
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )
})
