import { Builtins, CliError, EvalInput } from "@agentfx/cli"
import { EvalCase } from "@agentfx/tools"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fs from "node:fs"
import * as path from "node:path"
import { agentfx, emulator, tempDir, viaGemini, writeFiles } from "./support/cli.js"
import { shouter } from "./support/mcpServers.js"
import { calculatorScenario } from "./support/scenarios.js"

const mathScenario = `---
name: math
description: Arithmetic, and the result sent to the user
available_functions:
  - name: calculator
    description: Evaluates an arithmetic expression
    parameters:
      type: object
      properties:
        expression: { type: string }
      required: [expression]
  - name: notify
    description: Sends a message to the user
    parameters:
      type: object
      properties:
        message: { type: string }
      required: [message]
---
Compute with the calculator, then notify the user of the result.
`

// The file: a misspelt key in one case, a scenario that does not exist in another.
const typos = `- id: typo
  scenario: math
  input: what is 2 + 2?
  expected_function_calls:
    - functon_name: calculator
      arguments: { expression: "2 + 2" }
- id: lost
  scenario: maths
  input: what is 2 + 2?
  expected_function_calls: []
`

const names = `- id: names
  scenario: math
  input: what is 2 + 2?
  mock_function_responses:
    notfy:
      response: { sent: true }
    calculator:
      - when: { expresion: "2 + 2" }
        response: { result: 4 }
  expected_function_calls:
    - function_name: calculater
    - function_name: calculator
      arguments_contain: { expresion: "2 + 2" }
- id: fine
  scenario: words
  input: what is 3 + 3?
  expected_function_calls:
    - function_name: calculator
      arguments: { expression: "3 + 3" }
`

const brokenScenario = `---
name: words
descripton: Words
available_functions:
  - name: calculator
    description: Evaluates
    parameters: { type: object, properties: { expression: { type: number } }, required: [expression] }
---
Count.
`

