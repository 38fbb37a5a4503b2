/**
 * How long something took, as people read it: `Duration.format`'s text (`1s 234ms`), except a zero, which it writes
 * as a bare `0` that reads as no unit at all.
 */
import * as Duration from "effect/Duration"

/** `millis` rounded to a multiple of `step` milliseconds, as `Duration.format` writes it; zero is `0ms`. */
export const durationText = (millis: number, step = 1): string => {
  const rounded = Math.round(millis / step) * step
  return rounded === 0 ? "0ms" : Duration.format(Duration.millis(rounded))
}
