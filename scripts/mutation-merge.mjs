// `node scripts/mutation-merge.mjs A.json B.json …`: the score of each file over several Stryker JSON reports of
// the same sources, each run with its own narrowed tests (MUTATION_TESTS): a mutant counts as detected when any run
// killed it or timed it out (see mutationScores.mjs). `--list` also prints the mutants no run detected.
import { readFileSync } from "node:fs"
import { percent, scoresOf, undetected } from "./mutationScores.mjs"

const args = process.argv.slice(2)
const list = args.includes("--list")
const files = args.filter((arg) => arg !== "--list")
if (files.length === 0) {
  console.error("mutation-merge: give one or more Stryker JSON reports (reports/mutation/<package>/mutation.json)")
  process.exit(2)
}
for (const file of scoresOf(files.map((file) => JSON.parse(readFileSync(file, "utf8"))))) {
  const { Killed, Timeout, Survived, NoCoverage, Ignored, static: statics, other } = file.count
  console.log(
    `${file.source}: ${percent(file.score)} (killed ${Killed}, timeout ${Timeout}, survived ${Survived}, no coverage ${NoCoverage}, ignored ${Ignored}` +
      `${statics > 0 ? `, static not run ${statics}` : ""}${other > 0 ? `, invalid ${other}` : ""})`
  )
  if (list) for (const line of undetected(file)) console.log(`  ${line}`)
}
