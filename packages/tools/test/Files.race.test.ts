import type { ChildProcess } from "node:child_process"
import { spawn } from "node:child_process"
import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { Executor, FunctionCall, Registry } from "@agentfx/core"
import { Files } from "@agentfx/tools"

const secret = "top secret"
const readsPerBatch = 50
const batchesAtMost = 60
const seenAtLeast = 20

/** Every way to place the swap: a path `depth` directories deep, and which of its components is swapped. */
const placements = [0, 1, 2, 3].flatMap((depth) =>
  Array.from({ length: depth + 1 }, (_, swapped) => ({ depth, swapped, placement: `${depth} ${depth === 1 ? "directory" : "directories"} deep, ${swapped === depth ? "the file" : `directory ${swapped}`} swapped` }))
)

/**
 * Swaps `target` between what it is and a symbolic link to `outside`, as fast as it can, until killed: a file
 * by an atomic rename of a link over it, a directory by moving it aside and a link in (the same moves back).
 */
const swapper = `
const fs = require("node:fs")
const [target, outside, kind] = process.argv.slice(1)
const aside = target + ".aside", link = target + ".link", stash = target + ".stash"
if (kind === "file") fs.copyFileSync(target, stash)
// Each state lasts a moment (a busy wait, so the process stays on the CPU): without it the real directory exists
// only between two system calls and a read could almost never see it, on a busy machine not at all.
const dwell = () => { const end = process.hrtime.bigint() + 50_000n; while (process.hrtime.bigint() < end) {} }
let ready = false
for (;;) {
  if (kind === "file") {
    fs.symlinkSync(outside, link); fs.renameSync(link, target); dwell()
    fs.linkSync(stash, aside); fs.renameSync(aside, target); dwell()
  } else {
    fs.renameSync(target, aside); fs.symlinkSync(outside, target); dwell()
    fs.unlinkSync(target); fs.renameSync(aside, target); dwell()
  }
  if (!ready) { ready = true; process.stdout.write("ready\\n") }
}
`

const startSwapper = (target: string, outside: string, kind: "file" | "directory") =>
  Effect.acquireRelease(
    Effect.async<ChildProcess>((resume) => {
      const child = spawn(process.execPath, ["-e", swapper, target, outside, kind], { stdio: ["ignore", "pipe", "inherit"] })
      child.stdout!.once("data", () => resume(Effect.succeed(child)))
    }),
    (child) =>
      Effect.async<void>((resume) => {
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGKILL")
      })
  )

/** A path `depth` directories deep (then `f.txt`), the same layout inside the root and outside it. */
const layout = (depth: number) => {
  const base = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentfx-race-"))
  const dirs = Array.from({ length: depth }, (_, i) => `d${i}`)
  for (const side of ["root", "outside"]) {
    NodeFs.mkdirSync(NodePath.join(base, side, ...dirs), { recursive: true })
    NodeFs.writeFileSync(NodePath.join(base, side, ...dirs, "f.txt"), side === "root" ? "inside" : secret)
  }
  return { base, root: NodePath.join(base, "root"), outside: NodePath.join(base, "outside"), segments: [...dirs, "f.txt"] }
}

describe("file tools under concurrent symbolic-link swaps", () => {
  for (const { depth, swapped, placement } of placements) it.live(
    `no read_file or list_dir ever returns what lies outside the root: ${placement}`,
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { base, root, outside, segments } = layout(depth)
          yield* Effect.addFinalizer(() => Effect.sync(() => NodeFs.rmSync(base, { recursive: true, force: true })))
          const kind = swapped === depth ? "file" : "directory"
          const swappedPath = segments.slice(0, swapped + 1)
          yield* startSwapper(NodePath.join(root, ...swappedPath), NodePath.join(outside, ...swappedPath), kind)
          const registry = Registry.unsafeMake(...Files.tools({ root }))
          const path = segments.join("/")
          const listed = segments.slice(0, -1).join("/") || "."
          const outcomes = new Map<string, number>()
          const count = (key: string) => outcomes.set(key, (outcomes.get(key) ?? 0) + 1)
          let escapes = 0
          const batch = (offset: number) =>
            Effect.forEach(
              Array.from({ length: readsPerBatch }, (_, i) => offset + i),
              (i) =>
                Effect.gen(function* () {
                  const name = i % 4 === 3 ? "list_dir" : "read_file"
                  const args = name === "list_dir" ? { path: listed } : { path }
                  const result = yield* Effect.either(Executor.execute(registry, FunctionCall.make({ id: `c${i}`, name, args })))
                  if (JSON.stringify(result).includes(secret)) escapes++
                  if (result._tag === "Right") {
                    const value = result.right as { content?: string; entries?: ReadonlyArray<{ size?: number }> }
                    // The outside file has another size: a listing that shows it has read the outside directory.
                    if (value.entries?.some((entry) => entry.size === secret.length) === true) escapes++
                    count(`${name}: ok`)
                  } else count(`${name}: ${(result.left.cause as { _tag?: string })._tag ?? result.left._tag}`)
                }),
              { concurrency: 8, discard: true }
            )
          // The swap must really race the reads: batches go on until both outcomes have been seen at least
          // `seenAtLeast` times each (on a busy machine the swapper may be starved for a whole batch), and at most
          // `batchesAtMost` batches. Small batches stop soon after that (about 150 reads here, where batches of 250
          // read 250 to 500 and the file took 11 s against 8).
          const reads = () => outcomes.get("read_file: ok") ?? 0
          const refused = () => [...outcomes.entries()].filter(([key]) => key.startsWith("read_file:") && key !== "read_file: ok").reduce((n, [, k]) => n + k, 0)
          for (let round = 0; round < batchesAtMost && (reads() < seenAtLeast || refused() < seenAtLeast); round++) yield* batch(round * readsPerBatch)
          expect(escapes).toBe(0)
          expect(reads()).toBeGreaterThan(0)
          expect(refused()).toBeGreaterThan(0)
        })
      ).pipe(Effect.provide(NodeFileSystem.layer)),
    120_000
  )
})
