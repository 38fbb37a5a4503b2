/**
 * Durable runs benchmark: what recording each step costs (`DurableAgent.run` against `Agent.run` with the same
 * scripted model, on SQLite and on PostgreSQL, interleaved), how many runs per second 1, 2 and 3 runner processes
 * finish on one PostgreSQL (tools of 20 ms), and how long the others take to pick up a killed runner's run.
 *
 *   npx -y pnpm@10 bench:durable                          (PostgreSQL: AGENTFX_TEST_PG_URL, else the machine's own)
 *   node bench/dist/durable.js --blocks 5 --steps 20 --runs 30
 */
import { Agent } from "@agentfx/core"
import { DurableAgent } from "@agentfx/durable"
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import { execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import { createServer } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { benchAgent, benchModel, benchRegistry, quiet, steps } from "./internal/durableRunner.js"
import { fixed, machine, median, spread, verdict } from "./internal/stats.js"
import * as Table from "./internal/table.js"

const option = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : Number(process.argv[at + 1])
}
const blocks = option("blocks", 7)
const runsPerBlock = option("per-block", 5)
const totalRuns = option("runs", 30)
const settleMs = option("settle-ms", 8000)

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const runnerScript = fileURLToPath(new URL("./internal/durableRunner.js", import.meta.url))

const serverUrl = (): string =>
  process.env.AGENTFX_TEST_PG_URL ?? execFileSync(process.execPath, [path.join(repo, "scripts", "postgres.mjs")], { encoding: "utf8" }).trim()

const sqlOn = <A>(url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>): Promise<A> =>
  Effect.runPromise(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url) })), Effect.orDie))

const freshDatabase = async (): Promise<{ url: string; drop: () => Promise<void> }> => {
  const server = serverUrl()
  const name = `agentfx_bench_${randomBytes(4).toString("hex")}`
  await sqlOn(server, (sql) => sql.unsafe(`CREATE DATABASE ${name}`))
  const url = new URL(server)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => sqlOn(server, (sql) => sql.unsafe(`DROP DATABASE ${name} WITH (FORCE)`)).then(() => undefined) }
}

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

// ---- overhead per step ----

