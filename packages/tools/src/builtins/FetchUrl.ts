/**
 * The `fetch_url` tool: an HTTP(S) GET to an allow-listed host (and port), with a timeout and a byte limit.
 * Redirects are followed by hand, each hop checked against the allow-list, so a redirect cannot lead to a host
 * that is not allowed. Names are resolved by the tool and every address checked before the connection is made
 * to one of them: an allowed name that resolves to a loopback, private or link-local address is refused unless
 * that address is on the allow-list too (or `allowPrivateAddresses` is set). URLs carrying credentials are
 * refused, and so is an allow-list entry that could never match.
 *
 * @example
 * ```ts
 * import { Registry } from "@agentfx/core"
 * import { FetchUrl } from "@agentfx/tools"
 *
 * const registry = Registry.unsafeMake(FetchUrl.make({ allowHosts: ["example.com", "*.wikipedia.org"] }))
 * ```
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import type { LookupAddress } from "node:dns"
import { lookup } from "node:dns/promises"
import * as http from "node:http"
import type { IncomingMessage } from "node:http"
import * as https from "node:https"
import { isIP, isIPv4, isIPv6 } from "node:net"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Tool } from "@agentfx/core"
import * as Address from "../internal/address.js"
import { canonicalAddress } from "../internal/address.js"

/**
 * The URL may not be fetched; `reason` says why.
 *
 * @since 0.1.0
 * @category errors
 */
export class UrlRefused extends Schema.TaggedError<UrlRefused>()("UrlRefused", {
  url: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `fetching "${this.url}" refused: ${this.reason}`
  }
}

/**
 * The response did not complete within the timeout.
 *
 * @since 0.1.0
 * @category errors
 */
export class FetchTimeout extends Schema.TaggedError<FetchTimeout>()("FetchTimeout", {
  url: Schema.String,
  after: Schema.DurationFromMillis
}) {
  override get message(): string {
    return `fetching "${this.url}" took longer than ${Duration.format(this.after)}`
  }
}

/**
 * The response body is larger than the byte limit.
 *
 * @since 0.1.0
 * @category errors
 */
export class ResponseTooLarge extends Schema.TaggedError<ResponseTooLarge>()("ResponseTooLarge", {
  url: Schema.String,
  limit: Schema.Number
}) {
  override get message(): string {
    return `the response from "${this.url}" is larger than the limit of ${this.limit} bytes`
  }
}

/**
 * The request failed (connection refused, DNS, TLS, too many redirects, ...).
 *
 * @since 0.1.0
 * @category errors
 */
export class FetchFailed extends Schema.TaggedError<FetchFailed>()("FetchFailed", {
  url: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `fetching "${this.url}" failed: ${this.reason}`
  }
}

/**
 * An allow-list entry that could never match anything; refused rather than silently ignored.
 *
 * @since 0.1.0
 * @category errors
 */
export class AllowListInvalid extends Schema.TaggedError<AllowListInvalid>()("AllowListInvalid", {
  entry: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `the allow-list entry "${this.entry}" is invalid: ${this.reason}`
  }
}

/**
 * Every refusal and failure of `fetch_url`.
 *
 * @since 0.1.0
 */
export const FetchError = Schema.Union(UrlRefused, FetchTimeout, ResponseTooLarge, FetchFailed, AllowListInvalid)
/**
 * Any refusal or failure of `fetch_url` (the type of the `FetchError` schema).
 *
 * @since 0.1.0
 * @category models
 */
export type FetchError = typeof FetchError.Type

/**
 * The allow-list and limits of `fetch_url`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Hosts that may be fetched, each with an optional `:port` (without one, any port): a name (`example.com`),
   * `*.example.com` for its subdomains, an IPv4 address or an IPv6 one in brackets (`[::1]:8080`).
   */
  readonly allowHosts: ReadonlyArray<string>
  /**
   * Whether names may resolve to loopback, private, link-local and other non-public addresses (default false).
   * An address written on the allow-list is always allowed.
   */
  readonly allowPrivateAddresses?: boolean
  /** For the whole exchange, redirects and body included (default 10 seconds). */
  readonly timeout?: Duration.DurationInput
  /** Largest response body (default 1 MB). */
  readonly maxBytes?: number
  /** Most redirects followed (default 5). */
  readonly maxRedirects?: number
  /** Resolves a host name to its addresses (default the system resolver). */
  readonly resolve?: (hostname: string) => Promise<ReadonlyArray<string>>
}

