// `node scripts/mutation-plan.mjs scripts/mutation-plans/core.json [--workers 2] [--only a,b] [--changed] [--retest] [--merge] [--list]`:
// one package's mutation score from narrowed runs, in a fraction of a whole-package run's time.
//
// A whole-package run tests each static mutant (module-level code, run at import) against every test of the
// package, and each of the others against every test that reaches it, each test file in a fresh worker that imports
// Effect and the SDKs again. A plan splits the package into runs of related files, each with the tests written
// for them (the tests of other files reach a mutant too, but rarely kill what these do not: a narrowed score is a
// lower bound). Two phases:
//   1. every run, static mutants left out, `--workers` runs at a time (one Stryker worker each);
//   2. the static mutants those runs left out, each against the few test files the plan names for its file
//      (`statics`): Stryker's `--mutate` with the place of each. The mutants nested in those places take their
//      results over from the run's report (Stryker's incremental mode), so only what that report left open is tested.
// Then every report of the plan (reports/mutation/<package>/plan/*.json) is merged, a mutant detected when any
// run detected it, and the table is printed and written to reports/mutation/<package>/plan/summary.md.
// `--only` re-runs the named runs (and their static mutants) and merges with the reports already there;
// `--statics` runs phase 2 only, for the static mutants in the reports of every run of the plan; `--merge` only merges;
// `--changed` runs each run again over only the files edited since a report measured them (both phases), and the
// merge scores each file from the reports of its text as it is now; `--retest` runs again, by place, only the mutants
// that survived or had no test, with each run's tests as they are now (after tests were added).
import { spawn } from "node:child_process"
import { createWriteStream, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { ignoredAsStatic, percent, scoresOf, undetected } from "./mutationScores.mjs"

const args = process.argv.slice(2)
const option = (name) => {
  const i = args.indexOf(name)
  return i === -1 ? undefined : args[i + 1]
}
const planFile = args[0]
if (planFile === undefined || planFile.startsWith("-") || !existsSync(planFile)) {
  console.error("mutation-plan: give a plan file, e.g. scripts/mutation-plans/core.json")
  process.exit(2)
}
const plan = JSON.parse(readFileSync(planFile, "utf8"))
const workers = Number(option("--workers") ?? 2)
if (!Number.isInteger(workers) || workers < 1) {
  console.error(`mutation-plan: --workers must be a whole number from 1, got ${option("--workers")}`)
  process.exit(2)
}
const only = option("--only")?.split(",")
const src = (file) => `packages/${plan.package}/src/${file}`
// A test named from the workspace root (`packages/providers/test/...`) is another package's: the emulator's wire is
// specified by the provider tests that drive the real SDKs against it as much as by its own.
const test = (file) => (file.startsWith("packages/") ? file : `packages/${plan.package}/test/${file}`)
const reportDir = `reports/mutation/${plan.package}/plan`
const reportOf = (name) => join(reportDir, `${name}.json`)
const incrementalDir = `reports/mutation/${plan.package}/incremental`

/** The file a `--mutate` pattern names: a path, or a path with a place after it (`file:line:col-line:col`). */
const fileOfPattern = (pattern) => pattern.replace(/:\d+:\d+-\d+:\d+$/, "")

const unknown = (only ?? []).filter((name) => !plan.runs.some((run) => run.name === name))
if (unknown.length > 0) {
  console.error(`mutation-plan: no run named ${unknown.join(", ")} in ${planFile} (runs: ${plan.runs.map((run) => run.name).join(", ")})`)
  process.exit(2)
}
for (const file of [...plan.runs.flatMap((run) => run.tests), ...plan.statics.flatMap((group) => group.tests)]) {
  if (!existsSync(test(file))) {
    console.error(`mutation-plan: ${planFile} names a test file that does not exist: ${test(file)}`)
    process.exit(2)
  }
}

const stryker = join(dirname(createRequire(import.meta.url).resolve("@stryker-mutator/core/package.json")), "bin/stryker.js")

/**
 * One Stryker run; its output goes to a log beside its report as it comes. Resolves with its exit status.
 * `reuse`: a report whose results Stryker takes over (its incremental mode) for the mutants it finds unchanged, with
 * their killing tests among this run's; every other mutant, and each one that report ignored, is tested.
 */
const strykerRun = ({ name, mutate, tests, ignoreStatic, coverageAnalysis, reuse }) =>
  new Promise((resolve) => {
    const started = Date.now()
    console.log(`${new Date().toISOString().slice(11, 19)} start ${name}: ${mutate.length} mutate pattern(s), ${tests.length} test file(s)`)
    // Stryker rewrites its incremental file at the end, so it gets a copy, kept out of the report folder, of the files
    // this run mutates only: Stryker would carry the others over into this run's report.
    const incremental = reuse === undefined ? undefined : join(incrementalDir, `${name}.json`)
    if (incremental !== undefined) {
      const report = JSON.parse(readFileSync(reuse, "utf8"))
      const files = new Set(mutate.map(fileOfPattern))
      writeFileSync(incremental, JSON.stringify({ ...report, files: Object.fromEntries(Object.entries(report.files).filter(([file]) => files.has(file))) }))
    }
    const force = incremental === undefined ? ["--force"] : []
    const child = spawn(process.execPath, [stryker, "run", "stryker.config.mjs", ...force, "--mutate", mutate.join(",")], {
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        MUTATION_PACKAGE: plan.package,
        MUTATION_RUN: name,
        MUTATION_IGNORE_STATIC: ignoreStatic ? "1" : "0",
        MUTATION_TESTS: tests.join(","),
        MUTATION_COVERAGE: coverageAnalysis ?? "perTest",
        MUTATION_INCREMENTAL: incremental ?? ""
      }
    })
    const log = createWriteStream(join(reportDir, `${name}.log`))
    child.stdout.pipe(log, { end: false })
    child.stderr.pipe(log, { end: false })
    child.on("close", (status) => {
      log.end()
      const minutes = ((Date.now() - started) / 60_000).toFixed(1)
      console.log(`${new Date().toISOString().slice(11, 19)} ${status === 0 ? "done" : `FAILED (exit ${status}, see ${join(reportDir, `${name}.log`)})`} ${name} in ${minutes} min`)
      resolve(status)
    })
  })

