/**
 * The SDKs' own log lines (the openai SDK prints a stream chunk it cannot parse, which may echo the request's
 * key) routed through the key scrubber into Effect's logger, at Debug level: the layer already reports the
 * failure as a typed error, so these are details for whoever turns debug logging on.
 */
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import { inspect } from "node:util"

type LogFn = (message: string, ...rest: Array<unknown>) => void

/** A logger of the shape both `openai` and `console` have, writing scrubbed lines to the runtime's logger. */
export interface SdkLogger {
  readonly error: LogFn
  readonly warn: LogFn
  readonly info: LogFn
  readonly debug: LogFn
}

// One line whatever the value: `breakLength` alone still breaks objects nested more than three levels deep.
const render = (value: unknown): string => (typeof value === "string" ? value : inspect(value, { depth: 4, breakLength: Infinity, compact: true }))

/** Captures the current runtime (its logger and log level), so lines logged later from SDK callbacks reach it. */
export const make = (sdk: string, scrub: (text: string) => string): Effect.Effect<SdkLogger> =>
  Effect.map(Effect.runtime<never>(), (runtime) => {
    const run = Runtime.runSync(runtime)
    const log: LogFn = (message, ...rest) => {
      const line = scrub([message, ...rest].map(render).join(" "))
      run(Effect.logDebug(line).pipe(Effect.annotateLogs("sdk", sdk)))
    }
    return { error: log, warn: log, info: log, debug: log }
  })
