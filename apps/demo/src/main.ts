/**
 * The demo: the warranty e-mail agent processes the sample e-mails, then the eval suite runs and its report and
 * pass rate are printed (demo.ts). Offline by default (the emulator replays recorded model turns through the real
 * Gemini provider layer); with GEMINI_API_KEY or ZAI_API_KEY set it talks to the real service and says so.
 *
 *   node apps/demo/dist/main.js [--offline] [--record] [--json FILE] [--junit FILE] [--executor-tour] [--help]
 *
 * `--help` and a bad option are answered here, before the demo and everything it uses are loaded.
 */
import { parseArguments, usage } from "./arguments.js"

// A reader that goes away (`… | head`) ends the demo quietly with 141, as SIGPIPE would (the agentfx executable
// does the same), not with Node's unhandled EPIPE and its stack.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error
    process.exit(141)
  })
}

const parsed = parseArguments(process.argv.slice(2))
if ("problem" in parsed) {
  process.stderr.write(`agentfx demo: ${parsed.problem}\n`)
  process.exitCode = 2
} else if (parsed.args.help) process.stdout.write(usage)
else {
  const { run } = await import("./demo.js")
  run(parsed.args)
}