/** Runs the jobs, `workers` at a time; true when all succeeded. */
const runAll = async (jobs) => {
  const queue = [...jobs]
  const statuses = []
  await Promise.all(
    Array.from({ length: Math.min(workers, queue.length) }, async () => {
      for (let job = queue.shift(); job !== undefined; job = queue.shift()) statuses.push(await strykerRun(job))
    })
  )
  return statuses.every((status) => status === 0)
}

const reportNames = () => (existsSync(reportDir) ? readdirSync(reportDir).filter((name) => name.endsWith(".json")).sort() : [])
const readReports = () => reportNames().map((name) => JSON.parse(readFileSync(join(reportDir, name), "utf8")))
const textOf = (file) => (existsSync(file) ? readFileSync(file, "utf8") : undefined)

// A file is scored only from reports made of its text as it is now: one edited since a run is left out of that run's
// report (its mutants' places would no longer match), and `--changed` measures it again.
const currentReports = (stale = new Set()) =>
  readReports().map((report) => ({
    ...report,
    files: Object.fromEntries(
      Object.entries(report.files).filter(([file, { source }]) => {
        const same = textOf(file) === source
        if (!same) stale.add(file)
        return same
      })
    )
  }))

/** A mutant's place as `--mutate` takes it (Stryker's columns there count from 0). */
const placeOf = (file, { location: { start, end } }) => `${file}:${start.line}:${start.column - 1}-${end.line}:${end.column - 1}`

