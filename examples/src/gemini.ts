/**
 * Gemini through the real provider layer and the real @google/genai SDK, offline: the emulator, started in this
 * process, speaks the Gemini REST API on 127.0.0.1 and plays the model from a script. Its first answer is a rate
 * limit (429 with a `RetryInfo` of one second), which the loop waits out before asking again; then the model calls
 * two tools at once, and answers. With a key, the same program talks to Gemini: `Gemini.layerConfig()` reads
 * GEMINI_API_KEY (or GOOGLE_API_KEY) and GEMINI_MODEL.
 *
 *   npx -y pnpm@10 example gemini
 */
import { Agent, Registry, Tool } from "@agentfx/core"
import { Emulator, Fault, Policy } from "@agentfx/emulator"
import { Gemini } from "@agentfx/providers"
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Redacted, Schema } from "effect"

const getWeather = Tool.make("get_weather", {
  description: "Current temperature of a city in °C",
  parameters: Schema.Struct({ city: Schema.String }),
  handler: ({ city }) => Effect.succeed({ city, celsius: city === "Paris" ? 20 : 7 })
})

const getTime = Tool.make("get_time", {
  description: "The local time in an IANA time zone",
  parameters: Schema.Struct({ tz: Schema.String }),
  handler: ({ tz }) => Effect.succeed({ tz, time: "14:05" })
})

const program = Effect.gen(function* () {
  const emulator = yield* Emulator.make({
    policy: Policy.script([
      Fault.rateLimited({ retryAfter: "1 second" }),
      { calls: [{ name: "get_weather", args: { city: "Paris" } }, { name: "get_time", args: { tz: "Europe/Paris" } }] },
      { text: "It is 20 °C and 14:05 in Paris." }
    ])
  })
  yield* Console.log(`emulator: ${emulator.geminiBaseUrl}`)
  const gemini = Gemini.layer({ apiKey: Redacted.make(emulator.apiKey), baseUrl: emulator.geminiBaseUrl, model: "gemini-2.5-flash" })

  const registry = yield* Registry.make(getWeather, getTime)
  const result = yield* Agent.run({ registry, prompt: "Weather and time in Paris?" }).pipe(Effect.provide(gemini))

  for (const call of result.calls) yield* Console.log(`call ${call.name}(${JSON.stringify(call.args)})`)
  yield* Console.log(`answer: ${result.text}`)
  const requests = yield* emulator.requests
  yield* Console.log(`requests: ${requests.map((request) => request.status).join(", ")}`)
}).pipe(Effect.scoped)

NodeRuntime.runMain(program)
