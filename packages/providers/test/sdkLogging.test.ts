import { LanguageModel } from "@agentfx/core"
import { describe, expect, it, vi } from "@effect/vitest"
import { Cause, Effect, Exit, Logger, LogLevel, Redacted } from "effect"
import * as ChatCompletions from "../src/ChatCompletions.js"
import * as Gemini from "../src/Gemini.js"
import { scrubber, spellings } from "../src/internal/secrets.js"
import { ask, sentinel } from "./fixtures.js"
import { keyOf, misbehaving } from "./support/misbehaving.js"

const b64 = (text: string) => Buffer.from(text).toString("base64")

/** Everything written to the console and to stdout / stderr while `effect` runs. */
const capturingOutput = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const written: Array<string> = []
      const keep = (...args: Array<unknown>) => void written.push(args.map((arg) => (typeof arg === "string" ? arg : JSON.stringify(arg) ?? String(arg))).join(" "))
      const spies = [
        ...(["error", "warn", "log", "info", "debug"] as const).map((method) => vi.spyOn(console, method).mockImplementation(keep)),
        vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => (keep(String(chunk)), true)),
        vi.spyOn(process.stdout, "write").mockImplementation((chunk: unknown) => (keep(String(chunk)), true))
      ]
      return { written, spies }
    }),
    ({ written }) => Effect.map(effect, (result) => ({ result, written })),
    ({ spies }) => Effect.sync(() => spies.forEach((spy) => spy.mockRestore()))
  )

/** A malformed stream chunk that echoes the key plain, base64, and base64 of the Authorization header value. */
const echoingChunk = (key: string) => `{"echo": "${key}" ${b64(key)} ${b64(`Bearer ${key}`)} x${b64(`Bearer ${key}`)}`

describe("the SDKs' own logging never prints the key", () => {
  it.scoped("openai: a malformed stream chunk echoing the key is logged by the SDK only through the scrubber, at debug level", () =>
    Effect.gen(function* () {
      const server = yield* misbehaving
      server.answer = (request, response) => {
        response.writeHead(200, { "content-type": "text/event-stream" })
        response.end(`data: ${echoingChunk(keyOf(request))}\n\n`)
      }
      const lines: Array<string> = []
      const sdks: Array<unknown> = []
      const logger = Logger.make(({ annotations, message }) => {
        lines.push(JSON.stringify(message))
        sdks.push(Object.fromEntries(annotations).sdk)
      })
      const { result: exit, written } = yield* capturingOutput(
        Effect.gen(function* () {
          const model = yield* ChatCompletions.make({ apiKey: Redacted.make(sentinel), baseUrl: server.origin, model: "m" })
          return yield* Effect.exit(LanguageModel.collect(model.stream(ask("hi"))))
        }).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)), Logger.withMinimumLogLevel(LogLevel.Debug))
      )
      expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "MalformedResponse" } } })
      if (Exit.isFailure(exit)) expect(Cause.pretty(exit.cause)).not.toContain(sentinel)
      // The SDK did log the chunk, and the line reached our logger scrubbed.
      expect(lines.some((line) => line.includes("Could not parse message into JSON") && line.includes("[redacted]"))).toBe(true)
      // Each line says which SDK logged it.
      expect(new Set(sdks)).toEqual(new Set(["openai"]))
      const everything = [...written, ...lines].join("\n")
      for (const leak of [sentinel, b64(sentinel), b64(`Bearer ${sentinel}`)]) expect(everything).not.toContain(leak)
      expect(written.join("\n")).not.toContain("Could not parse")
    })
  )

  it.scoped("gemini: a malformed stream chunk echoing the key ends as a scrubbed MalformedResponse, nothing printed", () =>
    Effect.gen(function* () {
      const server = yield* misbehaving
      server.answer = (request, response) => {
        response.writeHead(200, { "content-type": "text/event-stream" })
        response.end(`data: ${echoingChunk(keyOf(request))}\n\n`)
      }
      const { result: exit, written } = yield* capturingOutput(
        Effect.gen(function* () {
          const model = yield* Gemini.make({ apiKey: Redacted.make(sentinel), baseUrl: server.origin })
          return yield* Effect.exit(LanguageModel.collect(model.stream(ask("hi"))))
        })
      )
      expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "MalformedResponse" } } })
      if (Exit.isFailure(exit)) {
        const pretty = Cause.pretty(exit.cause)
        for (const leak of [sentinel, b64(sentinel), b64(`Bearer ${sentinel}`)]) expect(pretty).not.toContain(leak)
      }
      for (const leak of [sentinel, b64(sentinel)]) expect(written.join("\n")).not.toContain(leak)
      // An error event mid-stream that echoes the key encoded: its message is kept, the key is not.
      server.answer = (request, response) => {
        response.writeHead(200, { "content-type": "text/event-stream" })
        const echoed = `${b64(`x-goog-api-key: ${keyOf(request)}`)} ${b64(keyOf(request))}`
        response.end(`data: {"error": {"code": 500, "message": "upstream saw ${echoed}", "status": "INTERNAL"}}\n\n`)
      }
      const model = yield* Gemini.make({ apiKey: Redacted.make(sentinel), baseUrl: server.origin })
      const error = yield* Effect.flip(LanguageModel.collect(model.stream(ask("hi"))))
      expect(error.message).toContain("upstream saw")
      expect(error.message).toContain("[redacted]")
      for (const leak of [b64(sentinel), b64(`x-goog-api-key: ${sentinel}`)]) expect(error.message).not.toContain(leak)
    })
  )

  it("the scrubber removes the key plain, URL-encoded, and base64 / base64url of it and of its header values, at any alignment", () => {
    const key = "AIza-Sy+/key_0123456789~"
    const scrub = scrubber(Redacted.make(key))
    for (const prefix of ["", "a", "ab", "abc"]) {
      for (const plain of [key, `Bearer ${key}`, `x-goog-api-key: ${key}`]) {
        for (const encoding of ["base64", "base64url"] as const) {
          const text = Buffer.from(`${prefix}${plain}${prefix}`).toString(encoding)
          const scrubbed = scrub(`before ${text} after`)
          expect(scrubbed).toContain("[redacted]")
          expect(Buffer.from(scrubbed, encoding).toString()).not.toContain(key.slice(3, -3))
        }
      }
    }
    expect(scrub(`?key=${encodeURIComponent(key)}&x`)).toBe("?key=[redacted]&x")
    expect(scrub("nothing secret here")).toBe("nothing secret here")
    const header = Buffer.from(`Bearer ${key}`).toString("base64")
    expect(spellings(key).some((spelling) => spelling.length >= header.length - 4 && header.startsWith(spelling))).toBe(true)
  })
})