describe("issue 39 item 1: agentfx eval lists every input problem at once", () => {
  it.scopedLive("a misspelt key and an unknown scenario: both listed with their lines and a 'did you mean', exit 2, nothing run", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "scenarios/math.md": mathScenario, "cases/typos.yaml": typos })
      const server = yield* emulator()
      const { env, flags } = viaGemini(server)
      const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), ...flags], { env })
      const file = path.join(dir, "cases", "typos.yaml")
      expect(result).toEqual({
        code: 2,
        stdout: "",
        stderr: [
          "agentfx: 2 problems in the eval input; nothing was run:",
          `  ${file}:5: case "typo": expected_function_calls[0].functon_name: unknown field (did you mean "function_name"?); expected one of function_name | arguments | arguments_contain | result_contains | body_contains`,
          `  ${file}:8: case "lost": scenario: "maths" is not a scenario of --scenarios (did you mean "math"?); known: math`,
          ""
        ].join("\n")
      })
      expect(yield* server.requests).toEqual([])
    })
  )

  it.scopedLive("unknown function, mock and argument names, and every problem of a scenario file, each at its line with a suggestion", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "scenarios/math.md": mathScenario, "scenarios/words.md": brokenScenario, "cases/a.yaml": typos, "cases/b.yaml": names })
      const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios")])
      const [a, b, words] = [path.join(dir, "cases", "a.yaml"), path.join(dir, "cases", "b.yaml"), path.join(dir, "scenarios", "words.md")]
      expect(result).toEqual({
        code: 2,
        stdout: "",
        stderr: [
          "agentfx: 7 problems in 3 files of the eval input; nothing was run:",
          `  ${a}:5: case "typo": expected_function_calls[0].functon_name: unknown field (did you mean "function_name"?); expected one of function_name | arguments | arguments_contain | result_contains | body_contains`,
          `  ${a}:8: case "lost": scenario: "maths" is not a scenario of --scenarios (did you mean "math"?); known: math`,
          `  ${b}:5: case "names": mock_function_responses.notfy: scenario "math" declares no function "notfy" (did you mean "notify"?) (it declares: calculator, notify)`,
          `  ${b}:8: case "names": mock_function_responses.calculator[0].when.expresion: calculator has no argument "expresion" (did you mean "expression"?); it takes: expression`,
          `  ${b}:11: case "names": expected_function_calls[0].function_name: "calculater" is not declared by scenario "math" (did you mean "calculator"?) (it declares: calculator, notify)`,
          `  ${b}:13: case "names": expected_function_calls[1].arguments_contain.expresion: calculator has no argument "expresion" (did you mean "expression"?); it takes: expression`,
          // The scenario file's every problem; a case naming the scenario of a file that could not be read is not flagged again.
          `  ${words}:3: descripton: unknown field (did you mean "description"?); expected one of name | description | version | trigger | available_functions | mcp | output_schema | mode`,
          ""
        ].join("\n")
      })
  })
  )

  it.scopedLive("a Live case (its own mode: live, or its scenario's) and a REST case with follow_up are problems listed with the others, before any case runs: exit 2; a case not selected is not", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const liveScenario = mathScenario.replace("name: math", "name: spoken").replace("available_functions:", "mode: live\navailable_functions:")
      const cases = `- id: rest
  tags: [rest]
  scenario: math
  input: what is 2 + 2?
  expected_function_calls: [{ function_name: calculator }]
- id: own
  scenario: math
  mode: live
  input: what is 2 + 2?
  expected_function_calls: []
- id: inherited
  scenario: spoken
  input: what is 2 + 2?
  expected_function_calls: []
- id: typo
  scenario: math
  input: what is 2 + 2?
  expected_function_calls:
    - functon_name: calculator
- id: followed
  scenario: math
  input: what is 2 + 2?
  follow_up: [and 3 + 3?]
  expected_function_calls: []
`
      writeFiles(dir, { "scenarios/math.md": mathScenario, "scenarios/spoken.md": liveScenario, "cases/mixed.yaml": cases })
      const server = yield* emulator()
      const { env, flags } = viaGemini(server)
      const file = path.join(dir, "cases", "mixed.yaml")
      const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), ...flags], { env })
      expect(result).toEqual({
        code: 2,
        stdout: "",
        stderr: [
          "agentfx: 4 problems in the eval input; nothing was run:",
          `  ${file}:8: case "own": mode: the case runs as a Live session, and agentfx eval does not run Live cases yet (EvalRunner.run does, given a live model): leave it out with --filter or --tag`,
          `  ${file}:12: case "inherited": scenario: scenario "spoken" says mode: live, and agentfx eval does not run Live cases yet (EvalRunner.run does, given a live model): give the case mode: rest, or leave it out with --filter or --tag`,
          `  ${file}:19: case "typo": expected_function_calls[0].functon_name: unknown field (did you mean "function_name"?); expected one of function_name | arguments | arguments_contain | result_contains | body_contains`,
          `  ${file}:23: case "followed": follow_up: only a Live session sends further messages, and the case runs as a REST run`,
          ""
        ].join("\n")
      })
      expect(yield* server.requests).toEqual([])
      // Without the broken case, the REST case alone is selected and runs.
      writeFiles(dir, { "cases/mixed.yaml": cases.slice(0, cases.indexOf("- id: typo")) })
      const selected = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), "--tag", "rest", ...flags], { env })
      expect([selected.code, selected.stderr.split("\n")[0]]).toEqual([0, "eval: 1 of 3 cases selected"])
    })
  )
})

describe("agentfx eval: which files are read, and problems across them", () => {
  /** A scenario `name` with the calculator, whose parameters take `extra` besides `expression`. */
  const scenario = (name: string, extra: string) => calculatorScenario({ name, parameters: extra, instructions: "Compute." })
  const caseOf = (id: string, scenarioName: string, args: string) => `- id: ${id}
  scenario: ${scenarioName}
  input: what is 2 + 2?
  expected_function_calls:
    - function_name: calculator
      arguments: ${args}
`

  it.scopedLive("a case id used twice and a scenario name defined twice are problems naming both places; .yml and .YAML files are cases (in folders too), other files, README.md and a scenario in a folder are not read; open parameters take any argument", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, {
        "scenarios/math.md": scenario("math", "\n      additionalProperties: false"),
        "scenarios/z-copy.md": scenario("math", ""),
        "scenarios/open.MD": scenario("open", "\n      additionalProperties: true"),
        "scenarios/README.md": "Not a scenario.\n",
        "scenarios/notes.txt": "Not a scenario either.\n",
        // Scenarios are the directory's own files: one in a folder under it is not read.
        "scenarios/old/math.md": scenario("math", ""),
        "cases/a.yml": `${caseOf("twin", "open", "{ expression: \"2 + 2\", precision: 2 }")}${caseOf("closed", "math", "{ expression: \"2 + 2\", precision: 2 }")}`,
        "cases/deeper/b.YAML": `${caseOf("other", "open", "{ expression: \"2 + 2\" }")}${caseOf("twin", "open", "{ expression: \"2 + 2\" }")}`,
        "cases/notes.txt": "- id: not a case\n",
        "cases/old.yaml.bak": "- id: not a case\n"
      })
      const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios")])
      const [a, b, copy, math] = [path.join(dir, "cases", "a.yml"), path.join(dir, "cases", "deeper", "b.YAML"), path.join(dir, "scenarios", "z-copy.md"), path.join(dir, "scenarios", "math.md")]
      expect(result).toEqual({
        code: 2,
        stdout: "",
        stderr: [
          "agentfx: 3 problems in 3 files of the eval input; nothing was run:",
          `  ${a}:12: case "closed": expected_function_calls[0].arguments.precision: calculator has no argument "precision"; it takes: expression`,
          `  ${b}:7: id: the case id "twin" is also used at ${a}:1`,
          `  ${copy}: name: scenario "math" is also defined in ${math}`,
          ""
        ].join("\n")
      })
    })
  )
})

