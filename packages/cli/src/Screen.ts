/**
 * How a run looks in the terminal: the answer streamed as it arrives, each tool call as it starts (`→`) and
 * finishes (`←`), failed model attempts, and why a run stopped early. A screen keeps track of whether the cursor
 * is at the start of a line, so calls and prompts never land in the middle of streamed text, and of which calls
 * it has shown, so an approval prompt waits for the text before it.
 *
 * @since 0.1.0
 */
import type { Agent, FunctionCall } from "@agentfx/core"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import type * as Io from "./Io.js"
import { failedText, nextAttemptText, retryingText } from "./internal/retryText.js"
import { durationText } from "./internal/durationText.js"
import { escapeName, escapeLines } from "./internal/terminalText.js"

export interface Screen {
  /** Streamed text, as is. */
  readonly text: (text: string) => Effect.Effect<void>
  /** A whole line on stdout, started on a fresh line. */
  readonly line: (text: string) => Effect.Effect<void>
  /** A whole line on stderr (stdout is ended first, so the two do not interleave mid-line). */
  readonly note: (text: string) => Effect.Effect<void>
  /** Shows `prompt` on a fresh line and reads the answer. */
  readonly ask: (prompt: string) => Effect.Effect<Io.Input>
  /** Renders one event of `Agent.stream`. */
  readonly event: (event: Agent.AgentEvent) => Effect.Effect<void>
  /** Waits until the event announcing `callId` was rendered (everything streamed before it is on screen). */
  readonly shown: (callId: string) => Effect.Effect<void>
  /** Ends the current line if text was streamed. */
  readonly endLine: Effect.Effect<void>
  /** Stops the spinner, if one runs (a reply that ends without `Done`: cancelled, failed). */
  readonly stopSpinner: Effect.Effect<void>
}

export interface Options {
  /** ANSI colours (default: when stdout is a terminal). */
  readonly color?: boolean
  /** Calls whose `→` line the approval prompt shows instead (so it is not printed twice). */
  readonly askedFor?: (call: FunctionCall.FunctionCall) => boolean
  /** What the spinner says it waits for (default "the model"). */
  readonly waitingFor?: string
}

const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

/**
 * What a failed model attempt prints on stderr: why it failed, and which attempt comes next of how many, after
 * which wait — `(the model request failed — Overloaded: …; retrying (attempt 2/4, next in 3 s))`. Nothing when no
 * retry follows (`willRetry` false: the error is printed once, at the end).
 */
export const attemptText = (failed: Agent.AttemptFailed): string | undefined => (failed.willRetry ? `(${failedText(failed)})` : undefined)

/**
 * The line on stdout after an attempt that printed text and failed: that text stays on screen (and in a pipe), so
 * it is marked void, or a retried answer would read as its continuation.
 */
export const discardedText = "[retrying — the partial answer above is discarded]"

/** The same line after the last attempt, which nothing retries: its text is void all the same. */
export const voidText = "[the partial answer above is discarded]"

/**
 * What a final answer that did not decode with the output schema prints on stderr: the first issue, and whether the
 * model is asked again — `(the answer does not match the output schema: category: is missing; asking again, answer 1)`.
 */
export const outputRejectedText = (event: Extract<Agent.AgentEvent, { readonly _tag: "OutputRejected" }>): string => {
  const [first, ...rest] = event.issues
  const issue = first === undefined ? "" : `: ${escapeLines(first.path === "" ? first.message : `${first.path}: ${first.message}`)}${rest.length === 0 ? "" : ` (and ${rest.length} more)`}`
  return `(the answer does not match the output schema${issue}; ${event.willRetry ? "asking again" : "no more corrections"}, answer ${event.attempt})`
}