const overhead = async (pgUrl: string): Promise<Table.Table> => {
  const agent = benchAgent(0)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-durable-"))
  const sqlite = ManagedRuntime.make(
    agent.layer.pipe(Layer.provideMerge(DurableAgent.layerSqlite({ filename: path.join(dir, "runs.db") })), Layer.provideMerge(benchModel), Layer.provide(quiet))
  )
  const pg = ManagedRuntime.make(
    agent.layer.pipe(Layer.provideMerge(DurableAgent.layerPg({ url: pgUrl, runner: { host: "127.0.0.1", port: await freePort() } })), Layer.provideMerge(benchModel), Layer.provide(quiet))
  )
  const plain = ManagedRuntime.make(benchModel)
  const registry = benchRegistry(0)
  let id = 0
  const perStep = runsPerBlock * (2 * steps + 1)
  /** A block of runs: wall time and this process's CPU time, per step. */
  const timeRuns = async (run: (prompt: string) => Promise<unknown>) => {
    const started = performance.now()
    const cpu = process.cpuUsage()
    for (let i = 0; i < runsPerBlock; i++) await run(`b${++id}`)
    const used = process.cpuUsage(cpu)
    return { wall: (performance.now() - started) / perStep, cpu: (used.user + used.system) / 1000 / perStep }
  }
  const plainRun = (prompt: string) => plain.runPromise(Agent.run({ registry, prompt, concurrency: "sequential" }))
  const sqliteRun = (prompt: string) => sqlite.runPromise(agent.run({ runId: prompt, prompt }))
  const pgRun = (prompt: string) => pg.runPromise(agent.run({ runId: prompt, prompt }))
  // Warm-up: each side once.
  await plainRun("warm-plain")
  await sqliteRun("warm-sqlite")
  await pgRun("warm-pg")
  const samples = { plain: [] as Array<{ wall: number; cpu: number }>, sqlite: [] as Array<{ wall: number; cpu: number }>, pg: [] as Array<{ wall: number; cpu: number }> }
  for (let block = 0; block < blocks; block++) {
    samples.plain.push(await timeRuns(plainRun))
    samples.sqlite.push(await timeRuns(sqliteRun))
    samples.pg.push(await timeRuns(pgRun))
  }
  await Promise.all([sqlite.dispose(), pg.dispose(), plain.dispose()])
  fs.rmSync(dir, { recursive: true, force: true })
  const wall = (side: ReadonlyArray<{ wall: number }>) => side.map((sample) => sample.wall)
  const cpu = (side: ReadonlyArray<{ cpu: number }>) => side.map((sample) => sample.cpu)
  const over = (side: ReadonlyArray<{ wall: number }>) => side.map((sample, i) => sample.wall - samples.plain[i]!.wall)
  return {
    title: "durable — overhead per step (one model turn or one tool call) over Agent.run",
    columns: [
      { header: "store" },
      { header: "ms per step", align: "right" },
      { header: "overhead ms per step", align: "right" },
      { header: "goal" },
      { header: "CPU ms per step (this process)", align: "right" }
    ],
    rows: [
      ["Agent.run (in memory)", spread(wall(samples.plain), 3), "", "", spread(cpu(samples.plain), 3)],
      ["DurableAgent.run, SQLite", spread(wall(samples.sqlite), 3), spread(over(samples.sqlite), 3), verdict(median(over(samples.sqlite)) <= 5, "≤ 5"), spread(cpu(samples.sqlite), 3)],
      ["DurableAgent.run, PostgreSQL", spread(wall(samples.pg), 3), spread(over(samples.pg), 3), verdict(median(over(samples.pg)) <= 15, "≤ 15"), spread(cpu(samples.pg), 3)]
    ],
    notes: [
      `Each run: ${steps} model turns with one call each (a tool that returns at once), then the answer: ${2 * steps + 1} steps; scripted model.`,
      `${blocks} interleaved blocks of ${runsPerBlock} runs per side, after one warm-up run each; median (min–max) over the blocks.`,
      "Per step = a block's time / runs / (turns + calls); the durable side starts each run with a new run id. CPU: this process's user + system time (PostgreSQL's own is not in it).",
      machine()
    ]
  }
}

// ---- runner processes ----

interface Runner {
  readonly port: number
  readonly begun: Array<{ readonly call: string; readonly at: number }>
  readonly kill: () => Promise<void>
}

const startRunner = async (url: string, toolMs: number): Promise<Runner> => {
  const port = await freePort()
  const child = spawn(process.execPath, [runnerScript, url, String(port), String(toolMs)], { stdio: ["ignore", "pipe", "inherit"] })
  const begun: Array<{ call: string; at: number }> = []
  let ready!: () => void
  const isReady = new Promise<void>((resolve) => (ready = resolve))
  let buffer = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk
    const lines = buffer.split("\n")
    buffer = lines.pop() ?? ""
    for (const line of lines) {
      if (line === "ready") ready()
      else if (line.startsWith("begin ")) begun.push({ call: line.slice(6), at: performance.now() })
    }
  })
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()))
  await isReady
  return { port, begun, kill: () => (child.kill("SIGKILL"), exited) }
}