/**
 * The default `timeout`: 10 seconds for the whole exchange, redirects and body included.
 *
 * @since 0.1.0
 */
export const defaultTimeout = Duration.seconds(10)
/**
 * The default `maxBytes`: 1,000,000 bytes of a response body.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxBytes = 1_000_000
/**
 * The default `maxRedirects`: 5 redirects followed.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxRedirects = 5

/**
 * One parsed allow-list entry.
 *
 * @since 0.1.0
 * @category models
 */
export type AllowEntry =
  | { readonly _tag: "Name"; readonly name: string; readonly port: number | undefined }
  | { readonly _tag: "Subdomains"; readonly suffix: string; readonly port: number | undefined }
  | { readonly _tag: "Address"; readonly address: string; readonly port: number | undefined }

const normaliseHost = (host: string): string => host.toLowerCase().replace(/\.$/, "")

/** How the WHATWG URL parser spells `host`, or undefined if it is no host at all. */
const urlSpelling = (host: string): string | undefined => URL.parse(`http://${host}/`)?.hostname

/**
 * Parses one allow-list entry, or says why it could never match.
 *
 * @since 0.1.0
 */
export const parseEntry = (entry: string): AllowEntry | AllowListInvalid => {
  const invalid = (reason: string) => new AllowListInvalid({ entry, reason })
  const text = entry.trim().toLowerCase()
  if (text === "") return invalid("it is empty")
  if (/[/@\s?#]/.test(text)) return invalid("give a host with an optional :port, not a URL")
  if (text.includes("%")) return invalid("URLs cannot carry an IPv6 zone (%...)")
  let host = text
  let port: number | undefined
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(text)
  if (bracketed !== null) {
    if (!isIPv6(bracketed[1]!)) return invalid("the brackets hold no IPv6 address")
    host = bracketed[1]!
    if (bracketed[2] !== undefined) port = parsePort(bracketed[2])
    if (port === -1) return invalid("the port is not a number from 1 to 65535")
    return { _tag: "Address", address: canonicalAddress(host), port }
  }
  if (isIPv6(text)) return { _tag: "Address", address: canonicalAddress(text), port: undefined }
  const colon = text.lastIndexOf(":")
  if (colon !== -1) {
    host = text.slice(0, colon)
    port = parsePort(text.slice(colon + 1))
    if (port === -1) return invalid("the port is not a number from 1 to 65535")
    if (host.includes(":")) return invalid("write an IPv6 address with a port in brackets, as [::1]:8080")
  }
  host = host.replace(/\.$/, "")
  if (host.startsWith("*.")) {
    const suffix = host.slice(2)
    if (suffix.includes("*")) return invalid("only a leading *. is allowed")
    // The URL parser reads a host whose last label is a number as an IPv4 address: no name ends so.
    if (/^(0x[0-9a-f]*|[0-9]+)$/.test(suffix.split(".").at(-1) ?? "")) return invalid("a wildcard cannot match an IP address")
    if (urlSpelling(`x.${suffix}`) !== `x.${suffix}`) return invalid(`"${suffix}" is not a host name`)
    return { _tag: "Subdomains", suffix: `.${suffix}`, port }
  }
  if (host.includes("*")) return invalid("only a leading *. is allowed")
  const spelled = urlSpelling(host)
  if (spelled === undefined || spelled === "") return invalid("it is not a host name or an IP address")
  if (isIPv4(spelled)) {
    if (spelled !== host) return invalid(`URLs spell this address ${spelled}; write that`)
    return { _tag: "Address", address: spelled, port }
  }
  if (spelled !== host) return invalid(`URLs spell this host ${spelled}; write that`)
  return { _tag: "Name", name: host, port }
}

const parsePort = (text: string): number | undefined => {
  if (!/^[0-9]{1,5}$/.test(text)) return -1
  const port = Number(text)
  return port >= 1 && port <= 65535 ? port : -1
}

/**
 * Every entry parsed, or the first that could never match.
 *
 * @since 0.1.0
 */
export const parseAllowList = (allowHosts: ReadonlyArray<string>): ReadonlyArray<AllowEntry> | AllowListInvalid => {
  const entries: Array<AllowEntry> = []
  for (const entry of allowHosts) {
    const parsed = parseEntry(entry)
    if (parsed instanceof AllowListInvalid) return parsed
    entries.push(parsed)
  }
  return entries
}

/**
 * Checks every allow-list entry of `options` up front, so a typo fails at startup rather than at the first fetch.
 *
 * @since 0.1.0
 */
export const validate = (options: Options): Effect.Effect<Options, AllowListInvalid> => {
  const parsed = parseAllowList(options.allowHosts)
  return parsed instanceof AllowListInvalid ? Effect.fail(parsed) : Effect.succeed(options)
}

const defaultPort = (url: URL) => (url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80)

/** The host of a URL as an address, when it is one (IPv6 without brackets). */
const literalAddress = (url: URL): string | undefined => {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
  return isIP(host) === 0 ? undefined : canonicalAddress(host)
}

const entryMatches = (entry: AllowEntry, url: URL): boolean => {
  if (entry.port !== undefined && entry.port !== defaultPort(url)) return false
  const address = literalAddress(url)
  if (entry._tag === "Address") return address === entry.address
  // Stryker disable next-line ConditionalExpression: a name or suffix entry never matches an address host anyway (an IPv4 one ends in a number, which no suffix does; an IPv6 one is in brackets); this says so without relying on it
  if (address !== undefined) return false
  const host = normaliseHost(url.hostname)
  return entry._tag === "Name" ? host === entry.name : host.endsWith(entry.suffix)
}

/**
 * Whether `hostname` (as `URL` gives it) is on the allow-list, on any port. Invalid entries match nothing.
 *
 * @since 0.1.0
 */
export const isAllowed = (allowHosts: ReadonlyArray<string>, hostname: string): boolean => {
  let url: URL
  try {
    url = new URL(`http://${hostname}/`)
  } catch {
    return false
  }
  return allowHosts.some((text) => {
    const entry = parseEntry(text)
    return !(entry instanceof AllowListInvalid) && entryMatches({ ...entry, port: undefined }, url)
  })
}

/**
 * Checks a URL before any connection is made: scheme, credentials, host and port, and a literal address.
 *
 * @since 0.1.0
 */
export const checkUrl = (allowHosts: ReadonlyArray<string>, url: string, options: { readonly allowPrivateAddresses?: boolean } = {}): UrlRefused | AllowListInvalid | URL => {
  const entries = parseAllowList(allowHosts)
  if (entries instanceof AllowListInvalid) return entries
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
  if (!entries.some((entry) => entryMatches(entry, parsed))) {
    const where = entries.some((entry) => entryMatches({ ...entry, port: undefined }, parsed)) ? `${parsed.hostname} on port ${defaultPort(parsed)}` : `the host ${parsed.hostname}`
    return new UrlRefused({ url, reason: `${where} is not on the allow-list (${allowHosts.join(", ") || "empty"})` })
  }
  const address = literalAddress(parsed)
  if (address !== undefined) {
    const refusal = addressRefusal(entries, options.allowPrivateAddresses === true, address, defaultPort(parsed))
    if (refusal !== undefined) return new UrlRefused({ url, reason: refusal })
  }
  return parsed
}

/** Why `address` may not be connected to, or undefined if it may. */
const addressRefusal = (entries: ReadonlyArray<AllowEntry>, allowPrivate: boolean, address: string, port: number): string | undefined => {
  const kind = Address.classify(address)
  if (kind === "public" || allowPrivate) return undefined
  const endpoint = Address.unmapped(address)
  // Written on the allow-list (for this port, if the entry names one; an IPv4-mapped address is its IPv4 one): allowed on purpose.
  if (entries.some((entry) => entry._tag === "Address" && Address.unmapped(entry.address) === endpoint && (entry.port === undefined || entry.port === port))) {
    return undefined
  }
  return `${address} is a ${kind} address (allow it by writing it on the allow-list, or with allowPrivateAddresses)`
}

/** A lookup that refused an address: carried through the HTTP client to become a `UrlRefused`. */
class AddressRefused extends Error {}

const redirectStatuses = new Set([301, 302, 303, 307, 308])

const describeCause = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error)
  // undici reports "fetch failed" and hides the useful part in `cause`.
  const cause = (error as { cause?: unknown }).cause
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message
}

