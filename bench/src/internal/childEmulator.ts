/**
 * The emulator in a child process, so that its own work and garbage land on neither side's clock of a
 * comparison: `serve` is what the child runs (it prints where it listens, then serves until killed), `spawnChild`
 * starts the benchmark's own script with `--emulator` and reads that line.
 */
import type { Policy } from "@agentfx/emulator"
import { Emulator } from "@agentfx/emulator"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

export interface Address {
  readonly url: string
  readonly apiKey: string
}

/** The child's side: an emulator with these options, its address on stdout, until the process is killed. */
export const serve = (options: Emulator.Options & { readonly policy: Policy.Policy }) =>
  Effect.scoped(
    Effect.gen(function* () {
      const emulator = yield* Emulator.make(options)
      console.log(JSON.stringify({ url: emulator.url, apiKey: emulator.apiKey } satisfies Address))
      return yield* Effect.never
    })
  )

/** The parent's side: `script` (a benchmark's `import.meta.url`) run with `--emulator`, killed with the scope. */
export const spawnChild = (script: string) =>
  Effect.acquireRelease(
    Effect.async<Address & { readonly kill: () => void }, Error>((resume) => {
      const child = spawn(process.execPath, [fileURLToPath(script), "--emulator"], { stdio: ["ignore", "pipe", "inherit"] })
      child.on("error", (error) => resume(Effect.fail(error)))
      createInterface({ input: child.stdout }).once("line", (line) => {
        const address = JSON.parse(line) as Address
        resume(Effect.succeed({ ...address, kill: () => child.kill() }))
      })
    }),
    (child) => Effect.sync(() => child.kill())
  )
