/**
 * An approval outlives the process that asked for it: a runner parks the run and exits; another process decides
 * (or lets the deadline pass) and runs the rest. The tool that waited runs once, in the process that approved it.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { ChildConfig, TurnSpec } from "./support/script.js"
import { result, start } from "./support/spawn.js"

const work = fs.mkdtempSync(path.join(os.tmpdir(), "durable-approval-"))
const script: ReadonlyArray<TurnSpec> = [
  { calls: [{ id: "c1", name: "lookup", key: "order-7" }, { id: "c2", name: "create_ticket", key: "kettle" }] },
  { text: "Handled." }
]
let runs = 0
const configFor = (extra: Partial<ChildConfig> = {}): ChildConfig => {
  const dir = path.join(work, `run-${++runs}`)
  fs.mkdirSync(dir)
  return { mode: "park", store: path.join(dir, "runs.db"), runId: "mail-1", counter: path.join(dir, "counter"), script, approve: ["create_ticket"], ...extra }
}
const ran = (config: ChildConfig) => fs.readFileSync(config.counter, "utf8").split("\n").filter((line) => line !== "").map((line) => line.split(" ")[0])

/** Parks the run in one process, which then exits. */
const park = async (config: ChildConfig) => {
  const parked = await start(config)
  const waiting = await parked.line("waiting ")
  const exit = await parked.exited
  return { waiting, exit }
}

describe("approval across processes", () => {
  it("a run parked by a process that exited is approved from another, which runs the call and finishes the run", async () => {
    const config = configFor()
    const { exit, waiting } = await park(config)
    expect(waiting).toBe("c2")
    expect(exit.code).toBe(0)
    expect(ran(config)).toEqual(["c1"])
    const finished = await result({ ...config, mode: "approve", callId: "c2" })
    expect(finished.text).toBe("Handled.")
    expect(finished.calls.map((call) => [call.id, call.ok, call.response])).toEqual([
      ["c1", true, { done: "lookup:order-7" }],
      ["c2", true, { done: "create_ticket:kettle" }]
    ])
    expect(ran(config)).toEqual(["c1", "c2"])
  }, 120_000)

  it("denied from another process: the call never runs, and the model is told why", async () => {
    const config = configFor()
    await park(config)
    const finished = await result({ ...config, mode: "approve", callId: "c2", deny: "not under warranty" })
    expect(finished.calls[1]!.response).toEqual({
      error: { type: "ApprovalDenied", message: '"create_ticket" was not approved: not under warranty', reason: "not under warranty" }
    })
    expect(ran(config)).toEqual(["c1"])
  }, 120_000)

  it("the deadline passes while no process runs: the next one to run it denies the call as timed out", async () => {
    const config = configFor({ approvalTimeout: "1 second" })
    await park(config)
    // The deadline is a durable clock in the store: it fires in whichever process runs the run next.
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    const finished = await result({ ...config, mode: "attach" })
    expect(finished.calls[1]!.response).toEqual({
      error: { type: "ApprovalDenied", message: '"create_ticket" was not approved: timed out: no decision within 1s', reason: "timed out: no decision within 1s" }
    })
    expect(ran(config)).toEqual(["c1"])
  }, 120_000)
})
