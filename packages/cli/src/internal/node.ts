/**
 * A command run on the real terminal (`Io.layerNode`) and file system, ending the process with its exit code.
 * Each bundled program of the executable calls it with its own handler.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Console } from "node:console"
import type * as Argv from "../Argv.js"
import type { HandlerModule } from "../commands/Command.js"
import * as Io from "../Io.js"
import type * as EarlyScreen from "./earlyScreen.js"
import { mainWith } from "./main.js"

/** `shown`: what the executable printed before it loaded the program (a chat's first screen), which it takes over. */
export const run = (argv: ReadonlyArray<string>, load: (spec: Argv.Spec) => Promise<HandlerModule>, shown?: EarlyScreen.Shown): void => {
  // The commands print through `Io`, never the global console: what a library prints there (an SDK's stray
  // console.log) goes to stderr, so stdout carries only the command's output.
  globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr })
  const program = mainWith(argv, load).pipe(Effect.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, Io.layerNodeAfter(shown))))
  Effect.runPromise(program).then(
    (code) => {
      // Flush stdout before exiting: a pipe may still hold the end of the output.
      process.stdout.write("", () => process.exit(code))
    },
    (error: unknown) => {
      process.stderr.write(`agentfx: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`)
      process.exit(1)
    }
  )
}
