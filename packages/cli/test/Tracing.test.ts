import { Agent, LanguageModel, Registry, Retry, Telemetry, Tool } from "@agentfx/core"
import { Fault, Policy } from "@agentfx/emulator"
import { Gemini } from "@agentfx/providers"
import { OtlpSerialization, OtlpTracer } from "@effect/opentelemetry"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as fs from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import * as TraceDelivery from "../src/internal/traceDelivery.js"
import { defaultTimeout, parseHeaders, settings } from "../src/internal/tracing.js"
import { agentfx, count, emulator, tempDir, viaGemini, writeFiles } from "./support/cli.js"
import * as Executable from "./support/executable.js"

interface Received {
  readonly path: string
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: string
}

/**
 * An OTLP/HTTP collector on 127.0.0.1 that keeps what it is sent (protobuf bodies read as UTF-8: their strings show
 * as they are). It answers 200, or the status given, or never.
 */
const collector = (answer: number | "never" = 200) =>
  Effect.gen(function* () {
    const received: Array<Received> = []
    const server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        received.push({ path: request.url ?? "", headers: request.headers, body: Buffer.concat(chunks).toString("utf8") })
        if (answer !== "never") response.writeHead(answer, { "content-type": "application/json" }).end("{}")
      })
    })
    const port = yield* Effect.acquireRelease(
      Effect.async<number>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))),
      () =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    return { url: `http://127.0.0.1:${port}`, received }
  })

/** A port on 127.0.0.1 where nothing listens (it was free a moment ago). */
const closedPort = Effect.async<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

interface Span {
  readonly name: string
  readonly attributes: Record<string, unknown>
  readonly status: { readonly code?: number; readonly message?: string }
  readonly events: ReadonlyArray<{ readonly name: string; readonly attributes: Record<string, unknown> }>
}

const attributesOf = (list: ReadonlyArray<{ key: string; value: Record<string, unknown> }>) => Object.fromEntries(list.map((a) => [a.key, Object.values(a.value)[0]]))

/** Every span the collector was sent as OTLP/JSON, with its attributes and events' attributes as plain objects. */
const spansOf = (received: ReadonlyArray<Received>): ReadonlyArray<Span> =>
  received.flatMap((request) =>
    (
      JSON.parse(request.body) as {
        resourceSpans: Array<{
          scopeSpans: Array<{
            spans: Array<{
              name: string
              attributes: Array<{ key: string; value: Record<string, unknown> }>
              status: { code?: number; message?: string }
              events: Array<{ name: string; attributes: Array<{ key: string; value: Record<string, unknown> }> }>
            }>
          }>
        }>
      }
    ).resourceSpans.flatMap((resource) =>
      resource.scopeSpans.flatMap((scope) =>
        scope.spans.map((span) => ({
          name: span.name,
          attributes: attributesOf(span.attributes),
          status: span.status,
          events: span.events.map((event) => ({ name: event.name, attributes: attributesOf(event.attributes) }))
        }))
      )
    )
  )

const everything = (received: ReadonlyArray<Received>) => received.map((request) => request.body).join("\n")

const withheld = "the failure's details are recorded only with message content capture on"

/** The environment that sends a command's traces to `url` as OTLP/JSON (the tests read them). */
const jsonTo = (url: string) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })

const lines = (text: string): ReadonlyArray<string> => text.split("\n").filter((line) => line !== "")

