import * as Effect from "effect/Effect"
import * as Tracer from "effect/Tracer"

/**
 * A tracer that records every span it starts, around the current one: run an effect under it with
 * `Effect.withTracer(effect, tracer)`, then read `spans` (in the order they started).
 */
export const recordSpans: Effect.Effect<{ readonly spans: ReadonlyArray<Tracer.Span>; readonly tracer: Tracer.Tracer }> = Effect.map(
  Effect.tracer,
  (current) => {
    const spans: Array<Tracer.Span> = []
    const tracer = Tracer.make({
      context: current.context,
      span: (...args) => {
        const span = current.span(...args)
        spans.push(span)
        return span
      }
    })
    return { spans, tracer }
  }
)
