/**
 * Several runner processes on one real PostgreSQL database (support/postgres.ts): runs are sharded across them,
 * one runner is killed with SIGKILL mid-run, and the others take its runs over. Every run finishes, and no call
 * ran twice (every tool here is not idempotent, and each counts its side effects in a shared file).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { freePort } from "./support/cluster.js"
import { freshDatabase, query } from "./support/postgres.js"
import type { Child } from "./support/spawn.js"
import { start } from "./support/spawn.js"
import { threeTurns } from "./support/script.js"

const work = fs.mkdtempSync(path.join(os.tmpdir(), "durable-pg-"))
afterAll(() => fs.rmSync(work, { recursive: true, force: true }))

const lines = (file: string): ReadonlyArray<string> => (fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "") : [])

/** Polls until `ready` holds, every 100 ms, at most `within` ms. */
const until = async (ready: () => Promise<boolean> | boolean, within: number, what: string): Promise<void> => {
  const deadline = Date.now() + within
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${within} ms`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe("runners on one PostgreSQL database", () => {
  for (const runners of [2, 3]) {
    it(`${runners} runners, one killed mid-run: every run finishes, and no call runs twice`, async () => {
      // A database of its own: runners another test left registered would be given shards here.
      const database = await freshDatabase()
      const counter = path.join(work, `counter-${runners}`)
      const runIds = Array.from({ length: 12 }, (_, i) => `r${runners}-${i + 1}`)
      const children: Array<Child> = []
      try {
        const ports: Array<number> = []
        for (let i = 0; i < runners; i++) {
          ports.push(await Effect.runPromise(freePort))
          children.push(
            await start({
              mode: "serve",
              store: database.url,
              port: ports[i]!,
              runId: "",
              counter,
              script: threeTurns,
              toolDelayMs: 500,
              nonIdempotent: ["lookup", "create_ticket", "notify"],
              // The last runner starts the runs once the others serve.
              ...(i === runners - 1 ? { starts: runIds } : {})
            })
          )
          await children[i]!.line("ready", 90_000)
        }
        // Kill a runner inside a call that has a call after it, where it stands: its run is then taken over.
        const inFlight = (): string[] | undefined => {
          const entries = lines(counter).map((line) => line.split(" "))
          const done = new Set(entries.filter((entry) => entry[2] === undefined).map((entry) => entry[0]))
          return entries.find((entry) => entry[2] === "begin" && !done.has(entry[0]) && !entry[0]!.endsWith(".c3"))
        }
        await until(() => inFlight() !== undefined, 90_000, "a call under way")
        const [interrupted, victim] = inFlight()!
        await children[ports.indexOf(Number(victim))]!.kill()
        const finished = () =>
          query<{ state: string }>(database.url, `SELECT state FROM agentfx_runs WHERE run_id LIKE 'r${runners}-%'`).then(
            (rows) => rows.length === runIds.length && rows.every((row) => row.state === "finished")
          )
        await until(finished, 120_000, "every run finished").catch(async (error: Error) => {
          // Which runs did not finish, and the last thing each recorded: what a failure needs to be understood.
          const left = await query<{ run_id: string; state: string; last: string | null }>(
            database.url,
            `SELECT r.run_id, r.state, (SELECT e.key FROM agentfx_events e WHERE e.run_id = r.run_id ORDER BY e.seq DESC LIMIT 1) AS last
             FROM agentfx_runs r WHERE r.run_id LIKE 'r${runners}-%' AND r.state <> 'finished'`
          )
          throw new Error(`${error.message}; killed ${victim} inside ${interrupted}; unfinished: ${JSON.stringify(left)}; calls: ${lines(counter).join(", ")}`)
        })
        const entries = lines(counter).map((line) => line.split(" "))
        const times = (kind: "begin" | "effect") => {
          const counted = new Map<string, number>()
          for (const [id, , begin] of entries) if ((begin === "begin") === (kind === "begin")) counted.set(id!, (counted.get(id!) ?? 0) + 1)
          return [...counted.values()]
        }
        // No call began twice, none had its side effect twice.
        expect(times("begin").every((n) => n === 1)).toBe(true)
        expect(times("effect").every((n) => n === 1)).toBe(true)
        // The interrupted call's run was taken over: its last call was made by another runner.
        const run = interrupted!.split(".")[0]!
        const last = entries.find(([id, , begin]) => id === `${run}.c3` && begin === undefined)
        expect(last?.[1]).toBeDefined()
        expect(last?.[1]).not.toBe(victim)
        // Each run answered its three calls: run, or (killed inside one) answered as interrupted, never run twice.
        const answered = await query<{ n: string }>(database.url, `SELECT COUNT(*) AS n FROM agentfx_events WHERE key LIKE 'call/%/finished' AND run_id LIKE 'r${runners}-%'`)
        expect(Number(answered[0]!.n)).toBe(runIds.length * 3)
      } finally {
        await Promise.all(children.map((child) => child.kill()))
        await database.drop()
      }
    }, 300_000)
  }
})
