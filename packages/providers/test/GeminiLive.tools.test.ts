import { LiveAgent, Registry, Retry, Tool, Turn } from "@agentfx/core"
import { Emulator, Policy } from "@agentfx/emulator"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted, Schema, Stream } from "effect"
import * as GeminiLive from "../src/GeminiLive.js"

// A Live session whose tools change mid-session, through the real SDK and the emulator: the new declarations go out
// in the setup of a connection resumed from the session's handle.

interface WireSetup {
  readonly tools?: ReadonlyArray<{ readonly functionDeclarations: ReadonlyArray<{ readonly name: string; readonly parametersJsonSchema?: unknown }> }>
  readonly sessionResumption?: { readonly handle?: string }
  readonly systemInstruction?: unknown
}

const lamp = { on: false }

const getDeviceStatus = Tool.make("get_device_status", {
  description: "The status of a device",
  parameters: Schema.Struct({ device_name: Schema.String }),
  handler: () => Effect.succeed({ status: lamp.on ? "on" : "off" })
})

const setDevice = Tool.make("set_device", {
  description: "Switches a device",
  parameters: Schema.Struct({ device_name: Schema.String, on: Schema.Boolean }),
  handler: ({ on }) => Effect.sync(() => ((lamp.on = on), { status: on ? "on" : "off" }))
})

describe("Gemini Live layer — tools that change mid-session", () => {
  it.scopedLive("a tool added during a turn is declared in the setup of a connection resumed from the handle; the history goes on and calls are answered by id", () =>
    Effect.gen(function* () {
      lamp.on = false
      // The source: the status tool, then (once it has been called) the switch too.
      const state = { tools: [getDeviceStatus] as ReadonlyArray<Tool.Tool>, version: 0 }
      const source: Registry.Source = { version: () => state.version, current: Effect.sync(() => Registry.unsafeMake(...state.tools)) }
      const adding = Tool.make("get_device_status", {
        description: "The status of a device",
        parameters: Schema.Struct({ device_name: Schema.String }),
        handler: () =>
          Effect.sync(() => {
            state.tools = [getDeviceStatus, setDevice]
            state.version++
            return { status: lamp.on ? "on" : "off" }
          })
      })
      const seen: Array<{ readonly declarations: ReadonlyArray<string>; readonly models: number }> = []
      const emulator = yield* Emulator.make({
        policy: Policy.fromFunction((request) => {
          const models = request.transcript.filter((turn) => turn.role === "model").length
          seen.push({ declarations: request.declarations.map((declaration) => declaration.name), models })
          const last = request.transcript.at(-1)
          const answered = last !== undefined && Turn.responses(last).length > 0
          if (models === 0) return { calls: [{ name: "get_device_status", args: { device_name: "lamp" } }] }
          if (models === 1) return { text: "The lamp is off." }
          if (!answered) return { calls: [{ name: "set_device", args: { device_name: "lamp", on: true } }] }
          return { text: `The lamp is on, after ${models} answers.` }
        })
      })
      const events: Array<LiveAgent.LiveAgentEvent> = []
      const turns = yield* Effect.scoped(
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({
            registry: Registry.dynamic(Registry.unsafeMake(adding), source, 0),
            system: "You run the house.",
            reconnect: Retry.policy({ base: "10 millis", maxRetries: 3 })
          })
          yield* Effect.forkScoped(Stream.runForEach(yield* session.subscribe, (event) => Effect.sync(() => events.push(event))))
          const first = yield* session.send("Is the lamp on?")
          const second = yield* session.send("Switch it on.")
          return [first, second]
        })
      ).pipe(Effect.provide(GeminiLive.layer({ apiKey: Redacted.make(emulator.apiKey), baseUrl: emulator.geminiBaseUrl })))

      expect(turns.map((turn) => turn.text)).toEqual(["The lamp is off.", "The lamp is on, after 3 answers."])
      expect(lamp.on).toBe(true)
      const records = yield* emulator.live
      expect(records).toHaveLength(2)
      const [before, after] = records.map((record) => record.setup as WireSetup)
      // The second setup: the new declarations, the handle the first connection gave, the rest as before.
      expect(before!.tools![0]!.functionDeclarations.map((declaration) => declaration.name)).toEqual(["get_device_status"])
      expect(after!.tools![0]!.functionDeclarations.map((declaration) => declaration.name)).toEqual(["get_device_status", "set_device"])
      expect(after!.tools![0]!.functionDeclarations[1]!.parametersJsonSchema).toMatchObject({
        type: "object",
        properties: { device_name: { type: "string" }, on: { type: "boolean" } }
      })
      expect(before!.sessionResumption).toEqual({})
      const handles = records[0]!.sent.flatMap((frame) => {
        const update = (frame as { sessionResumptionUpdate?: { newHandle: string; resumable: boolean } }).sessionResumptionUpdate
        return update?.resumable === true ? [update.newHandle] : []
      })
      expect(after!.sessionResumption).toEqual({ handle: handles.at(-1) })
      expect(records[1]!.resumedFrom).toBe(handles.at(-1))
      expect(after!.systemInstruction).toEqual(before!.systemInstruction)
      // The history was resumed: the model on the new connection saw both earlier answers and the new tool.
      expect(seen.map((s) => [s.declarations, s.models])).toEqual([
        [["get_device_status"], 0],
        [["get_device_status"], 1],
        [["get_device_status", "set_device"], 2],
        [["get_device_status", "set_device"], 3]
      ])
      // Each call was answered by its id, on the connection that asked for it, once.
      const asked = records.map((record) =>
        record.sent.flatMap((frame) => (frame as { toolCall?: { functionCalls: ReadonlyArray<{ id: string }> } }).toolCall?.functionCalls.map((call) => call.id) ?? [])
      )
      expect(records.map((record) => record.responses.map((response) => response.id))).toEqual(asked)
      expect(records[1]!.responses).toEqual([{ id: asked[1]![0], name: "set_device", response: { status: "on" } }])
      expect(turns[1]!.calls.map((call) => [call.id, call.name, call.connection, call.outcome._tag])).toEqual([[asked[1]![0], "set_device", 2, "Answered"]])
      expect(records.flatMap((record) => record.violations)).toEqual([])
      expect(events.filter((event) => ["ToolsChanged", "Reconnecting", "Connected"].includes(event._tag))).toEqual([
        { _tag: "ToolsChanged", added: ["set_device"], removed: [], changed: [], connection: 2 },
        { _tag: "Connected", connection: 2, resumed: true }
      ])
    }))
})
