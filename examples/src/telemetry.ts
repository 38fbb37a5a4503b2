/**
 * OpenTelemetry to the console: Effect's `NodeSdk` layer with the OpenTelemetry SDK's `ConsoleSpanExporter`, and
 * an agent run under it. Every run is an `invoke_agent` span, each model turn a `chat` span inside it, each tool call
 * an `execute_tool` span, with the GenAI attributes (`gen_ai.operation.name`, `gen_ai.tool.name`, usage, ...).
 * `Telemetry.withContent` adds the prompts, answers, arguments and results. To send the spans to a collector, use
 * an OTLP exporter (or `OtlpTracer.layer` from @effect/opentelemetry) instead of the console one.
 *
 *   npx -y pnpm@10 example telemetry
 */
import { Agent, Registry, Telemetry, Tool } from "@agentfx/core"
import { Scripted } from "@agentfx/core/testing"
import { NodeSdk } from "@effect/opentelemetry"
import { NodeRuntime } from "@effect/platform-node"
import { ConsoleSpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Effect, Schema } from "effect"

const echo = Tool.make("echo", {
  description: "Says the text back",
  parameters: Schema.Struct({ text: Schema.String }),
  handler: ({ text }) => Effect.succeed(text)
})

const tracing = NodeSdk.layer(() => ({
  resource: { serviceName: "agentfx-example" },
  spanProcessor: new SimpleSpanProcessor(new ConsoleSpanExporter())
}))

const program = Effect.gen(function* () {
  const registry = yield* Registry.make(echo)
  return yield* Telemetry.withContent(Agent.run({ registry, prompt: "Say hi" }))
})

const model = Scripted.layer([{ calls: [{ name: "echo", args: { text: "hi" } }] }, { text: "hi" }])

NodeRuntime.runMain(program.pipe(Effect.provide(model), Effect.provide(tracing)))
