/**
 * The `fetch_url` tool: an HTTP(S) GET to an allow-listed host, with a timeout and a byte limit. Redirects are
 * followed by hand, each hop checked against the allow-list, so a redirect cannot lead to a host that is not
 * allowed. URLs carrying credentials are refused.
 *
 * @example
 * const registry = Registry.unsafeMake(FetchUrl.make({ allowHosts: ["example.com", "*.wikipedia.org"] }))
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Tool } from "@agentfx/core"

/** The URL may not be fetched; `reason` says why. */
export class UrlRefused extends Schema.TaggedError<UrlRefused>()("UrlRefused", {
  url: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `fetching "${this.url}" refused: ${this.reason}`
  }
}

/** The response did not complete within the timeout. */
export class FetchTimeout extends Schema.TaggedError<FetchTimeout>()("FetchTimeout", {
  url: Schema.String,
  after: Schema.DurationFromMillis
}) {
  override get message(): string {
    return `fetching "${this.url}" took longer than ${Duration.format(this.after)}`
  }
}

/** The response body is larger than the byte limit. */
export class ResponseTooLarge extends Schema.TaggedError<ResponseTooLarge>()("ResponseTooLarge", {
  url: Schema.String,
  limit: Schema.Number
}) {
  override get message(): string {
    return `the response from "${this.url}" is larger than the limit of ${this.limit} bytes`
  }
}

/** The request failed (connection refused, DNS, TLS, too many redirects, ...). */
export class FetchFailed extends Schema.TaggedError<FetchFailed>()("FetchFailed", {
  url: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `fetching "${this.url}" failed: ${this.reason}`
  }
}

/** Every refusal and failure of `fetch_url`. */
export const FetchError = Schema.Union(UrlRefused, FetchTimeout, ResponseTooLarge, FetchFailed)
export type FetchError = typeof FetchError.Type

/** The allow-list and limits of `fetch_url`. */
export interface Options {
  /** Host names that may be fetched: exact (`example.com`, `127.0.0.1`) or `*.example.com` for its subdomains. */
  readonly allowHosts: ReadonlyArray<string>
  /** For the whole exchange, redirects and body included (default 10 seconds). */
  readonly timeout?: Duration.DurationInput
  /** Largest response body (default 1 MB). */
  readonly maxBytes?: number
  /** Most redirects followed (default 5). */
  readonly maxRedirects?: number
  /** The fetch implementation (default the global `fetch`). */
  readonly fetch?: typeof globalThis.fetch
}

/** Defaults for the options left out. */
export const defaultTimeout = Duration.seconds(10)
export const defaultMaxBytes = 1_000_000
export const defaultMaxRedirects = 5

const normaliseHost = (host: string): string => host.toLowerCase().replace(/\.$/, "")

/** Whether `hostname` (as `URL` gives it) is on the allow-list. */
export const isAllowed = (allowHosts: ReadonlyArray<string>, hostname: string): boolean => {
  const host = normaliseHost(hostname)
  return allowHosts.some((entry) => {
    const allowed = normaliseHost(entry)
    return allowed.startsWith("*.") ? host.endsWith(allowed.slice(1)) : host === allowed
  })
}

/** Checks a URL before any connection is made. */
export const checkUrl = (allowHosts: ReadonlyArray<string>, url: string): UrlRefused | URL => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return new UrlRefused({ url, reason: "it is not a valid absolute URL" })
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return new UrlRefused({ url, reason: `only http and https URLs may be fetched, not ${parsed.protocol}` })
  }
  if (parsed.username !== "" || parsed.password !== "") return new UrlRefused({ url, reason: "URLs with credentials are not allowed" })
  if (!isAllowed(allowHosts, parsed.hostname)) {
    return new UrlRefused({ url, reason: `the host ${parsed.hostname} is not on the allow-list (${allowHosts.join(", ") || "empty"})` })
  }
  return parsed
}

const redirectStatuses = new Set([301, 302, 303, 307, 308])

const describeCause = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error)
  // undici reports "fetch failed" and hides the useful part in `cause`.
  const cause = (error as { cause?: unknown }).cause
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message
}

/** The tool's arguments. */
export const Parameters = Schema.Struct({
  url: Schema.String.annotations({ description: "Absolute http or https URL" })
})

