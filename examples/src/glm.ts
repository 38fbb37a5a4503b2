/**
 * GLM (Z.AI) and any OpenAI-compatible server, through the openai SDK, offline against the emulator's
 * chat-completions routes. The GLM model first sends a call whose `arguments` JSON is cut short: the loop does not
 * crash or guess, it sends the parse error back to the model as the call's response, and the model calls again
 * correctly. The same tool then runs against a generic OpenAI-compatible server (`ChatCompletions.layer`, what a
 * local vLLM or Ollama is). With a key, `Glm.layerConfig()` reads ZAI_API_KEY, ZAI_MODEL and ZAI_ENDPOINT
 * (`general` or `coding`).
 *
 *   npx -y pnpm@10 example glm
 */
import { Agent, Registry, Tool } from "@agentfx/core"
import { Emulator, Fault, Policy } from "@agentfx/emulator"
import { ChatCompletions, Glm } from "@agentfx/providers"
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Either, Redacted, Schema } from "effect"

const createTicket = Tool.make("create_ticket", {
  description: "Opens a support ticket",
  parameters: Schema.Struct({ title: Schema.String, priority: Schema.Literal("low", "high") }),
  handler: ({ title, priority }) => Effect.succeed({ ticket_id: "T-100", title, priority })
})

const ticketCall = { calls: [{ name: "create_ticket", args: { title: "Kettle broken", priority: "high" } }] }

const program = Effect.gen(function* () {
  const emulator = yield* Emulator.make({
    policy: Policy.script([
      Policy.withFaults(ticketCall, Fault.malformedArguments("truncated")),
      ticketCall,
      { text: "Ticket T-100 is open." },
      ticketCall,
      { text: "Done: T-100." }
    ])
  })
  const registry = yield* Registry.make(createTicket)
  const prompt = "My kettle is broken, please open an urgent ticket."

  const glm = Glm.layer({ apiKey: Redacted.make(emulator.apiKey), endpoint: "coding", baseUrl: emulator.glmBaseUrl("coding") })
  const viaGlm = yield* Agent.run({ registry, prompt }).pipe(Effect.provide(glm))
  for (const call of viaGlm.calls) {
    const outcome = Either.match(call.result, { onLeft: (error) => `${error._tag}: ${error.message}`, onRight: (value) => `ok ${JSON.stringify(value)}` })
    yield* Console.log(`glm call ${call.name} → ${outcome}`)
  }
  yield* Console.log(`glm answer: ${viaGlm.text}`)

  const local = ChatCompletions.layer({ apiKey: Redacted.make(emulator.apiKey), baseUrl: emulator.openAIBaseUrl(), model: "qwen3" })
  const viaOpenAI = yield* Agent.run({ registry, prompt }).pipe(Effect.provide(local))
  yield* Console.log(`openai-compatible calls: ${viaOpenAI.calls.map((call) => call.name).join(", ")}`)
  yield* Console.log(`openai-compatible answer: ${viaOpenAI.text}`)
}).pipe(Effect.scoped)

NodeRuntime.runMain(program)
