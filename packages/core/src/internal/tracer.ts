/**
 * The tracer every fiber has unless one is provided: spans made with it go nowhere, so code on a hot path that
 * finds it can skip building spans and their attributes.
 */
import * as Effect from "effect/Effect"
import type * as Tracer from "effect/Tracer"

export const defaultTracer: Tracer.Tracer = Effect.runSync(Effect.tracer)

/** Whether the fiber's tracer records anything. */
export const tracing: Effect.Effect<boolean> = Effect.map(Effect.tracer, (tracer) => tracer !== defaultTracer)