/** JSON, on one line, cut to `max` characters. */
export const preview = (value: unknown, max = 160): string => {
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

/** How long a call took, to the millisecond (`1s 234ms`; under half a millisecond `0ms`). */
export const callTime = (duration: Duration.Duration): string => durationText(Duration.toMillis(duration))

/** How a call looks: `name({"arg":1})`, with what the model chose escaped for the terminal. */
export const callText = (call: FunctionCall.FunctionCall): string => `${escapeName(call.name)}(${escapeName(preview(call.args))})`

const stopText = (reason: Agent.StopReason): string | undefined => {
  switch (reason._tag) {
    case "Finished":
      return undefined
    case "MaxTurns":
      return `(stopped: the model used all ${reason.maxTurns} turns; raise --max-turns to let it continue)`
    case "ToolCalled":
      return `(stopped: ${escapeName(reason.name)} was called)`
    case "RepeatedCall":
      return `(stopped: ${escapeName(reason.name)} was called ${reason.times} times with the same arguments)`
  }
}

export const make = (io: Io.Service, options: Options = {}): Screen => {
  const color = options.color ?? io.color
  const paint = (code: number) => (text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text)
  const cyan = paint(36)
  const dim = paint(2)
  const red = paint(31)
  let atLineStart = true
  /** Whether the current model attempt has printed text. */
  let attemptPrinted = false
  let spinner: Fiber.RuntimeFiber<unknown> | undefined
  /** The turn's latest failed attempt that is retried, and the clock time its retry starts. */
  let retry: { readonly failed: Agent.AttemptFailed; readonly at: number } | undefined
  const shown = new Set<string>()
  const waiting = new Map<string, Array<() => void>>()

  /** What the spinner says: the wait for a retry, counted down, then the wait for the model (and which attempt). */
  const waitingText = (now: number): string => {
    const waitingFor = `waiting for ${options.waitingFor ?? "the model"}…`
    if (retry === undefined) return waitingFor
    if (now < retry.at) return `${retry.failed.error._tag} — ${retryingText(retry.failed, retry.at - now)}`
    return `${waitingFor} (${nextAttemptText(retry.failed)})`
  }

  const startSpinner = Effect.suspend(() => {
    if (!io.interactive || spinner !== undefined) return Effect.void
    let frame = 0
    const tick = Effect.flatMap(Clock.currentTimeMillis, (now) => io.status(`${dim(frames[frame++ % frames.length]!)} ${waitingText(now)}`))
    return Effect.map(Effect.forkDaemon(Effect.repeat(tick, Schedule.spaced("80 millis"))), (fiber) => {
      spinner = fiber
    })
  })
  const stopSpinner = Effect.suspend(() => {
    const running = spinner
    if (running === undefined) return Effect.void
    spinner = undefined
    return Effect.zipRight(Fiber.interrupt(running), io.status(""))
  })

  const text = (chunk: string) =>
    Effect.suspend(() => {
      if (chunk === "") return Effect.void
      atLineStart = chunk.endsWith("\n")
      return Effect.zipRight(stopSpinner, io.out(chunk))
    })
  const endLine = Effect.suspend(() => (atLineStart ? Effect.void : text("\n")))
  const line = (content: string) => Effect.zipRight(endLine, text(`${content}\n`))
  const note = (content: string) => Effect.zipRight(Effect.zipRight(stopSpinner, endLine), io.err(`${content}\n`))

  const markShown = (id: string) =>
    Effect.sync(() => {
      shown.add(id)
      for (const resume of waiting.get(id) ?? []) resume()
      waiting.delete(id)
    })

  const event = (event: Agent.AgentEvent): Effect.Effect<void> => {
    switch (event._tag) {
      case "TextDelta":
        if (event.text !== "") attemptPrinted = true
        return text(event.text)
      case "CallStarted": {
        const announce = options.askedFor?.(event.call) === true ? Effect.void : line(cyan(`→ ${callText(event.call)}`))
        return Effect.zipRight(announce, markShown(event.call.id))
      }
      case "CallFinished": {
        const { record } = event
        const took = dim(` (${callTime(record.duration)})`)
        return Either.match(record.result, {
          onLeft: (error) => line(red(`← ${escapeName(record.name)} failed: ${escapeLines(error.message)}`) + took),
          onRight: (value) => line(dim(`← ${escapeName(record.name)}: ${escapeName(preview(value))}`) + took)
        })
      }
      case "AttemptFailed": {
        const said = attemptText(event)
        const printed = attemptPrinted
        attemptPrinted = false
        if (said === undefined) return printed ? Effect.zipRight(stopSpinner, line(dim(voidText))) : stopSpinner
        const retried = Effect.map(Clock.currentTimeMillis, (now) => {
          retry = { failed: event, at: now + Duration.toMillis(event.retryIn ?? Duration.zero) }
        })
        return Effect.zipRight(printed ? Effect.zipRight(line(dim(discardedText)), note(said)) : note(said), Effect.zipRight(retried, startSpinner))
      }
      case "Done": {
        const stopped = stopText(event.result.stopReason)
        return Effect.zipRight(stopSpinner, stopped === undefined ? endLine : line(dim(stopped)))
      }
      case "TurnStarted":
        attemptPrinted = false
        retry = undefined
        return startSpinner
      case "TurnFinished":
        return stopSpinner
      case "ReasoningDelta":
      case "OutputDelta":
      case "OutputDecoded":
        return Effect.void
      case "OutputRejected":
        return note(dim(outputRejectedText(event)))
    }
  }

  return {
    text,
    line,
    note,
    ask: (prompt) =>
      Effect.gen(function* () {
        yield* stopSpinner
        yield* endLine
        const input = yield* io.readLine(prompt)
        atLineStart = true
        return input
      }),
    event,
    shown: (id) =>
      Effect.async<void>((resume) => {
        if (shown.has(id)) return resume(Effect.void)
        const done = () => resume(Effect.void)
        waiting.set(id, [...(waiting.get(id) ?? []), done])
        return Effect.sync(() => waiting.set(id, (waiting.get(id) ?? []).filter((f) => f !== done)))
      }),
    endLine,
    stopSpinner
  }
}
