/**
 * OpenTelemetry for the command line, by the standard variables: when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, or `OTEL_TRACES_EXPORTER=otlp` asks for the default endpoint
 * (http://localhost:4318), a command's runs, model turns and tool calls are exported as OTLP over HTTP, in
 * protobuf (`http/protobuf`, the specification's default) or JSON (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`), with
 * `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME` (else `service.name` of `OTEL_RESOURCE_ATTRIBUTES`, else `agentfx`)
 * and the other resource attributes; message contents only with
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`. `OTEL_TRACES_EXPORTER=none` and
 * `OTEL_SDK_DISABLED=true` export nothing. Unset, nothing is loaded and nothing is sent.
 *
 * What cannot be honoured stops the command before it runs (exit 2, one line naming the variable): the gRPC
 * protocol and other exporters than `otlp`, an unknown protocol, an endpoint that is not http(s), a timeout that
 * is not a number of milliseconds, a header HTTP cannot carry. The exporter flushes when the command ends, waiting at most the export timeout
 * (`OTEL_EXPORTER_OTLP_TIMEOUT`, 2 s here); traces that did not reach the collector are named in one line on
 * stderr, with why.
 */
import { Telemetry } from "@agentfx/core"
import * as HttpUrl from "@agentfx/core/HttpUrl"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { UsageError } from "../CliError.js"
import * as Defaults from "../Defaults.js"
import { Io } from "../Io.js"
import { displayUrl } from "./displayUrl.js"
import { version } from "./immediate.js"
import { escapeLines } from "./terminalText.js"

const variable = (name: string): Effect.Effect<Option.Option<string>> =>
  Config.option(Config.string(name)).pipe(
    Effect.map(Option.filter((value) => value.trim() !== "")),
    // A string is only ever missing, which the option reads as none: nothing else is left to recover from.
    Effect.orElseSucceed(Option.none)
  )

/** The first of `names` that is set, with its name (a signal's own variable goes before the general one). */
const firstOf = (...names: ReadonlyArray<string>): Effect.Effect<Option.Option<{ readonly name: string; readonly value: string }>> =>
  Effect.reduce(names, Option.none<{ readonly name: string; readonly value: string }>(), (found, name) =>
    Option.isSome(found) ? Effect.succeed(found) : Effect.map(variable(name), Option.map((value) => ({ name, value: value.trim() })))
  )

