/**
 * The emulator in a child process, so that its own work and garbage land on neither side's clock of a
 * comparison: `serve` is what the child runs (it prints where it listens, then serves until killed), `spawnChild`
 * starts the benchmark's own script with `--emulator` and reads that line. The child also answers `memory` on its
 * stdin with its own RSS and heap after a full GC (it runs with --expose-gc), for the memory benchmark.
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

/** A process's memory: resident set, and heap used after a full collection. */
export interface Memory {
  readonly rss: number
  readonly heapUsed: number
}

/** This process's memory, the heap measured after a full GC when `gc` is exposed. */
export const memoryNow = (): Memory => {
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  gc?.()
  const usage = process.memoryUsage()
  return { rss: usage.rss, heapUsed: usage.heapUsed }
}

/** The child's side: an emulator with these options, its address on stdout, until the process is killed. */
export const serve = (options: Emulator.Options & { readonly policy: Policy.Policy }) =>
  Effect.scoped(
    Effect.gen(function* () {
      const emulator = yield* Emulator.make(options)
      console.log(JSON.stringify({ url: emulator.url, apiKey: emulator.apiKey } satisfies Address))
      createInterface({ input: process.stdin }).on("line", (line) => {
        if (line === "memory") console.log(JSON.stringify(memoryNow()))
      })
      return yield* Effect.never
    })
  )

/** The running child: its address, its memory on request, and a way to stop it. */
export interface Child extends Address {
  readonly pid: number
  readonly memory: () => Promise<Memory>
  readonly kill: () => void
}

/**
 * The parent's side: `script` (a benchmark's `import.meta.url`) run with `--emulator` (and `args` after it, for
 * the script to choose the emulator's options), killed with the scope.
 */
export const spawnChild = (script: string, ...args: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.async<Child, Error>((resume) => {
      const child = spawn(process.execPath, ["--expose-gc", fileURLToPath(script), "--emulator", ...args], { stdio: ["pipe", "pipe", "inherit"] })
      child.on("error", (error) => resume(Effect.fail(error)))
      // The first line is the address; each later one answers a `memory` request, in order.
      const waiting: Array<(memory: Memory) => void> = []
      let address: Address | undefined
      createInterface({ input: child.stdout }).on("line", (line) => {
        if (address !== undefined) return waiting.shift()?.(JSON.parse(line) as Memory)
        address = JSON.parse(line) as Address
        resume(
          Effect.succeed({
            ...address,
            pid: child.pid!,
            memory: () =>
              new Promise<Memory>((resolve) => {
                waiting.push(resolve)
                child.stdin.write("memory\n")
              }),
            kill: () => child.kill()
          })
        )
      })
    }),
    (child) => Effect.sync(() => child.kill())
  )
