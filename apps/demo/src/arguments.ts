/**
 * The demo's command line, read without loading the demo itself: `--help` and a bad option are answered before
 * Effect, the SDKs and the emulator are imported (they take seconds to load on a busy machine).
 */
export interface Arguments {
  readonly help: boolean
  readonly offline: boolean
  readonly record: boolean
  readonly json: string | undefined
  readonly junit: string | undefined
  readonly executorTour: boolean
  readonly durable: boolean
}

const options = "--offline, --record, --json FILE, --junit FILE, --executor-tour, --durable, --help"

export const usage = `Usage: npx -y pnpm@10 demo [-- OPTIONS]

The warranty e-mail agent processes the sample e-mails (scenario chosen, every function call with its result,
the reply sent), then the eval suite runs and prints its report; the exit code says whether the pass rate met
the threshold (0 yes, 1 no, 2 bad arguments or input, 130 Ctrl-C, 141 when the reader of its output went
away).

With no API key it runs offline: a local emulator replays the recorded model turns through the real Gemini
provider. With GEMINI_API_KEY / GOOGLE_API_KEY (or ZAI_API_KEY, OPENAI_API_KEY) set it uses that provider.

Options:
  --offline        run offline even when a key is set
  --record         store the real model's turns as new cassettes (needs a key); a case whose run
                   ended in an error keeps its cassette
  --json FILE      write the eval report as JSON to FILE (default apps/demo/reports/eval-report.json);
                   the HTML report goes beside it (FILE with .html), and the demo says where
  --junit FILE     also write the eval report as JUnit XML to FILE
  --executor-tour  show the tool executor on its own (sequential, parallel, errors) instead
  --durable        process the e-mails as durable runs instead: a ticket waits for approval, its run
                   parked in the store, then a new runner approves it and the run resumes
  --help, -h       this help
`

/** The eval report's JSON file (`--json`, else `eval-report.json` in `reports`) and the HTML page beside it. */
export const reportPaths = (json: string | undefined, reports: string): { readonly json: string; readonly html: string; readonly chosen: boolean } => {
  const file = json ?? `${reports}/eval-report.json`
  return { json: file, html: `${file.replace(/\.json$/i, "")}.html`, chosen: json !== undefined }
}

/** The options, or what is wrong with them (the message the demo prints before exiting with 2). */
export const parseArguments = (argv: ReadonlyArray<string>): { readonly args: Arguments } | { readonly problem: string } => {
  const args = { help: false, offline: false, record: false, json: undefined as string | undefined, junit: undefined as string | undefined, executorTour: false, durable: false }
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!
    if (flag === "--") continue
    else if (flag === "--help" || flag === "-h") args.help = true
    else if (flag === "--offline") args.offline = true
    else if (flag === "--record") args.record = true
    else if (flag === "--executor-tour") args.executorTour = true
    else if (flag === "--durable") args.durable = true
    else if (flag === "--json" || flag === "--junit") {
      const file = argv[++i]
      if (file === undefined) return { problem: `${flag} needs a file name` }
      args[flag === "--json" ? "json" : "junit"] = file
    } else return { problem: `unknown option ${flag}; options: ${options} (--help says more)` }
  }
  return { args }
}