/**
 * The tool's arguments.
 *
 * @since 0.1.0
 */
export const Parameters = Schema.Struct({
  url: Schema.String.annotations({ description: "Absolute http or https URL" })
})

/**
 * What the tool returns: any status; the body as text.
 *
 * @since 0.1.0
 */
export const Result = Schema.Struct({
  /** The final URL, after redirects. */
  url: Schema.String,
  status: Schema.Number,
  content_type: Schema.String,
  body: Schema.String
})
/**
 * What the tool returns (the type of the `Result` schema).
 *
 * @since 0.1.0
 * @category models
 */
export interface Result extends Schema.Schema.Type<typeof Result> {}

/**
 * One GET with the limits of `options`, as an Effect (the tool's handler).
 *
 * @since 0.1.0
 */
export const get = (options: Options, url: string): Effect.Effect<Result, FetchError> => {
  const timeout = Duration.decode(options.timeout ?? defaultTimeout)
  const maxBytes = options.maxBytes ?? defaultMaxBytes
  const maxRedirects = options.maxRedirects ?? defaultMaxRedirects
  const allowPrivate = options.allowPrivateAddresses === true
  const resolveHost = options.resolve ?? systemResolve
  const exchange = Effect.gen(function* () {
    const entries = parseAllowList(options.allowHosts)
    if (entries instanceof AllowListInvalid) return yield* Effect.fail(entries)
    // Aborted when the scope closes: on success (harmless), on failure and on interruption by the timeout.
    const controller = yield* Effect.acquireRelease(
      Effect.sync(() => new AbortController()),
      (controller) => Effect.sync(() => controller.abort())
    )
    let current = url
    for (let redirects = 0; ; redirects++) {
      const checked = checkUrl(options.allowHosts, current, options)
      const refused = (reason: string) => new UrlRefused({ url, reason: current === url ? reason : `redirected to ${current}: ${reason}` })
      if (!(checked instanceof URL)) return yield* Effect.fail(checked._tag === "UrlRefused" ? refused(checked.reason) : checked)
      const target = checked.href
      const port = defaultPort(checked)
      const refusalOf = (address: string) => addressRefusal(entries, allowPrivate, address, port)
      const response = yield* Effect.tryPromise({
        try: () => send(checked, controller.signal, resolveHost, refusalOf),
        catch: (error) => (error instanceof AddressRefused ? refused(error.message) : new FetchFailed({ url: target, reason: describeCause(error) }))
      })
      const location = response.headers.location
      if (redirectStatuses.has(response.statusCode ?? 0) && location !== undefined) {
        response.destroy()
        if (redirects === maxRedirects) return yield* Effect.fail(new FetchFailed({ url, reason: `more than ${maxRedirects} redirects` }))
        current = new URL(location, target).href
        continue
      }
      const declared = Number(response.headers["content-length"] ?? Number.NaN)
      if (declared > maxBytes) {
        response.destroy()
        return yield* Effect.fail(new ResponseTooLarge({ url: target, limit: maxBytes }))
      }
      const body = yield* readBody(response, target, maxBytes)
      return { url: target, status: response.statusCode ?? 0, content_type: response.headers["content-type"] ?? "", body }
    }
  })
  return Effect.scoped(exchange).pipe(
    Effect.timeoutFail({ duration: timeout, onTimeout: () => new FetchTimeout({ url, after: timeout }) })
  )
}

