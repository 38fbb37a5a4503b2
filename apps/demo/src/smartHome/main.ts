/**
 * The smart-home demo (Gemini Live), offline by default: the dialogue (see `demo.ts`), then the smart-home eval
 * suite (see `Suite.ts`), whose pass rate is the exit code.
 *
 *   node apps/demo/dist/smartHome/main.js [--offline] [--record]
 */
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { EvalReport, LiveCassette } from "@agentfx/tools"
import { Effect, Exit } from "effect"
import { storeCassettes } from "../Recorder.js"
import * as Demo from "./demo.js"
import * as Suite from "./Suite.js"

const usage = [
  "usage: node apps/demo/dist/smartHome/main.js [--offline] [--record]",
  "  --offline  use the emulator even when GEMINI_API_KEY is set",
  "  --record   run the eval suite on Gemini Live and store each case's model messages as its x-live-cassette"
].join("\n")

const fail = (message: string, code: number) =>
  Effect.sync(() => {
    console.error(`agentfx smart-home demo: ${message}`)
    process.exitCode = code
  })

const main = Effect.suspend(() => {
  const args = process.argv.slice(2).filter((arg) => arg !== "--")
  if (args.includes("--help") || args.includes("-h")) return Effect.sync(() => console.log(usage))
  const unknown = args.find((arg) => arg !== "--offline" && arg !== "--record")
  if (unknown !== undefined) return fail(`unknown option ${unknown}\n${usage}`, 2)
  const offline = args.includes("--offline")
  const record = args.includes("--record")
  return Effect.gen(function* () {
    const { layer, announcement, online } = yield* Demo.source(offline)
    if (record && !online) return yield* fail("--record needs Gemini Live: set GEMINI_API_KEY (and leave --offline out)", 2)
    yield* Demo.run({ layer, announcement, print: (line) => console.log(line) })

    const { scenario, cases } = yield* Suite.load()
    console.log(`\n━━ Smart-home eval suite (Live): ${cases.length} cases`)
    const recorders = record ? new Map<string, LiveCassette.Recorder>() : undefined
    const report = yield* Suite.run({ scenario, cases, source: online ? Suite.gemini(recorders) : { _tag: "Offline" } })
    console.log(EvalReport.pretty(report, { color: process.stdout.isTTY === true }))
    if (recorders !== undefined) {
      const recorded = new Map<string, unknown>()
      for (const [id, recorder] of recorders) {
        const cassette = yield* recorder.cassette
        if (cassette !== undefined) recorded.set(id, LiveCassette.encode(cassette))
      }
      for (const file of new Set(cases.map((c) => c.file))) {
        const { stored, notStored } = yield* storeCassettes(file, { cassette: (id) => recorded.get(id) }, report.cases, LiveCassette.field)
        console.log(`recorded ${stored.length} Live cassettes into ${file}`)
        for (const { id, reason } of notStored) console.error(`agentfx smart-home demo: not recorded: ${id} in ${file}: ${reason}`)
      }
    }
    process.exitCode = EvalReport.exitCode(report)
  }).pipe(Effect.scoped, Effect.provide(NodeContext.layer))
})

main.pipe(
  Effect.catchAll((error: unknown) =>
    Effect.sync(() => {
      const text = typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)
      const tag = typeof error === "object" && error !== null && "_tag" in error ? `${String(error._tag)}: ` : ""
      console.error(`agentfx smart-home demo: ${tag}${text}`)
      process.exitCode = 1
    })
  ),
  NodeRuntime.runMain({
    teardown: (exit, onExit) => onExit(Exit.isInterrupted(exit) ? 130 : Exit.isFailure(exit) ? 1 : Number(process.exitCode ?? 0))
  })
)