mkdirSync(reportDir, { recursive: true })
mkdirSync(incrementalDir, { recursive: true })
let ok = true
if (!args.includes("--merge")) {
  const runs = plan.runs.filter((run) => only === undefined || only.includes(run.name))
  const names = new Set(reportNames().map((name) => name.slice(0, -".json".length)))
  const firstFree = (base) => {
    let n = 1
    while (names.has(`${base}-${n}`)) n++
    return `${base}-${n}`
  }
  if (args.includes("--retest")) {
    // `--retest`: the mutants no run detected, by place, against each run's tests as they are now and those its
    // files' static mutants are run with; after tests were added, without running the rest again.
    const scored = scoresOf(currentReports())
    const jobs = runs.flatMap((run) => {
      const files = run.mutate.map(src)
      const places = scored
        .filter(({ source }) => files.includes(source))
        .flatMap(({ source, mutants }) => mutants.filter((m) => m.status === "Survived" || m.status === "NoCoverage").map((m) => placeOf(source, m)))
      const statics = plan.statics.filter((group) => group.sources.some((file) => files.includes(src(file)))).flatMap((group) => group.tests)
      const tests = [...new Set([...run.tests, ...statics])].map(test)
      // Coverage off, asked for each mutant to run every test of its run. Seen with Stryker 9.6's Vitest runner: it
      // still runs a mutant with the tests its first run found reaching it (3 of 33 for one), so a module-level
      // definition is only switched on after its module was loaded as it was; what makes such code static, run
      // against every test with its module loaded mutated, is scripts/mutationPreload.mjs.
      return places.length === 0
        ? []
        : [{ name: firstFree(`${run.name}.retest`), mutate: [...new Set(places)], tests, ignoreStatic: false, coverageAnalysis: "off" }]
    })
    console.log(`to retest: ${jobs.map((job) => `${job.name} ${job.mutate.length} place(s)`).join(", ") || "nothing"}`)
    ok = await runAll(jobs)
  }
  // `--changed`: each run again over only its files that no report has measured as they are now, under a new name.
  const measured = new Set(currentReports().flatMap((report) => Object.keys(report.files)))
  const phase1 = args.includes("--retest")
    ? []
    : runs.flatMap((run) => {
        const mutate = run.mutate.map(src).filter((file) => !args.includes("--changed") || !measured.has(file))
        return mutate.length === 0 ? [] : [{ run, name: args.includes("--changed") ? firstFree(`${run.name}.changed`) : run.name, mutate }]
      })
  if (args.includes("--changed")) console.log(`changed since measured: ${phase1.flatMap((job) => job.mutate).join(", ") || "nothing"}`)
  if (!args.includes("--statics") && !args.includes("--retest")) {
    ok = await runAll(
      phase1.map(({ run, name, mutate }) => ({ name, mutate, tests: run.tests.map(test), ignoreStatic: true, coverageAnalysis: run.coverageAnalysis }))
    )
  }
  // Phase 2: the static mutants those runs left out, by the place of each (Stryker's columns there count from 0),
  // with the tests named for their file: one job for each run and group of files, so that each has its own report.
  // A static mutant's place spans every mutant nested in it (a function's body holds dozens): those take their
  // results over from the run's report, so that only the static mutants themselves, and nested ones whose killing
  // test is not among the group's, are tested again.
  const jobs = phase1.flatMap(({ name }) => {
    if (!existsSync(reportOf(name))) return []
    const statics = new Map()
    for (const [file, { mutants, source }] of Object.entries(JSON.parse(readFileSync(reportOf(name), "utf8")).files)) {
      // A file edited since the run: its places are those of its old text (`--changed` measures it again).
      if (textOf(file) === source) statics.set(file, mutants.filter(ignoredAsStatic).map((mutant) => placeOf(file, mutant)))
    }
    return plan.statics.flatMap((group, index) => {
      const places = group.sources.flatMap((file) => statics.get(src(file)) ?? [])
      return places.length === 0
        ? []
        : [{ name: `${name}.static-${index + 1}`, mutate: places, tests: group.tests.map(test), ignoreStatic: false, reuse: reportOf(name) }]
    })
  })
  ok = (await runAll(jobs)) && ok
}

const stale = new Set()
const files = scoresOf(currentReports(stale))
const rows = files.map(({ source, count, score }) => [
  source.replace(`packages/${plan.package}/src/`, ""),
  percent(score),
  count.Killed,
  count.Timeout,
  count.Survived,
  count.NoCoverage,
  count.Ignored,
  count.static
])
const total = files.reduce((sum, file) => ({ detected: sum.detected + file.detected, valid: sum.valid + file.valid }), { detected: 0, valid: 0 })
const table = [
  "| file | score | killed | timeout | survived | no coverage | marked / ignored | static, not run |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...rows.map((row) => `| ${row.join(" | ")} |`),
  `| **all ${files.length} files** | **${percent(total.valid === 0 ? undefined : (100 * total.detected) / total.valid)}** | | | | | | |`
].join("\n")
const lowest = files.filter((file) => file.score !== undefined).sort((a, b) => a.score - b.score)[0]
const unmeasured = [...stale].filter((file) => !files.some(({ source }) => source === file)).sort()
const summary =
  `${table}\n\nLowest: ${lowest === undefined ? "none" : `${lowest.source} ${percent(lowest.score)}`}\n` +
  (unmeasured.length === 0 ? "" : `\nEdited since their last run, so not in the table (measure them with --changed): ${unmeasured.join(", ")}\n`)
writeFileSync(join(reportDir, "summary.md"), summary)
console.log(summary)
if (args.includes("--list")) {
  for (const file of files) {
    const lines = undetected(file)
    if (lines.length > 0) console.log(`${file.source}\n${lines.map((line) => `  ${line}`).join("\n")}`)
  }
}
process.exit(ok ? 0 : 1)
