/**
 * For random scripts (one to three turns of one or two calls, first attempts that fail, calls that need approval)
 * and a random kill point among the run's step boundaries, inside calls and approvals, a runner killed there and
 * resumed by another gives the uninterrupted run's result; a call of a tool that is not idempotent (create_ticket)
 * never runs twice. Each case is three runner processes (uninterrupted, killed, resumer), so the cases are few.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { ChildConfig, TurnSpec } from "./support/script.js"
import { result, start } from "./support/spawn.js"

const work = fs.mkdtempSync(path.join(os.tmpdir(), "durable-property-"))
const seed = Number(process.env.DURABLE_PROPERTY_SEED ?? Date.now() % 2 ** 31)
const tools = ["lookup", "create_ticket", "notify"] as const

interface Case {
  readonly script: ReadonlyArray<TurnSpec>
  readonly approve: ReadonlyArray<string>
  readonly kill: number
}

const scriptArb: fc.Arbitrary<ReadonlyArray<TurnSpec>> = fc
  .array(fc.record({ calls: fc.array(fc.constantFrom(...tools), { minLength: 1, maxLength: 2 }), failFirst: fc.boolean() }), { minLength: 1, maxLength: 3 })
  .chain((turns) =>
    fc.record({ failLast: fc.boolean() }).map(({ failLast }) => [
      ...turns.map((turn, t) => ({ failFirst: turn.failFirst, calls: turn.calls.map((name, i) => ({ id: `t${t + 1}c${i + 1}`, name, key: `k${t}${i}` })) })),
      { text: "All done.", failFirst: failLast }
    ])
  )

const caseArb: fc.Arbitrary<Case> = fc.record({
  script: scriptArb,
  approve: fc.subarray([...tools], { maxLength: 1 }),
  kill: fc.nat()
})

/** Every point a runner can be killed at in a run of `script`, in order. */
const killPoints = (script: ReadonlyArray<TurnSpec>, approve: ReadonlyArray<string>): ReadonlyArray<string> =>
  script.flatMap((turn, t) => [
    `model:${t + 1}`,
    ...(turn.calls ?? []).flatMap((call) => [
      ...(approve.includes(call.name) ? [`event:approval/${call.id}`] : []),
      `event:call/${call.id}/started`,
      `inside:${call.id}`
    ])
  ]).concat(["event:done"])

let runs = 0
const counts = (counter: string): Record<string, number> => {
  const counted: Record<string, number> = {}
  for (const line of fs.existsSync(counter) ? fs.readFileSync(counter, "utf8").split("\n") : []) {
    if (line !== "") counted[line.split(" ")[0]!] = (counted[line.split(" ")[0]!] ?? 0) + 1
  }
  return counted
}

describe("durable runs, property", () => {
  it(`killed at any point and resumed, a run's result is the uninterrupted one's; create_ticket never runs twice (seed ${seed})`, async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ approve, kill, script }) => {
        const configFor = (): ChildConfig => {
          const dir = path.join(work, `case-${++runs}`)
          fs.mkdirSync(dir)
          return { mode: "run", store: path.join(dir, "runs.db"), runId: "p", counter: path.join(dir, "counter"), script, approve, autoApprove: true, nonIdempotent: ["create_ticket"] }
        }
        const baseline = await result(configFor())
        const points = killPoints(script, approve)
        const block = points[kill % points.length]!
        const config = { ...configFor(), block }
        const killed = await start(config)
        await killed.line("blocked")
        await killed.kill()
        const { block: _, ...resumed } = config
        const after = await result(resumed)
        const counted = counts(config.counter)
        const interrupted = block.startsWith("inside:") && script.some((turn) => turn.calls?.some((call) => `inside:${call.id}` === block && call.name === "create_ticket"))
        for (const turn of script) for (const call of turn.calls ?? []) if (call.name === "create_ticket") expect(counted[call.id] ?? 0).toBeLessThanOrEqual(1)
        if (interrupted) {
          // Killed inside create_ticket: that call is answered as interrupted; every other call is the baseline's.
          const id = block.slice("inside:".length)
          expect(after.calls.find((call) => call.id === id)?.ok).toBe(false)
          expect(after.calls.filter((call) => call.id !== id)).toEqual(baseline.calls.filter((call) => call.id !== id))
          expect(after.text).toBe(baseline.text)
        } else {
          expect(after).toEqual(baseline)
        }
      }),
      { numRuns: 8, seed, endOnFailure: true }
    )
  }, 600_000)
})
