/**
 * `agentfx eval`'s `--filter` / `--tag` as the input's selection, and a part of them that selects no case as one
 * usage line naming the option (exit 2).
 */
import { EvalSelection } from "@agentfx/tools"
import type { EvalCase } from "@agentfx/tools"
import * as Either from "effect/Either"
import type * as Argv from "../Argv.js"
import { UsageError } from "../CliError.js"
import type * as EvalInput from "../EvalInput.js"

const flag: Record<EvalSelection.Unselected["kind"], (value: string) => string> = {
  pattern: (value) => `--filter ${value}`,
  tag: (value) => `--tag ${value}`,
  together: () => "--filter and --tag"
}

/** The selection the options ask for (every case when they ask none). */
export const fromOptions = (options: Argv.Values): EvalInput.Select => {
  const selection = { patterns: options.list("filter"), tags: options.list("tag") }
  return (cases: ReadonlyArray<EvalCase.EvalCase>) =>
    Either.mapLeft(
      EvalSelection.select(cases, selection),
      (error) => new UsageError({ message: error.problems.map((problem) => `${flag[problem.kind](problem.value)}: ${problem.reason}`).join("; ") })
    )
}

/** What the selection left to run, for stderr; `undefined` when it is every case. */
export const described = (selected: number, total: number): string | undefined =>
  selected === total ? undefined : `eval: ${selected} of ${total} cases selected`
