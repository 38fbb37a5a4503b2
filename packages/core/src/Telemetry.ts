/**
 * Traces of every run, in the OpenTelemetry GenAI conventions, through Effect's tracer: provide a tracer (e.g.
 * `@effect/opentelemetry`'s `NodeSdk.layer`) and each `Agent.run` / `Agent.stream` / `Chat` message is an
 * `invoke_agent` span, each model turn a `chat` span inside it (with usage and finish reason; each failed attempt a
 * `gen_ai.attempt_failed` event), each tool call an `execute_tool` span (its name, call id and `error.type`), and a
 * Live session a `live_session` span with its reconnects as events. Message contents — prompts, answers, tool
 * arguments and results — are recorded only with `withContent` (or the standard
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` in the CLI); API keys never are. The same holds for
 * failures: a tool's error message quotes the model's arguments and a server's quotes its error body, so without
 * `withContent` a failed span records the error's type and a fixed description only (in its status and its
 * `exception` event), and never a stack trace.
 *
 * Without a tracer nothing is recorded and nothing is paid for: the default tracer is recognised and no span is
 * made at all.
 *
 * @example
 * ```ts
 * import { Agent, Registry, Telemetry } from "@agentfx/core"
 * import { NodeSdk } from "@effect/opentelemetry"
 * import { ConsoleSpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
 * import { Effect } from "effect"
 *
 * const tracing = NodeSdk.layer(() => ({
 *   resource: { serviceName: "my-agent" },
 *   spanProcessor: new SimpleSpanProcessor(new ConsoleSpanExporter())
 * }))
 * const run = Agent.run({ registry: Registry.empty, prompt: "Hi" })
 * const traced = run.pipe(Effect.provide(tracing))
 * const withText = Telemetry.withContent(run).pipe(Effect.provide(tracing)) // prompts and answers on the spans too
 * ```
 *
 * @since 0.2.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import type * as Tracer from "effect/Tracer"
import { defaultTracer } from "./internal/tracer.js"

/**
 * Attribute values a span accepts.
 *
 * @since 0.2.0
 * @category models
 */
export type AttributeValue = string | number | boolean | ReadonlyArray<string>

/**
 * What a traced body may add to its span: attributes, and events with attributes. No-ops when nothing traces.
 *
 * @since 0.2.0
 * @category models
 */
export interface Annotate {
  readonly attributes: (attributes: Readonly<Record<string, AttributeValue | undefined>>) => Effect.Effect<void>
  readonly event: (name: string, attributes?: Readonly<Record<string, AttributeValue | undefined>>) => Effect.Effect<void>
  /** Whether a span is being recorded (a tracer is provided): work done only for the span can be skipped otherwise. */
  readonly active: boolean
  /** Whether message contents are recorded (see `withContent`). */
  readonly content: boolean
}

/**
 * Whether spans carry message contents (prompts, answers, tool arguments and results). Off unless asked for.
 *
 * @since 0.2.0
 */
export const captureContent: FiberRef.FiberRef<boolean> = FiberRef.unsafeMake(false)

/**
 * Runs `effect` with message contents recorded on its spans.
 *
 * @since 0.2.0
 */
export const withContent = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => Effect.locally(effect, captureContent, true)


const defined = (attributes: Readonly<Record<string, AttributeValue | undefined>>): Record<string, AttributeValue> => {
  const out: Record<string, AttributeValue> = {}
  for (const key in attributes) {
    const value = attributes[key]
    if (value !== undefined) out[key] = value
  }
  return out
}

const silent: Annotate = { attributes: () => Effect.void, event: () => Effect.void, active: false, content: false }

/**
 * The span itself, not `Effect.annotateCurrentSpan`: no look-up of the current span per attribute, and no copy of
 * the attributes (the undefined ones are skipped in place).
 */
class Recording implements Annotate {
  readonly active = true
  constructor(
    readonly span: Tracer.Span,
    readonly content: boolean
  ) {}
  attributes(attributes: Readonly<Record<string, AttributeValue | undefined>>): Effect.Effect<void> {
    return Effect.sync(() => setAll(this.span, attributes))
  }
  event(name: string, attributes: Readonly<Record<string, AttributeValue | undefined>> = {}): Effect.Effect<void> {
    // The span's own clock, so an event falls inside its span under any Clock (TestClock included).
    return Effect.flatMap(Clock.currentTimeNanos, (now) => Effect.sync(() => this.span.event(name, now, defined(attributes))))
  }
}

const setAll = (span: Tracer.Span, attributes: Readonly<Record<string, AttributeValue | undefined>>): void => {
  for (const key in attributes) {
    const value = attributes[key]
    if (value !== undefined) span.attribute(key, value)
  }
}

