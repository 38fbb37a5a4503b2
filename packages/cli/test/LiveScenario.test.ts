import { LiveRepl } from "@agentfx/cli"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { agentfx, startInteractive, tempDir, typeAt as typeAtPrompt, writeFiles } from "./support/cli.js"

// `agentfx live --scenario FILE [--mocks FILE]`: a scenario's instructions and functions on a live connection,
// offline on the emulator's Live endpoint and its offline rule model.

const smartHome = fileURLToPath(new URL("../../../apps/demo/smart-home/", import.meta.url))
const scenario = path.join(smartHome, "smart-home.md")
const mocks = path.join(smartHome, "mocks.yaml")
const typeAt = typeAtPrompt(LiveRepl.prompt)

describe("agentfx live --scenario", () => {
  it.scopedLive("offline, the smart-home scenario with its mocks answers the three seed questions, each after the call it needs", () =>
    Effect.gen(function* () {
      const { terminal, fiber } = yield* startInteractive("live", ["--scenario", scenario, "--mocks", mocks], {})
      yield* typeAt(terminal, 1, "Is the living room lamp on?")
      yield* typeAt(terminal, 2, "Okay, please turn it on and set its color to blue.")
      yield* typeAt(terminal, 3, "What's the kitchen thermostat set to?")
      yield* typeAt(terminal, 4, "/tools")
      yield* typeAt(terminal, 5, "/exit")
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(0)
      const lines = result.stdout.split("\n")
      const after = (question: string) => lines.slice(lines.findIndex((line) => line.endsWith(question)) + 1)
      expect(after("Is the living room lamp on?").slice(0, 3)).toEqual([
        '→ get_device_status({"device_name":"living room lamp"})',
        expect.stringMatching(/^← get_device_status: \{"device_name":"living room lamp","kind":"light","status":"off"/),
        "get_device_status returned device_name living room lamp, kind light, status off, brightness 80 and color warm white."
      ])
      expect(after("Okay, please turn it on and set its color to blue.").slice(0, 3)).toEqual([
        '→ set_device_status({"device_name":"living room lamp","new_status":"on","setting":{"color":"blue"}})',
        expect.stringMatching(/^← set_device_status: \{"device_name":"living room lamp","kind":"light","status":"on","brightness":80,"color":"blue"\}/),
        "set_device_status returned device_name living room lamp, kind light, status on, brightness 80 and color blue."
      ])
      expect(after("What's the kitchen thermostat set to?").slice(0, 3)).toEqual([
        '→ get_device_status({"device_name":"kitchen thermostat"})',
        expect.stringMatching(/^← get_device_status: /),
        "get_device_status returned device_name kitchen thermostat, kind thermostat, status on and temperature_celsius 20."
      ])
      // The scenario's functions are the tools, with its descriptions; its instructions are the system instruction.
      expect(result.stdout).toContain("  scan_devices — Searches the home network for devices that are not set up yet; takes a few seconds.\n")
      expect(result.stdout).not.toContain("  calculator — ")
    }))

  it.scopedLive("a function that is neither built in nor mocked, a mock for a function the scenario lacks, --mocks alone and a bad mocks file are usage errors (exit 2) naming the file", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, {
        "partial.yaml": "get_device_status:\n  response: { status: \"off\" }\n",
        "foreign.yaml": "get_device_status:\n  response: {}\nset_device_status:\n  response: {}\nscan_devices:\n  response: {}\nopen_garage:\n  response: {}\n",
        "bad.yaml": "get_device_status:\n  respons: {}\n"
      })
      const unmocked = yield* agentfx(["live", "--scenario", scenario])
      expect(unmocked.code).toBe(2)
      expect(unmocked.stderr).toMatch(
        /^agentfx: .*smart-home\.md:\d+: scenario "smart-home" declares function "get_device_status", which is not a built-in tool \(clock, calculator, read_file, list_dir, fetch_url\): give its responses with --mocks FILE\n$/
      )
      const partial = yield* agentfx(["live", "--scenario", scenario, "--mocks", path.join(dir, "partial.yaml")])
      expect(partial.code).toBe(2)
      expect(partial.stderr).toContain(`declares function "set_device_status", which is not a built-in tool (clock, calculator, read_file, list_dir, fetch_url): give its responses in ${path.join(dir, "partial.yaml")}`)
      const foreign = yield* agentfx(["live", "--scenario", scenario, "--mocks", path.join(dir, "foreign.yaml")])
      expect(foreign.code).toBe(2)
      expect(foreign.stderr).toContain(`${path.join(dir, "foreign.yaml")}: mocks "open_garage", which scenario "smart-home" does not declare (it declares: get_device_status, set_device_status, scan_devices)`)
      const alone = yield* agentfx(["live", "--mocks", mocks])
      expect([alone.code, alone.stderr]).toEqual([2, "agentfx: --mocks answers a scenario's functions: give --scenario FILE with it\n"])
      const bad = yield* agentfx(["live", "--scenario", scenario, "--mocks", path.join(dir, "bad.yaml")])
      expect(bad.code).toBe(2)
      expect(bad.stderr).toContain(`${path.join(dir, "bad.yaml")}:2: get_device_status.respons: unknown field`)
    }))

  it("a call's progress is a line of its own, its name and value escaped", () => {
    const call = { _tag: "FunctionCall", id: "c1", name: "scan\u001b[2J", args: {} } as const
    expect(LiveRepl.lineOf({ _tag: "CallProgress", turn: 1, call, response: { found: ["lamp\u001b[1m"] }, sent: true, scheduling: "silent" })).toBe(
      '… scan\\u001b[2J: {"found":["lamp\\u001b[1m"]}'
    )
  })
})