describe("agentfx exports OpenTelemetry traces when OTEL_EXPORTER_OTLP_ENDPOINT is set", () => {
  it.scopedLive("a run's spans reach the collector as OTLP/JSON, with the headers given and no message contents", () =>
    Effect.gen(function* () {
      const { url, received } = yield* collector()
      const result = yield* agentfx(["run", "what is 12 * 12"], {
        env: { ...jsonTo(url), OTEL_EXPORTER_OTLP_HEADERS: "x-tenant=blue%20team", OTEL_SERVICE_NAME: "my-agent" }
      })
      expect(result.code).toBe(0)
      // Every batch delivered: nothing said of them.
      expect(lines(result.stderr)).toEqual([expect.stringMatching(/^provider: emulator/)])
      expect(received.length).toBeGreaterThan(0)
      expect(received.every((request) => request.path === "/v1/traces")).toBe(true)
      expect(received[0]!.headers["x-tenant"]).toBe("blue team")
      expect(received[0]!.headers["content-type"]).toBe("application/json")
      const spans = spansOf(received)
      const names = spans.map((span) => span.name)
      expect(names).toEqual(expect.arrayContaining(["invoke_agent agentfx", "execute_tool calculator"]))
      expect(names.some((name) => name.startsWith("chat "))).toBe(true)
      expect(spans.find((span) => span.name === "execute_tool calculator")!.attributes).toMatchObject({ "gen_ai.tool.name": "calculator" })
      expect(everything(received)).toContain("my-agent")
      expect(everything(received)).not.toContain("12 * 12")
    }))

  it.scopedLive("with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true the contents are on the spans", () =>
    Effect.gen(function* () {
      const { url, received } = yield* collector()
      const result = yield* agentfx(["run", "what is 12 * 12"], { env: { ...jsonTo(url), OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" } })
      expect(result.code).toBe(0)
      const tool = spansOf(received).find((span) => span.name === "execute_tool calculator")!
      expect(JSON.parse(String(tool.attributes["gen_ai.tool.call.arguments"]))).toEqual({ expression: "12 * 12" })
    }))

  it.scopedLive("without the variable nothing is sent, even with the other OTEL variables set", () =>
    Effect.gen(function* () {
      const { url, received } = yield* collector()
      const result = yield* agentfx(["run", "what is 1 + 1"], { env: { OTEL_SERVICE_NAME: "my-agent", OTEL_EXPORTER_OTLP_HEADERS: `x-url=${url}` } })
      expect(result.code).toBe(0)
      expect(result.stdout).toContain("2")
      expect(received).toEqual([])
    }))

  it("OTLP headers are read as the specification writes them", () => {
    expect(parseHeaders("a=1, b = two%20words ,=skipped,c")).toEqual({ a: "1", b: "two words" })
    expect(parseHeaders("")).toEqual({})
  })

  it("a pair without = or without a name is skipped, a value is split at its first =, and one that is not URL-encoded is kept as written", () => {
    expect(parseHeaders("novalue, =blank,token=a=b,d=%zz,e=100%")).toEqual({ token: "a=b", d: "%zz", e: "100%" })
  })
})

/** What a tool's arguments and a server's error body quote in the tests of item 2. */
const canary = "CANARY-2b9d"

describe("issue 35 item 2: with content capture off, no tool argument, error message or stack path reaches the OTLP export", () => {
  const readFile = Tool.make("read_file", {
    description: "Reads a file",
    parameters: Schema.Struct({ path: Schema.String }),
    failure: Schema.String,
    handler: ({ path }) => Effect.fail(`cannot read ${path}: no such file`)
  })
  const parse = Tool.make("parse", {
    description: "Parses a text",
    parameters: Schema.Struct({ text: Schema.String }),
    handler: ({ text }) =>
      Effect.sync(() => {
        throw new SyntaxError(`unexpected token in ${text}`)
      })
  })
  const registry = Registry.unsafeMake(readFile, parse)

  /**
   * Two runs through the real Gemini layer and SDK against the emulator, traced by `OtlpTracer` as the README sets
   * it up: one whose tools fail and die quoting their arguments, one whose model request fails with a server body
   * quoting the canary. Returns what the collector received once the tracer has flushed.
   */
  const library = (content: boolean) =>
    Effect.gen(function* () {
      const { url, received } = yield* collector()
      const server = yield* emulator({
        policy: Policy.script([
          { calls: [{ name: "read_file", args: { path: `${canary}/notes.txt` } }, { name: "parse", args: { text: `${canary} {` } }] },
          { text: "done" },
          Fault.status(400, { body: { error: { code: 400, message: `invalid request: ${canary}`, status: "INVALID_ARGUMENT" } } })
        ])
      })
      const model = yield* Gemini.make({ apiKey: Redacted.make(server.apiKey), baseUrl: server.geminiBaseUrl })
      const tracing = OtlpTracer.layer({ url: `${url}/v1/traces`, resource: { serviceName: "my-agent" } }).pipe(
        Layer.provide(Layer.merge(FetchHttpClient.layer, OtlpSerialization.layerJson))
      )
      const runs = Effect.gen(function* () {
        const first = yield* Agent.run({ registry, prompt: "read it" })
        const second = yield* Effect.either(Agent.run({ registry, prompt: "again", retry: Retry.policy({ maxRetries: 0 }) }))
        return { first, second }
      })
      const outcome = yield* (content ? Telemetry.withContent(runs) : runs).pipe(Effect.provideService(LanguageModel.LanguageModel, model), Effect.provide(tracing))
      return { ...outcome, received }
    })

  it.scopedLive("the library path: Agent.run under OtlpTracer, through the real Gemini SDK, exports the failures' types and a fixed description only", () =>
    Effect.gen(function* () {
      const { first, second, received } = yield* library(false)
      // The typed results the caller gets still say everything.
      expect(first.calls.map((call) => [call.name, Either.isLeft(call.result) ? call.result.left._tag : "ok"])).toEqual([
        ["read_file", "ExecutionFailed"],
        ["parse", "ExecutionFailed"]
      ])
      expect(Either.isLeft(second) && second.left.message).toContain(canary)
      const exported = everything(received)
      expect(count(exported, canary)).toBe(0)
      expect(exported).not.toContain(process.cwd())
      expect(exported).not.toMatch(/\bat .*:\d+:\d+/)
      const spans = spansOf(received)
      const failed = spans.filter((span) => span.status.code === 2)
      expect(failed.map((span) => [span.name, span.attributes["error.type"]]).sort()).toEqual([
        ["chat gemini-2.5-flash", "InvalidRequest"],
        ["execute_tool parse", "ExecutionFailed"],
        ["execute_tool read_file", "ExecutionFailed"],
        ["invoke_agent agentfx", "InvalidRequest"]
      ])
      for (const span of failed) {
        expect(span.status.message).toBe(withheld)
        expect(span.events.filter((event) => event.name === "exception").map((event) => event.attributes)).toEqual([
          { "exception.type": span.attributes["error.type"], "exception.message": withheld, "exception.stacktrace": `${String(span.attributes["error.type"])}: ${withheld}` }
        ])
      }
    }))

  it.scopedLive("the library path with Telemetry.withContent: the same canary is exported (what the test above looks for is there to find)", () =>
    Effect.gen(function* () {
      const { received } = yield* library(true)
      expect(count(everything(received), canary)).toBeGreaterThan(0)
    }))
})

describe("issue 35 items 2 and 18, the spawned executable: what it exports and how it ends", () => {
  let exe: Executable.Executable | undefined
  beforeAll(async () => {
    exe = await Executable.build(["run"])
  }, 180_000)
  afterAll(() => exe?.remove())

  /** `agentfx run "read <canary>/notes.txt please" --root <dir>`, spawned, traced to a collector; what it sent. */
  const readCanary = (env: Record<string, string>) =>
    Effect.gen(function* () {
      const { url, received } = yield* collector()
      const root = yield* tempDir
      writeFiles(root, { "present.txt": "x" })
      const result = yield* Effect.promise(() => exe!.run(["run", `read ${canary}/notes.txt please`, "--root", root], { env: { ...jsonTo(url), ...env } }))
      return { result, received, root }
    })

  it.scopedLive("item 2: agentfx run, read_file failing on a path holding a canary; the export holds no canary, no local path, no stack", () =>
    Effect.gen(function* () {
      const { result, received, root } = yield* readCanary({})
      expect(result.code).toBe(0)
      expect(result.stdout).toContain("← read_file failed:")
      expect(result.stdout).toContain(canary)
      const exported = everything(received)
      expect(spansOf(received).find((span) => span.name === "execute_tool read_file")).toMatchObject({
        status: { code: 2, message: withheld },
        attributes: { "error.type": "ExecutionFailed" }
      })
      expect(count(exported, canary)).toBe(0)
      expect(exported).not.toContain(root)
      expect(exported).not.toContain(Executable.repo)
      expect(exported).not.toMatch(/\bat .*:\d+:\d+/)
    }))

  it.scopedLive("item 2: the same run with content capture on exports the canary (the arguments and the failure's message)", () =>
    Effect.gen(function* () {
      const { result, received } = yield* readCanary({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" })
      expect(result.code).toBe(0)
      expect(count(everything(received), canary)).toBeGreaterThan(1)
    }))

  it.scopedLive("item 18: OTEL_EXPORTER_OTLP_PROTOCOL=grpc stops the process before it runs: exit 2, one line naming the variable", () =>
    Effect.gen(function* () {
      const { url, received } = yield* collector()
      const result = yield* Effect.promise(() => exe!.run(["run", "what is 2 + 2"], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" } }))
      expect(result.code).toBe(2)
      expect(result.stdout).toBe("")
      expect(lines(result.stderr)).toEqual([
        "agentfx: OTEL_EXPORTER_OTLP_PROTOCOL=grpc: agentfx exports traces over HTTP only; set it to http/protobuf (the default) or http/json, with the endpoint at the collector's OTLP/HTTP port (4318)"
      ])
      expect(received).toEqual([])
    }))

  it.scopedLive("item 18: a collector that cannot be reached: the command's output as usual, exit 0, then one line on stderr saying the traces were not delivered and why", () =>
    Effect.gen(function* () {
      const port = yield* closedPort
      const result = yield* Effect.promise(() => exe!.run(["run", "what is 2 + 2"], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` } }))
      expect(result.code).toBe(0)
      expect(result.stdout).toMatch(/2 \+ 2 = 4\.\n$/)
      expect(lines(result.stderr).at(-1)).toBe(`agentfx: traces were not delivered to http://127.0.0.1:${port}/v1/traces: the connection was refused (ECONNREFUSED)`)
    }))
})

describe("issue 35 item 14: a server's echo of the key upper-cased or cut to 12 characters is scrubbed from stderr, reports and the OTLP export", () => {
  const key = "AIzaSyTEST-k3y_0123456789abcdefghijkl"
  const echoes = [key.toUpperCase(), `${key.slice(0, 12)}…`]
  const refusing = (echo: string) => Fault.status(400, { body: { error: { code: 400, message: `request refused for key ${echo}`, status: "INVALID_ARGUMENT" } } })
  const noPartOfTheKey = (text: string) => expect(text.toLowerCase()).not.toContain(key.slice(0, 8).toLowerCase())

  it.scopedLive("agentfx run: stderr and the export (content capture on) say [redacted] where the echo was", () =>
    Effect.gen(function* () {
      for (const echo of echoes) {
        const { url, received } = yield* collector()
        const server = yield* emulator({ apiKey: key, policy: Policy.script([refusing(echo)]) })
        const { env, flags } = viaGemini(server)
        const result = yield* agentfx(["run", "hello", ...flags], { env: { ...env, ...jsonTo(url), OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" } })
        expect(result.code).toBe(1)
        expect(result.stderr).toContain("request refused for key [redacted]")
        noPartOfTheKey(result.stdout + result.stderr)
        // With contents captured the failure's message is on the spans: scrubbed there too.
        expect(everything(received)).toContain("request refused for key [redacted]")
        noPartOfTheKey(everything(received))
      }
    }))

  it.scopedLive("agentfx eval: the JSON report and the printed report say [redacted] where the echo was", () =>
    Effect.gen(function* () {
      for (const echo of echoes) {
        const dir = yield* tempDir
        writeFiles(dir, {
          "scenarios/plain.md": "---\nname: plain\ndescription: Answers\navailable_functions: []\n---\nAnswer briefly.\n",
          "cases/one.yaml": "id: one\nscenario: plain\ninput: hello\nexpected_function_calls: []\n"
        })
        const server = yield* emulator({ apiKey: key, policy: Policy.script([refusing(echo)]) })
        const { env, flags } = viaGemini(server)
        const report = path.join(dir, "report.json")
        const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), "--report-json", report, ...flags], { env })
        expect(result.code).toBe(1)
        const written = fs.readFileSync(report, "utf8")
        expect(written).toContain("request refused for key [redacted]")
        noPartOfTheKey(written + result.stdout + result.stderr)
      }
    }))
})

describe("issue 35 item 18: the standard variables are honoured or refused, never ignored; an unreachable collector is reported", () => {
  /** `settings` as the environment `env` gives it. */
  const settingsOf = (env: Record<string, string>) => Effect.either(Effect.withConfigProvider(settings, ConfigProvider.fromMap(new Map(Object.entries(env)))))
  const refusal = (env: Record<string, string>) => Effect.map(settingsOf(env), (result) => (Either.isLeft(result) ? result.left.message : "accepted"))

  it.effect("the protocol: http/protobuf by default (the specification's), http/json when asked; the traces variables go before the general ones", () =>
    Effect.gen(function* () {
      const at = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }
      expect(yield* settingsOf(at)).toEqual(
        Either.right(Option.some({ url: "http://collector:4318/v1/traces", protocol: "http/protobuf", headers: {}, timeout: defaultTimeout, serviceName: "agentfx", content: false }))
      )
      const json = yield* settingsOf({ ...at, OTEL_EXPORTER_OTLP_PROTOCOL: "HTTP/JSON" })
      expect(Either.getOrThrow(json).pipe(Option.map((chosen) => chosen.protocol))).toEqual(Option.some("http/json"))
      const specific = yield* settingsOf({
        ...at,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example/otlp",
        OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_HEADERS: "a=1,b=2",
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: "b=3",
        OTEL_EXPORTER_OTLP_TIMEOUT: "9000",
        OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: "500"
      })
      expect(Either.getOrThrow(specific)).toEqual(
        Option.some({ url: "https://traces.example/otlp", protocol: "http/json", headers: { a: "1", b: "3" }, timeout: Duration.millis(500), serviceName: "agentfx", content: false })
      )
    }))

  it.effect("a variable of blanks is unset, and the blanks around a value are not part of it", () =>
    Effect.gen(function* () {
      expect(
        yield* settingsOf({
          OTEL_EXPORTER_OTLP_ENDPOINT: " http://collector:4318// ",
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "  ",
          OTEL_EXPORTER_OTLP_PROTOCOL: " http/json ",
          OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: " ",
          OTEL_EXPORTER_OTLP_TIMEOUT: " 700 ",
          OTEL_EXPORTER_OTLP_HEADERS: " ",
          OTEL_SERVICE_NAME: " ",
          OTEL_TRACES_EXPORTER: " ",
          OTEL_SDK_DISABLED: " "
        })
      ).toEqual(Either.right(Option.some({ url: "http://collector:4318/v1/traces", protocol: "http/json", headers: {}, timeout: Duration.millis(700), serviceName: "agentfx", content: false })))
      expect(yield* settingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "  " })).toEqual(Either.right(Option.none()))
    }))

  it.effect("http/protobuf may be asked for by name; the general headers come under the traces' own", () =>
    Effect.gen(function* () {
      const chosen = yield* settingsOf({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
        OTEL_EXPORTER_OTLP_HEADERS: "a=1"
      })
      expect(Either.getOrThrow(chosen).pipe(Option.map(({ protocol, headers }) => ({ protocol, headers })))).toEqual(Option.some({ protocol: "http/protobuf", headers: { a: "1" } }))
      const traces = yield* settingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_EXPORTER_OTLP_TRACES_HEADERS: "b=2" })
      expect(Either.getOrThrow(traces).pipe(Option.map(({ headers }) => headers))).toEqual(Option.some({ b: "2" }))
    }))

  it.effect("a header HTTP cannot carry is refused naming its variable and its name, not its value: a name that is not a token, a value with a NUL, a line break or a character above U+00FF", () =>
    Effect.gen(function* () {
      const at = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }
      const headers = (variable: string, text: string) =>
        Effect.map(settingsOf({ ...at, [variable]: text }), (result) => (Either.isLeft(result) ? result.left.message : Option.getOrThrow(result.right).headers))
      const token = "x-A_1.~!#$%&'*+^`|9z"
      expect(yield* headers("OTEL_EXPORTER_OTLP_HEADERS", `${token}=v, latin=\u00ff\u0080\u007f, tab=a\tb`)).toEqual({ [token]: "v", latin: "\u00ff\u0080\u007f", tab: "a\tb" })
      for (const name of ["a b", "a:b", "a/b", "caf\u00e9", "a(b)", "a@b"]) {
        expect(yield* headers("OTEL_EXPORTER_OTLP_HEADERS", `${name}=v`)).toBe(`OTEL_EXPORTER_OTLP_HEADERS: "${name}" is not an HTTP header name`)
      }
      for (const value of ["Bearer%20se%0Acret", "se%0Dcret", "se%00cret", "se\u0100cret", "se%E2%82%ACcret"]) {
        expect(yield* headers("OTEL_EXPORTER_OTLP_TRACES_HEADERS", `ok=1,authorization=${value}`)).toBe(
          "OTEL_EXPORTER_OTLP_TRACES_HEADERS: the value of authorization holds a character HTTP cannot carry (a NUL, a line break, or one above U+00FF)"
        )
      }
    }))

  it.scopedLive("a header value with a line break stops the command before it runs, its value not shown; before, fetch refused it at export and the line said only Transport", () =>
    Effect.gen(function* () {
      const { url, received } = yield* collector()
      const result = yield* agentfx(["run", "what is 1 + 1"], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20se%0Acret" } })
      expect(result).toEqual({
        code: 2,
        stdout: "",
        stderr:
          "agentfx: OTEL_EXPORTER_OTLP_HEADERS: the value of authorization holds a character HTTP cannot carry (a NUL, a line break, or one above U+00FF)\n"
      })
      expect(received).toEqual([])
    }))

  it.effect("OTEL_TRACES_EXPORTER is a list: its names in any case, blanks and repeats aside; none or otlp alone, else refused as written", () =>
    Effect.gen(function* () {
      const exporter = (value: string) =>
        Effect.map(settingsOf({ OTEL_TRACES_EXPORTER: value }), (result) =>
          Either.isLeft(result) ? result.left.message : Option.match(result.right, { onNone: () => "none", onSome: (chosen) => chosen.url })
        )
      expect(yield* exporter(" OTLP , otlp ,")).toBe("http://localhost:4318/v1/traces")
      expect(yield* exporter("None")).toBe("none")
      expect(yield* exporter("none, none")).toBe("none")
      const refused = (written: string) => `OTEL_TRACES_EXPORTER=${written}: agentfx exports traces with otlp only; set it to otlp, or to none to export nothing`
      expect(yield* exporter("none,otlp")).toBe(refused("none,otlp"))
      expect(yield* exporter(" zipkin ")).toBe(refused("zipkin"))
    }))

  it.effect("OTEL_SDK_DISABLED and the content capture are true in any case and blanks; any other value leaves them off", () =>
    Effect.gen(function* () {
      const at = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }
      expect(yield* settingsOf({ ...at, OTEL_SDK_DISABLED: " True " })).toEqual(Either.right(Option.none()))
      expect(Option.isSome(Either.getOrThrow(yield* settingsOf({ ...at, OTEL_SDK_DISABLED: "yes" })))).toBe(true)
      const content = (value: string) => Effect.map(settingsOf({ ...at, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: value }), (result) => Either.getOrThrow(result).pipe(Option.map((chosen) => chosen.content)))
      expect(yield* content(" TRUE ")).toEqual(Option.some(true))
      expect(yield* content("false")).toEqual(Option.some(false))
      expect(yield* content("1")).toEqual(Option.some(false))
    }))

  it.effect("the service is named by OTEL_SERVICE_NAME, else by service.name in OTEL_RESOURCE_ATTRIBUTES, else agentfx", () =>
    Effect.gen(function* () {
      const at = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }
      const named = (env: Record<string, string>) => Effect.map(settingsOf({ ...at, ...env }), (result) => Either.getOrThrow(result).pipe(Option.map((chosen) => chosen.serviceName)))
      expect(yield* named({ OTEL_RESOURCE_ATTRIBUTES: "team=blue, service.name = shop-agent" })).toEqual(Option.some("shop-agent"))
      expect(yield* named({ OTEL_RESOURCE_ATTRIBUTES: "service.name=shop-agent", OTEL_SERVICE_NAME: "my-agent" })).toEqual(Option.some("my-agent"))
      expect(yield* named({ OTEL_RESOURCE_ATTRIBUTES: "team=blue,service.name=" })).toEqual(Option.some("agentfx"))
    }))

  it.effect("OTEL_TRACES_EXPORTER=none and OTEL_SDK_DISABLED=true export nothing; otlp alone sends to the default endpoint", () =>
    Effect.gen(function* () {
      const at = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }
      expect(yield* settingsOf({ ...at, OTEL_TRACES_EXPORTER: "none" })).toEqual(Either.right(Option.none()))
      expect(yield* settingsOf({ ...at, OTEL_SDK_DISABLED: "TRUE", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toEqual(Either.right(Option.none()))
      expect(yield* settingsOf({ ...at, OTEL_SDK_DISABLED: "false" })).toMatchObject(Either.right(Option.some({ url: "http://collector:4318/v1/traces" })))
      expect(yield* settingsOf({ OTEL_TRACES_EXPORTER: "otlp" })).toMatchObject(Either.right(Option.some({ url: "http://localhost:4318/v1/traces" })))
      expect(yield* settingsOf({})).toEqual(Either.right(Option.none()))
    }))

  it.effect("what cannot be honoured is refused naming the variable: gRPC, another protocol or exporter, an endpoint not http(s), a timeout not in milliseconds", () =>
    Effect.gen(function* () {
      const at = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }
      expect(yield* refusal({ ...at, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc" })).toBe(
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc: agentfx exports traces over HTTP only; set it to http/protobuf (the default) or http/json, with the endpoint at the collector's OTLP/HTTP port (4318)"
      )
      expect(yield* refusal({ ...at, OTEL_EXPORTER_OTLP_PROTOCOL: "http" })).toBe("OTEL_EXPORTER_OTLP_PROTOCOL=http is not a protocol agentfx exports with: use http/protobuf (the default) or http/json")
      expect(yield* refusal({ ...at, OTEL_TRACES_EXPORTER: "console" })).toBe(
        "OTEL_TRACES_EXPORTER=console: agentfx exports traces with otlp only; set it to otlp, or to none to export nothing"
      )
      expect(yield* refusal({ ...at, OTEL_TRACES_EXPORTER: "otlp,none" })).toBe(
        "OTEL_TRACES_EXPORTER=otlp,none: agentfx exports traces with otlp only; set it to otlp, or to none to export nothing"
      )
      expect(yield* refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4317" })).toBe(
        "OTEL_EXPORTER_OTLP_ENDPOINT is not an http:// or https:// URL (its scheme is collector): agentfx exports traces over HTTP, to a collector's OTLP/HTTP port (4318)"
      )
      expect(yield* refusal({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://[::1" })).toBe(
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is not a valid URL: agentfx exports traces over HTTP, to a collector's OTLP/HTTP port (4318)"
      )
      for (const timeout of ["2s", "0", "-5", "1.5"]) {
        expect(yield* refusal({ ...at, OTEL_EXPORTER_OTLP_TIMEOUT: timeout })).toBe(`OTEL_EXPORTER_OTLP_TIMEOUT=${timeout} is not a timeout: give a whole number of milliseconds above 0 (e.g. 2000)`)
      }
    }))

  it.scopedLive("by default the spans go as OTLP protobuf (application/x-protobuf)", () =>
    Effect.gen(function* () {
      const { url, received } = yield* collector()
      const result = yield* agentfx(["run", "what is 12 * 12"], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: url } })
      expect(result.code).toBe(0)
      expect(received.length).toBeGreaterThan(0)
      expect(received.map((request) => request.headers["content-type"])).toEqual(received.map(() => "application/x-protobuf"))
      expect(everything(received)).toContain("invoke_agent agentfx")
      expect(everything(received)).toContain("execute_tool calculator")
    }))

  it.scopedLive("OTEL_TRACES_EXPORTER=none with the endpoint set: nothing is sent and nothing said", () =>
    Effect.gen(function* () {
      const { url, received } = yield* collector()
      const result = yield* agentfx(["run", "what is 1 + 1"], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_TRACES_EXPORTER: "none" } })
      expect(result.code).toBe(0)
      expect(lines(result.stderr)).toEqual([expect.stringMatching(/^provider: emulator/)])
      expect(received).toEqual([])
    }))

  it.scopedLive("a refused setting stops the command before anything runs: exit 2, one line, nothing on stdout", () =>
    Effect.gen(function* () {
      const { url, received } = yield* collector()
      const result = yield* agentfx(["run", "what is 1 + 1"], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_TRACES_EXPORTER: "zipkin" } })
      expect(result).toEqual({
        code: 2,
        stdout: "",
        stderr: "agentfx: OTEL_TRACES_EXPORTER=zipkin: agentfx exports traces with otlp only; set it to otlp, or to none to export nothing\n"
      })
      expect(received).toEqual([])
    }))

  it.scopedLive("a collector that answers 503: one attempt at exit (no retry a second later), then one line naming the status", () =>
    Effect.gen(function* () {
      const { url, received } = yield* collector(503)
      const result = yield* agentfx(["run", "what is 1 + 1"], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: url } })
      expect(result.code).toBe(0)
      expect(received).toHaveLength(1)
      expect(lines(result.stderr).at(-1)).toBe(`agentfx: traces were not delivered to ${url}/v1/traces: the collector answered HTTP 503`)
    }))

  it.scopedLive("a collector that never answers: the wait at exit ends at OTEL_EXPORTER_OTLP_TIMEOUT, and the line says so", () =>
    Effect.gen(function* () {
      const { url, received } = yield* collector("never")
      const result = yield* agentfx(["run", "what is 1 + 1"], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_EXPORTER_OTLP_TIMEOUT: "300" } })
      expect(result.code).toBe(0)
      expect(received).toHaveLength(1)
      expect(lines(result.stderr).at(-1)).toBe(`agentfx: traces were not delivered to ${url}/v1/traces: the collector did not answer within 300ms`)
    }))

  it.scopedLive("a collector that never answers, no timeout set: the wait at exit ends after 2s, and the line says so", () =>
    Effect.gen(function* () {
      const { url, received } = yield* collector("never")
      const result = yield* agentfx(["run", "what is 1 + 1"], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: url } })
      expect(result.code).toBe(0)
      expect(received).toHaveLength(1)
      expect(lines(result.stderr).at(-1)).toBe(`agentfx: traces were not delivered to ${url}/v1/traces: the collector did not answer within 2s`)
    }))

  it.scopedLive("a collector that cannot be reached, in-process: the same line, after the command's own output", () =>
    Effect.gen(function* () {
      const port = yield* closedPort
      const result = yield* agentfx(["run", "what is 1 + 1"], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` } })
      expect(result.code).toBe(0)
      expect(result.stdout).toContain("1 + 1 = 2.")
      expect(lines(result.stderr).at(-1)).toBe(`agentfx: traces were not delivered to http://127.0.0.1:${port}/v1/traces: the connection was refused (ECONNREFUSED)`)
    }))
})