describe("agentfx eval: a directory without files of its kind, and functions that must be mocked", () => {
  it.scopedLive("no scenario file: that one problem, the cases naming a scenario not flagged again; no case file: that one problem", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, {
        "scenarios/notes.txt": "",
        "scenarios/math.md": mathScenario,
        "empty/notes.txt": "",
        "cases/a.yaml": "- id: a\n  scenario: math\n  input: hi\n  expected_function_calls: []\n"
      })
      const noScenarios = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "empty")])
      expect(noScenarios).toEqual({ code: 2, stdout: "", stderr: `agentfx: 1 problem in the eval input; nothing was run:\n  ${path.join(dir, "empty")}: holds no scenario files (*.md)\n` })
      const noCases = yield* agentfx(["eval", path.join(dir, "empty"), "--scenarios", path.join(dir, "scenarios")])
      expect(noCases).toEqual({ code: 2, stdout: "", stderr: `agentfx: 1 problem in the eval input; nothing was run:\n  ${path.join(dir, "empty")}: holds no eval case files (*.yaml, *.yml)\n` })
    })
  )

  it.scopedLive("a function that is not built in, expected twice and not mocked: one problem, at its first call", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const lookup = mathScenario.replace(
        "available_functions:",
        "available_functions:\n  - name: lookup\n    description: Looks a word up\n    parameters: { type: object, properties: { word: { type: string } } }"
      )
      writeFiles(dir, {
        "scenarios/math.md": lookup,
        "cases/a.yaml": `- id: twice
  scenario: math
  input: look up two words
  expected_function_calls:
    - function_name: calculator
      arguments: { expression: "2 + 2" }
    - function_name: lookup
      arguments: { word: one }
    - function_name: lookup
      arguments: { word: two }
`
      })
      const file = path.join(dir, "cases", "a.yaml")
      const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios")])
      expect(result).toEqual({
        code: 2,
        stdout: "",
        stderr: `agentfx: 1 problem in the eval input; nothing was run:\n  ${file}:7: case "twice": expects a call to lookup, which scenario "math" declares but is not a built-in tool (${Builtins.names.join(", ")}): mock it under mock_function_responses.lookup\n`
      })
    })
  )
})

describe("agentfx eval: a Live scenario's case that says mode: rest", () => {
  it.scopedLive("runs as a REST run: no problem, the case passes", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, {
        "scenarios/spoken.md": mathScenario.replace("name: math", "name: spoken").replace("available_functions:", "mode: live\navailable_functions:"),
        "cases/a.yaml": `- id: rest
  scenario: spoken
  mode: rest
  input: what is 2 + 2?
  expected_function_calls: [{ function_name: calculator }]
  mock_function_responses:
    notify: { response: { sent: true } }
`
      })
      const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios")])
      expect([result.code, result.stdout.split("\n").at(-2)]).toEqual([0, expect.stringMatching(/^1\/1 passed \(100 %\)/)])
    })
  )
})

