/**
 * Configuration and transport failures through the real SDKs, on loopback only: a base URL that cannot work is a
 * request error reported at once (never retried), a failed connection names the endpoint and the system's code,
 * and a server error whose body is not JSON is still the outage it is (retryable), not a malformed answer.
 */
import { Agent, LanguageModel, ModelError, Registry } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Redacted } from "effect"
import { APIConnectionError } from "openai"
import { createServer } from "node:net"
import type { AddressInfo } from "node:net"
import * as ChatCompletions from "../src/ChatCompletions.js"
import * as Gemini from "../src/Gemini.js"
import * as Glm from "../src/Glm.js"
import { transportError } from "../src/internal/endpoint.js"
import { ask, sentinel } from "./fixtures.js"
import { misbehaving } from "./support/misbehaving.js"

const makers = {
  gemini: (baseUrl: string) => Gemini.make({ apiKey: Redacted.make(sentinel), baseUrl }),
  chat: (baseUrl: string) => ChatCompletions.make({ apiKey: Redacted.make(sentinel), baseUrl, model: "m" })
}

const modes = {
  generate: (model: LanguageModel.Service) => model.generate(ask("hi")),
  stream: (model: LanguageModel.Service) => LanguageModel.collect(model.stream(ask("hi")))
}

const failure = <A>(exit: Exit.Exit<A, ModelError.ModelError>): ModelError.ModelError => {
  if (Exit.isSuccess(exit) || exit.cause._tag !== "Fail") throw new Error(`expected a failure, got ${JSON.stringify(exit)}`)
  return exit.cause.error
}

/** A loopback port where nothing listens: taken, then given back. */
const closedPort = Effect.async<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

describe("an unusable base URL is a request error, at once", () => {
  const urls: Record<string, string> = {
    "not a URL": "not a url",
    "a non-http scheme": "ftp://127.0.0.1:21/v1",
    "an unclosed IPv6 literal": "http://[::1",
    "a file URL": "file:///etc/passwd",
    "a non-http URL with a credential": `ftp://user:${sentinel}@127.0.0.1/?token=${sentinel}`,
    "an unparseable URL with a credential": `http://user:${sentinel}@[::1/?key=${sentinel}`
  }
  for (const [provider, make] of Object.entries(makers)) {
    for (const [mode, send] of Object.entries(modes)) {
      for (const [name, url] of Object.entries(urls)) {
        it.effect(`${provider} ${mode}: ${name} is InvalidRequest (not retryable), naming at most the scheme, never the URL`, () =>
          Effect.gen(function* () {
            const error = failure(yield* Effect.exit(send(yield* make(url))))
            expect(error._tag).toBe("InvalidRequest")
            expect(error.retryable).toBe(false)
            expect(error.message).not.toContain(url)
            expect(error.message).not.toContain(sentinel)
            expect(error.message).not.toContain("user")
            const scheme = /^(ftp|file):/.exec(url)?.[1]
            expect(error.message).toBe(
              scheme === undefined ? "the base URL is not a valid URL" : `the base URL is not http:// or https:// (its scheme is ${scheme})`
            )
          }))
      }
    }
  }

  for (const [provider, make] of Object.entries(makers)) {
    for (const [mode, send] of Object.entries(modes)) {
      it.scopedLive(`${provider} ${mode}: an http URL holding a user name or password is InvalidRequest at once, never sent, never quoted (issue 35, item 7)`, () =>
        Effect.gen(function* () {
          let connections = 0
          const server = createServer((socket) => {
            connections++
            socket.destroy()
          })
          const port = yield* Effect.acquireRelease(
            Effect.async<number>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))),
            () => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
          )
          for (const url of [`http://user:${sentinel}@127.0.0.1:${port}`, `http://${sentinel}@127.0.0.1:${port}/v1`]) {
            const error = failure(yield* Effect.exit(send(yield* make(url))))
            expect(error).toMatchObject({ _tag: "InvalidRequest", retryable: false, message: "the base URL holds a user name or password, which fetch refuses" })
          }
          expect(connections).toBe(0)
        }))
    }
  }

  it.effect("a run with the default retry policy fails on its first attempt (the TestClock never moves: a retry would hang)", () =>
    Effect.gen(function* () {
      const layer = Layer.effect(LanguageModel.LanguageModel, makers.gemini("ftp://127.0.0.1/"))
      const exit = yield* Effect.exit(Agent.run({ registry: Registry.empty, prompt: "hi", streaming: true }).pipe(Effect.provide(layer)))
      expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "InvalidRequest" } } })
    }))

  it.effect("from the environment, a bad *_BASE_URL (not http(s), or holding a password) fails the layer with a ConfigError naming it; a blank one is unset", () =>
    Effect.gen(function* () {
      const build = (env: Record<string, string>) =>
        Effect.exit(
          Effect.scoped(Layer.build(Glm.layerConfig())).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries({ ZAI_API_KEY: sentinel, ...env })))))
        )
      const bad = yield* build({ ZAI_BASE_URL: "ftp://example.com/v4" })
      expect(Exit.isFailure(bad)).toBe(true)
      expect(JSON.stringify(bad)).toContain("ZAI_BASE_URL must be an http:// or https:// URL")
      expect(JSON.stringify(bad)).not.toContain(sentinel)
      expect(Exit.isSuccess(yield* build({ ZAI_BASE_URL: "  " }))).toBe(true)
      const gemini = yield* Effect.exit(
        Effect.scoped(Layer.build(Gemini.layerConfig())).pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["GEMINI_API_KEY", sentinel], ["GEMINI_BASE_URL", "localhost:8080"]])))
        )
      )
      expect(Exit.isFailure(gemini)).toBe(true)
      const credentials = yield* build({ ZAI_BASE_URL: `http://user:${sentinel}@127.0.0.1:9/v4` })
      expect(JSON.stringify(credentials)).toContain("ZAI_BASE_URL cannot hold a user name or password: fetch refuses such a URL")
      expect(JSON.stringify(credentials)).not.toContain(sentinel)
    }))
})