describe("the delivery of traces: which batches reached the collector, and why the others did not", () => {
  const timeout = Duration.millis(300)
  type Fetch = typeof globalThis.fetch
  /** One batch's request: the exporter sends the same request again when it retries the batch. */
  const batch = (text: string) => HttpClientRequest.bodyText(HttpClientRequest.post("http://collector.test/v1/traces"), text)
  /** What became of an attempt: the status answered, the error handed back to the exporter, or the defect it ended as. */
  const attempt = (delivery: TraceDelivery.Delivery, fetch: Fetch, request: HttpClientRequest.HttpClientRequest) =>
    Effect.flatMap(HttpClient.HttpClient, (client) => client.execute(request)).pipe(
      Effect.provide(delivery.layer),
      Effect.provideService(FetchHttpClient.Fetch, fetch),
      Effect.exit,
      Effect.map(
        Exit.match({
          onSuccess: (response) => `answered ${response.status}`,
          onFailure: (cause) =>
            Option.match(Cause.dieOption(cause), {
              onNone: () => `failed: ${Cause.squash(cause) instanceof Error ? (Cause.squash(cause) as Error).name : "?"}`,
              onSome: (defect) => `died: ${defect instanceof Error ? defect.message : String(defect)}`
            })
        })
      )
    )
  const answering = (status: number): Fetch => () => Promise.resolve(new Response(null, { status }))
  const failing = (cause: unknown): Fetch => () => Promise.reject(cause)
  /** An error with a system code (as Node's are), caused by `cause`. */
  const coded = (code: string | undefined, message: string, cause?: unknown) => Object.assign(new Error(message, { cause }), code === undefined ? {} : { code })
  /** fetch's own rejection: a TypeError whose cause says why. */
  const fetchFailed = (cause: unknown) => new TypeError("fetch failed", { cause })
  /** Why one attempt that failed with `cause` (before the command's end) did not deliver its batch. */
  const reasonOf = (cause: unknown) =>
    Effect.gen(function* () {
      const delivery = TraceDelivery.make(timeout)
      expect(yield* attempt(delivery, failing(cause), batch("one"))).toBe("failed: RequestError")
      return yield* delivery.undelivered
    })

  it.effect("an answer from 200 to 299 delivers the batch; one of 300 or more keeps it, named by the status, and is handed back for the exporter to retry", () =>
    Effect.gen(function* () {
      for (const status of [200, 204, 299]) {
        const delivery = TraceDelivery.make(timeout)
        expect(yield* attempt(delivery, answering(status), batch("one"))).toBe(`answered ${status}`)
        expect(yield* delivery.undelivered).toBeUndefined()
      }
      for (const status of [300, 400, 503]) {
        const delivery = TraceDelivery.make(timeout)
        expect(yield* attempt(delivery, answering(status), batch("one"))).toBe(`answered ${status}`)
        expect(yield* delivery.undelivered).toBe(`the collector answered HTTP ${status}`)
      }
    }))

  it.effect("a batch is delivered once an attempt of it is: a retry answered 200 clears its failure, and another batch's failure stays", () =>
    Effect.gen(function* () {
      const delivery = TraceDelivery.make(timeout)
      const first = batch("first")
      const second = batch("second")
      yield* attempt(delivery, answering(503), first)
      yield* attempt(delivery, failing(fetchFailed(coded("ECONNRESET", "read ECONNRESET"))), second)
      yield* attempt(delivery, answering(200), first)
      expect(yield* delivery.undelivered).toBe("the connection failed (ECONNRESET)")
      yield* attempt(delivery, answering(200), second)
      expect(yield* delivery.undelivered).toBeUndefined()
    }))

  it.effect("once the command has ended, a failed attempt ends as a defect saying why (the exporter retries any failure, not a defect); an answer of 200 is still one", () =>
    Effect.gen(function* () {
      const delivery = TraceDelivery.make(timeout)
      yield* delivery.closing
      expect(yield* attempt(delivery, answering(503), batch("one"))).toBe("died: the collector answered HTTP 503")
      expect(yield* attempt(delivery, failing(fetchFailed(coded("ECONNREFUSED", "connect ECONNREFUSED"))), batch("two"))).toBe(
        "died: the connection was refused (ECONNREFUSED)"
      )
      expect(yield* delivery.undelivered).toBe("the connection was refused (ECONNREFUSED)")
      expect(yield* attempt(delivery, answering(200), batch("three"))).toBe("answered 200")
    }))

  it.effect("an attempt that got no answer is named by the innermost system code, else by what fetch said", () =>
    Effect.gen(function* () {
      expect(yield* reasonOf(fetchFailed(coded("ECONNREFUSED", "connect ECONNREFUSED")))).toBe("the connection was refused (ECONNREFUSED)")
      expect(yield* reasonOf(fetchFailed(coded("ENOTFOUND", "getaddrinfo ENOTFOUND collector.test")))).toBe("the host was not found (ENOTFOUND)")
      expect(yield* reasonOf(fetchFailed(coded("EAI_AGAIN", "getaddrinfo EAI_AGAIN collector.test")))).toBe("the host was not found (EAI_AGAIN)")
      expect(yield* reasonOf(fetchFailed(coded("UND_ERR_SOCKET", "other side closed", coded("ECONNRESET", "read ECONNRESET"))))).toBe("the connection failed (ECONNRESET)")
      // The innermost code, not the innermost error's: this one has none.
      expect(yield* reasonOf(fetchFailed(coded("UND_ERR_SOCKET", "other side closed", new Error("closed"))))).toBe("the connection failed (UND_ERR_SOCKET)")
      // No code: not fetch's words, which quote a header they refuse (it may be a credential), nor the error's kind.
      expect(yield* reasonOf(new TypeError('Headers.append: "Bearer se\ncret" is an invalid header value.'))).toBe("the request could not be sent")
      expect(yield* reasonOf("refused")).toBe("the request could not be sent")
    }))

  it.effect("the code is looked for 8 errors deep (fetch's rejection the first), and a cause that loops ends the search", () =>
    Effect.gen(function* () {
      /** fetch's rejection, then `depth - 1` errors under it, the last with `code`. */
      const chain = (depth: number) => {
        let error: Error = coded("ECONNRESET", "read ECONNRESET")
        for (let level = 0; level < depth - 2; level++) error = coded(undefined, `level ${level}`, error)
        return fetchFailed(error)
      }
      expect(yield* reasonOf(chain(8))).toBe("the connection failed (ECONNRESET)")
      expect(yield* reasonOf(chain(9))).toBe("the request could not be sent")
      const loop = new Error("a cause that loops")
      Object.assign(loop, { cause: loop })
      expect(yield* reasonOf(loop)).toBe("the request could not be sent")
    }))

  it.effect("an attempt the collector does not answer ends at the timeout, and says so", () =>
    Effect.gen(function* () {
      const delivery = TraceDelivery.make(timeout)
      const asked = yield* Deferred.make<void>()
      const never: Fetch = () => (Deferred.unsafeDone(asked, Exit.void), new Promise<Response>(() => {}))
      const fiber = yield* Effect.fork(attempt(delivery, never, batch("one")))
      yield* Deferred.await(asked)
      yield* TestClock.adjust(Duration.millis(299))
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust(Duration.millis(1))
      expect(yield* Fiber.join(fiber)).toBe("failed: RequestError")
      expect(yield* delivery.undelivered).toBe("the collector did not answer within 300ms")
    }))

  it.effect("an attempt cut off before any answer (the exporter stopped at exit) leaves its batch undelivered, saying so", () =>
    Effect.gen(function* () {
      const delivery = TraceDelivery.make(timeout)
      const asked = yield* Deferred.make<void>()
      const never: Fetch = () => (Deferred.unsafeDone(asked, Exit.void), new Promise<Response>(() => {}))
      // A running attempt's batch counts as undelivered from the start.
      const first = yield* Effect.fork(attempt(delivery, never, batch("one")))
      yield* Deferred.await(asked)
      expect(yield* delivery.undelivered).toBe("the command ended before the collector answered")
      yield* Fiber.interrupt(first)
      expect(yield* delivery.undelivered).toBe("the command ended before the collector answered")
      // Cut off after another batch failed: the cut is the reason, as the last failure.
      const other = TraceDelivery.make(timeout)
      yield* attempt(other, answering(503), batch("two"))
      const again = yield* Deferred.make<void>()
      const second = yield* Effect.fork(attempt(other, () => (Deferred.unsafeDone(again, Exit.void), new Promise<Response>(() => {})), batch("three")))
      yield* Deferred.await(again)
      expect(yield* other.undelivered).toBe("the collector answered HTTP 503")
      yield* Fiber.interrupt(second)
      expect(yield* other.undelivered).toBe("the command ended before the collector answered")
    }))
})