describe("agentfx eval: a scenario that declares no function", () => {
  it.scopedLive("a case expecting a call of it says the scenario declares none", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, {
        "scenarios/plain.md": "---\nname: plain\ndescription: Answers\navailable_functions: []\n---\nAnswer.\n",
        "cases/a.yaml": "- id: calls\n  scenario: plain\n  input: hi\n  expected_function_calls:\n    - function_name: calculator\n"
      })
      const file = path.join(dir, "cases", "a.yaml")
      const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios")])
      expect(result).toEqual({
        code: 2,
        stdout: "",
        stderr: `agentfx: 1 problem in the eval input; nothing was run:\n  ${file}:5: case "calls": expected_function_calls[0].function_name: "calculator" is not declared by scenario "plain" (it declares: none)\n`
      })
    })
  )

  it.scopedLive("a case naming a scenario that no file defines, when the only scenario file is broken: known: none; a case naming the broken file's scenario is not flagged again", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, {
        "scenarios/words.md": "---\nname: words\ndescripton: Words\navailable_functions: []\n---\nCount.\n",
        "cases/a.yaml": "- id: lost\n  scenario: other\n  input: hi\n  expected_function_calls: []\n- id: wordy\n  scenario: words\n  input: hi\n  expected_function_calls: []\n"
      })
      const [file, words] = [path.join(dir, "cases", "a.yaml"), path.join(dir, "scenarios", "words.md")]
      const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios")])
      expect(result.stderr.split("\n").slice(1, 3)).toEqual([
        `  ${file}:2: case "lost": scenario: "other" is not a scenario of --scenarios; known: none`,
        expect.stringMatching(new RegExp(`^  ${words.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3: descripton: unknown field`))
      ])
      expect(result.stderr.split("\n")[0]).toBe("agentfx: 2 problems in 2 files of the eval input; nothing was run:")
    })
  )

  it.scopedLive("a broken file named like a scenario another file defines does not hide that scenario's cases' problems", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, {
        "scenarios/words.md": "---\nname: words\ndescripton: Words\navailable_functions: []\n---\nCount.\n",
        "scenarios/x.md": "---\nname: words\ndescription: Words\navailable_functions: []\n---\nCount.\n",
        "cases/a.yaml": "- id: calls\n  scenario: words\n  input: hi\n  expected_function_calls:\n    - function_name: calculator\n"
      })
      const file = path.join(dir, "cases", "a.yaml")
      const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios")])
      expect(result.stderr.split("\n").slice(0, 2)).toEqual([
        "agentfx: 2 problems in 2 files of the eval input; nothing was run:",
        `  ${file}:5: case "calls": expected_function_calls[0].function_name: "calculator" is not declared by scenario "words" (it declares: none)`
      ])
    })
  )
})


