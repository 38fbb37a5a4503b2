/**
 * `demo -- --durable`: the sample e-mails processed as durable runs on a SQLite store (in a temporary folder). A
 * ticket needs a person's approval here: `create_ticket` parks the run in the store and its runner lets go of it, as
 * a process that exits would; a new runner on the same store then approves the call and resumes the run, which goes
 * on from where it stopped (nothing that finished runs again) and sends the reply.
 */
import type { Agent, Tool } from "@agentfx/core"
import { Approval, LanguageModel, Registry } from "@agentfx/core"
import { Offline } from "@agentfx/cli"
import { DurableAgent } from "@agentfx/durable"
import { Emulator, Policy } from "@agentfx/emulator"
import type { Scenario } from "@agentfx/tools"
import { Cassette } from "@agentfx/tools"
import { Duration, Effect, Either, Layer, ManagedRuntime } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Email from "./Email.js"
import type * as ModelSource from "./ModelSource.js"
import { promptOf, scenarioFor } from "./Pipeline.js"
import type * as Sample from "./Sample.js"
import * as Terminal from "./Terminal.js"
import * as Triage from "./Triage.js"
import { Mailer, Ticketing, WarrantyRegistry, demoWarranties } from "./Warranty.js"

const show = (value: unknown, max = 160) => {
  const text = JSON.stringify(value) ?? "undefined"
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

/**
 * Offline, a sample's cassette answered by the turn the run is at (not by request count, which a new runner would
 * start again), on an emulator whose signatures every runner of the demo accepts.
 */
const modelFor = (source: ModelSource.ModelSource, cassette: Cassette.Cassette | undefined): Layer.Layer<LanguageModel.LanguageModel> => {
  if (source._tag === "Online") return Layer.succeed(LanguageModel.LanguageModel, source.model)
  const steps: ReadonlyArray<Policy.Reply> = cassette ?? []
  const policy = Policy.fromFunction((request) => steps[request.transcript.filter((turn) => turn.role === "model").length] ?? { text: "(no more recorded turns)" })
  return Offline.onEmulator(Cassette.offlineModel).pipe(Layer.provide(Emulator.layer({ policy, record: false, signingKey: "agentfx-demo" })))
}

/** The scenario's tools, `create_ticket` needing approval. */
const withApproval = <R>(registry: Registry.Registry<R>): Registry.Registry<R> =>
  Registry.unsafeMake(...Array.from(registry.tools.values(), (tool): Tool.Tool<R> => (tool.name === "create_ticket" ? { ...tool, needsApproval: () => true } : tool)))

const printResult = (result: Agent.AgentResult) => {
  result.calls.forEach((call, i) => {
    const outcome = Either.isRight(call.result) ? show(call.result.right) : `${call.result.left._tag}: ${call.result.left.message}`
    console.log(`  ${i + 1}. ${call.name} ${show(call.args, 120)}\n       → ${outcome}  [turn ${call.turn}]`)
  })
  const sent = result.calls.find((call) => call.name === "send_email" && Either.isRight(call.result))
  if (sent === undefined) console.log("  ✗ no reply was sent")
  else {
    console.log(`  reply to ${String(sent.args.to)} — ${String(sent.args.subject)}`)
    for (const line of String(sent.args.body).split("\n")) console.log(`    │ ${line}`)
  }
  console.log(`  model said: ${show(result.text)} (${result.turns} turns, ${result.usage.totalTokens} tokens)`)
}

/** One sample as a durable run: started, parked on its ticket if it opens one, approved by a new runner, finished. */
type Services = WarrantyRegistry | Ticketing | Mailer

const runSample = (source: ModelSource.ModelSource, scenarios: ReadonlyArray<Scenario.Scenario<Services>>, sample: Sample.Sample, runId: string, store: string) =>
  Effect.gen(function* () {
    const email = yield* Email.parse(sample.email)
    const scenario = yield* scenarioFor(scenarios, yield* Triage.detect(email))
    console.log(`  scenario  ${scenario.name}; durable run ${runId}`)
    const agent = DurableAgent.make(`warranty-${scenario.name}`, {
      registry: withApproval(scenario.registry),
      system: scenario.instructions,
      nonIdempotent: ["create_ticket", "send_email"]
    })
    const warranties = sample.warranty_service === "down" ? WarrantyRegistry.down : WarrantyRegistry.fromTable(demoWarranties)
    const services = Layer.mergeAll(warranties, Ticketing.sequential, Mailer.inMemory, modelFor(source, sample.cassette))
    // Each runner a runtime of its own on the store, as a process would be; disposing it lets go of the store.
    const runner = () => ManagedRuntime.make(agent.layer.pipe(Layer.provideMerge(DurableAgent.layerSqlite({ filename: store })), Layer.provide(services)))
    const until = (status: (tag: string) => boolean) =>
      Effect.gen(function* () {
        for (;;) {
          const current = yield* DurableAgent.status(runId)
          if (status(current._tag)) return current
          yield* Effect.sleep("20 millis")
        }
      })
    const first = runner()
    const parked = yield* Effect.promise(() =>
      first.runPromise(Effect.zipRight(agent.start({ runId, prompt: promptOf(email) }), until((tag) => tag !== "Running")))
    )
    yield* Effect.promise(() => first.dispose())
    if (parked._tag === "Waiting") {
      for (const call of parked.pending) console.log(`  ⏸ ${call.name} ${show(call.args, 120)} waits for approval: the run is parked in the store, and its runner has stopped`)
      const second = runner()
      const result = yield* Effect.promise(() =>
        second.runPromise(
          Effect.gen(function* () {
            for (const call of parked.pending) {
              console.log(`  ▶ a new runner on the store approves ${call.name} (${call.callId}); the run resumes where it stopped`)
              yield* DurableAgent.approve(runId, call.callId, Approval.approved)
            }
            return yield* DurableAgent.attach(runId)
          })
        )
      )
      yield* Effect.promise(() => second.dispose())
      return printResult(result)
    }
    if (parked._tag === "Finished") return printResult(parked.result)
    console.log(`  ✗ the run ended ${parked._tag === "Failed" ? `with ${parked.error._tag}: ${parked.error.message}` : parked._tag}`)
  })

/** The sample e-mails as durable runs. */
export const runDurable = (source: ModelSource.ModelSource, scenarios: ReadonlyArray<Scenario.Scenario<Services>>, samples: ReadonlyArray<Sample.Sample>) =>
  Effect.gen(function* () {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "agentfx-demo-runs-"))
    const store = path.join(folder, "runs.db")
    console.log(`durable runs on ${store}`)
    for (const [i, sample] of samples.entries()) {
      const subject = /^Subject:\s*(.*)$/im.exec(sample.email)?.[1] ?? sample.file
      yield* Terminal.line(`\n━━ e-mail ${i + 1} of ${samples.length} (durable): ${subject}${sample.warranty_service === "down" ? "   (warranty service down)" : ""}`)
      const started = Date.now()
      const outcome = yield* Effect.either(runSample(source, scenarios, sample, `mail-${i + 1}`, store))
      if (Either.isLeft(outcome)) console.log(`  ✗ ${outcome.left instanceof Error ? `${outcome.left.name}: ${outcome.left.message}` : show(outcome.left)}`)
      console.log(`  [${Duration.format(Duration.millis(Date.now() - started))}]`)
    }
    fs.rmSync(folder, { recursive: true, force: true })
  })
