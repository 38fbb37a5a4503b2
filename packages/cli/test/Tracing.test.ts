import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { parseHeaders } from "../src/internal/tracing.js"
import { agentfx } from "./support/cli.js"

interface Received {
  readonly path: string
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: string
}

/** An OTLP/HTTP collector on 127.0.0.1 that keeps what it is sent. */
const collector = Effect.gen(function* () {
  const received: Array<Received> = []
  const server = createServer((request, response) => {
    let body = ""
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
    request.on("end", () => {
      received.push({ path: request.url ?? "", headers: request.headers, body })
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  const port = yield* Effect.acquireRelease(
    Effect.async<number>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))),
    () => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
  )
  return { url: `http://127.0.0.1:${port}`, received }
})

/** Every span the collector was sent, with its attributes as a plain object. */
const spansOf = (received: ReadonlyArray<Received>) =>
  received.flatMap((request) =>
    (JSON.parse(request.body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string; attributes: Array<{ key: string; value: Record<string, unknown> }> }> }> }> }).resourceSpans.flatMap(
      (resource) =>
        resource.scopeSpans.flatMap((scope) =>
          scope.spans.map((span) => ({ name: span.name, attributes: Object.fromEntries(span.attributes.map((a) => [a.key, Object.values(a.value)[0]])) }))
        )
    )
  )

describe("agentfx exports OpenTelemetry traces when OTEL_EXPORTER_OTLP_ENDPOINT is set", () => {
  it.scopedLive("a run's spans reach the collector as OTLP/JSON, with the headers given and no message contents", () =>
    Effect.gen(function* () {
      const { url, received } = yield* collector
      const result = yield* agentfx(["run", "what is 12 * 12"], {
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_EXPORTER_OTLP_HEADERS: "x-tenant=blue%20team", OTEL_SERVICE_NAME: "my-agent" }
      })
      expect(result.code).toBe(0)
      expect(received.length).toBeGreaterThan(0)
      expect(received.every((request) => request.path === "/v1/traces")).toBe(true)
      expect(received[0]!.headers["x-tenant"]).toBe("blue team")
      const spans = spansOf(received)
      const names = spans.map((span) => span.name)
      expect(names).toEqual(expect.arrayContaining(["invoke_agent agentfx", "execute_tool calculator"]))
      expect(names.some((name) => name.startsWith("chat "))).toBe(true)
      expect(spans.find((span) => span.name === "execute_tool calculator")!.attributes).toMatchObject({ "gen_ai.tool.name": "calculator" })
      const everything = received.map((request) => request.body).join("\n")
      expect(everything).toContain("my-agent")
      expect(everything).not.toContain("12 * 12")
    }))

  it.scopedLive("with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true the contents are on the spans", () =>
    Effect.gen(function* () {
      const { url, received } = yield* collector
      const result = yield* agentfx(["run", "what is 12 * 12"], {
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" }
      })
      expect(result.code).toBe(0)
      const tool = spansOf(received).find((span) => span.name === "execute_tool calculator")!
      expect(JSON.parse(String(tool.attributes["gen_ai.tool.call.arguments"]))).toEqual({ expression: "12 * 12" })
    }))

  it.scopedLive("without the variable nothing is sent, even with the other OTEL variables set", () =>
    Effect.gen(function* () {
      const { url, received } = yield* collector
      const result = yield* agentfx(["run", "what is 1 + 1"], { env: { OTEL_SERVICE_NAME: "my-agent", OTEL_EXPORTER_OTLP_HEADERS: `x-url=${url}` } })
      expect(result.code).toBe(0)
      expect(result.stdout).toContain("2")
      expect(received).toEqual([])
    }))

  it("OTLP headers are read as the specification writes them", () => {
    expect(parseHeaders("a=1, b = two%20words ,=skipped,c")).toEqual({ a: "1", b: "two words" })
    expect(parseHeaders("")).toEqual({})
  })
})
