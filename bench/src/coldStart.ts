/**
 * Cold start of the built `agentfx` executable beside Node processes that do nothing: the CPU time and the wall
 * time from spawning the process to its exit (`--help`, `tools`, against `node -e ''`) or to the chat's first prompt
 * on stdout (`chat`, then `/exit`, against a Node process that prints the same prompt at once), and the peak memory
 * (maximum resident set) of the whole process. A plain chat shows its first screen before its program loads; the
 * same chat with `--root .` cannot (it reads the root first), so the two side by side show what that early screen
 * saves to the prompt, and (to the answer of a message written at once) what it costs in all.
 *
 * CPU is what the load of a shared machine disturbs least: to a process's exit, the CPU its run used (user +
 * system of the finished child, as the shell's `times` reads it, to the millisecond); to a prompt, the CPU every
 * thread of the process had used when the prompt reached stdout (`/proc/PID/task/TID/schedstat` of every thread, in nanoseconds; what
 * the process does after the prompt, such as starting the emulator in the background, is not counted). Each command
 * is paired with its baseline of the same round: the ratio is taken round by round, then its median.
 *
 * Runs alternate between the commands (A B C D A B C D …) so that a machine getting slower or faster weighs on
 * all of them alike; each figure is the median with its min–max. Peak memory comes from GNU time
 * (`/usr/bin/time -f %M`) in separate runs, when it is installed.
 *
 *   npx -y pnpm@10 bench:cold-start      (builds first; RUNS=N for more runs than 15)
 */
import { spawn, spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { fixed, machine, median, spread, verdict } from "./internal/stats.js"
import { print } from "./internal/table.js"

const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url))
const gnuTime = "/usr/bin/time"
const runs = Number(process.env.RUNS ?? 15)
const prompt = "you> "

interface Case {
  readonly name: string
  readonly args: ReadonlyArray<string>
  /**
   * When the run counts as started: at exit, when stdout shows the chat prompt, or when it shows the answer to a
   * message written at once (the chat then loads its program, starts the emulator and answers).
   */
  readonly until: "exit" | "prompt" | "answer"
  /** The case its CPU is paired with (by index), for the ratio. */
  readonly baseline?: number
  readonly goal?: { readonly wallMs?: number; readonly rssMiB?: number; readonly cpuRatio?: number }
}

const cases: ReadonlyArray<Case> = [
  { name: "node -e ''", args: ["-e", ""], until: "exit" },
  {
    name: "node printing the prompt (reference for chat)",
    args: ["-e", `process.stdout.write(${JSON.stringify(prompt)}); process.stdin.resume(); process.stdin.on("end", () => process.exit(0))`],
    until: "prompt"
  },
  { name: "agentfx --help", args: [bin, "--help"], until: "exit", baseline: 0, goal: { wallMs: 150, rssMiB: 60 } },
  { name: "agentfx tools", args: [bin, "tools"], until: "exit", baseline: 0, goal: { wallMs: 150, rssMiB: 60 } },
  { name: "agentfx chat (first prompt)", args: [bin, "chat"], until: "prompt", baseline: 1, goal: { wallMs: 300, cpuRatio: 2 } },
  // --root reads the root before the prompt, so this chat has no early screen: its prompt waits for its program.
  { name: "agentfx chat --root . (first prompt, no early screen)", args: [bin, "chat", "--root", "."], until: "prompt", baseline: 1 },
  { name: "agentfx chat (first answer)", args: [bin, "chat"], until: "answer", baseline: 7 },
  { name: "agentfx chat --root . (first answer, no early screen)", args: [bin, "chat", "--root", "."], until: "answer" }
]

const message = "what is 6 * 7?\n"
const answer = "6 * 7 = 42."

// No key: the chat starts offline, as a newcomer's first one does.
const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" }
for (const name of ["GEMINI_API_KEY", "GOOGLE_API_KEY", "ZAI_API_KEY", "OPENAI_API_KEY"]) delete env[name]

/** CPU milliseconds every thread of a running process has used so far. */
const cpuSoFar = (pid: number): number => {
  let nanoseconds = 0
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      nanoseconds += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0])
    } catch {
      // A thread that ended between the listing and the read: its time is gone with it.
    }
  }
  return nanoseconds / 1e6
}

/** The children's user and system time in `times` output ("0m0.031s 0m0.008s" on its second line), in ms. */
const childrenCpu = (times: string): number => {
  const line = times.trim().split("\n").at(-1) ?? ""
  const parts = [...line.matchAll(/(\d+)m([\d.]+)s/g)].map((match) => Number(match[1]) * 60_000 + Number(match[2]) * 1000)
  if (parts.length !== 2) throw new Error(`cannot read the shell's times: ${JSON.stringify(times)}`)
  return parts[0]! + parts[1]!
}

interface Sample {
  readonly wall: number
  readonly cpu: number
}

/**
 * One run: wall milliseconds from spawn to exit, or to the prompt (the chat is then told /exit and awaited), and
 * its CPU. A run to exit goes through a shell that reports its child's times; the shell's own start is in the wall
 * figure of every such case alike.
 */
