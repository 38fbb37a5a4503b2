/**
 * Cold start of the built `agentfx` executable beside a Node process that does nothing (`node -e ''`): the
 * time from spawning the process to its exit (`--help`, `tools`) or to the chat's first prompt on stdout
 * (`chat`, then `/exit`), and the peak memory (maximum resident set) of the whole process.
 *
 * Runs alternate between the commands (A B C D A B C D …) so that a machine getting slower or faster weighs on
 * all of them alike; each figure is the median with its min–max. Peak memory comes from GNU time
 * (`/usr/bin/time -f %M`) in separate runs, when it is installed.
 *
 *   npx -y pnpm@10 bench:cold-start      (builds first; RUNS=N for more runs than 15)
 */
import { spawn, spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { fixed, machine, median, verdict } from "./internal/stats.js"
import { print } from "./internal/table.js"

const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url))
const gnuTime = "/usr/bin/time"
const runs = Number(process.env.RUNS ?? 15)

interface Case {
  readonly name: string
  readonly args: ReadonlyArray<string>
  /** When the run counts as started: at exit, or when stdout shows the chat prompt. */
  readonly until: "exit" | "prompt"
  readonly goal?: { readonly wallMs: number; readonly rssMiB: number }
}

const cases: ReadonlyArray<Case> = [
  { name: "node -e ''", args: ["-e", ""], until: "exit" },
  { name: "agentfx --help", args: [bin, "--help"], until: "exit", goal: { wallMs: 150, rssMiB: 60 } },
  { name: "agentfx tools", args: [bin, "tools"], until: "exit", goal: { wallMs: 150, rssMiB: 60 } },
  { name: "agentfx chat (first prompt)", args: [bin, "chat"], until: "prompt", goal: { wallMs: 300, rssMiB: Infinity } }
]

// No key: the chat starts offline, as a newcomer's first one does.
const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" }
for (const name of ["GEMINI_API_KEY", "GOOGLE_API_KEY", "ZAI_API_KEY", "OPENAI_API_KEY"]) delete env[name]

/** Milliseconds from spawn to exit, or to the prompt (the chat is then told /exit and awaited). */
const once = (c: Case): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6
    const child = spawn(process.execPath, c.args, { env, stdio: ["pipe", "pipe", "ignore"] })
    let seen = ""
    let atPrompt: number | undefined
    child.stdout.on("data", (chunk: Buffer) => {
      if (c.until !== "prompt" || atPrompt !== undefined) return
      seen += chunk.toString("utf8")
      if (seen.includes("you> ")) {
        atPrompt = elapsed()
        child.stdin.end("/exit\n")
      }
    })
    if (c.until === "exit") child.stdin.end()
    child.on("error", reject)
    child.on("close", (code) => {
      const at = c.until === "prompt" ? atPrompt : elapsed()
      if (code !== 0 || at === undefined) reject(new Error(`${c.name}: exit code ${code}${at === undefined ? ", no prompt" : ""}`))
      else resolve(at)
    })
  })

/** Peak resident memory in MiB of one whole run, by GNU time; `undefined` without it. */
const peakMiB = (c: Case): number | undefined => {
  if (!existsSync(gnuTime)) return undefined
  const result = spawnSync(gnuTime, ["-f", "%M", process.execPath, ...c.args], { env, input: c.until === "prompt" ? "/exit\n" : "", encoding: "utf8" })
  const kib = Number(result.stderr.trim().split("\n").at(-1))
  return Number.isFinite(kib) ? kib / 1024 : undefined
}

if (!existsSync(bin)) {
  console.error(`${bin} is missing: run npx -y pnpm@10 build first`)
  process.exit(1)
}

const walls = cases.map(() => [] as Array<number>)
const peaks = cases.map(() => [] as Array<number>)
for (let warmup = 0; warmup < 2; warmup++) for (const c of cases) await once(c)
for (let run = 0; run < runs; run++) {
  for (const [i, c] of cases.entries()) walls[i]!.push(await once(c))
}
for (let run = 0; run < 5; run++) {
  for (const [i, c] of cases.entries()) {
    const peak = peakMiB(c)
    if (peak !== undefined) peaks[i]!.push(peak)
  }
}

const baseline = median(walls[0]!)
print({
  title: "agentfx cold start (built executable, offline)",
  columns: [
    { header: "command" },
    { header: "wall ms (median)", align: "right" },
    { header: "min–max", align: "right" },
    { header: "× node -e ''", align: "right" },
    { header: "peak MiB", align: "right" },
    { header: "goal" }
  ],
  rows: cases.map((c, i) => {
    const wall = median(walls[i]!)
    const peak = peaks[i]!.length > 0 ? median(peaks[i]!) : undefined
    const goal = c.goal
    const met = goal === undefined ? undefined : wall <= goal.wallMs && (peak === undefined || peak <= goal.rssMiB)
    return [
      c.name,
      fixed(wall, 0),
      `${fixed(Math.min(...walls[i]!), 0)}–${fixed(Math.max(...walls[i]!), 0)}`,
      fixed(wall / baseline, 2),
      peak === undefined ? "n/a" : fixed(peak, 1),
      goal === undefined || met === undefined
        ? ""
        : verdict(met, `≤ ${goal.wallMs} ms${Number.isFinite(goal.rssMiB) ? `, ≤ ${goal.rssMiB} MiB` : ""}`)
    ]
  }),
  notes: [
    `${runs} runs of each after 2 warm-ups, taken in turn; wall = spawn to exit (chat: spawn to the prompt on stdout); peak = maximum resident set of the process (GNU time, 5 runs).`,
    "On a shared machine the absolute figures drift: read the ratio to node -e '' first.",
    machine()
  ]
})
