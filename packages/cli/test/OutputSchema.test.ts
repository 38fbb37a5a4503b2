/**
 * `agentfx run --output-schema FILE.json`: the final answer must match a JSON Schema file; with --json the decoded
 * answer is the result's `output`, stdout holding the JSON alone; a file that cannot be used is one line, exit 2,
 * before anything runs. `chat` and `live` give text: they refuse a scenario with `output_schema`.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { agentfx, tempDir, writeFiles } from "./support/cli.js"

const answer = { type: "object", properties: { answer: { type: "string" }, confident: { type: "boolean" } }, required: ["answer", "confident"], additionalProperties: false }

describe("agentfx run --output-schema", () => {
  it.scopedLive("with --json, the decoded final answer is the result's output, and stdout is that JSON alone", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "answer.json": JSON.stringify(answer) })
      const result = yield* agentfx(["run", "--json", "--output-schema", path.join(dir, "answer.json"), "what is 6 * 7"])
      expect(result.code).toBe(0)
      const json = JSON.parse(result.stdout) as { output: unknown; calls: Array<{ name: string }>; text: string }
      expect(json.calls.map((call) => call.name)).toEqual(["calculator"])
      expect(json.output).toEqual({ answer: "6 * 7 = 42.", confident: false })
      expect(JSON.parse(json.text)).toEqual(json.output)
    }))

  it.scopedLive("without it, the answer streams as usual", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "answer.json": JSON.stringify(answer) })
      const result = yield* agentfx(["run", "--output-schema", path.join(dir, "answer.json"), "what is 6 * 7"])
      expect(result.code).toBe(0)
      expect(result.stdout).toContain('{"answer":"6 * 7 = 42.","confident":false}')
    }))

  it.scopedLive("--scenario's output_schema is the default, --output-schema wins over it", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const scenario = `---\nname: s\ndescription: d\navailable_functions: [{ name: calculator, description: Calculates, parameters: { type: object, properties: { expression: { type: string } }, required: [expression] } }]\noutput_schema: { type: object, properties: { result: { type: string } }, required: [result], additionalProperties: false }\n---\nCalculate.\n`
      writeFiles(dir, { "s.md": scenario, "answer.json": JSON.stringify(answer) })
      const fromScenario = yield* agentfx(["run", "--json", "--scenario", path.join(dir, "s.md"), "what is 6 * 7"])
      expect(fromScenario.code).toBe(0)
      expect((JSON.parse(fromScenario.stdout) as { output: unknown }).output).toEqual({ result: "6 * 7 = 42." })
      const fromFlag = yield* agentfx(["run", "--json", "--scenario", path.join(dir, "s.md"), "--output-schema", path.join(dir, "answer.json"), "what is 6 * 7"])
      expect((JSON.parse(fromFlag.stdout) as { output: unknown }).output).toEqual({ answer: "6 * 7 = 42.", confident: false })
    }))

  it.scopedLive("a file that cannot be used is one line naming it, exit 2, and nothing runs", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, {
        "prose.json": "an answer, please",
        "allof.json": JSON.stringify({ type: "object", properties: { a: { allOf: [{ type: "string" }] } } }),
        "array.json": "[1, 2]",
        "ref.json": JSON.stringify({ $ref: "#/$defs/Missing" })
      })
      fs.mkdirSync(path.join(dir, "folder.json"))
      expect(spawnSync("mkfifo", [path.join(dir, "fifo.json")]).status).toBe(0)
      const cases: ReadonlyArray<readonly [string, string]> = [
        ["missing.json", "no such file"],
        ["folder.json", "it is a directory, not a file"],
        ["fifo.json", "it is a named pipe, not a file"],
        ["prose.json", "not JSON ("],
        ["allof.json", 'not a JSON Schema agentfx can check answers with: at properties/a: the keyword "allOf" is not supported (it would not be checked)'],
        ["array.json", "not a JSON Schema agentfx can check answers with: a JSON Schema must be a JSON object"],
        ["ref.json", 'not a JSON Schema agentfx can check answers with: the reference "#/$defs/Missing" resolves to no definition']
      ]
      for (const [file, why] of cases) {
        const result = yield* agentfx(["run", "--output-schema", path.join(dir, file), "hi"])
        expect(result.code).toBe(2)
        expect(result.stdout).toBe("")
        expect(result.stderr.startsWith(`agentfx: --output-schema ${path.join(dir, file)}: ${why}`)).toBe(true)
        expect(result.stderr.trimEnd().split("\n")).toHaveLength(1)
      }
    }))
})

describe("chat and live give text answers", () => {
  it.scopedLive("a --scenario with output_schema is refused, naming the file (exit 2, nothing starts); chat and live take no --output-schema", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const typed = `---\nname: s\ndescription: d\navailable_functions: [{ name: calculator, description: Calculates, parameters: { type: object, properties: { expression: { type: string } }, required: [expression] } }]\noutput_schema: { type: object, properties: { result: { type: string } }, required: [result] }\n---\nCalculate.\n`
      writeFiles(dir, { "s.md": typed, "plain.md": typed.replace(/output_schema: .*\n/, ""), "answer.json": JSON.stringify(answer) })
      const file = path.join(dir, "s.md")
      for (const command of ["chat", "live"]) {
        const result = yield* agentfx([command, "--scenario", file])
        expect(result).toEqual({
          code: 2,
          stdout: "",
          stderr: `agentfx: ${file}: output_schema: scenario "s" says what its final answer is, and agentfx ${command} gives text answers: use the scenario with agentfx run (--json prints the decoded answer)\n`
        })
        const plain = yield* agentfx([command, "--scenario", path.join(dir, "plain.md")])
        expect(plain.code).toBe(0)
        const flag = yield* agentfx([command, "--output-schema", path.join(dir, "answer.json")])
        expect([flag.code, flag.stderr]).toEqual([2, expect.stringMatching(/--output-schema/)])
      }
    }))
})
