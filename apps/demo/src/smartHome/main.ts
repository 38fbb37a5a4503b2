/**
 * The smart-home demo (Gemini Live), offline by default; see `demo.ts`.
 *
 *   node apps/demo/dist/smartHome/main.js [--offline]
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Exit } from "effect"
import * as Demo from "./demo.js"

const usage = "usage: node apps/demo/dist/smartHome/main.js [--offline]\n  --offline  use the emulator even when GEMINI_API_KEY is set"

const main = Effect.suspend(() => {
  const args = process.argv.slice(2).filter((arg) => arg !== "--")
  if (args.includes("--help") || args.includes("-h")) return Effect.sync(() => console.log(usage))
  const unknown = args.find((arg) => arg !== "--offline")
  if (unknown !== undefined) {
    return Effect.sync(() => {
      console.error(`agentfx smart-home demo: unknown option ${unknown}\n${usage}`)
      process.exitCode = 2
    })
  }
  return Demo.source(args.includes("--offline")).pipe(
    Effect.flatMap(({ layer, announcement }) => Demo.run({ layer, announcement, print: (line) => console.log(line) })),
    Effect.scoped
  )
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
