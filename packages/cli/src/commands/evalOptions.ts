/**
 * `agentfx eval`'s options for which cases run, how much of the report is printed, who grades the rubrics, what the
 * run is compared with, and the HTML report.
 */
import * as Argv from "../Argv.js"
import { providerNames } from "./options.js"

export const filter: Argv.OptionSpec = {
  name: "filter",
  alias: "t",
  value: "PATTERN",
  repeated: true,
  description:
    "Run only the cases whose id, description or a tag contains PATTERN (ignoring case); given several times, the cases matching any. A pattern that matches no case stops the command (exit 2)."
}

export const tag: Argv.OptionSpec = {
  name: "tag",
  value: "TAG",
  repeated: true,
  description:
    "Run only the cases listing TAG under `tags:`; given several times, the cases having any. With --filter, a case must pass both. A tag no case has stops the command (exit 2), with the tag it most likely meant."
}

export const bail: Argv.OptionSpec = {
  name: "bail",
  value: "N",
  // A number after it is its N (`--bail 0` is then refused); anything else is the next argument.
  optionalValue: (next) => /^[-+]?\d+$/.test(next),
  description:
    "Start no more cases once N of them (1 when N is left out) have not passed; the cases running then finish, the others are listed as not run, and the command exits with 1 whatever the pass rate.",
  check: Argv.integer(1)
}

export const onlyFailures: Argv.OptionSpec = {
  name: "only-failures",
  description:
    "Leave the cases that passed out of the printed report (the summary line still counts them). By default each passing case is one line, and only the cases that did not pass show their calls and failures; the JSON, JUnit and HTML reports always hold every case."
}

export const judgeProvider: Argv.OptionSpec = {
  name: "judge-provider",
  value: "NAME",
  choices: providerNames,
  description:
    "The provider of the model grading the cases' judge: rubrics (default: the eval's own). On the emulator each rubric's recorded verdict (x-judge-cassette) is replayed; a rubric without one makes its case an error."
}

export const judgeModel: Argv.OptionSpec = {
  name: "judge-model",
  value: "NAME",
  description: "The judge's model (default: --model with the eval's own provider, else the judge provider's default)."
}

export const baseline: Argv.OptionSpec = {
  name: "baseline",
  value: "FILE",
  description:
    "Compare the run with an earlier JSON report (--report-json): a table of the cases that newly fail, newly pass or call differently, and the pass rate of the cases both runs have, before and after. Read before any case runs: a file that is not such a report stops the command (exit 2)."
}

export const failOnRegression: Argv.OptionSpec = {
  name: "fail-on-regression",
  description: "With --baseline, exit with 1 when a case that passed in the baseline does not pass now, naming each, whatever the pass rate."
}

export const reportHtml: Argv.OptionSpec = {
  name: "report-html",
  value: "FILE",
  description:
    "Also write the report as one HTML page to FILE (- for stdout): the summary, each case with its expected and actual calls side by side, the first divergence marked, its calls on a timeline, its answer and verdicts, the --baseline comparison, and a filter box. It loads nothing and works from file://."
}

/** The options, in the order help shows them. */
export const options: ReadonlyArray<Argv.OptionSpec> = [filter, tag, bail, onlyFailures, judgeProvider, judgeModel, baseline, failOnRegression, reportHtml]
