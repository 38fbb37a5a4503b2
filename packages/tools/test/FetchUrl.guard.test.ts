import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import { FetchUrl } from "@agentfx/tools"
import type { Handler } from "./support/loopback.js"
import { loopback } from "./support/loopback.js"

const names = ["a.test", "b.test", "c.test"] as const
const addresses = ["127.0.0.1", "10.1.2.3", "169.254.169.254", "::1", "fd00::5", "::ffff:127.0.0.1", "192.168.0.9"] as const

/** The routes `/hop/0` … `/hop/4`, each redirecting to the next URL of `urls` (filled later); the last answers "end". */
const hops = (urls: ReadonlyArray<string>): Record<string, Handler> =>
  Object.fromEntries(
    Array.from({ length: 5 }, (_, i) => [
      `/hop/${i}`,
      ((_request, response) => {
        if (i + 1 < urls.length) response.writeHead(302, { location: urls[i + 1]! }).end()
        else response.writeHead(200, { "content-type": "text/plain" }).end("end")
      }) satisfies Handler
    ])
  )

describe("fetch_url's allow-list entries", () => {
  it("refuses entries that could never match, with a typed error naming the entry", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["*.0.0.1", "a wildcard cannot match an IP address"],
      ["*.1", "a wildcard cannot match an IP address"],
      ["*.0x7f", "a wildcard cannot match an IP address"],
      ["", "it is empty"],
      ["http://example.com", "give a host with an optional :port, not a URL"],
      ["example.com/path", "give a host with an optional :port, not a URL"],
      ["example.com:0", "the port is not a number from 1 to 65535"],
      ["example.com:99999", "the port is not a number from 1 to 65535"],
      ["[example.com]:80", "the brackets hold no IPv6 address"],
      ["127.1", "URLs spell this address 127.0.0.1; write that"],
      ["a.*.example.com", "only a leading *. is allowed"],
      ["[fe80::1%eth0]:80", "URLs cannot carry an IPv6 zone (%...)"]
    ]
    for (const [entry, reason] of cases) {
      const parsed = FetchUrl.parseEntry(entry)
      expect(parsed, entry).toMatchObject({ _tag: "AllowListInvalid", entry, reason })
    }
    expect(FetchUrl.parseEntry("Example.COM:8080")).toStrictEqual({ _tag: "Name", name: "example.com", port: 8080 })
    expect(FetchUrl.parseEntry("*.example.com:443")).toStrictEqual({ _tag: "Subdomains", suffix: ".example.com", port: 443 })
    expect(FetchUrl.parseEntry("[::1]:8080")).toStrictEqual({ _tag: "Address", address: "::1", port: 8080 })
    expect(FetchUrl.parseEntry("0:0:0:0:0:0:0:1")).toStrictEqual({ _tag: "Address", address: "::1", port: undefined })
    expect(FetchUrl.parseEntry("127.0.0.1")).toStrictEqual({ _tag: "Address", address: "127.0.0.1", port: undefined })
  })

  it("refuses more entries that are no host: URL parts, stray stars, bad ports, names URLs spell otherwise", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["user@example.com", "give a host with an optional :port, not a URL"],
      ["exa mple.com", "give a host with an optional :port, not a URL"],
      ["example.com?q", "give a host with an optional :port, not a URL"],
      ["example.com#top", "give a host with an optional :port, not a URL"],
      ["   ", "it is empty"],
      ["[::1]:", "the port is not a number from 1 to 65535"],
      ["[::1]:http", "the port is not a number from 1 to 65535"],
      ["example.com:", "the port is not a number from 1 to 65535"],
      ["example.com:65536", "the port is not a number from 1 to 65535"],
      ["example.com:123456", "the port is not a number from 1 to 65535"],
      ["example.com:+80", "the port is not a number from 1 to 65535"],
      ["example.com:80a", "the port is not a number from 1 to 65535"],
      ["example.com:a80", "the port is not a number from 1 to 65535"],
      ["a:b:80", "write an IPv6 address with a port in brackets, as [::1]:8080"],
      ["x[::1]", "the port is not a number from 1 to 65535"],
      ["[::1]x", "the port is not a number from 1 to 65535"],
      ["*.example.123", "a wildcard cannot match an IP address"],
      ["*.*.example.com", "only a leading *. is allowed"],
      ["ex*ample.com", "only a leading *. is allowed"],
      ["*.example.0x", "a wildcard cannot match an IP address"],
      ["*.example.0x1f", "a wildcard cannot match an IP address"],
      ["*.über.com", `"über.com" is not a host name`],
      ["exa<mple.com", "it is not a host name or an IP address"],
      ["über.com", "URLs spell this host xn--ber-goa.com; write that"],
      ["0x7f.0.0.1", "URLs spell this address 127.0.0.1; write that"]
    ]
    for (const [entry, reason] of cases) expect(FetchUrl.parseEntry(entry), entry).toMatchObject({ _tag: "AllowListInvalid", entry, reason })
  })

  it("reads a host's trailing dot, spaces around it and the ends of the port range as meant", () => {
    const accepted: ReadonlyArray<readonly [string, FetchUrl.AllowEntry]> = [
      [" Example.com. ", { _tag: "Name", name: "example.com", port: undefined }],
      ["example.com:1", { _tag: "Name", name: "example.com", port: 1 }],
      ["example.com:65535", { _tag: "Name", name: "example.com", port: 65535 }],
      ["*.example.com.", { _tag: "Subdomains", suffix: ".example.com", port: undefined }],
      ["*.example.1a", { _tag: "Subdomains", suffix: ".example.1a", port: undefined }],
      ["*.example.a1", { _tag: "Subdomains", suffix: ".example.a1", port: undefined }],
      ["*.example.0xg", { _tag: "Subdomains", suffix: ".example.0xg", port: undefined }],
      ["*.example.a0x1", { _tag: "Subdomains", suffix: ".example.a0x1", port: undefined }],
      ["*.example.x12", { _tag: "Subdomains", suffix: ".example.x12", port: undefined }],
      ["1.2.3.4:8080", { _tag: "Address", address: "1.2.3.4", port: 8080 }],
      ["[::1]", { _tag: "Address", address: "::1", port: undefined }],
      ["[0:0::1]:80", { _tag: "Address", address: "::1", port: 80 }],
      ["[::FFFF:127.0.0.1]", { _tag: "Address", address: "::ffff:7f00:1", port: undefined }]
    ]
    for (const [entry, parsed] of accepted) expect(FetchUrl.parseEntry(entry), entry).toStrictEqual(parsed)
  })

  it.effect("validate gives back the options whose every entry can match; the first entry that cannot is the error", () =>
    Effect.gen(function* () {
      const options = { allowHosts: ["example.com", "*.wiki.org:443", "[::1]"] }
      expect(yield* FetchUrl.validate(options)).toBe(options)
      expect(FetchUrl.parseAllowList(options.allowHosts)).toHaveLength(3)
      expect(FetchUrl.parseAllowList(["example.com", "", "*.1"])).toMatchObject({ _tag: "AllowListInvalid", entry: "" })
      expect(FetchUrl.parseAllowList([])).toStrictEqual([])
    })
  )

  it("isAllowed ignores the entries' ports, and a host URLs cannot hold is not allowed", () => {
    expect(FetchUrl.isAllowed(["example.com:8080"], "example.com")).toBe(true)
    expect(FetchUrl.isAllowed(["[::1]:8080"], "[::1]")).toBe(true)
    expect(FetchUrl.isAllowed(["example.com"], "exa mple.com")).toBe(false)
    expect(FetchUrl.isAllowed(["*.0.0.1", "example.com"], "example.com")).toBe(true)
  })

  it("checkUrl refuses nothing but reports an allow-list entry that could never match", () => {
    expect(FetchUrl.checkUrl(["example.com", "*.1"], "http://example.com/")).toMatchObject({ _tag: "AllowListInvalid", entry: "*.1" })
  })

  it("names the port when only the port is not allowed, and lists the allow-list as given", () => {
    const refusal = (allow: ReadonlyArray<string>, url: string) => (FetchUrl.checkUrl(allow, url) as FetchUrl.UrlRefused).reason
    expect(refusal(["example.com:8080", "Other.org"], "http://example.com/")).toBe("example.com on port 80 is not on the allow-list (example.com:8080, Other.org)")
    expect(refusal(["example.com:80"], "https://example.com/")).toBe("example.com on port 443 is not on the allow-list (example.com:80)")
    expect(refusal(["example.com:80"], "https://other.com/")).toBe("the host other.com is not on the allow-list (example.com:80)")
  })

  it("refuses a literal non-public address unless it is written on the allow-list (for its port) or allowed wholesale", () => {
    const check = (allow: ReadonlyArray<string>, url: string, allowPrivateAddresses = false) => {
      const checked = FetchUrl.checkUrl(allow, url, { allowPrivateAddresses })
      return checked instanceof URL ? "ok" : checked.reason
    }
    expect(check(["127.0.0.1"], "http://127.0.0.1:8080/")).toBe("ok")
    expect(check(["127.0.0.1:8080"], "http://127.0.0.1:8080/")).toBe("ok")
    expect(check(["[::1]"], "http://[::1]/")).toBe("ok")
    // The mapped form is allowed by its IPv4 entry, and the other way round.
    expect(check(["[::ffff:127.0.0.1]"], "http://[::ffff:127.0.0.1]/")).toBe("ok")
    expect(check(["[::ffff:10.0.0.1]", "10.0.0.1"], "http://[::ffff:10.0.0.1]/")).toBe("ok")
    expect(check(["8.8.8.8"], "http://8.8.8.8/")).toBe("ok")
    expect(check(["[::ffff:a9fe:a9fe]"], "http://[::ffff:a9fe:a9fe]/", true)).toBe("ok")
  })

  it("matches IPv6 literals and ports; a wildcard never matches an address", () => {
    const ok = (allow: ReadonlyArray<string>, url: string) => FetchUrl.checkUrl(allow, url, { allowPrivateAddresses: true }) instanceof URL
    expect(ok(["[::1]:8080"], "http://[::1]:8080/")).toBe(true)
    expect(ok(["[::1]:8080"], "http://[0:0::1]:8080/")).toBe(true)
    expect(ok(["[::1]:8080"], "http://[::1]:8081/")).toBe(false)
    expect(ok(["example.com:8443"], "https://example.com:8443/")).toBe(true)
    expect(ok(["example.com:443"], "https://example.com/")).toBe(true)
    expect(ok(["example.com:443"], "http://example.com/")).toBe(false)
    expect(ok(["example.com"], "http://example.com:1234/")).toBe(true)
    expect(ok(["*.example.com"], "http://127.0.0.1.example.com/")).toBe(true)
    expect(ok(["*.example.com"], "http://127.0.0.1/")).toBe(false)
    expect(FetchUrl.isAllowed(["*.0.0.1"], "127.0.0.1")).toBe(false)
  })

  it.effect("a fetch with an invalid allow-list fails with AllowListInvalid, and FetchUrl.validate says so up front", () =>
    Effect.gen(function* () {
      const options = { allowHosts: ["example.com", "*.0.0.1"] }
      expect(yield* Effect.flip(FetchUrl.validate(options))).toMatchObject({ _tag: "AllowListInvalid", entry: "*.0.0.1" })
      const error = yield* Effect.flip(FetchUrl.get(options, "http://example.com/"))
      expect(error).toMatchObject({ _tag: "AllowListInvalid", entry: "*.0.0.1" })
      expect(error.message).toBe(`the allow-list entry "*.0.0.1" is invalid: a wildcard cannot match an IP address`)
    })
  )

  it.prop(
    "no wildcard entry is accepted over an IPv4-looking suffix",
    [fc.ipV4(), fc.integer({ min: 1, max: 3 })],
    ([address, labels]) => {
      const suffix = address.split(".").slice(4 - labels).join(".")
      expect(FetchUrl.parseEntry(`*.${suffix}`)).toMatchObject({ _tag: "AllowListInvalid" })
      expect(FetchUrl.isAllowed([`*.${suffix}`], address)).toBe(false)
    }
  )
})