/** Polls every 50 ms until `ready` holds (at most `within` ms). */
const until = async (ready: () => Promise<boolean>, within = 300_000): Promise<void> => {
  const deadline = performance.now() + within
  while (!(await ready())) {
    if (performance.now() > deadline) throw new Error("the runs did not finish in time")
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const finishedCount = (url: string, prefix: string) =>
  sqlOn(url, (sql) => sql.unsafe<{ n: string }>(`SELECT COUNT(*) AS n FROM agentfx_runs WHERE state = 'finished' AND run_id LIKE '${prefix}%'`)).then(
    (rows) => Number(rows[0]!.n)
  )

/** Starts `count` runs from this process (a client of the store: it runs none itself). */
const submit = async (url: string, prefix: string, count: number): Promise<void> => {
  const agent = benchAgent(0)
  const client = ManagedRuntime.make(DurableAgent.layerPg({ url, clientOnly: true }).pipe(Layer.provide(quiet)))
  for (let i = 1; i <= count; i++) await client.runPromise(agent.start({ runId: `${prefix}${i}`, prompt: `${prefix}${i}` }))
  await client.dispose()
}

const throughput = async (): Promise<Table.Table> => {
  const rows: Array<Array<string>> = []
  for (const runners of [1, 2, 3]) {
    const database = await freshDatabase()
    const started: Array<Runner> = []
    for (let i = 0; i < runners; i++) started.push(await startRunner(database.url, 20))
    // Let the shards settle on the runners first: runs started while shards move wait for them.
    await new Promise((resolve) => setTimeout(resolve, settleMs))
    const t0 = performance.now()
    await submit(database.url, "t", totalRuns)
    await until(async () => (await finishedCount(database.url, "t")) === totalRuns)
    const seconds = (performance.now() - t0) / 1000
    await Promise.all(started.map((runner) => runner.kill()))
    await database.drop()
    rows.push([String(runners), String(totalRuns), fixed(seconds, 2), fixed(totalRuns / seconds, 1)])
  }
  return {
    title: "durable — runs per second on one PostgreSQL",
    columns: [{ header: "runners" }, { header: "runs", align: "right" }, { header: "seconds", align: "right" }, { header: "runs/s", align: "right" }],
    rows,
    notes: [
      `Each run: ${steps} turns of one call to a 20 ms tool, then the answer (scripted model): at least ${steps * 20} ms of tool time.`,
      `Runners started one after another, then ${settleMs} ms for the shards to settle; all runs started at once from a client process; timed until every run is finished in the store.`,
      machine()
    ]
  }
}

const takeover = async (): Promise<Table.Table> => {
  const samples: Array<number> = []
  for (let round = 0; round < 3; round++) {
    const database = await freshDatabase()
    const [first, second] = await Promise.all([startRunner(database.url, 500), startRunner(database.url, 500)])
    await submit(database.url, `k${round}-`, 6)
    // Wait for a run under way on the first runner, then kill it there.
    await until(async () => first!.begun.length > 0)
    const victim = first!.begun[0]!.call.split(".")[0]!
    await first!.kill()
    const killed = performance.now()
    await until(async () => second!.begun.some((entry) => entry.call.startsWith(`${victim}.`) && entry.at > killed))
    samples.push((second!.begun.find((entry) => entry.call.startsWith(`${victim}.`) && entry.at > killed)!.at - killed) / 1000)
    await second!.kill()
    await database.drop()
  }
  return {
    title: "durable — takeover after kill -9 (two runners on one PostgreSQL)",
    columns: [{ header: "what" }, { header: "seconds", align: "right" }],
    rows: [["kill -9 of a runner → its run's next call begins on the other", spread(samples, 2)]],
    notes: [
      "Runner settings: shard locks renewed every 1 s and expiring after 3 s, runner health checked every 1 s, messages polled every 200 ms.",
      "3 rounds, median (min–max). With @effect/cluster's defaults (locks 10 s / 35 s, health every minute) it is that much longer.",
      machine()
    ]
  }
}

/** `--only overhead|throughput|takeover` runs one part. */
const only = (() => {
  const at = process.argv.indexOf("--only")
  return at === -1 ? undefined : process.argv[at + 1]
})()

const main = async () => {
  if (only === undefined || only === "overhead") {
    const database = await freshDatabase()
    try {
      Table.print(await overhead(database.url))
    } finally {
      await database.drop()
    }
  }
  if (only === undefined || only === "throughput") Table.print(await throughput())
  if (only === undefined || only === "takeover") Table.print(await takeover())
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  }
)