/** What the tool returns: any status; the body as text. */
export const Result = Schema.Struct({
  /** The final URL, after redirects. */
  url: Schema.String,
  status: Schema.Number,
  content_type: Schema.String,
  body: Schema.String
})
export interface Result extends Schema.Schema.Type<typeof Result> {}

/** One GET with the limits of `options`, as an Effect (the tool's handler). */
export const get = (options: Options, url: string): Effect.Effect<Result, FetchError> => {
  const timeout = Duration.decode(options.timeout ?? defaultTimeout)
  const maxBytes = options.maxBytes ?? defaultMaxBytes
  const maxRedirects = options.maxRedirects ?? defaultMaxRedirects
  const fetchImpl = options.fetch ?? globalThis.fetch
  const exchange = Effect.gen(function* () {
    // Aborted when the scope closes: on success (harmless), on failure and on interruption by the timeout.
    const controller = yield* Effect.acquireRelease(
      Effect.sync(() => new AbortController()),
      (controller) => Effect.sync(() => controller.abort())
    )
    let current = url
    for (let redirects = 0; ; redirects++) {
      const checked = checkUrl(options.allowHosts, current)
      if (checked instanceof UrlRefused) {
        return yield* Effect.fail(current === url ? checked : new UrlRefused({ url, reason: `redirected to ${current}: ${checked.reason}` }))
      }
      const target = checked.href
      const response = yield* Effect.tryPromise({
        try: () => fetchImpl(target, { method: "GET", redirect: "manual", signal: controller.signal, headers: { accept: "text/*, application/json, */*;q=0.5" } }),
        catch: (error) => new FetchFailed({ url: target, reason: describeCause(error) })
      })
      const location = response.headers.get("location")
      if (redirectStatuses.has(response.status) && location !== null) {
        yield* discard(response)
        if (redirects === maxRedirects) return yield* Effect.fail(new FetchFailed({ url, reason: `more than ${maxRedirects} redirects` }))
        current = new URL(location, target).href
        continue
      }
      const declared = Number(response.headers.get("content-length") ?? Number.NaN)
      if (declared > maxBytes) {
        yield* discard(response)
        return yield* Effect.fail(new ResponseTooLarge({ url: target, limit: maxBytes }))
      }
      const body = yield* readBody(response, target, maxBytes)
      return { url: target, status: response.status, content_type: response.headers.get("content-type") ?? "", body }
    }
  })
  return Effect.scoped(exchange).pipe(
    Effect.timeoutFail({ duration: timeout, onTimeout: () => new FetchTimeout({ url, after: timeout }) })
  )
}

/** Drops a body we will not read, so the connection is released. */
const discard = (response: Response): Effect.Effect<void> =>
  response.body === null ? Effect.void : Effect.ignore(Effect.tryPromise(() => response.body!.cancel()))

const readBody = (response: Response, url: string, maxBytes: number): Effect.Effect<string, FetchFailed | ResponseTooLarge> =>
  Effect.gen(function* () {
    if (response.body === null) return ""
    const reader = response.body.getReader()
    const decoder = new TextDecoder()
    let total = 0
    let text = ""
    for (;;) {
      const { done, value } = yield* Effect.tryPromise({
        try: () => reader.read(),
        catch: (error) => new FetchFailed({ url, reason: `the body could not be read: ${describeCause(error)}` })
      })
      if (done) return text + decoder.decode()
      total += value.byteLength
      if (total > maxBytes) {
        yield* Effect.ignore(Effect.tryPromise(() => reader.cancel()))
        return yield* Effect.fail(new ResponseTooLarge({ url, limit: maxBytes }))
      }
      text += decoder.decode(value, { stream: true })
    }
  })

/** The `fetch_url` tool: `{url}` → `{url, status, content_type, body}` (any status; redirects followed). */
export const make = (options: Options) =>
  Tool.make("fetch_url", {
    // A little over our own timeout, so the typed FetchTimeout wins over the executor's generic one.
    timeout: Duration.sum(Duration.decode(options.timeout ?? defaultTimeout), Duration.seconds(1)),
    description: `Fetches a web page or API response with an HTTP GET (hosts: ${options.allowHosts.join(", ") || "none"}). Returns status, content type and body text.`,
    parameters: Parameters,
    success: Result,
    failure: FetchError,
    handler: ({ url }) => get(options, url)
  })
