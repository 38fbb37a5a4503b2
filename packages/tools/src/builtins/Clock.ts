/**
 * The `clock` tool: the current date and time in an IANA time zone. Time comes from Effect's `Clock`, so tests
 * (and replays) control it with `TestClock`.
 *
 * @example
 * ```ts
 * import { Registry } from "@agentfx/core"
 * import { Clock } from "@agentfx/tools"
 *
 * const registry = Registry.unsafeMake(Clock.tool)
 * // the model calls clock({ time_zone: "Europe/Oslo" }) and gets { time_zone, iso: "2024-01-15T13:00:00+01:00", ... }
 * console.log(Clock.at(Date.UTC(2024, 0, 15, 12), "Europe/Oslo")) // Right({ time_zone: "Europe/Oslo", iso: "2024-01-15T13:00:00+01:00", ... })
 * ```
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { Tool } from "@agentfx/core"

/**
 * The time zone is not one the runtime's IANA database knows.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnknownTimeZone extends Schema.TaggedError<UnknownTimeZone>()("UnknownTimeZone", {
  timeZone: Schema.String
}) {
  override get message(): string {
    return `unknown time zone "${this.timeZone}": use an IANA name such as "Europe/Oslo", "America/New_York" or "UTC"`
  }
}

/**
 * The tool's arguments.
 *
 * @since 0.1.0
 */
export const Parameters = Schema.Struct({
  time_zone: Schema.optional(
    Schema.String.annotations({ description: "IANA time zone, e.g. \"Europe/Oslo\" (default \"UTC\")" })
  )
})

/**
 * What the tool returns.
 *
 * @since 0.1.0
 */
export const Result = Schema.Struct({
  time_zone: Schema.String,
  /** ISO 8601 with the zone's offset, e.g. `2024-01-15T13:00:00+01:00`. */
  iso: Schema.String,
  date: Schema.String,
  time: Schema.String,
  weekday: Schema.String,
  utc_offset: Schema.String,
  unix_ms: Schema.Number
})
/**
 * What the tool returns (the type of the `Result` schema).
 *
 * @since 0.1.0
 * @category models
 */
export interface Result extends Schema.Schema.Type<typeof Result> {}

const formatterFor = (timeZone: string): Either.Either<Intl.DateTimeFormat, UnknownTimeZone> => {
  // Intl accepts any case ("europe/oslo") and canonicalises it; refuse what it refuses.
  try {
    return Either.right(
      new Intl.DateTimeFormat("en-US", {
        timeZone,
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
        weekday: "long",
        timeZoneName: "longOffset"
      })
    )
  } catch {
    return Either.left(new UnknownTimeZone({ timeZone }))
  }
}

/**
 * The wall-clock reading of `unixMs` in `timeZone`.
 *
 * @since 0.1.0
 */
export const at = (unixMs: number, timeZone = "UTC"): Either.Either<Result, UnknownTimeZone> =>
  Either.map(formatterFor(timeZone), (formatter) => {
    const parts = Object.fromEntries(formatter.formatToParts(new Date(unixMs)).map((part) => [part.type, part.value]))
    // "GMT+01:00" → "+01:00"; the zone's own offset is "GMT" alone.
    // Stryker disable next-line StringLiteral,Regex: a longOffset format always has a timeZoneName starting with "GMT" (so the default and the anchor are never needed), and this runtime's ICU spells a zero offset "GMT+00:00", not "GMT" alone: the "+00:00" fallback is for ICU versions that do, and no test can reach it here
    const offset = (parts.timeZoneName ?? "GMT").replace(/^GMT/, "") || "+00:00"
    const date = `${parts.year}-${parts.month}-${parts.day}`
    const time = `${parts.hour}:${parts.minute}:${parts.second}`
    return {
      time_zone: formatter.resolvedOptions().timeZone,
      iso: `${date}T${time}${offset}`,
      date,
      time,
      // Stryker disable next-line StringLiteral: the format asks for the weekday, so the part is always there
      weekday: parts.weekday ?? "",
      utc_offset: offset,
      unix_ms: unixMs
    }
  })

/**
 * The `clock` tool: `{time_zone?}` → the current time there.
 *
 * @since 0.1.0
 */
export const tool = Tool.make("clock", {
  description: "Current date and time in an IANA time zone (default UTC).",
  parameters: Parameters,
  success: Result,
  failure: UnknownTimeZone,
  handler: ({ time_zone }) => Effect.flatMap(Clock.currentTimeMillis, (now) => at(now, time_zone ?? "UTC"))
})