const systemResolve = async (hostname: string): Promise<ReadonlyArray<string>> =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address)

type LookupCallback = (error: Error | null, address: string | ReadonlyArray<LookupAddress>, family?: number) => void

/**
 * One GET on a fresh connection. Names are resolved here, every address checked, and the connection made to
 * a checked address: a name cannot pass the check with one answer and connect with another. The address the
 * socket really reached is checked again.
 */
const send = (
  url: URL,
  signal: AbortSignal,
  resolveHost: (hostname: string) => Promise<ReadonlyArray<string>>,
  refusalOf: (address: string) => string | undefined
): Promise<IncomingMessage> =>
  new Promise((resolve, reject) => {
    const guardedLookup = (hostname: string, lookupOptions: { all?: boolean; family?: number | string }, callback: LookupCallback) => {
      resolveHost(hostname).then(
        (addresses) => {
          if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "")
          for (const address of addresses) {
            const refusal = refusalOf(address)
            if (refusal !== undefined) return callback(new AddressRefused(`${hostname} resolves to ${refusal}`), "")
          }
          const found = addresses.map((address) => ({ address, family: isIPv6(address) ? 6 : 4 }))
          if (lookupOptions.all === true) callback(null, found)
          else callback(null, found[0]!.address, found[0]!.family)
        },
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), "")
      )
    }
    const client = url.protocol === "https:" ? https : http
    const request = client.request(
      url,
      { method: "GET", agent: false, signal, lookup: guardedLookup as never, headers: { accept: "text/*, application/json, */*;q=0.5" } },
      (response) => {
        const reached = response.socket.remoteAddress
        const refusal = reached === undefined ? "the connected address is unknown" : refusalOf(reached)
        if (refusal !== undefined) {
          response.destroy()
          // Stryker disable next-line StringLiteral: the connection reaches the address the guarded lookup (or the allow-list, for a literal) passed, so this check never refuses today: it guards against a lookup that is bypassed
          reject(new AddressRefused(`the connection reached ${refusal}`))
        } else resolve(response)
      }
    )
    request.on("error", reject)
    request.end()
  })

