// The score of each file over several Stryker JSON reports of the same sources (unchanged between the runs: a mutant
// is known by its place and replacement), each run with its own narrowed tests: a mutant counts as detected when
// any run killed it or timed it out, so narrowed runs add up to what one run with all their tests would report.
// Used by mutation-merge.mjs and mutation-plan.mjs.

/** The same mutant in every report: same mutator, same place, same replacement. */
export const keyOf = (m) => `${m.mutatorName}@${m.location.start.line}:${m.location.start.column}-${m.location.end.line}:${m.location.end.column}=${m.replacement}`

const rank = { Killed: 4, Timeout: 4, Survived: 3, NoCoverage: 2, Ignored: 1 }

/** A static mutant left out of a run by `ignoreStatic` (Stryker's reason for it). */
export const ignoredAsStatic = (m) => m.status === "Ignored" && /static/i.test(m.statusReason ?? "")

/**
 * For each source file: the best status each mutant reached in any report, the counts, and the score
 * ((killed + timeout) ÷ (those + survived + no coverage); ignored and invalid mutants do not count).
 */
export const scoresOf = (reports) => {
  const sources = [...new Set(reports.flatMap((report) => Object.keys(report.files)))].sort()
  return sources.map((source) => {
    const best = new Map()
    for (const report of reports) {
      for (const mutant of report.files[source]?.mutants ?? []) {
        const key = keyOf(mutant)
        const seen = best.get(key)
        if (seen === undefined || (rank[mutant.status] ?? 0) > (rank[seen.status] ?? 0)) best.set(key, mutant)
      }
    }
    const count = { Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, Ignored: 0, static: 0, other: 0 }
    for (const mutant of best.values()) {
      if (ignoredAsStatic(mutant)) count.static++
      else count[mutant.status in count ? mutant.status : "other"]++
    }
    const detected = count.Killed + count.Timeout
    const valid = detected + count.Survived + count.NoCoverage
    const text = reports.find((report) => report.files[source] !== undefined).files[source].source
    return { source, count, detected, valid, score: valid === 0 ? undefined : (100 * detected) / valid, mutants: [...best.values()], text }
  })
}

export const percent = (score) => (score === undefined ? "n/a" : `${score.toFixed(2)} %`)

/** One line per mutant no run detected: status, line, mutator, the code and what it became. */
export const undetected = ({ mutants, text }) => {
  const lines = text.split("\n")
  return mutants
    .filter((mutant) => mutant.status === "Survived" || mutant.status === "NoCoverage")
    .sort((a, b) => a.location.start.line - b.location.start.line)
    .map((mutant) => {
      const line = mutant.location.start.line
      return `${mutant.status} ${line} ${mutant.mutatorName}: ${lines[line - 1].trim().slice(0, 100)} → ${String(mutant.replacement).replace(/\s+/g, " ").slice(0, 80)}`
    })
}