describe("a failed connection names the endpoint and its cause", () => {
  for (const [provider, make] of Object.entries(makers)) {
    for (const [mode, send] of Object.entries(modes)) {
      it.live(`${provider} ${mode}: nothing listening is Unavailable "cannot connect to <url>: ECONNREFUSED"`, () =>
        Effect.gen(function* () {
          const port = yield* closedPort
          // The key in the query is never shown: errors name the endpoint without its query.
          const error = failure(yield* Effect.exit(send(yield* make(`http://127.0.0.1:${port}/v1?key=${sentinel}`))))
          expect(error._tag).toBe("Unavailable")
          expect(error.retryable).toBe(true)
          expect(error.message).toBe(`cannot connect to http://127.0.0.1:${port}/v1: ECONNREFUSED`)
        }))

      it.scoped(`${provider} ${mode}: a connection the server resets is Unavailable, naming the endpoint`, () =>
        Effect.gen(function* () {
          const server = yield* misbehaving
          server.answer = (request) => request.socket.destroy()
          const error = failure(yield* Effect.exit(send(yield* make(server.origin))))
          expect(error._tag).toBe("Unavailable")
          expect(error.message).toMatch(new RegExp(`^the connection to ${server.origin.replace(/\./g, "\\.")} failed: (ECONNRESET|UND_ERR_SOCKET)`))
          expect(error.message).not.toContain(sentinel)
        }))
    }
  }

  it("a connection error shows the endpoint without its user info or query", () => {
    const error = transportError(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }), `http://user:${sentinel}@127.0.0.1:9/v1?key=${sentinel}`, (text) => text)
    expect(error.message).toBe("cannot connect to http://127.0.0.1:9/v1: ECONNREFUSED")
  })

  it("a name that does not resolve reads as ENOTFOUND, from undici's and from the openai SDK's wrapping", () => {
    const lookup = Object.assign(new Error("getaddrinfo ENOTFOUND api.example.invalid"), { code: "ENOTFOUND" })
    const undici = new TypeError("fetch failed", { cause: lookup })
    const openai = new APIConnectionError({ cause: new TypeError("fetch failed", { cause: lookup }) })
    for (const error of [undici, openai]) {
      expect(transportError(error, "https://api.example.invalid/v1/", (text) => text).message).toBe("cannot connect to https://api.example.invalid/v1: ENOTFOUND")
    }
  })
})

describe("a Gemini server error whose body is not JSON is an outage, not a malformed answer", () => {
  const bodies: Record<string, [number, string, string, ModelError.ModelError["_tag"]]> = {
    "500, an HTML page sent as JSON": [500, "application/json", "<html><body>Internal error</body></html>", "Unavailable"],
    "500, half a JSON object": [500, "application/json; charset=utf-8", `{"error": {`, "Unavailable"],
    "503, an empty JSON body": [503, "application/json", "", "Overloaded"],
    "502, plain text": [502, "text/plain", "upstream connect error", "Unavailable"],
    "504, HTML": [504, "text/html", "<h1>Gateway Timeout</h1>", "Unavailable"]
  }
  for (const [mode, send] of Object.entries(modes)) {
    for (const [name, [status, contentType, text, tag]] of Object.entries(bodies)) {
      it.scoped(`${mode}: ${name} → ${tag} with its status, retryable`, () =>
        Effect.gen(function* () {
          const server = yield* misbehaving
          server.answer = (_, response) => response.writeHead(status, { "content-type": contentType }).end(text)
          const error = failure(yield* Effect.exit(send(yield* makers.gemini(server.origin))))
          expect(error).toMatchObject({ _tag: tag, status })
          expect(error.retryable).toBe(true)
        }))
    }
  }

  it.scoped("a JSON error body is still read as before (RetryInfo, status)", () =>
    Effect.gen(function* () {
      const server = yield* misbehaving
      server.answer = (_, response) =>
        response.writeHead(429, { "content-type": "application/json" }).end(
          JSON.stringify({ error: { code: 429, status: "RESOURCE_EXHAUSTED", message: "slow down", details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "7s" }] } })
        )
      const error = failure(yield* Effect.exit(makers.gemini(server.origin).pipe(Effect.flatMap(modes.generate))))
      expect(error).toMatchObject({ _tag: "RateLimited", status: 429, message: "RESOURCE_EXHAUSTED: slow down" })
      expect(ModelError.retryAfter(error)).toMatchObject({ _tag: "Some" })
    }))
})
