// `node scripts/mutation-merge.mjs A.json B.json …`: the score of each file over several Stryker JSON reports of
// the same sources (unchanged between the runs: a mutant is known by its place), each run with its own narrowed
// tests (MUTATION_TESTS): a mutant counts as detected when any run killed it or timed it out, so narrowed runs add
// up to what one run with all their tests would report. `--list` also prints the mutants no run detected.
import { readFileSync } from "node:fs"

const args = process.argv.slice(2)
const list = args.includes("--list")
const files = args.filter((arg) => arg !== "--list")
if (files.length === 0) {
  console.error("mutation-merge: give one or more Stryker JSON reports (reports/mutation/<package>/mutation.json)")
  process.exit(2)
}
const reports = files.map((file) => JSON.parse(readFileSync(file, "utf8")))
// The same mutant in every report: same mutator, same place, same replacement.
const keyOf = (m) => `${m.mutatorName}@${m.location.start.line}:${m.location.start.column}-${m.location.end.line}:${m.location.end.column}=${m.replacement}`
const rank = { Killed: 3, Timeout: 3, Survived: 2, NoCoverage: 1 }
const sources = [...new Set(reports.flatMap((report) => Object.keys(report.files)))].sort()
for (const source of sources) {
  const best = new Map()
  for (const report of reports) {
    for (const mutant of report.files[source]?.mutants ?? []) {
      const key = keyOf(mutant)
      const seen = best.get(key)
      if (seen === undefined || (rank[mutant.status] ?? 0) > (rank[seen.status] ?? 0)) best.set(key, mutant)
    }
  }
  const count = { Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, other: 0 }
  for (const mutant of best.values()) count[mutant.status in count ? mutant.status : "other"]++
  const detected = count.Killed + count.Timeout
  const valid = detected + count.Survived + count.NoCoverage
  const score = valid === 0 ? "n/a" : `${((100 * detected) / valid).toFixed(2)} %`
  console.log(`${source}: ${score} (killed ${count.Killed}, timeout ${count.Timeout}, survived ${count.Survived}, no coverage ${count.NoCoverage}, ignored or invalid ${count.other})`)
  if (list) {
    const lines = reports.find((report) => report.files[source] !== undefined).files[source].source.split("\n")
    for (const mutant of best.values()) {
      if (mutant.status !== "Survived" && mutant.status !== "NoCoverage") continue
      const line = mutant.location.start.line
      console.log(`  ${mutant.status} ${line} ${mutant.mutatorName}: ${lines[line - 1].trim().slice(0, 100)} → ${String(mutant.replacement).replace(/\s+/g, " ").slice(0, 80)}`)
    }
  }
}
