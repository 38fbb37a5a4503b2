/**
 * A runner process for the durable benchmark: the bench's agent (scripted model, one tool that takes `toolMs`) on a
 * PostgreSQL store, listening on its own port. It prints `ready` once it serves, and `begin RUN.CALL` as each call
 * begins, so the benchmark can time a takeover; it serves until killed.
 *
 *   node bench/dist/internal/durableRunner.js URL PORT TOOL_MS
 */
import type { LanguageModel } from "@agentfx/core"
import { Registry, Tool } from "@agentfx/core"
import { Scripted } from "@agentfx/core/testing"
import { DurableAgent } from "@agentfx/durable"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Schema from "effect/Schema"

/** The cluster's own logs (runner registered, listening on …) left out of the tables. */
export const quiet: Layer.Layer<never> = Logger.minimumLogLevel(LogLevel.Warning)

/** Every run: `steps` turns of one call each, then the answer. */
export const steps = 5

/** One tool, `work`, that takes `toolMs` (none: it returns at once) and says when it begins. */
export const benchRegistry = (toolMs: number, say: (line: string) => void = () => {}) =>
  Registry.unsafeMake(
    Tool.make("work", {
      description: "Works for a while",
      parameters: Schema.Struct({ n: Schema.Number }),
      handler: ({ n }, { callId }) =>
        Effect.zipRight(Effect.sync(() => say(`begin ${callId}`)), toolMs === 0 ? Effect.succeed(n) : Effect.as(Effect.sleep(toolMs), n))
    })
  )

export const benchAgent = (toolMs: number, say: (line: string) => void = () => {}) =>
  DurableAgent.make("bench", { registry: benchRegistry(toolMs, say), concurrency: "sequential" })

/** The model: call `work` until `steps` calls were answered, then answer; call ids carry the run's prompt. */
export const benchModel: Layer.Layer<LanguageModel.LanguageModel | Scripted.ScriptedModel> = Scripted.layer((request) => {
  const done = request.transcript.filter((turn) => turn.role === "model").length
  const prompt = request.transcript[0]?.parts[0]
  const run = prompt?._tag === "Text" ? prompt.text : "run"
  return Effect.succeed(done < steps ? { calls: [{ id: `${run}.c${done + 1}`, name: "work", args: { n: done } }] } : { text: "done" })
})

if (process.argv[1]?.endsWith("durableRunner.js") === true) {
  const [url, port, toolMs] = process.argv.slice(2)
  const say = (line: string) => void process.stdout.write(`${line}\n`)
  const agent = benchAgent(Number(toolMs), say)
  const store = DurableAgent.layerPg({
    url: url!,
    runner: { host: "127.0.0.1", port: Number(port) },
    shardLockRefreshInterval: "1 second",
    shardLockExpiration: "3 seconds",
    runnerHealthCheckInterval: "1 second",
    messagePollInterval: "200 millis"
  })
  const program = Effect.zipRight(Effect.sync(() => say("ready")), Effect.never)
  void Effect.runPromise(program.pipe(Effect.provide(agent.layer.pipe(Layer.provideMerge(store), Layer.provide(benchModel), Layer.provide(quiet)))))
}
