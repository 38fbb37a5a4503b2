#!/usr/bin/env node
/**
 * The `agentfx` executable: `Cli.main` on the process's arguments, with the real terminal. Ctrl-C reaches the
 * commands as an input event (`Io.layerNode`), so they decide what it stops; the exit code is theirs.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Cli from "./Cli.js"
import * as Io from "./Io.js"

const program = Cli.main(process.argv.slice(2)).pipe(Effect.provide(Layer.merge(NodeContext.layer, Io.layerNode)))

Effect.runPromise(program).then(
  (code) => {
    // Flush stdout before exiting: a pipe may still hold the end of the output.
    process.stdout.write("", () => process.exit(code))
  },
  (error: unknown) => {
    console.error("agentfx: unexpected error:", error)
    process.exit(1)
  }
)