const once = (c: Case): Promise<Sample> =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6
    const child =
      c.until === "exit"
        ? spawn("bash", ["-c", '"$0" "$@" </dev/null >/dev/null 2>&1; code=$?; times >&2; exit $code', process.execPath, ...c.args], {
          env,
          stdio: ["ignore", "ignore", "pipe"]
        })
        : spawn(process.execPath, c.args, { env, stdio: ["pipe", "pipe", "ignore"] })
    let seen = ""
    let times = ""
    let atPrompt: Sample | undefined
    if (c.until === "answer") child.stdin!.write(message)
    child.stdout?.on("data", (chunk: Buffer) => {
      if (atPrompt !== undefined) return
      seen += chunk.toString("utf8")
      if (seen.includes(c.until === "answer" ? answer : prompt)) {
        atPrompt = { wall: elapsed(), cpu: cpuSoFar(child.pid!) }
        child.stdin!.end("/exit\n")
      }
    })
    child.stderr?.on("data", (chunk: Buffer) => {
      times += chunk.toString("utf8")
    })
    child.on("error", reject)
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`${c.name}: exit code ${code}`))
      if (c.until === "exit") return resolve({ wall: elapsed(), cpu: childrenCpu(times) })
      if (atPrompt === undefined) return reject(new Error(`${c.name}: no prompt`))
      resolve(atPrompt)
    })
  })

/** Peak resident memory in MiB of one whole run, by GNU time; `undefined` without it. */
const peakMiB = (c: Case): number | undefined => {
  if (!existsSync(gnuTime)) return undefined
  const input = c.until === "exit" ? "" : c.until === "answer" ? `${message}/exit\n` : "/exit\n"
  const result = spawnSync(gnuTime, ["-f", "%M", process.execPath, ...c.args], { env, input, encoding: "utf8" })
  const kib = Number(result.stderr.trim().split("\n").at(-1))
  return Number.isFinite(kib) ? kib / 1024 : undefined
}

if (!existsSync(bin)) {
  console.error(`${bin} is missing: run npx -y pnpm@10 build first`)
  process.exit(1)
}

const walls = cases.map(() => [] as Array<number>)
const cpus = cases.map(() => [] as Array<number>)
const peaks = cases.map(() => [] as Array<number>)
for (let warmup = 0; warmup < 2; warmup++) for (const c of cases) await once(c)
for (let run = 0; run < runs; run++) {
  for (const [i, c] of cases.entries()) {
    const sample = await once(c)
    walls[i]!.push(sample.wall)
    cpus[i]!.push(sample.cpu)
  }
}
for (let run = 0; run < 5; run++) {
  for (const [i, c] of cases.entries()) {
    const peak = peakMiB(c)
    if (peak !== undefined) peaks[i]!.push(peak)
  }
}

/** A case's CPU over its baseline's, round by round. */
const ratios = (i: number): ReadonlyArray<number> | undefined => {
  const baseline = cases[i]!.baseline
  return baseline === undefined ? undefined : cpus[i]!.map((cpu, round) => cpu / cpus[baseline]![round]!)
}

print({
  title: "agentfx cold start (built executable, offline)",
  columns: [
    { header: "command" },
    { header: "CPU ms", align: "right" },
    { header: "CPU × its reference, paired", align: "right" },
    { header: "wall ms", align: "right" },
    { header: "peak MiB", align: "right" },
    { header: "goal" }
  ],
  rows: cases.map((c, i) => {
    const wall = median(walls[i]!)
    const paired = ratios(i)
    const peak = peaks[i]!.length > 0 ? median(peaks[i]!) : undefined
    const goal = c.goal
    const checks: Array<string> = []
    if (goal?.cpuRatio !== undefined && paired !== undefined) checks.push(verdict(median(paired) <= goal.cpuRatio, `CPU ≤ ${goal.cpuRatio}× ${cases[c.baseline!]!.name}`))
    if (goal?.wallMs !== undefined) checks.push(verdict(wall <= goal.wallMs, `wall ≤ ${goal.wallMs} ms`))
    if (goal?.rssMiB !== undefined && peak !== undefined) checks.push(verdict(peak <= goal.rssMiB, `≤ ${goal.rssMiB} MiB`))
    return [
      c.name,
      spread(cpus[i]!, 1),
      paired === undefined ? "" : spread(paired, 2),
      spread(walls[i]!, 0),
      peak === undefined ? "n/a" : fixed(peak, 1),
      checks.join("; ")
    ]
  }),
  notes: [
    `Median (min–max) of ${runs} runs of each after 2 warm-ups, taken in turn. To exit: CPU = user + system of the finished process (the shell's times, 1 ms resolution), wall = spawn to exit through that shell. To the prompt: CPU = what every thread had used when the prompt reached stdout (schedstat, ns), wall = spawn to the prompt (or to the answer: "6 * 7 = 42." for "what is 6 * 7?" written at spawn). Peak = maximum resident set of the whole process (GNU time, 5 runs).`,
    "CPU × its reference: each run's CPU over its reference's in the same round (--help and tools: node -e ''; chat: a Node process printing the prompt; chat's answer: the chat with no early screen), then the median and spread of those ratios.",
    "On a shared machine the absolute figures drift: read the paired ratios first.",
    machine()
  ]
})
