/**
 * kill -9 at every step boundary and inside every call: a runner process (support/child.ts) on a SQLite store is
 * killed where it stands, a second one resumes the run, and the result is the uninterrupted run's. The tools count
 * their side effects in a file: a tool that is not idempotent ran exactly once whatever the kill point. The model
 * requests count their turns in another: a turn that was recorded is never asked again (the scripted model answers
 * a turn asked twice the same, so only the count shows it).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { ChildConfig, Summary } from "./support/script.js"
import { threeTurns } from "./support/script.js"
import { result, start } from "./support/spawn.js"

const work = fs.mkdtempSync(path.join(os.tmpdir(), "durable-kill-"))
afterAll(() => fs.rmSync(work, { recursive: true, force: true }))
let runs = 0
const configFor = (block?: string): ChildConfig => {
  const dir = path.join(work, `run-${++runs}`)
  fs.mkdirSync(dir)
  return {
    mode: "run",
    store: path.join(dir, "runs.db"),
    runId: "mail-1",
    counter: path.join(dir, "counter"),
    models: path.join(dir, "models"),
    script: threeTurns,
    ...(block === undefined ? {} : { block })
  }
}
/** How often each line's first word was written to `file`: a call id (the counter), a turn number (the models file). */
const counts = (file: string): Record<string, number> => {
  const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : ""
  const counted: Record<string, number> = {}
  for (const line of text.split("\n").filter((line) => line !== "")) {
    const id = line.split(" ")[0]!
    counted[id] = (counted[id] ?? 0) + 1
  }
  return counted
}

/** Runs to `block`, kills the runner there, resumes with a second one: its result, the side effects and the model turns counted. */
const killedAt = async (block: string) => {
  const config = configFor(block)
  const first = await start(config)
  await first.line("blocked")
  await first.kill()
  const { block: _, ...resumed } = config
  return { result: await result(resumed), counts: counts(config.counter), turns: counts(config.models!) }
}

/** Each model turn asked once, but the one the kill interrupted (`model:N`): unrecorded, it is asked again. */
const turnsAsked = (block: string): Record<string, number> => {
  const interrupted = /^model:(\d)$/.exec(block)?.[1]
  return Object.fromEntries(["1", "2", "3"].map((turn) => [turn, turn === interrupted ? 2 : 1]))
}

describe("kill -9 of a runner on SQLite", () => {
  let baseline: Summary
  it("the uninterrupted run: three turns, three calls, each run once", async () => {
    const config = configFor()
    baseline = await result(config)
    expect(baseline.text).toBe("Ticket opened and the customer told.")
    expect(baseline.calls.map((call) => [call.id, call.ok])).toEqual([
      ["c1", true],
      ["c2", true],
      ["c3", true]
    ])
    expect(counts(config.counter)).toEqual({ c1: 1, c2: 1, c3: 1 })
    expect(counts(config.models!)).toEqual({ 1: 1, 2: 1, 3: 1 })
  }, 120_000)

  // Every step boundary: inside each model request (the step before it recorded, this one not), as each call is
  // about to start (the step before it recorded), and as the run's end is recorded.
  for (const block of ["model:1", "event:call/c1/started", "event:call/c2/started", "model:2", "event:call/c3/started", "model:3", "event:done"]) {
    it(`killed at ${block}: the resumed result equals the uninterrupted one; no finished step ran twice`, async () => {
      const { counts: counted, result: resumed, turns } = await killedAt(block)
      expect(resumed).toEqual(baseline)
      expect(counted).toEqual({ c1: 1, c2: 1, c3: 1 })
      expect(turns).toEqual(turnsAsked(block))
    }, 120_000)
  }

  it("killed inside an idempotent call: it is run again, and the result equals the uninterrupted one", async () => {
    const { counts: counted, result: resumed, turns } = await killedAt("inside:c1")
    expect(resumed).toEqual(baseline)
    expect(counted).toEqual({ c1: 2, c2: 1, c3: 1 })
    expect(turns).toEqual({ 1: 1, 2: 1, 3: 1 })
  }, 120_000)

  for (const call of ["c2", "c3"]) {
    it(`killed inside the non-idempotent call ${call}: never run again, answered to the model as an interrupted call`, async () => {
      const { counts: counted, result: resumed, turns } = await killedAt(`inside:${call}`)
      expect(counted).toEqual({ c1: 1, c2: 1, c3: 1 })
      expect(turns).toEqual({ 1: 1, 2: 1, 3: 1 })
      const interrupted = resumed.calls.find((c) => c.id === call)!
      expect(interrupted.ok).toBe(false)
      expect(interrupted.response).toEqual({
        error: {
          type: "ExecutionFailed",
          message: expect.stringContaining("not idempotent") as unknown as string,
          details: { type: "InterruptedCall", message: expect.stringContaining("not run again") as unknown as string }
        }
      })
      // Everything else is the uninterrupted run's.
      expect(resumed.calls.filter((c) => c.id !== call)).toEqual(baseline.calls.filter((c) => c.id !== call))
      // The model read the interrupted call's error, a longer answer than the result: only its input differs.
      expect(resumed.text).toBe(baseline.text)
      expect(resumed.turns).toBe(baseline.turns)
    }, 120_000)
  }
})
