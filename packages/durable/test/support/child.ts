/**
 * A runner process for the tests that kill one: a scripted agent through the emulator (in this process, played by
 * the real Gemini provider layer), on a SQLite store, configured by the JSON in `DURABLE_CHILD`. Its tools append
 * their call id to a counter file before they answer, so a test counts how often each really ran (and, given a
 * `models` file, each model request writes its turn there, so a test counts the turns asked). Told to `block`
 * at a point (inside a model request, as the store records an event, inside a call after its side effect), it
 * prints `blocked` and waits there to be killed.
 */
import { Approval, Registry, Retry, Tool } from "@agentfx/core"
import { Emulator, Fault, Policy } from "@agentfx/emulator"
import { Gemini } from "@agentfx/providers"
import type { Duration } from "effect"
import { Effect, Layer, Redacted, Schema } from "effect"
import * as fs from "node:fs"
import { DurableAgent, type RunEvent, RunStore } from "../../src/index.js"
import { type ChildConfig, summaryOf, type TurnSpec } from "./script.js"

const config = JSON.parse(process.env.DURABLE_CHILD ?? "{}") as ChildConfig
const say = (line: string) => Effect.sync(() => void process.stdout.write(`${line}\n`))
const block = (point: string) => (config.block === point ? Effect.zipRight(say("blocked"), Effect.never) : Effect.void)

const tool = (name: string) =>
  Tool.make(name, {
    description: `the ${name} tool`,
    parameters: Schema.Struct({ key: Schema.String }),
    needsApproval: (config.approve ?? []).includes(name),
    handler: ({ key }, { callId }) =>
      Effect.gen(function* () {
        // A tool that takes its time says when it begins too, so a test can kill a runner inside a call.
        if (config.toolDelayMs !== undefined) {
          yield* Effect.sync(() => fs.appendFileSync(config.counter, `${callId} ${config.port ?? 0} begin\n`))
          yield* Effect.sleep(config.toolDelayMs)
        }
        // The call, and which runner ran it (its port; 0 on SQLite).
        yield* Effect.sync(() => fs.appendFileSync(config.counter, `${callId} ${config.port ?? 0}\n`))
        yield* block(`inside:${callId}`)
        return { done: `${name}:${key}` }
      })
  })
const registry = Registry.unsafeMake(tool("lookup"), tool("create_ticket"), tool("notify"))

/** The store, told to block as it records the event `event:KEY`: the boundary after the step before it was recorded. */
const blockingStore = Layer.effect(
  RunStore.RunStore,
  Effect.map(RunStore.RunStore, (store) => ({ ...store, append: (runId: string, key: string, event: RunEvent.RunEvent) => Effect.zipRight(block(`event:${key}`), store.append(runId, key, event)) }))
)

const failed = new Set<number>()
const policy = Policy.fromFunction((request) => {
  const turn = request.transcript.filter((t) => t.role === "model").length
  const spec: TurnSpec | undefined = config.script[turn]
  const step = (): Policy.Reply => {
    if (spec === undefined) return { text: "nothing more" }
    if (spec.failFirst === true && !failed.has(turn)) {
      failed.add(turn)
      return Fault.overloaded()
    }
    // A run started by `serve` is prompted with its id, which prefixes its call ids (unique in the whole store).
    const prompt = request.transcript[0]?.parts[0]
    const prefix = prompt?._tag === "Text" && prompt.text.startsWith("run ") ? `${prompt.text.slice(4)}.` : ""
    return spec.calls === undefined ? { text: spec.text ?? "done" } : { calls: spec.calls.map((c) => ({ id: `${prefix}${c.id}`, name: c.name, args: { key: c.key } })) }
  }
  const asked = Effect.sync(() => config.models !== undefined && fs.appendFileSync(config.models, `${turn + 1}\n`))
  return Effect.zipRight(Effect.zipRight(asked, block(`model:${turn + 1}`)), Effect.sync(step))
})

const agent = DurableAgent.make("child", {
  registry,
  concurrency: "sequential",
  nonIdempotent: config.nonIdempotent ?? ["create_ticket", "notify"],
  retry: Retry.policy({ base: "10 millis", maxRetries: 3 }),
  ...(config.approvalTimeout === undefined ? {} : { approvalTimeout: config.approvalTimeout as Duration.DurationInput })
})

const program = Effect.gen(function* () {
  // Signatures off: each emulator signs with its own secret, and a resumed run sends the first one's turns.
  const emulator = yield* Emulator.make({ policy, signatures: false })
  const model = Gemini.layer({ apiKey: Redacted.make(emulator.apiKey), baseUrl: emulator.geminiBaseUrl, fetch: emulator.fetch })
  const store = config.store.startsWith("postgres://")
    ? DurableAgent.layerPg({
        url: config.store,
        runner: { host: "127.0.0.1", port: config.port ?? 34431 },
        shardLockRefreshInterval: "1 second",
        shardLockExpiration: "3 seconds",
        runnerHealthCheckInterval: "1 second",
        messagePollInterval: "200 millis"
      })
    : DurableAgent.layerSqlite({ filename: config.store })
  const runtime = agent.layer.pipe(Layer.provideMerge(blockingStore), Layer.provideMerge(store), Layer.provide(model))
  const work = Effect.gen(function* () {
    switch (config.mode) {
      case "run": {
        if (config.autoApprove === true) {
          // A person approving each waiting call, from beside the run.
          yield* Effect.forkScoped(
            Effect.forever(
              Effect.gen(function* () {
                const status = yield* Effect.either(DurableAgent.status(config.runId))
                if (status._tag === "Right" && status.right._tag === "Waiting") {
                  for (const call of status.right.pending) yield* Effect.ignore(DurableAgent.approve(config.runId, call.callId, Approval.approved))
                }
                yield* Effect.sleep("20 millis")
              })
            )
          )
        }
        const result = yield* agent.run({ runId: config.runId, prompt: "go" })
        return yield* say(`result ${JSON.stringify(summaryOf(result))}`)
      }
      case "park": {
        yield* agent.start({ runId: config.runId, prompt: "go" })
        for (;;) {
          const status = yield* DurableAgent.status(config.runId)
          if (status._tag === "Waiting") return yield* say(`waiting ${status.pending.map((p) => p.callId).join(",")}`)
          yield* Effect.sleep("20 millis")
        }
      }
      case "serve": {
        for (const runId of config.starts ?? []) yield* agent.start({ runId, prompt: `run ${runId}` })
        yield* say("ready")
        return yield* Effect.never
      }
      case "attach": {
        const result = yield* DurableAgent.attach(config.runId)
        return yield* say(`result ${JSON.stringify(summaryOf(result))}`)
      }
      case "approve": {
        yield* DurableAgent.approve(config.runId, config.callId ?? "", config.deny === undefined ? Approval.approved : Approval.denied(config.deny))
        const result = yield* DurableAgent.attach(config.runId)
        return yield* say(`result ${JSON.stringify(summaryOf(result))}`)
      }
    }
  })
  yield* work.pipe(Effect.scoped, Effect.provide(runtime))
})

Effect.runPromiseExit(Effect.scoped(program)).then((exit) => {
  if (exit._tag === "Failure") process.stderr.write(`child failed: ${String(exit.cause)}\n`)
  process.exit(exit._tag === "Success" ? 0 : 1)
})