describe("agentfx eval: where each problem is placed, and folders that cannot be read", () => {
  const math = calculatorScenario({ instructions: "Compute." })
  const sums = "- id: sums\n  scenario: math\n  input: what is 2 + 2?\n  expected_function_calls:\n    - function_name: calculator\n      arguments: { expression: \"2 + 2\" }\n"
  const load = (cases: string, scenarios: string, dir: string) =>
    Effect.flip(EvalInput.load(cases, scenarios, { root: dir, allowHosts: [] }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a case built in code has no line: its problems are placed at its file alone", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "scenarios/math.md": math, "cases/a.yaml": sums })
      const input = yield* EvalInput.load(path.join(dir, "cases"), path.join(dir, "scenarios"), { root: dir, allowHosts: [] }).pipe(Effect.provide(NodeContext.layer))
      const inline = (fields: Parameters<typeof EvalCase.make>[0]) => EvalInput.checkCase(Either.getOrThrow(EvalCase.make(fields)), input.scenarios)
      expect(inline({ id: "lost", scenario: "maths", input: "hi", expected_function_calls: [] })).toStrictEqual([
        '<inline>: case "lost": scenario: "maths" is not a scenario of --scenarios (did you mean "math"?); known: math'
      ])
      expect(inline({ id: "typo", scenario: "math", input: "hi", expected_function_calls: [{ function_name: "calculater" }, { function_name: "calculator", arguments: { x: "1" } }] })).toStrictEqual([
        '<inline>: case "typo": expected_function_calls[0].function_name: "calculater" is not declared by scenario "math" (did you mean "calculator"?) (it declares: calculator)',
        '<inline>: case "typo": expected_function_calls[1].arguments.x: calculator has no argument "x"; it takes: expression'
      ])
      // A case given as a plain object may leave out lineOf too.
      const { lineOf: _, ...bare } = Either.getOrThrow(EvalCase.make({ id: "bare", scenario: "math", input: "hi", expected_function_calls: [{ function_name: "calculater" }] }))
      expect(EvalInput.checkCase(bare, input.scenarios)).toStrictEqual([
        '<inline>: case "bare": expected_function_calls[0].function_name: "calculater" is not declared by scenario "math" (did you mean "calculator"?) (it declares: calculator)'
      ])
    }))

  it.scopedLive("a case folder or a scenario folder that cannot be listed (a file) is a problem of its own, and nothing else is said of it", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "scenarios/math.md": math, "cases/a.yaml": sums, "file.txt": "not a folder\n" })
      const file = path.join(dir, "file.txt")
      const unreadable = `${file}: cannot be read: not a directory`
      expect(yield* load(file, path.join(dir, "scenarios"), dir)).toStrictEqual(new CliError.InputError({ message: "1 problem in the eval input; nothing was run:", problems: [unreadable] }))
      expect(yield* load(path.join(dir, "cases"), file, dir)).toStrictEqual(new CliError.InputError({ message: "1 problem in the eval input; nothing was run:", problems: [unreadable] }))
    }))

  it.scopedLive("problems are sorted by the file they start with, up to its first ': ' on that line: a folder whose name holds a line break is no file of its own", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      fs.mkdirSync(path.join(dir, "no\ncases"))
      fs.mkdirSync(path.join(dir, "no scenarios"))
      const result = yield* agentfx(["eval", path.join(dir, "no\ncases"), "--scenarios", path.join(dir, "no scenarios")])
      expect(result).toStrictEqual({
        code: 2,
        stdout: "",
        stderr: [
          "agentfx: 2 problems in the eval input; nothing was run:",
          `  ${path.join(dir, "no\ncases")}: holds no eval case files (*.yaml, *.yml)`,
          `  ${path.join(dir, "no scenarios")}: holds no scenario files (*.md)`,
          ""
        ].join("\n")
      })
    }))

  it.scopedLive("case files are read in the order of their paths, a folder's among them: the later of two cases with one id is the problem", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      // Listed recursively, a folder's files come after the folder's own: b.yaml before a/z.yaml.
      writeFiles(dir, { "scenarios/math.md": math, "cases/b.yaml": sums, "cases/a/z.yaml": sums })
      const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios")])
      expect(result).toStrictEqual({
        code: 2,
        stdout: "",
        stderr: `agentfx: 1 problem in the eval input; nothing was run:\n  ${path.join(dir, "cases", "b.yaml")}:1: id: the case id "sums" is also used at ${path.join(dir, "cases", "a", "z.yaml")}:1\n`
      })
    }))

  it.scopedLive("a broken scenario file's name without its last .md is the name a case may give it (notes.mdx.md: notes.mdx)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, {
        "scenarios/math.md": math,
        "scenarios/notes.mdx.md": "---\nname: notes.mdx\ndescripton: Notes\navailable_functions: []\n---\nTake notes.\n",
        "cases/a.yaml": "- id: noted\n  scenario: notes.mdx\n  input: hi\n  expected_function_calls: []\n"
      })
      const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios")])
      expect(result.stderr.split("\n").slice(0, 2)).toStrictEqual([
        "agentfx: 1 problem in the eval input; nothing was run:",
        `  ${path.join(dir, "scenarios", "notes.mdx.md")}:3: descripton: unknown field (did you mean "description"?); expected one of name | description | version | trigger | available_functions | mcp | output_schema | mode`
      ])
    }))

  it.scopedLive("a call to a function that is not declared, or that must be mocked, is placed at its function_name, not at the call's first line", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, {
        "scenarios/math.md": math.replace("available_functions:", "available_functions:\n  - name: lookup\n    description: Looks a word up\n    parameters: { type: object, properties: { word: { type: string } } }"),
        "cases/a.yaml": "- id: looks\n  scenario: math\n  input: look it up\n  expected_function_calls:\n    - arguments: { word: one }\n      function_name: lookup\n    - arguments: { word: two }\n      function_name: lookout\n"
      })
      const file = path.join(dir, "cases", "a.yaml")
      const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios")])
      expect(result).toStrictEqual({
        code: 2,
        stdout: "",
        stderr: `agentfx: 2 problems in the eval input; nothing was run:\n  ${file}:6: case "looks": expects a call to lookup, which scenario "math" declares but is not a built-in tool (${Builtins.names.join(", ")}): mock it under mock_function_responses.lookup\n  ${file}:8: case "looks": expected_function_calls[1].function_name: "lookout" is not declared by scenario "math" (did you mean "lookup"?) (it declares: lookup, calculator)\n`
      })
    }))
})

