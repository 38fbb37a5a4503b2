/**
 * OpenTelemetry for the command line, by the standard variables: when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, a command's runs, model turns and tool calls are exported as OTLP
 * over HTTP (JSON) to it, with `OTEL_EXPORTER_OTLP_HEADERS` and `OTEL_SERVICE_NAME` (default `agentfx`); message
 * contents only with `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`. Unset, nothing is loaded and
 * nothing is sent. The exporter flushes when the command ends.
 */
import { Telemetry } from "@agentfx/core"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { version } from "./immediate.js"

const variable = (name: string) =>
  Config.option(Config.string(name)).pipe(
    Effect.map(Option.filter((value) => value.trim() !== "")),
    Effect.orElseSucceed(() => Option.none<string>())
  )

/** `k1=v1,k2=v2` (values URL-encoded), as the OTLP exporter specification writes headers. */
export const parseHeaders = (text: string): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const pair of text.split(",")) {
    const at = pair.indexOf("=")
    if (at <= 0) continue
    const key = pair.slice(0, at).trim()
    let value = pair.slice(at + 1).trim()
    try {
      value = decodeURIComponent(value)
    } catch {
      // Not encoded: kept as written.
    }
    if (key !== "") headers[key] = value
  }
  return headers
}

/** Where traces go, or none. */
export const tracesUrl = Effect.gen(function* () {
  const traces = yield* variable("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
  if (Option.isSome(traces)) return traces
  return Option.map(yield* variable("OTEL_EXPORTER_OTLP_ENDPOINT"), (base) => `${base.replace(/\/+$/, "")}/v1/traces`)
})

/** `effect` with its spans exported when the environment asks for it. */
export const traced = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.gen(function* () {
    const url = yield* tracesUrl
    if (Option.isNone(url)) return yield* effect
    const headers = parseHeaders(Option.getOrElse(yield* variable("OTEL_EXPORTER_OTLP_HEADERS"), () => ""))
    const serviceName = Option.getOrElse(yield* variable("OTEL_SERVICE_NAME"), () => "agentfx")
    const content = Option.exists(yield* variable("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"), (value) => value.trim().toLowerCase() === "true")
    const [{ OtlpTracer, OtlpSerialization }, { FetchHttpClient }] = yield* Effect.promise(() => Promise.all([import("@effect/opentelemetry"), import("@effect/platform")]))
    const exporter = OtlpTracer.layer({ url: url.value, headers, resource: { serviceName, serviceVersion: version } }).pipe(
      Layer.provide(Layer.merge(FetchHttpClient.layer, OtlpSerialization.layerJson))
    )
    return yield* (content ? Telemetry.withContent(effect) : effect).pipe(Effect.provide(exporter))
  })