/**
 * `body` inside a span `name` with `attributes` — when a tracer is provided. Without one, `body` runs as it is
 * with an `Annotate` that does nothing. A failure sets `error.type` to the error's tag; without `withContent` the
 * span ends with the failure's type and a fixed description in place of the failure itself (see `withheld`),
 * while `body`'s caller gets the failure as it is.
 *
 * No stack trace is captured for the span (`captureStackTrace: false`): Effect's default makes an `Error` per span
 * to fill `code.stacktrace` on failure, which was the largest single cost of a traced step; `error.type` says what
 * failed, and the failure's own cause keeps its trace.
 *
 * @since 0.2.0
 */
export const span = <A, E, R>(
  name: string,
  attributes: Readonly<Record<string, AttributeValue | undefined>>,
  body: (annotate: Annotate) => Effect.Effect<A, E, R>,
  // Stryker disable next-line StringLiteral: a span without a kind is an internal one to OpenTelemetry; this says it
  kind: Tracer.SpanKind = "internal"
): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.tracer, (tracer) => {
    if (tracer === defaultTracer) return body(silent)
    return Effect.flatMap(FiberRef.get(captureContent), (content) =>
      // `Effect.useSpan` ends the span with the body's exit as it is, and tracers export a failed exit's messages and
      // stack traces: the span is ended here instead, with what it may show of the exit.
      Effect.acquireUseRelease(
        Effect.makeSpan(name, { kind, captureStackTrace: false }),
        (span) => {
          setAll(span, attributes)
          return body(new Recording(span, content)).pipe(
            Effect.tapError((error) => Effect.sync(() => span.attribute("error.type", errorType(error)))),
            Effect.withParentSpan(span)
          )
        },
        (span, exit) => end(span, content ? exit : withheld(exit))
      )
    )
  })

/** Ends `span` as `Effect.useSpan` would: at the fiber's clock's time (0 with tracer timing off). */
const end = (span: Tracer.Span, exit: Exit.Exit<unknown, unknown>): Effect.Effect<void> =>
  Effect.clockWith((clock) =>
    Effect.flatMap(FiberRef.get(FiberRef.currentTracerTimingEnabled), (timing) =>
      Effect.sync(() => {
        // Stryker disable next-line ConditionalExpression: a tracer's span ends once; a second end would be ignored by OpenTelemetry too
        if (span.status._tag !== "Ended") span.end(timing ? clock.unsafeCurrentTimeNanos() : BigInt(0), exit)
      })
    )
  )

/** The fixed description a failed span carries without `withContent`. */
const withheldMessage = "the failure's details are recorded only with message content capture on"

/**
 * What a span records of a failure when message contents are not captured: an `Error` named for the failure's type
 * whose message says only that the details are left out, and whose stack is that one line (no frames, no paths).
 * Tracers render a failed exit with `Cause.prettyErrors` / `Cause.pretty`, which read exactly these three fields.
 * Made without `new`: an `Error`'s constructor captures a stack, which doubled the cost of a failed span.
 */
const withheldError = (type: string): Error => {
  const error = Object.create(Error.prototype) as Error
  error.name = type
  error.message = withheldMessage
  error.stack = `${type}: ${withheldMessage}`
  return error
}

/**
 * `exit` as a span may show it without message contents: each failure and defect replaced by a `withheldError` of its
 * type; interruptions and the cause's shape kept.
 */
const withheld = (exit: Exit.Exit<unknown, unknown>): Exit.Exit<unknown, unknown> =>
  Exit.isSuccess(exit)
    ? exit
    : Exit.failCause(
        Cause.match(exit.cause, {
          onEmpty: Cause.empty as Cause.Cause<Error>,
          onFail: (error) => Cause.fail(withheldError(errorType(error))),
          onDie: (defect) => Cause.die(withheldError(errorType(defect))),
          onInterrupt: Cause.interrupt,
          onSequential: Cause.sequential,
          onParallel: Cause.parallel
        })
      )

/**
 * The `error.type` of a failure: its tag, else its name.
 *
 * @since 0.2.0
 */
export const errorType = (error: unknown): string =>
  typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string"
    ? error._tag
    : error instanceof Error
      ? error.name
      : "unknown"

/**
 * JSON for a content attribute, cut to `max` characters (attributes are not the place for megabytes).
 *
 * @since 0.2.0
 */
export const contentJson = (value: unknown, max = 8192): string => {
  const text = JSON.stringify(value) ?? "null"
  return text.length > max ? `${text.slice(0, max)}…` : text
}