const readBody = (response: IncomingMessage, url: string, maxBytes: number): Effect.Effect<string, FetchFailed | ResponseTooLarge> =>
  Effect.async((resumeOnce) => {
    const decoder = new TextDecoder()
    let total = 0
    let text = ""
    let settled = false
    const resume = (effect: Effect.Effect<string, FetchFailed | ResponseTooLarge>) => {
      // Stryker disable next-line ConditionalExpression: Effect ignores every resumption after the first; the flag only makes that explicit
      if (!settled) resumeOnce(effect)
      // Stryker disable next-line BooleanLiteral: as above, a second resumption is ignored anyway
      settled = true
    }
    response.on("data", (chunk: Buffer) => {
      total += chunk.byteLength
      if (total > maxBytes) {
        resume(Effect.fail(new ResponseTooLarge({ url, limit: maxBytes })))
        response.destroy()
      } else text += decoder.decode(chunk, { stream: true })
    })
    response.on("end", () => resume(Effect.succeed(text + decoder.decode())))
    response.on("error", (error) => resume(Effect.fail(new FetchFailed({ url, reason: `the body could not be read: ${describeCause(error)}` }))))
    response.on("aborted", () => resume(Effect.fail(new FetchFailed({ url, reason: "the body could not be read: the connection was closed" }))))
    // Stryker disable next-line ArrowFunction: on interruption the scope's abort signal destroys the request and its response as well; this frees the body at once
    return Effect.sync(() => response.destroy())
  })

/**
 * The `fetch_url` tool: `{url}` → `{url, status, content_type, body}` (any status; redirects followed).
 *
 * @since 0.1.0
 */
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
