import { Emulator } from "@agentfx/emulator"
import { LiveProvider } from "@agentfx/cli"
import { EvalReport, EvalRunner, LiveCassette } from "@agentfx/tools"
import { GeminiLive } from "@agentfx/providers"
import { LiveModel } from "@agentfx/core"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { storeCassettes } from "../src/Recorder.js"
import * as Suite from "../src/smartHome/Suite.js"
import { policy } from "../src/smartHome/offlineModel.js"

// The smart-home Live eval suite, as CI runs it: offline, each case's Live cassette replayed by the emulator's Live
// endpoint through the real SDK and provider layer, the pass rate gated.

const loaded = Suite.load().pipe(Effect.provide(NodeContext.layer))

describe("smart-home Live eval suite", () => {
  it.scopedLive("offline, every case passes: reads, changes, a parallel pair, refusals, a cancelled scan, a goAway mid-dialogue; the gate is met", () =>
    Effect.gen(function* () {
      const { scenario, cases } = yield* loaded
      expect(cases.map((c) => c.id).sort()).toEqual(
        ["status-query", "set-with-setting", "thermostat-query", "parallel-pair", "unknown-device", "refused-setting", "seed-dialogue", "go-away-mid-dialogue", "cancelled-scan"].sort()
      )
      expect(cases).toHaveLength(9)
      const report = yield* Suite.run({ scenario, cases, source: { _tag: "Offline" } })
      const failing = report.cases.filter((result) => result.status !== "passed").map((result) => [result.id, result.error, result.mismatches])
      expect(failing).toEqual([])
      expect(report.summary).toMatchObject({ total: 9, passed: 9, ok: true })
      expect(EvalReport.exitCode(report)).toBe(0)
      const byId = new Map(report.cases.map((result) => [result.id, result]))
      expect(byId.get("seed-dialogue")!.text).toBe("No, the living room lamp is off.\nDone, it's on and blue.\nThe kitchen thermostat is set to 20 °C.")
      expect(byId.get("cancelled-scan")!.calls[0]).toMatchObject({ name: "scan_devices", isError: true, response: { error: { type: "Cancelled" } } })
      expect(byId.get("refused-setting")!.calls[0]!.response).toMatchObject({ error: { details: { message: "kitchen thermostat: the temperature must be between 5 and 30 °C, not 90" } } })
      expect(byId.get("go-away-mid-dialogue")!.turns).toBe(3)
    }))

  it.scopedLive("replayed, the goAway case moves to a second connection resumed from the first's handle, and the scan is cancelled by the server, never answered", () =>
    Effect.gen(function* () {
      const { scenario, cases } = yield* loaded
      const picked = cases.filter((c) => c.id === "go-away-mid-dialogue" || c.id === "cancelled-scan")
      const replay = LiveProvider.replay(picked, { fallback: policy, record: true })
      const { report, records } = yield* Effect.gen(function* () {
        const report = yield* EvalRunner.run(picked, { scenarios: [scenario], model: Layer.die("no REST model"), live: { model: replay.model } })
        return { report, records: yield* (yield* Emulator.Emulator).live }
      }).pipe(Effect.provide(replay.emulator))
      expect(report.summary).toMatchObject({ total: 2, passed: 2 })
      const goAway = records.filter((record) => record.model === "live-case-0")
      expect(goAway.map((record) => [record.resumedFrom !== undefined, record.violations])).toEqual([
        [false, []],
        [true, []]
      ])
      const scan = records.filter((record) => record.model === "live-case-1")
      expect(scan).toHaveLength(1)
      expect(scan[0]!.cancelled).toHaveLength(1)
      expect(scan[0]!.responses.map((response) => response.name)).toEqual(["get_device_status"])
    }))

  it.scopedLive("a deliberately wrong expected call fails its case, and the suite misses its gate (exit code 1)", () =>
    Effect.gen(function* () {
      const { scenario, cases } = yield* loaded
      const wrong = cases.map((c) =>
        c.id === "status-query" ? { ...c, expected_function_calls: [{ function_name: "get_device_status", arguments: { device_name: "kitchen thermostat" } }] } : c
      )
      const report = yield* Suite.run({ scenario, cases: wrong, source: { _tag: "Offline" } })
      const result = report.cases.find((c) => c.id === "status-query")!
      expect(result).toMatchObject({ status: "failed", mismatches: [{ _tag: "ArgumentMismatch" }] })
      expect(report.summary).toMatchObject({ passed: 8, failed: 1, ok: false })
      expect(EvalReport.exitCode(report)).toBe(1)
    }))

  it.scopedLive("--record's path: a session recorded on a live model and stored as the case's x-live-cassette replays to the same calls", () =>
    Effect.gen(function* () {
      const { scenario } = yield* loaded
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agentfx-live-record-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      // The seed dialogue without its cassette, beside the scenario.
      const dialogues = fs.readFileSync(path.join(Suite.directory, "evals", "dialogues.yaml"), "utf8")
      const seed = dialogues.slice(dialogues.indexOf("- id: seed-dialogue"), dialogues.indexOf("  x-live-cassette:"))
      fs.mkdirSync(path.join(dir, "evals"))
      const file = path.join(dir, "evals", "seed.yaml")
      fs.writeFileSync(file, seed)
      fs.copyFileSync(path.join(Suite.directory, "smart-home.md"), path.join(dir, "smart-home.md"))
      const [bare] = (yield* Effect.provide(Suite.load(dir), NodeContext.layer)).cases
      expect([bare!.id, LiveCassette.ofCase(bare!)]).toEqual(["seed-dialogue", undefined])
      // Recorded from the demo's offline model on the emulator, standing in for Gemini Live.
      const emulator = yield* Emulator.make({ policy })
      const recorder = yield* LiveCassette.recorder
      const live = Layer.effect(LiveModel.LiveModel, Effect.map(LiveModel.LiveModel, recorder.wrap)).pipe(
        Layer.provide(GeminiLive.layer({ apiKey: Redacted.make(emulator.apiKey), baseUrl: emulator.geminiBaseUrl }))
      )
      const recorded = yield* Suite.run({ scenario, cases: [bare!], source: { _tag: "Live", model: () => live } })
      expect(recorded.summary.ok).toBe(true)
      const cassette = yield* recorder.cassette
      expect(yield* Effect.provide(storeCassettes(file, { cassette: () => LiveCassette.encode(cassette!) }, recorded.cases, LiveCassette.field), NodeContext.layer)).toEqual({
        stored: ["seed-dialogue"],
        notStored: []
      })
      const stored = yield* Effect.provide(Suite.load(dir), NodeContext.layer)
      const replayed = yield* Suite.run({ scenario, cases: stored.cases, source: { _tag: "Offline" } })
      expect(replayed.summary).toMatchObject({ total: 1, passed: 1 })
      expect(replayed.cases[0]!.calls.map((call) => [call.name, call.args])).toEqual(recorded.cases[0]!.calls.map((call) => [call.name, call.args]))
      expect(fs.readFileSync(file, "utf8")).toContain("x-live-cassette:")
    }))
})
