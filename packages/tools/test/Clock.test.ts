import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import { Executor, FunctionCall, Registry } from "@agentfx/core"
import { Clock } from "@agentfx/tools"

const registry = Registry.unsafeMake(Clock.tool)
const call = (args: Record<string, unknown>) => FunctionCall.make({ id: "c1", name: "clock", args })
const noonUtc = Date.UTC(2024, 0, 15, 12, 0, 0)

describe("Clock", () => {
  it.effect("reads Effect's clock and renders it in the given zone", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(noonUtc)
      const oslo = yield* Executor.execute(registry, call({ time_zone: "Europe/Oslo" }))
      expect(oslo).toStrictEqual({
        time_zone: "Europe/Oslo",
        iso: "2024-01-15T13:00:00+01:00",
        date: "2024-01-15",
        time: "13:00:00",
        weekday: "Monday",
        utc_offset: "+01:00",
        unix_ms: noonUtc
      })
      const newYork = yield* Executor.execute(registry, call({ time_zone: "America/New_York" }))
      expect(newYork).toMatchObject({ iso: "2024-01-15T07:00:00-05:00", utc_offset: "-05:00" })
      const kolkata = yield* Executor.execute(registry, call({ time_zone: "Asia/Kolkata" }))
      expect(kolkata).toMatchObject({ iso: "2024-01-15T17:30:00+05:30" })
    })
  )

  it.effect("defaults to UTC, with a +00:00 offset", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(noonUtc)
      expect(yield* Executor.execute(registry, call({}))).toMatchObject({ time_zone: "UTC", iso: "2024-01-15T12:00:00+00:00", utc_offset: "+00:00" })
    })
  )

  it.effect("follows the clock as it moves, across a daylight-saving change", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2024, 2, 31, 0, 30))
      expect(yield* Executor.execute(registry, call({ time_zone: "Europe/Oslo" }))).toMatchObject({ iso: "2024-03-31T01:30:00+01:00" })
      yield* TestClock.adjust("1 hour")
      expect(yield* Executor.execute(registry, call({ time_zone: "Europe/Oslo" }))).toMatchObject({ iso: "2024-03-31T03:30:00+02:00" })
    })
  )

  it.effect("refuses an unknown zone with a clear error", () =>
    Effect.gen(function* () {
      for (const zone of ["Mars/Olympus_Mons", "", "Europe/Osloo"]) {
        const error = yield* Effect.flip(Executor.execute(registry, call({ time_zone: zone })))
        expect(error._tag).toBe("ExecutionFailed")
        expect(error).toMatchObject({ cause: { _tag: "UnknownTimeZone", timeZone: zone } })
      }
      expect(Either.flip(Clock.at(0, "Nowhere/City")).pipe(Either.getOrThrow).message).toBe(
        `unknown time zone "Nowhere/City": use an IANA name such as "Europe/Oslo", "America/New_York" or "UTC"`
      )
    })
  )

  it.effect("refuses a zone that is not a string", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Executor.execute(registry, call({ time_zone: 3 })))
      expect(error._tag).toBe("InvalidArguments")
    })
  )

  it("reads a timestamp in UTC when no zone is given", () => {
    expect(Clock.at(noonUtc)).toStrictEqual(
      Either.right({ time_zone: "UTC", iso: "2024-01-15T12:00:00+00:00", date: "2024-01-15", time: "12:00:00", weekday: "Monday", utc_offset: "+00:00", unix_ms: noonUtc })
    )
  })

  it("its Result schema accepts what it returns and refuses a reading with a field missing", () => {
    const reading = Either.getOrThrow(Clock.at(noonUtc, "Europe/Oslo"))
    expect(Schema.decodeUnknownEither(Clock.Result)(reading)).toStrictEqual(Either.right(reading))
    const { weekday: _, ...withoutWeekday } = reading
    expect(Either.isLeft(Schema.decodeUnknownEither(Clock.Result)(withoutWeekday))).toBe(true)
  })
})
