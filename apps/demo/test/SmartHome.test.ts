import { Executor, FunctionCall, LiveAgent } from "@agentfx/core"
import type { Registry } from "@agentfx/core"
import { Emulator } from "@agentfx/emulator"
import { GeminiLive } from "@agentfx/providers"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Redacted } from "effect"
import * as Demo from "../src/smartHome/demo.js"
import * as Home from "../src/smartHome/Home.js"
import { policy } from "../src/smartHome/offlineModel.js"

const call = (registry: Registry.Registry, name: string, args: Record<string, unknown>) =>
  Effect.either(Executor.execute(registry, FunctionCall.make({ id: "c1", name, args })))

describe("smart-home demo (Gemini Live)", () => {
  it.scopedLive("offline, the three messages are answered after their calls; every call is answered by id and the lamp ends on and blue", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy })
      const lines: Array<string> = []
      const result = yield* Demo.run({
        layer: GeminiLive.layer({ apiKey: Redacted.make(emulator.apiKey), baseUrl: emulator.geminiBaseUrl }),
        announcement: "emulator",
        print: (line) => lines.push(line)
      })
      expect(result.calls.map((record) => [record.name, record.args, record.outcome._tag])).toEqual([
        ["get_device_status", { device_name: "living room lamp" }, "Answered"],
        ["set_device_status", { device_name: "living room lamp", new_status: "on", setting: { color: "blue" } }, "Answered"],
        ["get_device_status", { device_name: "kitchen thermostat" }, "Answered"]
      ])
      expect(result.devices.find((device) => device.device_name === "living room lamp")).toMatchObject({ status: "on", color: "blue" })
      const replies = lines.filter((line) => line.startsWith("model › "))
      expect(replies).toEqual([
        "model › The living room lamp is off.",
        "model › Done: the living room lamp is now on, blue at 80 % brightness.",
        "model › The kitchen thermostat is on and set to 20 °C."
      ])
      // Each call line comes before the answer it led to.
      expect(lines.findIndex((line) => line.includes("→ set_device_status"))).toBeLessThan(lines.indexOf(replies[1]!))
      const [record] = yield* emulator.live
      expect(record!.violations).toEqual([])
      const asked = record!.sent.flatMap((frame) => (frame as { toolCall?: { functionCalls: Array<{ id: string }> } }).toolCall?.functionCalls ?? [])
      expect(record!.responses.map((response) => response.id)).toEqual(asked.map((asked) => asked.id))
      expect(JSON.stringify(record!.setup)).toContain("front door lock (lock)")
    }))

  it.effect("the devices refuse what they cannot do, as a typed error the model hears", () =>
    Effect.gen(function* () {
      const home = yield* Home.make()
      const unknown = yield* call(home.registry, "get_device_status", { device_name: "garage door" })
      expect(unknown).toMatchObject({ _tag: "Left" })
      const errors = yield* Effect.forEach(
        [
          { device_name: "front door lock", new_status: "on" },
          { device_name: "kitchen thermostat", new_status: "on", setting: { temperature_celsius: 90 } },
          { device_name: "kitchen thermostat", new_status: "on", setting: { color: "blue" } },
          { device_name: "living room lamp", new_status: "on", setting: { brightness: 150 } }
        ],
        (args) => call(home.registry, "set_device_status", args)
      )
      for (const error of errors) expect(Either.isLeft(error)).toBe(true)
      // Nothing changed.
      expect(yield* home.devices).toEqual(Home.initialDevices)
      const set = yield* call(home.registry, "set_device_status", { device_name: " Kitchen Thermostat ", new_status: "ON", setting: { temperature_celsius: 22.5 } })
      expect(set).toMatchObject({ _tag: "Right", right: { device_name: "kitchen thermostat", status: "on", temperature_celsius: 22.5 } })
    }))

  it.scopedLive("the offline model asks which device when none is named, and turns a device off or unlocks it when told", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy })
      const home = yield* Home.make()
      const layer = GeminiLive.layer({ apiKey: Redacted.make(emulator.apiKey), baseUrl: emulator.geminiBaseUrl })
      const turns = yield* LiveAgent.run({
        registry: home.registry,
        system: Home.systemInstruction(Home.initialDevices),
        messages: ["Turn on the radio.", "Please unlock the front door lock.", "Switch the kitchen thermostat off."]
      }).pipe(Effect.provide(layer))
      expect(turns[0]!.text).toBe("Which device do you mean? I can reach the living room lamp, the kitchen thermostat, the front door lock.")
      expect(turns[1]!.text).toBe("Done: the front door lock is now unlocked.")
      expect(turns[2]!.text).toBe("Done: the kitchen thermostat is now off and set to 20 °C.")
    }))
})
