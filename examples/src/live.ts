/**
 * Gemini Live (WebSocket) with a cancellation, offline: the emulator serves the Live endpoint in this process and
 * the real @google/genai SDK connects to it through the `GeminiLive` layer. The model asks for two calls at once; a
 * moment later the server cancels the slow one (`toolCallCancellation`). Its handler is interrupted (its finalizer
 * says so) and it is never answered, while the quick one is answered by id; then the model finishes the turn. With
 * a key, `GeminiLive.layerConfig()` reads GEMINI_API_KEY and GEMINI_LIVE_MODEL.
 *
 *   npx -y pnpm@10 example live
 */
import { LiveAgent, Registry, Tool } from "@agentfx/core"
import { Emulator, Fault, Policy } from "@agentfx/emulator"
import { GeminiLive } from "@agentfx/providers"
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Redacted, Schema } from "effect"

const scanHouse = Tool.make("scan_house", {
  description: "Scans every room for open windows (slow)",
  parameters: Schema.Struct({}),
  handler: () =>
    Effect.sleep("1 minute").pipe(
      Effect.as({ open: 0 }),
      Effect.onInterrupt(() => Console.log("scan_house: interrupted by the cancellation"))
    )
})

const getDeviceStatus = Tool.make("get_device_status", {
  description: "The status of one device",
  parameters: Schema.Struct({ device_name: Schema.String }),
  handler: ({ device_name }) => Effect.succeed({ device_name, status: "on" })
})

const program = Effect.gen(function* () {
  const emulator = yield* Emulator.make({
    policy: Policy.script([
      Policy.withFaults(
        { calls: [{ name: "scan_house", args: {} }, { name: "get_device_status", args: { device_name: "living room lamp" } }] },
        Fault.cancelCalls("1 second")
      ),
      { text: "The living room lamp is on; I stopped the scan." }
    ])
  })
  const live = GeminiLive.layer({ apiKey: Redacted.make(emulator.apiKey), baseUrl: emulator.geminiBaseUrl })

  const registry = yield* Registry.make(scanHouse, getDeviceStatus)
  const [turn] = yield* LiveAgent.run({ registry, messages: ["Is the lamp on? And scan the house."] }).pipe(Effect.provide(live))
  for (const call of turn!.calls) yield* Console.log(`call ${call.name}: ${call.outcome._tag}`)
  yield* Console.log(`answer: ${turn!.text}`)
  const [connection] = yield* emulator.live
  yield* Console.log(`answered on the wire: ${connection!.responses.map((response) => response.name).join(", ")}`)
}).pipe(Effect.scoped)

NodeRuntime.runMain(program)