describe("agentfx eval: the MCP servers of the scenarios its cases use", () => {
  const math = calculatorScenario({ instructions: "Compute." })
  /** A scenario `name` whose one function is `shout`, from an MCP server started with `command` and `args`. */
  const shouting = (name: string, command: string, args: ReadonlyArray<string>) => `---
name: ${name}
description: Shouts through an MCP server
available_functions: []
mcp:
  - name: twice
    command: ${JSON.stringify(command)}
    args: ${JSON.stringify(args)}
    tools: [shout]
---
Shout what the user says.
`
  const sums = "- id: sums\n  scenario: math\n  input: what is 2 + 2?\n  expected_function_calls:\n    - function_name: calculator\n      arguments: { expression: \"2 + 2\" }\n"
  const loud = (args: string) => `- id: loud\n  scenario: shouter\n  input: hello\n  expected_function_calls:\n    - function_name: shout\n      arguments: ${args}\n`
  const quiet = "- id: quiet\n  scenario: shouter\n  input: hello\n  expected_function_calls: []\n"

  it.scopedLive("the servers of a used scenario are started and their tools checked; each scenario runs with its own tools", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "scenarios/math.md": math, "scenarios/shouter.md": shouting("shouter", shouter.command, shouter.args), "cases/a.yaml": `${sums}${loud("{ wrd: hi }")}` })
      const args = ["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), "--allow-scenario-commands"]
      const wrong = yield* agentfx(args)
      expect(wrong).toStrictEqual({
        code: 2,
        stdout: "",
        stderr: `agentfx: 1 problem in the eval input; nothing was run:\n  ${path.join(dir, "cases", "a.yaml")}:12: case "loud": expected_function_calls[0].arguments.wrd: shout has no argument "wrd" (did you mean "word"?); it takes: word\n`
      })
      // Sound: the arithmetic case runs with its own scenario's calculator, the other with the server's shout.
      writeFiles(dir, { "cases/a.yaml": `${sums}${quiet}` })
      const right = yield* agentfx(args)
      expect([right.code, right.stdout.split("\n").at(-2)]).toStrictEqual([0, expect.stringMatching(/^2\/2 passed \(100 %\)/)])
    }))

  it.scopedLive("a server that does not start, or whose answer is over --mcp-max-bytes, is its scenario's one problem: its cases are not checked against tools it never gave", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, {
        "scenarios/math.md": math,
        "scenarios/shouter.md": shouting("shouter", shouter.command, shouter.args),
        "broken/math.md": math,
        "broken/shouter.md": shouting("shouter", process.execPath, ["-e", "process.exit(3)"]),
        "cases/a.yaml": `${sums}${loud("{ word: hi }")}`
      })
      const run = (scenarios: string, ...flags: ReadonlyArray<string>) =>
        agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, scenarios), "--allow-scenario-commands", ...flags])
      expect(yield* run("broken")).toStrictEqual({
        code: 2,
        stdout: "",
        stderr: `agentfx: 1 problem in the eval input; nothing was run:\n  ${path.join(dir, "broken", "shouter.md")}:6: MCP server twice: did not start: MCP error -32000: Connection closed\n`
      })
      expect(yield* run("scenarios", "--mcp-max-bytes", "100")).toStrictEqual({
        code: 2,
        stdout: "",
        stderr: `agentfx: 1 problem in the eval input; nothing was run:\n  ${path.join(dir, "scenarios", "shouter.md")}:6: MCP server twice: did not start: the answer is 138 bytes, more than the 100 bytes one message may hold: it was not read\n`
      })
    }))

  it.scopedLive("a scenario that would start a program but that no selected case uses asks for no consent and starts nothing", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, {
        "scenarios/math.md": math,
        "scenarios/shouter.md": shouting("shouter", process.execPath, ["-e", "process.exit(3)"]),
        "cases/a.yaml": sums
      })
      const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios")])
      expect([result.code, result.stdout.split("\n").at(-2)]).toStrictEqual([0, expect.stringMatching(/^1\/1 passed \(100 %\)/)])
    }))
})
