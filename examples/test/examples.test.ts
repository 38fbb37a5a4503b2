/**
 * Every example as a user runs it: `node examples/run.mjs NAME` (what `npx -y pnpm@10 example NAME` runs), a child
 * process with its output piped, offline. Each test checks the lines that show what the example is about, not only
 * the exit code; one more checks that no file of examples/src is left without its test and its one-line command.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const examples = fileURLToPath(new URL("..", import.meta.url))
const runner = join(examples, "run.mjs")

interface Outcome {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const run = (args: ReadonlyArray<string>): Promise<Outcome> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [runner, ...args], { env: { PATH: process.env.PATH ?? "" }, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

/** Runs an example; it must exit 0 with nothing on stderr. */
const example = async (name: string): Promise<ReadonlyArray<string>> => {
  const outcome = await run([name])
  expect(outcome.stderr).toBe("")
  expect(outcome.code).toBe(0)
  return outcome.stdout.split("\n")
}

// The examples tested below, by name; the last test checks that this is every file of examples/src.
const tested = ["scripted", "gemini", "glm", "executor", "live", "mcp", "evals", "telemetry"]

// One at a time: eight processes at once would take the CPU from timed tests running beside this file.
describe("examples/, each run as a process", () => {
  it("scripted: the tool's call and result, the scripted answer, two model turns", async () => {
    expect(await example("scripted")).toEqual([
      'call get_weather({"city":"Oslo"}) → {"city":"Oslo","celsius":7}',
      "answer: It is 7 °C in Oslo.",
      "stopped: Finished after 2 model turns",
      ""
    ])
  })

  it("gemini: through the emulator's REST API, a 429 waited out, two calls in one turn, the answer", async () => {
    const [emulator, ...rest] = await example("gemini")
    expect(emulator).toMatch(/^emulator: http:\/\/127\.0\.0\.1:\d+$/)
    expect(rest).toEqual([
      'call get_weather({"city":"Paris"})',
      'call get_time({"tz":"Europe/Paris"})',
      "answer: It is 20 °C and 14:05 in Paris.",
      "requests: 429, 200, 200",
      ""
    ])
  })

  it("glm: truncated arguments go back to the model as InvalidArguments, the next call runs; an OpenAI-compatible server too", async () => {
    const lines = await example("glm")
    expect(lines[0]).toMatch(/^glm call create_ticket → InvalidArguments: invalid arguments for "create_ticket": arguments are not valid JSON: /)
    expect(lines.slice(1)).toEqual([
      'glm call create_ticket → ok {"ticket_id":"T-100","title":"Kettle broken","priority":"high"}',
      "glm answer: Ticket T-100 is open.",
      "openai-compatible calls: create_ticket",
      "openai-compatible answer: Done: T-100.",
      ""
    ])
  })

  it("executor: every outcome of a bounded-parallel batch in call order, and one JSON object response per call", async () => {
    const lines = await example("executor")
    expect(lines.slice(0, 6)).toEqual([
      "c1 get_weather: ok",
      "c2 get_weather: ExecutionFailed",
      "c3 convert_currency: ok",
      "c4 convert_currency: InvalidArguments",
      "c5 book_flight: UnknownFunction",
      "c6 generate_report: ToolTimeout"
    ])
    const responses = lines.slice(6, -1).map((line) => /^response (c\d) (.*)$/.exec(line))
    expect(responses.map((match) => match?.[1])).toEqual(["c1", "c2", "c3", "c4", "c5", "c6"])
    const bodies = responses.map((match) => JSON.parse(match?.[2] ?? "null"))
    expect(bodies[0]).toEqual({ city: "Oslo", celsius: 7 })
    expect(bodies[2]).toEqual({ output: 108 })
    expect(bodies.filter((body) => "error" in body).map((body) => body.error.type)).toEqual(["ExecutionFailed", "InvalidArguments", "UnknownFunction", "ToolTimeout"])
    expect(lines.at(-1)).toBe("")
  })

  it("live: the cancelled call is interrupted and never answered, the other one is, and the turn completes", async () => {
    expect(await example("live")).toEqual([
      "scan_house: interrupted by the cancellation",
      "call get_device_status: Answered",
      "call scan_house: Cancelled",
      "answer: The living room lamp is on; I stopped the scan.",
      "answered on the wire: get_device_status",
      ""
    ])
  })

  it("mcp: the stdio server's tool listed, an isError result as a tool error, then its answer used", async () => {
    expect(await example("mcp")).toEqual([
      "tool read_note: Reads a note by title (groceries, ideas)",
      'call read_note({"title":"shopping"}) → error: "read_note" failed: no note called "shopping"',
      'call read_note({"title":"groceries"}) → "milk, eggs, rye bread"',
      "answer: Milk, eggs and rye bread.",
      ""
    ])
  })

  it("evals: one case passes, the other's missing call is reported, the pass rate meets its threshold, JUnit XML", async () => {
    const lines = await example("evals")
    expect(lines[0]).toBe("warranty: 2 cases")
    expect(lines).toContainEqual(expect.stringMatching(/^✓ kettle-repair {2}\[warranty\] \d+ ms$/))
    expect(lines).toContainEqual(expect.stringMatching(/^✗ toaster-repair {2}\[warranty\] \d+ ms$/))
    expect(lines).toContain("      - expected call 2 create_ticket was not made")
    expect(lines).toContainEqual(expect.stringMatching(/^1\/2 passed \(50 %\), 1 failed, 0 errored — threshold 50 %: PASS/))
    expect(lines).toContainEqual(expect.stringMatching(/^ {4}<testcase name="toaster-repair" classname="warranty" time="[\d.]+">$/))
  })

  it("telemetry: the run's spans on the console — invoke_agent, two chat turns, execute_tool — with GenAI attributes", async () => {
    const lines = await example("telemetry")
    const names = lines.flatMap((line) => /^ {2}name: '(.*)',$/.exec(line)?.[1] ?? [])
    expect(names).toEqual(["chat scripted", "execute_tool echo", "chat scripted", "invoke_agent agentfx"])
    expect(lines).toContain("    'gen_ai.tool.name': 'echo',")
    expect(lines).toContain("    'gen_ai.operation.name': 'invoke_agent',")
  })

  it("every file of examples/src is run above, and its header gives the one command that runs it", () => {
    const files = readdirSync(join(examples, "src")).filter((file) => file.endsWith(".ts"))
    expect(files.map((file) => file.replace(/\.ts$/, "")).sort()).toEqual([...tested].sort())
    for (const file of files) {
      expect(readFileSync(join(examples, "src", file), "utf8")).toContain(` *   npx -y pnpm@10 example ${file.replace(/\.ts$/, "")}\n`)
    }
  })

  it("an unknown name: exit 2 and the list of examples on stderr; no name: the list, exit 0", async () => {
    const unknown = await run(["nope"])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toBe(`unknown example "nope"; usage: npx -y pnpm@10 example NAME, one of: ${[...tested].sort().join(", ")}\n`)
    const none = await run([])
    expect(none.code).toBe(0)
    expect(none.stdout).toBe(`usage: npx -y pnpm@10 example NAME, one of: ${[...tested].sort().join(", ")}\n`)
  })
})
