import { NodeSdk } from "@effect/opentelemetry"
import { SpanKind } from "@opentelemetry/api"
import { describe, expect, it } from "@effect/vitest"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base"
import { Deferred, Effect, Exit, Fiber, Layer, Schema } from "effect"
import { Agent, ModelError, Registry, Retry, Telemetry, Tool } from "../src/index.js"
import { Scripted } from "../src/testing.js"

const secretPrompt = "my secret plan for Tuesday"

const weather = Tool.make("get_weather", {
  description: "Weather of a city",
  parameters: Schema.Struct({ city: Schema.String }),
  handler: ({ city }) => Effect.succeed({ city, celsius: 7 })
})
const broken = Tool.make("broken", {
  description: "Always fails",
  parameters: Schema.Struct({}),
  failure: Schema.String,
  handler: () => Effect.fail("out of order")
})
const registry = Registry.unsafeMake(weather, broken)

const script = () =>
  Scripted.layer([
    { error: new ModelError.Unavailable({ message: "try again" }) },
    { calls: [{ name: "get_weather", args: { city: "Oslo" } }, { name: "broken", args: {} }], usage: { inputTokens: 10, outputTokens: 4 } },
    { text: "7 °C in Oslo.", usage: { inputTokens: 20, outputTokens: 5 } }
  ])

/** Runs the agent with spans going to memory; returns them. */
const traced = (withContent: boolean) =>
  Effect.gen(function* () {
    const exporter = new InMemorySpanExporter()
    const tracing = NodeSdk.layer(() => ({ resource: { serviceName: "agentfx-test" }, spanProcessor: new SimpleSpanProcessor(exporter) }))
    const run = Agent.run({ registry, prompt: secretPrompt, retry: Retry.policy({ base: "1 millis", maxRetries: 2 }) })
    // Read before the SDK shuts down with the layer: shutting down empties the in-memory exporter.
    return yield* (withContent ? Telemetry.withContent(run) : run).pipe(
      Effect.map(() => [...exporter.getFinishedSpans()]),
      Effect.provide(Layer.merge(script(), tracing))
    )
  })

const byName = (spans: ReadonlyArray<ReadableSpan>, prefix: string) => spans.filter((span) => span.name.startsWith(prefix))
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId

