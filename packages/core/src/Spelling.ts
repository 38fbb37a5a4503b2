/**
 * "Did you mean": the name closest to a misspelt one, when it is close enough to be what was meant. The command
 * line suggests options and commands with it, eval inputs suggest field names, scenarios, functions and arguments.
 * It imports nothing, so a command line can use it before Effect is loaded (`@agentfx/core/Spelling`).
 *
 * @example
 * ```ts
 * import * as Spelling from "@agentfx/core/Spelling"
 *
 * Spelling.closest("functon_name", ["function_name", "arguments"]) // "function_name"
 * Spelling.closest("sys", ["yes", "json"]) // undefined: one letter in three is too far
 * ```
 *
 * @since 0.2.0
 */

/**
 * Edit distance: the fewest insertions, deletions, substitutions and swaps of neighbouring letters that turn `a`
 * into `b`.
 *
 * @since 0.2.0
 * @category suggestions
 */
export const distance = (a: string, b: string): number => {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = best
    }
  }
  return rows[a.length]![b.length]!
}

/**
 * The candidate closest to `word`, when it is close enough to be what was meant: two edits for a word of five
 * letters or more, one below that ("jsno" → "json", but not "sys" → "yes"); a candidate that starts with a word
 * of three letters or more is closer than any edit. Ties go to the earlier candidate.
 *
 * @since 0.2.0
 * @category suggestions
 */
export const closest = (word: string, candidates: Iterable<string>): string | undefined => {
  let best: { candidate: string; score: number } | undefined
  for (const candidate of candidates) {
    const score = candidate.startsWith(word) && word.length >= 3 ? 0.5 : distance(word, candidate)
    if (best === undefined || score < best.score) best = { candidate, score }
  }
  const allowed = word.length >= 5 ? 2 : 1
  return best !== undefined && best.score <= allowed ? best.candidate : undefined
}

/**
 * ` (did you mean "x"?)` for the candidate closest to `word`, or `""` when none is close: the end of a message.
 *
 * @since 0.2.0
 * @category suggestions
 */
export const didYouMean = (word: string, candidates: Iterable<string>): string => {
  const near = closest(word, candidates)
  return near === undefined ? "" : ` (did you mean "${near}"?)`
}
