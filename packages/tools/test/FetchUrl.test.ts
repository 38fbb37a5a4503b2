import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as net from "node:net"
import { Executor, FunctionCall, Registry } from "@agentfx/core"
import { FetchUrl } from "@agentfx/tools"
import type { Handler } from "./support/loopback.js"
import { closedPort, loopback } from "./support/loopback.js"

const limit = 1000

const routes = (signals: { readonly stalled: Deferred.Deferred<void>; readonly aborted: Deferred.Deferred<void> }): Record<string, Handler> => {
  const stall: Handler = (request, response) => {
    request.socket.on("close", () => Deferred.unsafeDone(signals.aborted, Effect.void))
    Deferred.unsafeDone(signals.stalled, Effect.void)
    if (request.url === "/stall-body") {
      response.writeHead(200, { "content-type": "text/plain" })
      response.write("partial")
    }
  }
  return {
    "/ok": (request, response) => response.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(`hello ${request.method} ✓`),
    "/json": (_, response) => response.writeHead(201, { "content-type": "application/json" }).end(`{"a":1}`),
    "/missing": (_, response) => response.writeHead(404, { "content-type": "text/plain" }).end("not here"),
    "/redirect": (_, response) => response.writeHead(302, { location: "/ok" }).end(),
    "/redirect-twice": (_, response) => response.writeHead(301, { location: "/redirect" }).end(),
    "/redirect-out": (_, response, server) => response.writeHead(307, { location: `http://localhost:${server.port}/ok` }).end(),
    "/redirect-ftp": (_, response) => response.writeHead(302, { location: "ftp://127.0.0.1/file" }).end(),
    "/loop": (_, response) => response.writeHead(302, { location: "/loop" }).end(),
    "/exact": (_, response) => response.writeHead(200, { "content-type": "text/plain" }).end("x".repeat(limit)),
    "/exact-declared": (_, response) => response.writeHead(200, { "content-type": "text/plain", "content-length": String(limit) }).end("x".repeat(limit)),
    "/big-declared": (_, response) => response.writeHead(200, { "content-length": String(limit + 1) }).end("x".repeat(limit + 1)),
    "/big-chunked": (_, response) => {
      response.writeHead(200, { "content-type": "text/plain" })
      for (let i = 0; i < 11; i++) response.write("y".repeat(100))
      response.end()
    },
    "/stall": stall,
    "/stall-body": stall,
    "/headers": (request, response) => response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ accept: request.headers.accept })),
    "/untyped": (_, response) => response.writeHead(200).end("no type"),
    "/see-other": (_, response) => response.writeHead(303, { location: "/ok" }).end(),
    "/permanent": (_, response) => response.writeHead(308, { location: "ok?from=permanent" }).end(),
    "/moved-nowhere": (_, response) => response.writeHead(302, { "content-type": "text/plain" }).end("no location"),
    // "✓" is E2 9C 93: split between two chunks, then a body whose last character is cut short.
    "/split": (_, response) => {
      response.writeHead(200, { "content-type": "text/plain" })
      response.write(Buffer.from([0x61, 0xe2, 0x9c]))
      setTimeout(() => response.end(Buffer.from([0x93, 0x62])), 5)
    },
    // Declares more than the limit, then sends one byte and hangs up: refused on what it declares, unread.
    "/big-declared-short": (_, response) => {
      response.writeHead(200, { "content-type": "text/plain", "content-length": String(limit + 1) })
      response.write("x", () => response.destroy())
    },
    "/cut-char": (_, response) => response.writeHead(200, { "content-type": "text/plain" }).end(Buffer.from([0x61, 0xe2, 0x9c])),
    "/cut": (_, response) => {
      response.writeHead(200, { "content-type": "text/plain", "content-length": "100" })
      response.write("partial", () => response.destroy())
    }
  }
}

const setup = Effect.gen(function* () {
  const stalled = yield* Deferred.make<void>()
  const aborted = yield* Deferred.make<void>()
  const server = yield* loopback(routes({ stalled, aborted }))
  const options: FetchUrl.Options = { allowHosts: ["127.0.0.1"], maxBytes: limit, timeout: "5 seconds", maxRedirects: 3 }
  const registry = Registry.unsafeMake(FetchUrl.make(options))
  const fetchUrl = (url: string) => Executor.execute(registry, FunctionCall.make({ id: "c1", name: "fetch_url", args: { url } }))
  const refusal = (url: string) => Effect.map(Effect.flip(FetchUrl.get(options, url)), (error) => error)
  return { server, options, fetchUrl, refusal, stalled, aborted }
})

