/**
 * Each answer fault as a client reads it off the wire: the status, the headers that matter (`retry-after`) and the
 * exact error body, on each route (Gemini REST, OpenAI and GLM chat completions). Plain `fetch`, so nothing of an
 * SDK's reading stands between the test and the bytes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Emulator, Fault, Policy } from "../src/index.js"

type Route = "gemini" | "openai" | "glm"

/** Sends one request on `route` with `fault` injected; the status, the retry headers and the parsed body. */
const answered = (route: Route, fault: Fault.AnswerFault) =>
  Effect.gen(function* () {
    const emulator = yield* Emulator.make()
    yield* emulator.inject(fault)
    const [url, body] =
      route === "gemini"
        ? [`${emulator.geminiBaseUrl}/v1beta/models/gemini-3-flash-preview:generateContent`, { contents: [{ role: "user", parts: [{ text: "hi" }] }] }]
        : [`${route === "glm" ? emulator.glmBaseUrl() : emulator.openAIBaseUrl()}/chat/completions`, { model: "m", messages: [{ role: "user", content: "hi" }] }]
    const response = yield* Effect.promise(() =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${emulator.apiKey}`, "x-goog-api-key": emulator.apiKey },
        body: JSON.stringify(body)
      })
    )
    const text = yield* Effect.promise(() => response.text())
    return {
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      retryAfterMs: response.headers.get("retry-after-ms"),
      body: JSON.parse(text) as unknown
    }
  })

const quotaFailure = (quotaId: string) => ({
  "@type": "type.googleapis.com/google.rpc.QuotaFailure",
  violations: [
    {
      quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
      quotaId,
      quotaDimensions: { location: "global", model: "gemini-3-flash-preview" },
      quotaValue: "10"
    }
  ]
})

describe("Fault — each answer fault, on each route, as the wire carries it", () => {
  it.scoped("a status: the protocol's envelope with the message, or the body given, with its headers", () =>
    Effect.gen(function* () {
      expect(yield* answered("openai", Fault.status(422, { message: "nope" }))).toEqual({
        status: 422,
        retryAfter: null,
        retryAfterMs: null,
        body: { error: { message: "nope", type: "invalid_request_error", param: null, code: null } }
      })
      expect((yield* answered("openai", Fault.status(500))).body).toEqual({ error: { message: "error", type: "server_error", param: null, code: null } })
      expect((yield* answered("glm", Fault.status(400, { message: "bad" }))).body).toEqual({ error: { code: "400", message: "bad" } })
      expect((yield* answered("gemini", Fault.status(404))).body).toEqual({ error: { code: 404, message: "Requested entity was not found.", status: "NOT_FOUND" } })
      expect(yield* answered("gemini", Fault.status(418, { body: { teapot: true }, headers: { "retry-after": "7" } }))).toMatchObject({
        status: 418,
        retryAfter: "7",
        body: { teapot: true }
      })
    }))

  it.scoped("a rate limit: 429 with the retry hint in the route's words (RetryInfo, retry-after and retry-after-ms), none when not given", () =>
    Effect.gen(function* () {
      expect(yield* answered("openai", Fault.rateLimited({ retryAfter: "1500 millis" }))).toEqual({
        status: 429,
        retryAfter: "2",
        retryAfterMs: "1500",
        body: { error: { message: "Rate limit reached for requests", type: "requests", param: null, code: "rate_limit_exceeded" } }
      })
      expect(yield* answered("glm", Fault.rateLimited())).toEqual({
        status: 429,
        retryAfter: null,
        retryAfterMs: null,
        body: { error: { code: "1302", message: "High concurrency usage of this API, please reduce concurrency or contact customer service to increase limits" } }
      })
      expect(yield* answered("gemini", Fault.rateLimited({ retryAfter: "2 seconds" }))).toEqual({
        status: 429,
        retryAfter: null,
        retryAfterMs: null,
        body: {
          error: {
            code: 429,
            message: "You exceeded your current quota, please check your plan and billing details.",
            status: "RESOURCE_EXHAUSTED",
            details: [quotaFailure("GenerateRequestsPerMinutePerProjectPerModel-FreeTier"), { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "2s" }]
          }
        }
      })
      expect(((yield* answered("gemini", Fault.rateLimited())).body as { error: { details: unknown } }).error.details).toEqual([
        quotaFailure("GenerateRequestsPerMinutePerProjectPerModel-FreeTier")
      ])
    }))

  it.scoped("a quota exhausted (Gemini's per-day quota), and a wrong key", () =>
    Effect.gen(function* () {
      expect(yield* answered("openai", Fault.quotaExhausted())).toMatchObject({
        status: 429,
        body: { error: { type: "insufficient_quota", code: "insufficient_quota" } }
      })
      expect(yield* answered("glm", Fault.dailyQuota())).toMatchObject({ status: 429, body: { error: { code: "1113" } } })
      expect(yield* answered("gemini", Fault.quotaExhausted())).toMatchObject({
        status: 429,
        body: { error: { details: [quotaFailure("GenerateRequestsPerDayPerProjectPerModel-FreeTier"), { retryDelay: "30s" }] } }
      })
      expect(yield* answered("openai", Fault.unauthorized())).toMatchObject({ status: 401, body: { error: { code: "invalid_api_key" } } })
      expect(yield* answered("glm", Fault.unauthorized())).toMatchObject({ status: 401, body: { error: { code: "1002" } } })
      expect(yield* answered("gemini", Fault.unauthorized())).toMatchObject({ status: 400, body: { error: { details: [{ reason: "API_KEY_INVALID" }] } } })
    }))

  it.scoped.each([
    ["1113", 429, "余额不足或无可用资源包,请充值。"],
    ["1301", 400, "系统检测到输入或生成内容可能包含不安全或敏感内容，请您避免输入易产生敏感内容的提示语，感谢您的配合。"],
    ["1302", 429, "High concurrency usage of this API, please reduce concurrency or contact customer service to increase limits"],
    ["1305", 503, "The service may be temporarily overloaded, please try again later"],
    ["1308", 429, "Usage limit reached for 5 hour. Your limit will reset at 2026-01-01 00:00:00"],
    ["1309", 429, "Your GLM Coding Plan package has expired"],
    ["1313", 429, "Your account's current usage pattern does not comply with the Fair Usage Policy"]
  ] as const)("GLM business code %s: the service's status and words", ([code, status, message]) =>
    Effect.map(answered("glm", Fault.glm(code)), (wire) => expect(wire).toMatchObject({ status, body: { error: { code, message } } })))

  it.scoped("a GLM business code: the status and message given, or 400 and 'error <code>' for a code it does not know", () =>
    Effect.gen(function* () {
      expect(yield* answered("glm", Fault.glm("1308", { status: 403, message: "stop" }))).toMatchObject({ status: 403, body: { error: { code: "1308", message: "stop" } } })
      expect(yield* answered("glm", Fault.glm("1214"))).toMatchObject({ status: 400, body: { error: { code: "1214", message: "error 1214" } } })
      expect(yield* answered("gemini", Fault.glm("1302"))).toMatchObject({ status: 429, body: { error: { code: 429, status: "RESOURCE_EXHAUSTED" } } })
    }))

  it.scoped("a Live close on a REST route: 500 with the default reason", () =>
    Effect.gen(function* () {
      expect(yield* answered("openai", Fault.close())).toMatchObject({ status: 500, body: { error: { message: "Internal error encountered.", type: "server_error" } } })
      expect(yield* answered("gemini", Fault.close(1008, "policy"))).toMatchObject({ status: 500, body: { error: { message: "policy", status: "INTERNAL" } } })
    }))
})

describe("Fault — shaping faults, sent with a step (Policy.withFaults)", () => {
  it.scoped("the first call's arguments broken as asked, and calls without ids, on the chat-completions wire", () =>
    Effect.gen(function* () {
      const calls = { calls: [{ name: "get_weather", args: { city: "Paris" } }, { name: "get_time", args: { tz: "UTC" } }] }
      const emulator = yield* Emulator.make({
        policy: Policy.script([Policy.withFaults(calls, Fault.malformedArguments("truncated"), Fault.omitCallIds), Policy.withFaults(calls, Fault.malformedArguments("concatenated"))])
      })
      const toolCalls = Effect.gen(function* () {
        const response = yield* Effect.promise(() =>
          fetch(`${emulator.openAIBaseUrl()}/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${emulator.apiKey}` },
            body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] })
          })
        )
        const body = (yield* Effect.promise(() => response.json())) as { choices: ReadonlyArray<{ message: { tool_calls: ReadonlyArray<{ id?: string; function: { arguments: string } }> } }> }
        return body.choices[0]!.message.tool_calls
      })
      const first = yield* toolCalls
      expect(first.map((call) => [call.id, call.function.arguments])).toEqual([
        [undefined, '{"city":'],
        [undefined, '{"tz":"UTC"}']
      ])
      const second = yield* toolCalls
      expect(second.map((call) => call.function.arguments)).toEqual(['{"city":"Paris"}{"city":"Paris"}', '{"tz":"UTC"}'])
      expect(second.every((call) => typeof call.id === "string" && call.id !== "")).toBe(true)
    }))
})

describe("Fault — the constructors", () => {
  it("each makes the fault it names, with its defaults", () => {
    expect(Fault.rateLimited()).toEqual({ _tag: "RateLimited", retryAfter: undefined })
    expect(Fault.stallMidStream(2)).toEqual({ _tag: "StallMidStream", afterChunks: 2 })
    expect(Fault.errorMidStream(1, Fault.overloaded())).toEqual({ _tag: "ErrorMidStream", afterChunks: 1, error: { _tag: "Overloaded" } })
    expect(Fault.malformedArguments("truncated")).toEqual({ _tag: "MalformedArguments", kind: "truncated" })
    expect(Fault.rawFrame("x")).toEqual({ _tag: "RawFrame", data: "x", binary: false })
    expect(Fault.rawFrame("x", { binary: true }).binary).toBe(true)
    expect(Fault.frameBeforeSetup("x")).toEqual({ _tag: "FrameBeforeSetup", data: "x", binary: false })
    expect(Fault.frameBeforeSetup("x", { binary: true }).binary).toBe(true)
    expect(Fault.dropMidStream(3)).toEqual({ _tag: "DropMidStream", afterChunks: 3 })
    expect([Fault.stall, Fault.disconnect, Fault.omitCallIds, Fault.omitIndex, Fault.splitChunks]).toEqual([
      { _tag: "Stall" },
      { _tag: "Disconnect" },
      { _tag: "OmitCallIds" },
      { _tag: "OmitIndex" },
      { _tag: "SplitChunks" }
    ])
  })

  it("tells the answer faults, the shaping faults and the setup faults apart", () => {
    const answer = [Fault.status(500), Fault.rateLimited(), Fault.quotaExhausted(), Fault.overloaded(), Fault.unauthorized(), Fault.glm("1302"), Fault.stall, Fault.disconnect, Fault.close()]
    const shaping = [
      Fault.dropMidStream(1),
      Fault.stallMidStream(1),
      Fault.errorMidStream(1, Fault.overloaded()),
      Fault.malformedArguments("invalid"),
      Fault.omitCallIds,
      Fault.omitIndex,
      Fault.splitChunks,
      Fault.cancelCalls(),
      Fault.goAway("1 second"),
      Fault.dropAfterResponses(),
      Fault.rawFrame("x")
    ]
    const setup = [Fault.refuseSetup(), Fault.slowSetup("1 second"), Fault.frameBeforeSetup("x")]
    expect([...answer, ...shaping, ...setup].map(Fault.isAnswerFault)).toEqual([...answer.map(() => true), ...shaping.map(() => false), ...setup.map(() => false)])
    expect([...answer, ...shaping, ...setup].map(Fault.isSetupFault)).toEqual([...answer.map(() => false), ...shaping.map(() => false), ...setup.map(() => true)])
  })

  it("refuses an unsendable close code with a tagged InvalidCloseCode", () => {
    const error = Fault.checkCloseCode(1015)
    expect(error?._tag).toBe("InvalidCloseCode")
    expect(error?.code).toBe(1015)
    expect(Fault.checkCloseCode(1000)).toBeUndefined()
  })
})
