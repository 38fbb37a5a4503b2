/**
 * 1,000 generated eval cases of the warranty demo through the emulator and the real Gemini layer, concurrency 16
 * (goal ≤ 10 s on the 2-core machine). Cases are the demo's own, repeated under new ids.
 *
 *   pnpm bench:evals
 */
import { Registry } from "@agentfx/core"
import { NodeContext } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { fileURLToPath } from "node:url"
import * as ModelSource from "@agentfx/demo/ModelSource"
import * as Suite from "@agentfx/demo/Suite"
import * as Tools from "@agentfx/demo/tools"
import { demoWarranties, Mailer, Ticketing, WarrantyRegistry } from "@agentfx/demo/Warranty"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const directories = { scenarios: here("../../apps/demo/scenarios"), evals: here("../../apps/demo/evals") }

const program = Effect.gen(function* () {
  const implementations = yield* Registry.make(...Tools.all)
  const { scenarios, cases } = yield* Suite.load(directories, implementations)
  const rows: Array<[string, string, string, string]> = []
  for (const [count, concurrency] of [[16, 16], [1000, 16]] as const) {
    const generated = Array.from({ length: count }, (_, i) => ({ ...cases[i % cases.length]!, id: `${cases[i % cases.length]!.id}-${i}` }))
    const start = performance.now()
    const report = yield* Suite.run({ scenarios, cases: generated, source: ModelSource.offline, concurrency })
    const seconds = (performance.now() - start) / 1000
    rows.push([String(count), String(concurrency), `${seconds.toFixed(2)} s`, `${report.summary.passed}/${report.summary.total}`])
  }
  console.log("| cases | concurrency | wall time | passed |\n| ---: | ---: | ---: | ---: |")
  for (const row of rows) console.log(`| ${row.join(" | ")} |`)
  console.log(`\nheap used after: ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB`)
})

Effect.runPromise(program.pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, Ticketing.sequential, Mailer.inMemory, WarrantyRegistry.fromTable(demoWarranties)))))