describe("fetch_url", () => {
  it.scoped("GETs an allowed URL and returns status, content type and body", () =>
    Effect.gen(function* () {
      const { server, fetchUrl } = yield* setup
      expect(yield* fetchUrl(`${server.origin}/ok`)).toStrictEqual({
        url: `${server.origin}/ok`,
        status: 200,
        content_type: "text/plain; charset=utf-8",
        body: "hello GET ✓"
      })
      expect(yield* fetchUrl(`${server.origin}/json`)).toMatchObject({ status: 201, content_type: "application/json", body: `{"a":1}` })
      expect(yield* fetchUrl(`${server.origin}/missing`)).toMatchObject({ status: 404, body: "not here" })
      expect(yield* fetchUrl(`${server.origin}/exact`)).toMatchObject({ status: 200, body: "x".repeat(limit) })
      expect(yield* fetchUrl(`${server.origin}/exact-declared`)).toMatchObject({ status: 200, body: "x".repeat(limit) })
      expect(server.requests).toStrictEqual(["GET /ok", "GET /json", "GET /missing", "GET /exact", "GET /exact-declared"])
    })
  )

  it.scoped("follows redirects on allowed hosts, and reports the final URL", () =>
    Effect.gen(function* () {
      const { server, fetchUrl } = yield* setup
      expect(yield* fetchUrl(`${server.origin}/redirect-twice`)).toMatchObject({ url: `${server.origin}/ok`, status: 200, body: "hello GET ✓" })
      expect(server.requests).toStrictEqual(["GET /redirect-twice", "GET /redirect", "GET /ok"])
    })
  )

  it.scoped("asks for text or JSON, and reports a response without a content type as an empty one", () =>
    Effect.gen(function* () {
      const { server, fetchUrl } = yield* setup
      expect(yield* fetchUrl(`${server.origin}/headers`)).toMatchObject({ body: JSON.stringify({ accept: "text/*, application/json, */*;q=0.5" }) })
      expect(yield* fetchUrl(`${server.origin}/untyped`)).toStrictEqual({ url: `${server.origin}/untyped`, status: 200, content_type: "", body: "no type" })
    })
  )

  it.scoped("follows 303 and 308 redirects (a relative location against the current URL); a redirect status without a location is the answer", () =>
    Effect.gen(function* () {
      const { server, fetchUrl } = yield* setup
      expect(yield* fetchUrl(`${server.origin}/see-other`)).toMatchObject({ url: `${server.origin}/ok`, status: 200 })
      expect(yield* fetchUrl(`${server.origin}/permanent`)).toMatchObject({ url: `${server.origin}/ok?from=permanent`, status: 200 })
      expect(yield* fetchUrl(`${server.origin}/moved-nowhere`)).toStrictEqual({ url: `${server.origin}/moved-nowhere`, status: 302, content_type: "text/plain", body: "no location" })
      expect(server.requests).toStrictEqual(["GET /see-other", "GET /ok", "GET /permanent", "GET /ok?from=permanent", "GET /moved-nowhere"])
    })
  )

  it.scoped("decodes a character split between chunks, and ends a body cut inside one with a replacement character", () =>
    Effect.gen(function* () {
      const { server, fetchUrl } = yield* setup
      expect(yield* fetchUrl(`${server.origin}/split`)).toMatchObject({ body: "a✓b" })
      expect(yield* fetchUrl(`${server.origin}/cut-char`)).toMatchObject({ body: "a\ufffd" })
    })
  )

  it.scoped("fails when the connection closes before the body is complete", () =>
    Effect.gen(function* () {
      const { server, refusal } = yield* setup
      const error = yield* refusal(`${server.origin}/cut`)
      expect(error).toMatchObject({ _tag: "FetchFailed", url: `${server.origin}/cut` })
      expect(error.message).toBe(`fetching "${server.origin}/cut" failed: the body could not be read: the connection was closed`)
    })
  )

  it.scoped("without options: at most 5 redirects and a body of 1,000,000 bytes", () =>
    Effect.gen(function* () {
      const big = "z".repeat(1_000_000)
      const server = yield* loopback({
        "/loop": (_, response) => response.writeHead(302, { location: "/loop" }).end(),
        "/at-limit": (_, response) => response.writeHead(200, { "content-type": "text/plain" }).end(big),
        "/over-limit": (_, response) => {
          response.writeHead(200, { "content-type": "text/plain" })
          response.end(`${big}z`)
        }
      })
      const options = { allowHosts: ["127.0.0.1"] }
      expect(yield* Effect.flip(FetchUrl.get(options, `${server.origin}/loop`))).toMatchObject({ _tag: "FetchFailed", reason: "more than 5 redirects" })
      expect(server.requests).toHaveLength(6)
      expect((yield* FetchUrl.get(options, `${server.origin}/at-limit`)).body).toHaveLength(1_000_000)
      const tooLarge = yield* Effect.flip(FetchUrl.get(options, `${server.origin}/over-limit`))
      expect(tooLarge).toMatchObject({ _tag: "ResponseTooLarge", limit: 1_000_000 })
      expect(tooLarge.message).toBe(`the response from "${server.origin}/over-limit" is larger than the limit of 1000000 bytes`)
    })
  )

  it.scoped("refuses URLs that are not absolute http(s) URLs, or carry credentials, before connecting", () =>
    Effect.gen(function* () {
      const { server, refusal } = yield* setup
      const cases: ReadonlyArray<readonly [string, string]> = [
        ["not a url", "it is not a valid absolute URL"],
        ["/ok", "it is not a valid absolute URL"],
        ["ftp://127.0.0.1/file", "only http and https URLs may be fetched, not ftp:"],
        ["file:///etc/passwd", "only http and https URLs may be fetched, not file:"],
        ["data:text/plain,hi", "only http and https URLs may be fetched, not data:"],
        [`http://user:secret@127.0.0.1:${server.port}/ok`, "URLs with credentials are not allowed"],
        [`http://user@127.0.0.1:${server.port}/ok`, "URLs with credentials are not allowed"],
        [`http://:secret@127.0.0.1:${server.port}/ok`, "URLs with credentials are not allowed"]
      ]
      for (const [url, reason] of cases) expect(yield* refusal(url)).toMatchObject({ _tag: "UrlRefused", url, reason })
      expect(server.requests).toStrictEqual([])
    })
  )

  it.scoped("refuses hosts that are not on the allow-list", () =>
    Effect.gen(function* () {
      const { server, refusal } = yield* setup
      for (const host of ["localhost", "127.0.0.2", "[::1]", "example.com"]) {
        const error = yield* refusal(`http://${host}:${server.port}/ok`)
        expect(error).toMatchObject({ _tag: "UrlRefused" })
        expect(error.message).toContain("is not on the allow-list (127.0.0.1)")
      }
      expect(server.requests).toStrictEqual([])
    })
  )

  it.scoped("refuses a redirect to a host or scheme that is not allowed, without following it", () =>
    Effect.gen(function* () {
      const { server, refusal } = yield* setup
      const out = yield* refusal(`${server.origin}/redirect-out`)
      expect(out).toMatchObject({ _tag: "UrlRefused", url: `${server.origin}/redirect-out` })
      expect(out.message).toContain(`redirected to http://localhost:${server.port}/ok: the host localhost is not on the allow-list`)
      const ftp = yield* refusal(`${server.origin}/redirect-ftp`)
      expect(ftp.message).toContain("redirected to ftp://127.0.0.1/file: only http and https URLs may be fetched")
      expect(server.requests).toStrictEqual(["GET /redirect-out", "GET /redirect-ftp"])
    })
  )

  it.scoped("gives up after maxRedirects", () =>
    Effect.gen(function* () {
      const { server, refusal } = yield* setup
      expect(yield* refusal(`${server.origin}/loop`)).toMatchObject({ _tag: "FetchFailed", reason: "more than 3 redirects" })
      expect(server.requests).toHaveLength(4)
    })
  )

  it.scoped("refuses a body over the byte limit, declared or streamed", () =>
    Effect.gen(function* () {
      const { server, refusal } = yield* setup
      for (const path of ["/big-declared", "/big-chunked"]) {
        expect(yield* refusal(`${server.origin}${path}`)).toMatchObject({ _tag: "ResponseTooLarge", url: `${server.origin}${path}`, limit })
      }
    })
  )

  it.scoped("refuses a body whose declared length is over the limit without reading it", () =>
    Effect.gen(function* () {
      const { server, refusal } = yield* setup
      expect(yield* refusal(`${server.origin}/big-declared-short`)).toMatchObject({ _tag: "ResponseTooLarge", url: `${server.origin}/big-declared-short`, limit })
    })
  )

  it.scoped("speaks TLS to an https URL", () =>
    Effect.gen(function* () {
      const firstByte = yield* Deferred.make<number>()
      const server = net.createServer((socket) =>
        socket.once("data", (data) => {
          Deferred.unsafeDone(firstByte, Effect.succeed(data[0]!))
          socket.destroy()
        })
      )
      const port = yield* Effect.acquireRelease(
        Effect.async<number>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as net.AddressInfo).port)))),
        () => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
      )
      const error = yield* Effect.flip(FetchUrl.get({ allowHosts: ["127.0.0.1"] }, `https://127.0.0.1:${port}/`))
      expect(error).toMatchObject({ _tag: "FetchFailed", url: `https://127.0.0.1:${port}/` })
      // 0x16: a TLS handshake record, the client's hello.
      expect(yield* Deferred.await(firstByte)).toBe(0x16)
    })
  )

  it("its Result schema accepts what it returns and refuses an answer with a field missing", () => {
    const answer = { url: "http://127.0.0.1/", status: 200, content_type: "text/plain", body: "hi" }
    expect(Schema.decodeUnknownEither(FetchUrl.Result)(answer)).toStrictEqual(Either.right(answer))
    expect(Either.isLeft(Schema.decodeUnknownEither(FetchUrl.Result)({ url: "http://127.0.0.1/", status: 200, body: "hi" }))).toBe(true)
  })

  it.scoped("fails cleanly when nothing listens", () =>
    Effect.gen(function* () {
      const port = yield* closedPort
      const error = yield* Effect.flip(FetchUrl.get({ allowHosts: ["127.0.0.1"] }, `http://127.0.0.1:${port}/`))
      expect(error).toMatchObject({ _tag: "FetchFailed" })
      expect(error.message).toContain("ECONNREFUSED")
    })
  )

  for (const path of ["/stall", "/stall-body"]) {
    it.scoped(`times out (TestClock) and aborts the request when the server stalls: ${path}`, () =>
      Effect.gen(function* () {
        const { server, options, stalled, aborted } = yield* setup
        const fiber = yield* Effect.fork(FetchUrl.get(options, `${server.origin}${path}`))
        yield* Deferred.await(stalled)
        yield* TestClock.adjust("4 seconds")
        expect(fiber.unsafePoll()).toBeNull()
        yield* TestClock.adjust("1 second")
        const error = yield* Effect.flip(Fiber.join(fiber))
        expect(error).toMatchObject({ _tag: "FetchTimeout", url: `${server.origin}${path}` })
        expect(error.message).toBe(`fetching "${server.origin}${path}" took longer than 5s`)
        yield* Deferred.await(aborted)
      })
    )
  }

  it.scoped("times out after 10 seconds by default, and the tool's own timeout wins over the executor's", () =>
    Effect.gen(function* () {
      const { server, stalled } = yield* setup
      const registry = Registry.unsafeMake(FetchUrl.make({ allowHosts: ["127.0.0.1"] }))
      const call = FunctionCall.make({ id: "c1", name: "fetch_url", args: { url: `${server.origin}/stall` } })
      const fiber = yield* Effect.fork(Executor.execute(registry, call))
      yield* Deferred.await(stalled)
      yield* TestClock.adjust("9 seconds")
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 second")
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toMatchObject({ _tag: "ExecutionFailed", cause: { _tag: "FetchTimeout", url: `${server.origin}/stall` } })
      expect(error.message).toContain("took longer than 10s")
    })
  )

  it("matches allow-list entries exactly or by *.domain wildcard, case-insensitively", () => {
    const allow = ["Example.com", "*.wiki.org"]
    expect(FetchUrl.isAllowed(allow, "example.com")).toBe(true)
    expect(FetchUrl.isAllowed(allow, "example.com.")).toBe(true)
    expect(FetchUrl.isAllowed(allow, "www.example.com")).toBe(false)
    expect(FetchUrl.isAllowed(allow, "en.wiki.org")).toBe(true)
    expect(FetchUrl.isAllowed(allow, "a.b.wiki.org")).toBe(true)
    expect(FetchUrl.isAllowed(allow, "wiki.org")).toBe(false)
    expect(FetchUrl.isAllowed(allow, "evilwiki.org")).toBe(false)
    expect(FetchUrl.isAllowed([], "example.com")).toBe(false)
  })

  it.effect("sends the model a readable refusal", () =>
    Effect.gen(function* () {
      const registry = Registry.unsafeMake(FetchUrl.make({ allowHosts: [] }))
      const call = FunctionCall.make({ id: "c1", name: "fetch_url", args: { url: "https://example.com/" } })
      const result = yield* Effect.either(Executor.execute(registry, call))
      expect(Executor.responseFor(call, result).response).toMatchObject({
        error: {
          type: "ExecutionFailed",
          message: `"fetch_url" failed: fetching "https://example.com/" refused: the host example.com is not on the allow-list (empty)`,
          details: { _tag: "UrlRefused", url: "https://example.com/" }
        }
      })
    })
  )
})