/** `k1=v1,k2=v2` (values URL-encoded), as the OTLP exporter specification writes headers. */
export const parseHeaders = (text: string): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const pair of text.split(",")) {
    const at = pair.indexOf("=")
    // Stryker disable next-line EqualityOperator: a pair that starts with = has an empty key, which is skipped below
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

/**
 * What is wrong with the first header that HTTP cannot carry, or `undefined`: a name that is not a token, or a value
 * with a NUL, a line break, or a character above U+00FF (fetch refuses them all). A value is not quoted: it may be a
 * credential.
 */
const headerProblem = (headers: Readonly<Record<string, string>>): string | undefined => {
  for (const [name, value] of Object.entries(headers)) {
    if (!/^[-!#$%&'*+.^_`|~0-9A-Za-z]+$/.test(name)) return `"${name}" is not an HTTP header name`
    if (/[\0\r\n]|[^\0-\xff]/.test(value)) return `the value of ${name} holds a character HTTP cannot carry (a NUL, a line break, or one above U+00FF)`
  }
  return undefined
}

/**
 * `service.name` in `OTEL_RESOURCE_ATTRIBUTES` (`k=v,k2=v2`), which names the service when `OTEL_SERVICE_NAME` does
 * not; the exporter reads the other attributes itself.
 */
const serviceNameIn = (attributes: string): Option.Option<string> =>
  Option.fromNullable(parseHeaders(attributes)["service.name"]).pipe(Option.filter((name) => name !== ""))

/** The two OTLP encodings over HTTP; gRPC is not one agentfx can send. */
export type Protocol = "http/protobuf" | "http/json"

/** How a command's traces are exported. */
export interface Settings {
  readonly url: string
  readonly protocol: Protocol
  readonly headers: Readonly<Record<string, string>>
  /** Bounds each export, and the wait for the last one at exit. */
  readonly timeout: Duration.Duration
  readonly serviceName: string
  readonly content: boolean
}

/** The export timeout when none is set: the specification's 10 s is meant for services, not for a command's exit. */
export const defaultTimeout = Duration.millis(Defaults.traceTimeout.millis)

/** Where the specification sends traces when only `OTEL_TRACES_EXPORTER=otlp` is set. */
const defaultUrl = "http://localhost:4318/v1/traces"

/** `OTEL_TRACES_EXPORTER`: whether OTLP export is asked for, refused (`none`), or left to the endpoint variables. */
const exporterChoice = Effect.gen(function* () {
  const set = yield* variable("OTEL_TRACES_EXPORTER")
  if (Option.isNone(set)) return "unset" as const
  const names = [...new Set(set.value.split(",").map((name) => name.trim().toLowerCase()).filter((name) => name !== ""))]
  if (names.length === 1 && names[0] === "none") return "none" as const
  if (names.length === 1 && names[0] === "otlp") return "otlp" as const
  return yield* new UsageError({
    message: `OTEL_TRACES_EXPORTER=${set.value.trim()}: agentfx exports traces with otlp only; set it to otlp, or to none to export nothing`
  })
})

/** The endpoint for traces, checked: `…_TRACES_ENDPOINT` as it is, else `…_ENDPOINT` with `/v1/traces`. */
const endpoint = Effect.gen(function* () {
  const found = yield* firstOf("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
  if (Option.isNone(found)) return Option.none<string>()
  const { name, value } = found.value
  const problem = HttpUrl.check(value)
  // The URL itself is not quoted: it may carry a credential.
  if (problem !== undefined) {
    return yield* new UsageError({
      message: `${name} is ${problem._tag === "Invalid" ? "not a valid URL" : `not an http:// or https:// URL (its scheme is ${problem.scheme})`}: agentfx exports traces over HTTP, to a collector's OTLP/HTTP port (4318)`
    })
  }
  return Option.some(name === "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" ? value : `${value.replace(/\/+$/, "")}/v1/traces`)
})

const protocol = Effect.gen(function* () {
  const found = yield* firstOf("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
  if (Option.isNone(found)) return "http/protobuf" as const
  const { name, value } = found.value
  const chosen = value.toLowerCase()
  if (chosen === "http/protobuf" || chosen === "http/json") return chosen
  if (chosen === "grpc") {
    return yield* new UsageError({
      message: `${name}=grpc: agentfx exports traces over HTTP only; set it to http/protobuf (the default) or http/json, with the endpoint at the collector's OTLP/HTTP port (4318)`
    })
  }
  return yield* new UsageError({ message: `${name}=${value} is not a protocol agentfx exports with: use http/protobuf (the default) or http/json` })
})

const timeout = Effect.gen(function* () {
  const found = yield* firstOf("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT")
  if (Option.isNone(found)) return defaultTimeout
  const { name, value } = found.value
  if (!/^\d+$/.test(value) || Number(value) === 0) {
    return yield* new UsageError({ message: `${name}=${value} is not a timeout: give a whole number of milliseconds above 0 (e.g. 2000)` })
  }
  return Duration.millis(Number(value))
})

/** What the environment asks of trace export: settings, none, or a `UsageError` naming the variable at fault. */
export const settings: Effect.Effect<Option.Option<Settings>, UsageError> = Effect.gen(function* () {
  if (Option.exists(yield* variable("OTEL_SDK_DISABLED"), (value) => value.trim().toLowerCase() === "true")) return Option.none()
  const choice = yield* exporterChoice
  if (choice === "none") return Option.none()
  const url = Option.orElse(yield* endpoint, () => (choice === "otlp" ? Option.some(defaultUrl) : Option.none()))
  if (Option.isNone(url)) return Option.none()
  const resourceAttributes = yield* variable("OTEL_RESOURCE_ATTRIBUTES")
  const headerText = (name: string) =>
    Effect.flatMap(variable(name), (value) => {
      const headers = Option.getOrUndefined(Option.map(value, parseHeaders))
      const problem = headers === undefined ? undefined : headerProblem(headers)
      return problem === undefined ? Effect.succeed(headers) : Effect.fail(new UsageError({ message: `${name}: ${problem}` }))
    })
  return Option.some({
    url: url.value,
    protocol: yield* protocol,
    headers: { ...(yield* headerText("OTEL_EXPORTER_OTLP_HEADERS")), ...(yield* headerText("OTEL_EXPORTER_OTLP_TRACES_HEADERS")) },
    timeout: yield* timeout,
    serviceName: Option.getOrElse(Option.orElse(yield* variable("OTEL_SERVICE_NAME"), () => Option.flatMap(resourceAttributes, serviceNameIn)), () => "agentfx"),
    content: Option.exists(yield* variable("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"), (value) => value.trim().toLowerCase() === "true")
  })
})

/**
 * The exporter's own wait for its last batch at exit, a little past the export timeout: an attempt that times out
 * then reports why, rather than being cut off with no reason.
 */
const shutdownMargin = Duration.millis(250)

/** `effect` with its spans exported as `settings` say; at its end, one line on stderr if some did not arrive. */
const exported = <A, E, R>(effect: Effect.Effect<A, E, R>, settings: Settings): Effect.Effect<A, E, R | Io> =>
  Effect.gen(function* () {
    const io = yield* Io
    const [{ OtlpSerialization, OtlpTracer }, TraceDelivery] = yield* Effect.promise(() => Promise.all([import("@effect/opentelemetry"), import("./traceDelivery.js")]))
    const delivery = TraceDelivery.make(settings.timeout)
    const exporter = OtlpTracer.layer({
      url: settings.url,
      headers: settings.headers,
      resource: { serviceName: settings.serviceName, serviceVersion: version },
      shutdownTimeout: Duration.sum(settings.timeout, shutdownMargin)
    }).pipe(Layer.provide(Layer.merge(delivery.layer, settings.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf)))
    const report = Effect.flatMap(delivery.undelivered, (reason) =>
      reason === undefined ? Effect.void : io.err(`agentfx: traces were not delivered to ${displayUrl(settings.url)}: ${escapeLines(reason)}\n`)
    )
    return yield* (settings.content ? Telemetry.withContent(effect) : effect).pipe(Effect.ensuring(delivery.closing), Effect.provide(exporter), Effect.ensuring(report))
  })

/** `effect` with its spans exported when the environment asks for it; a setting that cannot work fails it first. */
export const traced = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | UsageError, R | Io> =>
  Effect.flatMap(settings, (chosen) => (Option.isSome(chosen) ? exported(effect, chosen.value) : effect))
