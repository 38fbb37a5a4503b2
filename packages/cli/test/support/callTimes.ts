/**
 * The text with each call's duration, as chat and live print it after a call (`(0ms)`, `(1s 80ms)`, `(1m 2s)`: see
 * internal/durationText.ts), put as `placeholder`: how long a call takes is the one thing that varies between runs.
 */
export const withoutCallTimes = (text: string, placeholder: string): string =>
  text.replace(/\(\d+(?:ms|m|s)(?: \d+(?:ms|m|s))*\)/g, placeholder)