describe("Telemetry: OpenTelemetry spans of a run", () => {
  it.live("the run is a tree: invoke_agent → chat per model turn → execute_tool per call, with the GenAI attributes", () =>
    Effect.gen(function* () {
      const spans = yield* traced(false)
      const [run] = byName(spans, "invoke_agent")
      const turns = byName(spans, "chat ")
      const tools = byName(spans, "execute_tool ")
      expect(run).toBeDefined()
      expect(turns).toHaveLength(2)
      expect(tools.map((span) => span.name).sort()).toEqual(["execute_tool broken", "execute_tool get_weather"])
      for (const turn of turns) expect(parentOf(turn)).toBe(run!.spanContext().spanId)
      // The GenAI conventions: a model call is a client span; the agent and its tools run inside this process.
      expect(turns.map((turn) => turn.kind)).toEqual([SpanKind.CLIENT, SpanKind.CLIENT])
      expect([run!, ...tools].map((span) => span.kind)).toEqual([SpanKind.INTERNAL, SpanKind.INTERNAL, SpanKind.INTERNAL])
      for (const tool of tools) expect(parentOf(tool)).toBe(run!.spanContext().spanId)
      expect(run!.attributes).toMatchObject({
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "agentfx",
        "gen_ai.provider.name": "scripted",
        "gen_ai.usage.input_tokens": 30,
        "gen_ai.usage.output_tokens": 9,
        "agentfx.stop_reason": "Finished"
      })
      expect(turns[0]!.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": expect.any(String),
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.output_tokens": 4
      })
      // Effect's bridge hands arrays to OpenTelemetry as JSON text.
      expect(JSON.parse(String(turns[0]!.attributes["gen_ai.response.finish_reasons"]))).toEqual(["tool_calls"])
      // The failed attempt of the first turn is an event on its span, not a span of its own.
      expect(turns[0]!.events.map((event) => [event.name, event.attributes?.["error.type"]])).toEqual([["gen_ai.attempt_failed", "Unavailable"]])
      const weatherSpan = tools.find((span) => span.name === "execute_tool get_weather")!
      expect(weatherSpan.attributes).toMatchObject({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "get_weather",
        "gen_ai.tool.call.id": expect.any(String),
        "gen_ai.tool.type": "function"
      })
      const brokenSpan = tools.find((span) => span.name === "execute_tool broken")!
      expect(brokenSpan.attributes["error.type"]).toBe("ExecutionFailed")
      expect(brokenSpan.status.code).toBe(2)
    }))

  it.live("contents are off by default: no prompt, answer, arguments or results on any span", () =>
    Effect.gen(function* () {
      const spans = yield* traced(false)
      const everything = JSON.stringify(spans.map((span) => ({ attributes: span.attributes, events: span.events })))
      expect(everything).not.toContain(secretPrompt)
      expect(everything).not.toContain("7 °C in Oslo.")
      expect(everything).not.toContain("Oslo")
    }))

  it.live("withContent records them: the prompt and answer on the run, arguments and results on the tool calls", () =>
    Effect.gen(function* () {
      const spans = yield* traced(true)
      const [run] = byName(spans, "invoke_agent")
      expect(String(run!.attributes["gen_ai.input.messages"])).toContain(secretPrompt)
      expect(String(run!.attributes["gen_ai.output.messages"])).toContain("7 °C in Oslo.")
      const weatherSpan = byName(spans, "execute_tool get_weather")[0]!
      expect(JSON.parse(String(weatherSpan.attributes["gen_ai.tool.call.arguments"]))).toEqual({ city: "Oslo" })
      expect(JSON.parse(String(weatherSpan.attributes["gen_ai.tool.call.result"]))).toEqual({ city: "Oslo", celsius: 7 })
    }))

  it.live("a turn that fails for good: the chat span and the run span say so with error.type, in the same tree", () =>
    Effect.gen(function* () {
      const exporter = new InMemorySpanExporter()
      const tracing = NodeSdk.layer(() => ({ resource: { serviceName: "agentfx-test" }, spanProcessor: new SimpleSpanProcessor(exporter) }))
      const spans = yield* Agent.run({ registry, prompt: "go", retry: Retry.policy({ base: "1 millis", maxRetries: 0 }) }).pipe(
        Effect.flip,
        Effect.map(() => [...exporter.getFinishedSpans()]),
        Effect.provide(Layer.merge(Scripted.layer([{ error: new ModelError.Unavailable({ message: "down" }) }]), tracing))
      )
      const [run] = byName(spans, "invoke_agent")
      const turns = byName(spans, "chat ")
      expect(turns).toHaveLength(1)
      expect(parentOf(turns[0]!)).toBe(run!.spanContext().spanId)
      for (const span of [run!, turns[0]!]) {
        expect(span.attributes["error.type"]).toBe("Unavailable")
        expect(span.status.code).toBe(2)
      }
    }))

  it.live("Telemetry.span gives the tree, status and error.type Effect.withSpan gives, without the stack trace", () =>
    Effect.gen(function* () {
      /** The spans of `effect` (which fails), as name, parent's name, status and attributes. */
      const shape = (effect: Effect.Effect<unknown, ModelError.Unavailable>) =>
        Effect.gen(function* () {
          const exporter = new InMemorySpanExporter()
          const tracing = NodeSdk.layer(() => ({ resource: { serviceName: "agentfx-test" }, spanProcessor: new SimpleSpanProcessor(exporter) }))
          const spans = yield* effect.pipe(
            Effect.withSpan("root"),
            Effect.flip,
            Effect.map(() => [...exporter.getFinishedSpans()]),
            Effect.provide(tracing)
          )
          const nameOf = (id: string | undefined) => spans.find((span) => span.spanContext().spanId === id)?.name
          return spans.map((span) => ({ name: span.name, parent: nameOf(parentOf(span)), status: span.status.code, attributes: span.attributes }))
        })
      const failure = new ModelError.Unavailable({ message: "down" })
      const inner = Effect.withSpan(Effect.fail(failure), "inner")
      const ours = yield* shape(Telemetry.span("outer", { "gen_ai.operation.name": "chat" }, () => inner))
      const effects = yield* shape(
        inner.pipe(
          Effect.tapError(() => Effect.annotateCurrentSpan("error.type", "Unavailable")),
          Effect.withSpan("outer", { attributes: { "gen_ai.operation.name": "chat" } })
        )
      )
      const withoutTrace = (spans: typeof ours) => spans.map(({ attributes, ...span }) => ({ ...span, attributes: { ...attributes, "code.stacktrace": undefined } }))
      expect(ours.map((span) => [span.name, span.parent])).toEqual([
        ["inner", "outer"],
        ["outer", "root"],
        ["root", undefined]
      ])
      expect(withoutTrace(ours)).toEqual(withoutTrace(effects))
      expect(ours.find((span) => span.name === "outer")!.attributes).toMatchObject({ "error.type": "Unavailable", "gen_ai.operation.name": "chat" })
      expect(ours.find((span) => span.name === "outer")!.attributes["code.stacktrace"]).toBeUndefined()
    }))

  it.live("issue 35 item 2: a failed span without withContent records the error's type and a fixed description, no message and no stack", () =>
    Effect.gen(function* () {
      const canary = "CANARY-7f3a/home/someone/private.txt"
      const failure = new ModelError.InvalidRequest({ message: `400: {"error":{"message":"bad path ${canary}"}}` })
      const spansOf = (effect: Effect.Effect<unknown, unknown>) =>
        Effect.gen(function* () {
          const exporter = new InMemorySpanExporter()
          const tracing = NodeSdk.layer(() => ({ resource: { serviceName: "agentfx-test" }, spanProcessor: new SimpleSpanProcessor(exporter) }))
          // Read before the SDK shuts down with the layer: shutting down empties the in-memory exporter.
          return yield* Effect.exit(effect).pipe(
            Effect.map((exit) => ({ exit, spans: [...exporter.getFinishedSpans()] })),
            Effect.provide(tracing)
          )
        })
      const failed = yield* spansOf(Telemetry.span("failed", {}, () => Effect.fail(failure)))
      // The caller gets the failure itself; only the span is told less.
      expect(failed.exit).toEqual(Exit.fail(failure))
      const died = yield* spansOf(Telemetry.span("died", {}, () => Effect.die(new TypeError(`cannot read ${canary}`))))
      for (const [{ spans }, type] of [[failed, "InvalidRequest"], [died, "TypeError"]] as const) {
        expect(spans).toHaveLength(1)
        const span = spans[0]!
        expect(span.status).toEqual({ code: 2, message: "the failure's details are recorded only with message content capture on" })
        const exception = span.events.find((event) => event.name === "exception")!
        expect(exception.attributes).toEqual({
          "exception.type": type,
          "exception.message": "the failure's details are recorded only with message content capture on",
          "exception.stacktrace": `${type}: the failure's details are recorded only with message content capture on`
        })
        const everything = JSON.stringify({ attributes: span.attributes, events: span.events, status: span.status })
        expect(everything).not.toContain("CANARY")
        expect(everything).not.toContain(process.cwd())
        expect(everything).not.toMatch(/\bat /)
      }
    }))

  it.live("with withContent a failed span records the failure as Effect renders it: its message in the status and the exception", () =>
    Effect.gen(function* () {
      const exporter = new InMemorySpanExporter()
      const tracing = NodeSdk.layer(() => ({ resource: { serviceName: "agentfx-test" }, spanProcessor: new SimpleSpanProcessor(exporter) }))
      const failure = new ModelError.InvalidRequest({ message: "bad path CANARY-1" })
      const spans = yield* Telemetry.withContent(Telemetry.span("failed", {}, () => Effect.fail(failure))).pipe(
        Effect.flip,
        Effect.map(() => [...exporter.getFinishedSpans()]),
        Effect.provide(tracing)
      )
      expect(spans[0]!.status).toEqual({ code: 2, message: "bad path CANARY-1" })
      expect(spans[0]!.events.find((event) => event.name === "exception")!.attributes).toMatchObject({ "exception.type": "InvalidRequest", "exception.message": "bad path CANARY-1" })
    }))

  it.live("an interrupted span still ends, as interrupted, with contents on or off", () =>
    Effect.gen(function* () {
      const exporter = new InMemorySpanExporter()
      const tracing = NodeSdk.layer(() => ({ resource: { serviceName: "agentfx-test" }, spanProcessor: new SimpleSpanProcessor(exporter) }))
      const spans = yield* Effect.gen(function* () {
        const started = yield* Deferred.make<void>()
        const fiber = yield* Effect.fork(Telemetry.span("waits", {}, () => Effect.zipRight(Deferred.succeed(started, undefined), Effect.never)))
        yield* Deferred.await(started)
        yield* Fiber.interrupt(fiber)
        return [...exporter.getFinishedSpans()]
      }).pipe(Effect.provide(tracing))
      expect(spans.map((span) => [span.name, span.status.code, span.attributes["status.interrupted"]])).toEqual([["waits", 1, true]])
    }))

  it.effect("without a tracer nothing is traced: the body runs with an inactive annotator that records nothing", () =>
    Effect.gen(function* () {
      const seen = yield* Telemetry.withContent(
        Telemetry.span("nothing", {}, (annotate) =>
          Effect.gen(function* () {
            yield* annotate.attributes({ a: 1 })
            yield* annotate.event("e", { b: 2 })
            return [annotate.active, annotate.content]
          })
        )
      )
      expect(seen).toEqual([false, false])
    }))

  it.live("a traced body's annotator is active; attributes and events leave undefined values out", () =>
    Effect.gen(function* () {
      const exporter = new InMemorySpanExporter()
      const tracing = NodeSdk.layer(() => ({ resource: { serviceName: "agentfx-test" }, spanProcessor: new SimpleSpanProcessor(exporter) }))
      const [seen, spans] = yield* Telemetry.span("traced", { kept: "k", left: undefined }, (annotate) =>
        Effect.gen(function* () {
          yield* annotate.attributes({ added: 1, skipped: undefined })
          yield* annotate.event("happened", { n: 2, none: undefined })
          yield* annotate.event("bare")
          return [annotate.active, annotate.content]
        })
      ).pipe(
        // Read before the SDK shuts down with the layer: shutting down empties the in-memory exporter.
        Effect.map((seen) => [seen, [...exporter.getFinishedSpans()]] as const),
        Effect.provide(tracing)
      )
      expect(seen).toEqual([true, false])
      expect(spans).toHaveLength(1)
      const span = spans[0]
      expect(span?.attributes).toEqual({ kept: "k", added: 1 })
      expect(span?.events.map((event) => [event.name, event.attributes])).toEqual([["happened", { n: 2 }], ["bare", {}]])
    }))

  it("errorType is a failure's tag, else an Error's name, else unknown", () => {
    expect(Telemetry.errorType(new ModelError.Unavailable({ message: "down" }))).toBe("Unavailable")
    expect(Telemetry.errorType({ _tag: "Custom" })).toBe("Custom")
    expect(Telemetry.errorType(new TypeError("x"))).toBe("TypeError")
    expect(Telemetry.errorType(Object.assign(new RangeError("x"), { _tag: 3 }))).toBe("RangeError")
    expect(Telemetry.errorType({ _tag: 3 })).toBe("unknown")
    expect(Telemetry.errorType(null)).toBe("unknown")
    expect(Telemetry.errorType("Unavailable")).toBe("unknown")
  })

  it("contentJson is the JSON, cut to max characters with an ellipsis", () => {
    expect(Telemetry.contentJson({ a: [1, "x"] })).toBe('{"a":[1,"x"]}')
    expect(Telemetry.contentJson(undefined)).toBe("null")
    expect(Telemetry.contentJson("abcdef", 8)).toBe('"abcdef"')
    expect(Telemetry.contentJson("abcdefg", 8)).toBe('"abcdefg…')
    expect(Telemetry.contentJson("x".repeat(8190))).toBe(`"${"x".repeat(8190)}"`)
    expect(Telemetry.contentJson("x".repeat(8200))).toBe(`"${"x".repeat(8191)}…`)
  })
})