describe("fetch_url's address guard", () => {
  it.scoped("refuses an allowed name that resolves to loopback, and connects to nothing", () =>
    Effect.gen(function* () {
      const server = yield* loopback(hops(["x"]))
      const resolve = () => Promise.resolve(["127.0.0.1"])
      const url = `http://a.test:${server.port}/hop/0`
      const error = yield* Effect.flip(FetchUrl.get({ allowHosts: ["a.test"], resolve }, url))
      expect(error).toMatchObject({ _tag: "UrlRefused", url })
      expect(error.message).toContain("a.test resolves to 127.0.0.1 is a loopback address")
      const mapped = yield* Effect.flip(FetchUrl.get({ allowHosts: ["a.test"], resolve: () => Promise.resolve(["93.184.215.14", "::ffff:169.254.169.254"]) }, url))
      expect(mapped.message).toContain("a.test resolves to ::ffff:169.254.169.254 is a link-local address")
      const literal = yield* Effect.flip(FetchUrl.get({ allowHosts: ["*.test"] }, "http://169.254.169.254/"))
      expect(literal.message).toContain("the host 169.254.169.254 is not on the allow-list")
      expect(server.requests).toStrictEqual([])
      // Written on the allow-list, or allowed wholesale, the same name is fetched.
      expect(yield* FetchUrl.get({ allowHosts: ["a.test", "127.0.0.1"], resolve }, url)).toMatchObject({ status: 200, body: "end" })
      expect(yield* FetchUrl.get({ allowHosts: [`a.test:${server.port}`], resolve, allowPrivateAddresses: true }, url)).toMatchObject({ body: "end" })
      // An address allowed on another port only is not allowed on this one.
      const addressOnOtherPort = yield* Effect.flip(FetchUrl.get({ allowHosts: ["a.test", `127.0.0.1:${server.port + 1}`], resolve }, url))
      expect(addressOnOtherPort.message).toContain("a.test resolves to 127.0.0.1 is a loopback address")
      const otherPort = yield* Effect.flip(FetchUrl.get({ allowHosts: [`a.test:${server.port + 1}`], resolve, allowPrivateAddresses: true }, url))
      expect(otherPort.message).toContain(`a.test on port ${server.port} is not on the allow-list`)
      expect(server.requests).toStrictEqual(["GET /hop/0", "GET /hop/0"])
    })
  )

  it.scoped("a name that resolves to no address, or whose lookup fails, is not fetched, and the failure says why", () =>
    Effect.gen(function* () {
      const server = yield* loopback(hops(["x"]))
      const url = `http://a.test:${server.port}/hop/0`
      const failure = (resolve: (host: string) => Promise<ReadonlyArray<string>>) => Effect.flip(FetchUrl.get({ allowHosts: ["a.test"], resolve }, url))
      expect(yield* failure(() => Promise.resolve([]))).toMatchObject({ _tag: "FetchFailed", url, reason: "a.test has no address" })
      expect(yield* failure(() => Promise.reject(new Error("SERVFAIL")))).toMatchObject({ _tag: "FetchFailed", reason: "SERVFAIL" })
      expect(yield* failure(() => Promise.reject("resolver down"))).toMatchObject({ _tag: "FetchFailed", reason: "resolver down" })
      // The useful part of an error is often its cause.
      const withCause = new Error("lookup failed", { cause: new Error("SERVFAIL") })
      expect(yield* failure(() => Promise.reject(withCause))).toMatchObject({ _tag: "FetchFailed", reason: "lookup failed: SERVFAIL" })
      expect(server.requests).toStrictEqual([])
    })
  )

  it.scoped("without a resolver of its own, names are resolved by the system and their addresses checked all the same", () =>
    Effect.gen(function* () {
      const server = yield* loopback(hops(["x"]))
      const url = `http://localhost:${server.port}/hop/0`
      const refused = yield* Effect.flip(FetchUrl.get({ allowHosts: ["localhost"] }, url))
      expect(refused).toMatchObject({ _tag: "UrlRefused", url })
      expect(refused.message).toMatch(/localhost resolves to \S+ is a loopback address/)
      expect(server.requests).toStrictEqual([])
      expect(yield* FetchUrl.get({ allowHosts: ["localhost"], allowPrivateAddresses: true }, url)).toMatchObject({ status: 200, body: "end" })
    })
  )

  const hop = fc.record({ host: fc.constantFrom(...names, "127.0.0.1") })
  const scenario = fc.record({
    chain: fc.array(hop, { minLength: 1, maxLength: 4 }),
    allow: fc.array(fc.record({ host: fc.constantFrom(...names, "127.0.0.1", "*.test"), port: fc.constantFrom("none", "server", "other") }), { maxLength: 4 }),
    resolution: fc.record(Object.fromEntries(names.map((name) => [name, fc.subarray([...addresses].slice(1))])) as Record<(typeof names)[number], fc.Arbitrary<Array<string>>>),
    allowPrivate: fc.boolean()
  })

  it.scoped.prop(
    "a redirect chain is followed exactly up to the first hop whose host, port or any resolved address is not allowed",
    [scenario],
    ([{ chain, allow, resolution, allowPrivate }]) =>
      Effect.gen(function* () {
        const urls: Array<string> = []
        const server = yield* loopback(hops(urls))
        const port = (samePort: boolean) => (samePort ? server.port : server.port === 65535 ? 1 : server.port + 1)
        urls.push(...chain.map(({ host }, i) => `http://${host}:${server.port}/hop/${i}`))
        const allowHosts = allow.map(({ host, port: which }) => (which === "none" ? host : `${host}:${which === "server" ? server.port : port(false)}`))
        // Every name resolves to the server first (so a hop that passes is really fetched), then to the generated addresses.
        const resolved = (host: string): ReadonlyArray<string> => (host === "127.0.0.1" ? ["127.0.0.1"] : ["127.0.0.1", ...resolution[host as (typeof names)[number]]])
        const resolve = (host: string) => Promise.resolve(resolved(host))
        const loopbackListed = allow.some((entry) => entry.host === "127.0.0.1" && (entry.port === "none" || entry.port === "server"))
        const permitted = ({ host }: (typeof chain)[number]) => {
          const listed = allow.some((entry) => {
            const portOk = entry.port !== "other"
            const hostOk = entry.host === host || (entry.host === "*.test" && host.endsWith(".test"))
            return portOk && hostOk
          })
          if (!listed) return false
          if (allowPrivate) return true
          // Non-public addresses pass only when written on the allow-list: here only 127.0.0.1 can be.
          return resolved(host).every((address) => (address === "127.0.0.1" || address === "::ffff:127.0.0.1") && loopbackListed)
        }
        const firstRefused = chain.findIndex((step) => !permitted(step))
        const result = yield* Effect.either(FetchUrl.get({ allowHosts, resolve, allowPrivateAddresses: allowPrivate, maxRedirects: 5 }, urls[0]!))
        const reached = firstRefused === -1 ? chain.length : firstRefused
        expect(server.requests).toStrictEqual(chain.slice(0, reached).map((_, i) => `GET /hop/${i}`))
        if (firstRefused === -1) expect(result).toMatchObject({ _tag: "Right", right: { status: 200, body: "end" } })
        else expect(result).toMatchObject({ _tag: "Left", left: { _tag: "UrlRefused", url: urls[0] } })
      }),
    { fastCheck: { numRuns: 200 } }
  )
})
