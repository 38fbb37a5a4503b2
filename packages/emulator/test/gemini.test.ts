/**
 * Gemini's REST wire exactly as a client reads it: the status and every field of a `GenerateContentResponse` or of
 * each stream chunk (parts, thought signatures, finish reasons, usage), the 200s that are not a turn, error steps and
 * faults in Gemini's envelope, the key and the path, and the neutral request a policy reads. Through the emulator's
 * in-process fetch, so nothing of an SDK's reading stands between the test and the bytes.
 */
import { FunctionCall, ModelError } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import { Conformance, Emulator, Fault, Policy } from "../src/index.js"
import { parse } from "../src/internal/json.js"
import { decodeFrame } from "../src/internal/live/wire.js"

interface Wire {
  readonly status: number
  readonly contentType: string | null
  readonly text: string
}

const hi = { contents: [{ role: "user", parts: [{ text: "hi" }] }] }

/** One POST to `{base}/{version}/models/{model}:{method}`; the body is sent as JSON unless it is a string already. */
const post = (
  emulator: Emulator.Service,
  method: string,
  body: unknown = hi,
  options: { readonly model?: string; readonly version?: string; readonly headers?: Record<string, string> } = {}
) =>
  Effect.promise(async (): Promise<Wire> => {
    const response = await emulator.fetch(`${emulator.geminiBaseUrl}/${options.version ?? "v1beta"}/models/${options.model ?? "gemini-3-flash-preview"}:${method}`, {
      method: "POST",
      headers: options.headers ?? { "x-goog-api-key": emulator.apiKey, "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body)
    })
    return { status: response.status, contentType: response.headers.get("content-type"), text: await response.text() }
  })

const generate = (emulator: Emulator.Service, body: unknown = hi) => Effect.map(post(emulator, "generateContent", body), (wire) => JSON.parse(wire.text) as unknown)

/** The chunks of an SSE stream, each `data:` payload parsed. */
const chunks = (emulator: Emulator.Service, body: unknown = hi) =>
  Effect.map(post(emulator, "streamGenerateContent?alt=sse", body), (wire) => {
    expect(wire.text.endsWith("\r\n\r\n")).toBe(true)
    return wire.text
      .slice(0, -4)
      .split("\r\n\r\n")
      .map((event) => {
        expect(event.startsWith("data: ")).toBe(true)
        return JSON.parse(event.slice("data: ".length)) as unknown
      })
  })

const unsigned = (...replies: ReadonlyArray<Policy.Reply>) => Emulator.make({ policy: Policy.script(replies), signatures: false })

const signature = expect.stringMatching(/^[A-Za-z0-9+/]{32}$/)

describe("Gemini — a whole answer (GenerateContentResponse)", () => {
  it.scoped("reasoning as a thought part, text, calls with their ids; the finish reason; usage split into candidates and thoughts", () =>
    Effect.gen(function* () {
      const emulator = yield* unsigned({
        reasoning: "Think.",
        text: "Sunny.",
        calls: [{ name: "get_weather", args: { city: "Paris" } }],
        usage: { inputTokens: 10, outputTokens: 7, totalTokens: 17, reasoningTokens: 2, cachedTokens: 4 }
      })
      const wire = yield* post(emulator, "generateContent")
      expect([wire.status, wire.contentType]).toEqual([200, "application/json; charset=UTF-8"])
      expect(JSON.parse(wire.text)).toEqual({
        candidates: [
          {
            content: {
              role: "model",
              parts: [{ text: "Think.", thought: true }, { text: "Sunny." }, { functionCall: { id: "call_0_0", name: "get_weather", args: { city: "Paris" } } }]
            },
            finishReason: "STOP",
            index: 0
          }
        ],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 17, thoughtsTokenCount: 2, cachedContentTokenCount: 4 },
        modelVersion: "gemini-3-flash-preview",
        responseId: "emulator-0"
      })
    }))

  it.scoped("usage without thoughts or cache has neither count; candidates are all the output", () =>
    Effect.gen(function* () {
      const emulator = yield* unsigned({ text: "a", usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } })
      expect(((yield* generate(emulator)) as { usageMetadata: unknown }).usageMetadata).toEqual({ promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 })
    }))

  it.scoped("each finish reason in Gemini's words", () =>
    Effect.gen(function* () {
      const reasons = ["stop", "tool_calls", "length", "safety", "malformed_call", "other"] as const
      const emulator = yield* unsigned(...reasons.map((finishReason) => ({ text: "x", finishReason })))
      const seen: Array<unknown> = []
      for (const _ of reasons) seen.push(((yield* generate(emulator)) as { candidates: ReadonlyArray<{ finishReason: unknown }> }).candidates[0]!.finishReason)
      expect(seen).toEqual(["STOP", "STOP", "MAX_TOKENS", "SAFETY", "MALFORMED_FUNCTION_CALL", "OTHER"])
    }))

  it.scoped("signed like Gemini 3: the first call only; without calls the last part; a script's own signature kept on its part", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({
        policy: Policy.script([
          { text: "a", calls: [{ name: "f", args: {} }, { name: "g", args: {} }] },
          { reasoning: "r", text: "b" },
          { parts: [{ _tag: "Text", text: "c", metadata: { thoughtSignature: "c2ln" } }, { _tag: "Reasoning", text: "d", metadata: { thoughtSignature: "ZA==" } }] },
          { parts: [] }
        ])
      })
      const partsOf = (body: unknown) => (body as { candidates: ReadonlyArray<{ content: { parts: ReadonlyArray<Record<string, unknown>> } }> }).candidates[0]!.content.parts
      expect(partsOf(yield* generate(emulator))).toEqual([
        { text: "a" },
        { functionCall: { id: "call_0_0", name: "f", args: {} }, thoughtSignature: signature },
        { functionCall: { id: "call_0_1", name: "g", args: {} } }
      ])
      expect(partsOf(yield* generate(emulator))).toEqual([{ text: "r", thought: true }, { text: "b", thoughtSignature: signature }])
      const own = partsOf(yield* generate(emulator))
      expect(own[0]).toEqual({ text: "c", thoughtSignature: "c2ln" })
      expect(own[1]).toEqual({ text: "d", thought: true, thoughtSignature: signature })
      expect(own[1]!.thoughtSignature).not.toBe("ZA==")
      expect(partsOf(yield* generate(emulator))).toEqual([])
    }))

  it.scoped("a call-less answer's signature is its text's: the same text signed alike, another text otherwise", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ text: "one" }, { text: "one" }, { text: "two" }]) })
      const signatureOf = Effect.map(generate(emulator), (body) => (body as { candidates: ReadonlyArray<{ content: { parts: ReadonlyArray<{ thoughtSignature: string }> } }> }).candidates[0]!.content.parts[0]!.thoughtSignature)
      const [first, again, other] = [yield* signatureOf, yield* signatureOf, yield* signatureOf]
      expect(first).toBe(again)
      expect(other).not.toBe(first)
    }))

  it.scoped("a Gemini part a script holds as opaque goes out as it is; another provider's is left out", () =>
    Effect.gen(function* () {
      const emulator = yield* unsigned({
        parts: [
          { _tag: "Opaque", provider: "gemini", data: { executableCode: { language: "PYTHON", code: "print(1)" } } },
          { _tag: "Opaque", provider: "openai", data: { type: "image_url" } },
          { _tag: "Opaque", provider: "gemini", data: "not a part" },
          { _tag: "FunctionResponse", id: "x", name: "f", response: {}, isError: false },
          { _tag: "Text", text: "done" }
        ]
      })
      expect(((yield* generate(emulator)) as { candidates: ReadonlyArray<{ content: unknown }> }).candidates[0]!.content).toEqual({
        role: "model",
        parts: [{ executableCode: { language: "PYTHON", code: "print(1)" } }, { text: "done" }]
      })
    }))

  it.scoped("OmitCallIds sends calls without ids", () =>
    Effect.gen(function* () {
      const emulator = yield* unsigned(Policy.withFaults({ calls: [{ name: "f", args: { a: 1 } }] }, Fault.omitCallIds))
      expect(((yield* generate(emulator)) as { candidates: ReadonlyArray<{ content: unknown }> }).candidates[0]!.content).toEqual({
        role: "model",
        parts: [{ functionCall: { name: "f", args: { a: 1 } } }]
      })
    }))
})

describe("Gemini — a streamed answer (SSE chunks)", () => {
  const chunk = (parts: ReadonlyArray<unknown>, model = "gemini-3-flash-preview") => ({ candidates: [{ content: { role: "model", parts }, index: 0 }], modelVersion: model, responseId: "emulator-0" })

  it.scoped("thoughts whole, text a word at a time, then calls with the finish reason and usage in the last chunk", () =>
    Effect.gen(function* () {
      const emulator = yield* unsigned({ reasoning: "Hm, ok.", text: "Two words", calls: [{ name: "f", args: {} }], usage: { inputTokens: 1, outputTokens: 3, totalTokens: 4, reasoningTokens: 1 } })
      expect(yield* chunks(emulator)).toEqual([
        chunk([{ text: "Hm, ok.", thought: true }]),
        chunk([{ text: "Two " }]),
        chunk([{ text: "words" }]),
        {
          candidates: [{ content: { role: "model", parts: [{ functionCall: { id: "call_0_0", name: "f", args: {} } }] }, finishReason: "STOP", index: 0 }],
          usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 2, totalTokenCount: 4, thoughtsTokenCount: 1 },
          modelVersion: "gemini-3-flash-preview",
          responseId: "emulator-0"
        }
      ])
    }))

  it.scoped("what follows a call goes in the last chunk too, in order; a call-less answer's signature on a final empty text part", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({
        policy: Policy.script([{ parts: [FunctionCall.make({ id: "c", name: "f", args: {} }), { _tag: "Text", text: "after it" }] }, { text: "just text" }])
      })
      const first = yield* chunks(emulator)
      expect(first).toHaveLength(1)
      expect((first[0] as { candidates: ReadonlyArray<{ content: unknown }> }).candidates[0]!.content).toEqual({
        role: "model",
        parts: [{ functionCall: { id: "c", name: "f", args: {} }, thoughtSignature: signature }, { text: "after it" }]
      })
      const second = yield* chunks(emulator)
      expect(second.slice(0, 2).map((c) => (c as { candidates: ReadonlyArray<{ content: unknown }> }).candidates[0]!.content)).toEqual([
        { role: "model", parts: [{ text: "just " }] },
        { role: "model", parts: [{ text: "text" }] }
      ])
      expect((second[2] as { candidates: ReadonlyArray<{ content: unknown; finishReason: unknown }> }).candidates[0]).toEqual({
        content: { role: "model", parts: [{ text: "", thoughtSignature: signature }] },
        finishReason: "STOP",
        index: 0
      })
    }))

  it.scoped("an opaque Gemini part is sent whole, in a chunk of its own", () =>
    Effect.gen(function* () {
      const emulator = yield* unsigned({ parts: [{ _tag: "Opaque", provider: "gemini", data: { executableCode: { language: "PYTHON", code: "1" } } }] })
      const all = yield* chunks(emulator)
      expect(all[0]).toEqual(chunk([{ executableCode: { language: "PYTHON", code: "1" } }]))
      expect(all).toHaveLength(2)
    }))

  it.scoped("a text part the script signed is sent whole, in a chunk of its own", () =>
    Effect.gen(function* () {
      const emulator = yield* unsigned({ parts: [{ _tag: "Text", text: "one two", metadata: { thoughtSignature: "c2ln" } }] })
      const all = yield* chunks(emulator)
      expect(all[0]).toEqual(chunk([{ text: "one two", thoughtSignature: "c2ln" }]))
      expect(all).toHaveLength(2)
    }))

  it.scoped("without alt=sse the stream is one JSON array of the chunks", () =>
    Effect.gen(function* () {
      const emulator = yield* unsigned({ text: "a b", usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } })
      const wire = yield* post(emulator, "streamGenerateContent")
      expect([wire.status, wire.contentType]).toEqual([200, "application/json; charset=UTF-8"])
      expect(JSON.parse(wire.text)).toEqual([
        chunk([{ text: "a " }]),
        chunk([{ text: "b" }]),
        {
          candidates: [{ content: { role: "model", parts: [] }, finishReason: "STOP", index: 0 }],
          usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
          modelVersion: "gemini-3-flash-preview",
          responseId: "emulator-0"
        }
      ])
    }))

  it.scoped("an error chunk mid-stream is the fault's envelope; a fault without one is Gemini's 500", () =>
    Effect.gen(function* () {
      const emulator = yield* unsigned(
        Policy.withFaults({ text: "one two three" }, Fault.errorMidStream(1, Fault.overloaded())),
        Policy.withFaults({ text: "one two three" }, Fault.errorMidStream(1, Fault.stall))
      )
      const first = yield* chunks(emulator)
      expect(first).toEqual([chunk([{ text: "one " }]), { error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" } }])
      expect((yield* chunks(emulator)).at(-1)).toEqual({
        error: { code: 500, message: "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting", status: "INTERNAL" }
      })
    }))
})

describe("Gemini — answers that are not a turn, error steps and faults", () => {
  it.scoped("a Blocked step is a 200 with the prompt's block reason; a MalformedResponse step a 200 with a malformed call", () =>
    Effect.gen(function* () {
      const emulator = yield* unsigned(
        { error: new ModelError.Blocked({ message: "unsafe" }) },
        { error: new ModelError.MalformedResponse({ message: "bad args" }) },
        { error: new ModelError.Blocked({ message: "unsafe" }) }
      )
      expect(yield* generate(emulator)).toEqual({
        promptFeedback: { blockReason: "SAFETY" },
        usageMetadata: { promptTokenCount: 1, totalTokenCount: 1 },
        modelVersion: "gemini-3-flash-preview",
        responseId: "emulator-0"
      })
      expect(yield* generate(emulator)).toEqual({
        candidates: [{ content: { role: "model", parts: [] }, finishReason: "MALFORMED_FUNCTION_CALL", finishMessage: "Malformed function call: bad args", index: 0 }],
        modelVersion: "gemini-3-flash-preview",
        responseId: "emulator-1"
      })
      expect(yield* chunks(emulator)).toEqual([
        { promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 1, totalTokenCount: 1 }, modelVersion: "gemini-3-flash-preview", responseId: "emulator-2" }
      ])
    }))

  it.scoped("MalformedArguments on an answer with calls is Gemini's malformed call; on one without calls it changes nothing", () =>
    Effect.gen(function* () {
      const emulator = yield* unsigned(
        Policy.withFaults({ calls: [{ name: "f", args: {} }] }, Fault.malformedArguments("invalid")),
        Policy.withFaults({ text: "fine" }, Fault.malformedArguments("invalid"))
      )
      expect(yield* generate(emulator)).toEqual({
        candidates: [
          { content: { role: "model", parts: [] }, finishReason: "MALFORMED_FUNCTION_CALL", finishMessage: "Malformed function call: the arguments could not be parsed", index: 0 }
        ],
        modelVersion: "gemini-3-flash-preview",
        responseId: "emulator-0"
      })
      expect(((yield* generate(emulator)) as { candidates: ReadonlyArray<{ content: unknown }> }).candidates[0]!.content).toEqual({ role: "model", parts: [{ text: "fine" }] })
    }))

  it.scoped("other error steps are their faults in Gemini's envelope", () =>
    Effect.gen(function* () {
      const emulator = yield* unsigned(
        { error: new ModelError.InvalidRequest({ message: "bad tools" }) },
        { error: new ModelError.Unavailable({ message: "down", status: 503 }) }
      )
      const invalid = yield* post(emulator, "generateContent")
      expect([invalid.status, JSON.parse(invalid.text)]).toEqual([400, { error: { code: 400, message: "bad tools", status: "INVALID_ARGUMENT" } }])
      const down = yield* post(emulator, "generateContent")
      expect([down.status, JSON.parse(down.text)]).toEqual([503, { error: { code: 503, message: "down", status: "UNAVAILABLE" } }])
      const [first] = yield* emulator.requests
      expect(first!.error).toBe(invalid.text)
    }))

  it.scoped("a status's name and default text, for each status Gemini answers with", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const cases: ReadonlyArray<readonly [number, string, string]> = [
        [400, "INVALID_ARGUMENT", "Request contains an invalid argument."],
        [401, "UNAUTHENTICATED", "Request had invalid authentication credentials."],
        [403, "PERMISSION_DENIED", "The caller does not have permission"],
        [404, "NOT_FOUND", "Requested entity was not found."],
        [408, "DEADLINE_EXCEEDED", "Unknown error."],
        [413, "INVALID_ARGUMENT", "Unknown error."],
        [429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."],
        [500, "INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"],
        [503, "UNAVAILABLE", "The model is overloaded. Please try again later."],
        [504, "DEADLINE_EXCEEDED", "The request timed out. Please try again."],
        [418, "UNKNOWN", "Unknown error."]
      ]
      for (const [code, status, message] of cases) {
        yield* emulator.inject(Fault.status(code))
        const wire = yield* post(emulator, "generateContent")
        expect([wire.status, JSON.parse(wire.text)]).toEqual([code, { error: { code, message, status } }])
      }
    }))

  it.scoped("faults' bodies: overloaded, a wrong key, a GLM code, a Live close; a rate limit's delay to the millisecond", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const answer = (fault: Fault.AnswerFault) =>
        Effect.gen(function* () {
          yield* emulator.inject(fault)
          const wire = yield* post(emulator, "generateContent")
          return [wire.status, JSON.parse(wire.text)] as const
        })
      expect(yield* answer(Fault.overloaded())).toEqual([503, { error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" } }])
      expect(yield* answer(Fault.unauthorized())).toEqual([
        400,
        {
          error: {
            code: 400,
            message: "API key not valid. Please pass a valid API key.",
            status: "INVALID_ARGUMENT",
            details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com", metadata: { service: "generativelanguage.googleapis.com" } }]
          }
        }
      ])
      expect(yield* answer(Fault.glm("1305", { status: 503, message: "busy" }))).toEqual([503, { error: { code: 503, message: "busy", status: "UNAVAILABLE" } }])
      expect(yield* answer(Fault.close(1011, "gone"))).toEqual([500, { error: { code: 500, message: "gone", status: "INTERNAL" } }])
      expect(yield* answer(Fault.quotaExhausted())).toEqual([
        429,
        {
          error: {
            code: 429,
            message: "You exceeded your current quota, please check your plan and billing details.",
            status: "RESOURCE_EXHAUSTED",
            details: [
              {
                "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                violations: [
                  {
                    quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                    quotaId: "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                    quotaDimensions: { location: "global", model: "gemini-3-flash-preview" },
                    quotaValue: "10"
                  }
                ]
              },
              { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "30s" }
            ]
          }
        }
      ])
      const limited = yield* answer(Fault.rateLimited({ retryAfter: "1234 millis" }))
      expect((limited[1] as { error: { details: ReadonlyArray<unknown> } }).error.details[1]).toEqual({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1.234s" })
    }))
})

describe("Gemini — the route: the key, the path, the body", () => {
  it.scoped("the key in x-goog-api-key or ?key=; none (or empty) is 403, a wrong one 400; each recorded", () =>
    Effect.gen(function* () {
      const emulator = yield* unsigned({ text: "a" })
      const byQuery = yield* Effect.promise(() =>
        emulator.fetch(`${emulator.geminiBaseUrl}/v1beta/models/m:generateContent?key=${emulator.apiKey}`, { method: "POST", body: JSON.stringify(hi) }).then((r) => r.status)
      )
      expect(byQuery).toBe(200)
      const missing = {
        error: {
          code: 403,
          message:
            "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
          status: "PERMISSION_DENIED"
        }
      }
      for (const headers of [{}, { "x-goog-api-key": "" }] as ReadonlyArray<Record<string, string>>) {
        const wire = yield* post(emulator, "generateContent", hi, { headers })
        expect([wire.status, JSON.parse(wire.text)]).toEqual([403, missing])
      }
      const wrong = yield* post(emulator, "generateContent", hi, { headers: { "x-goog-api-key": "nope" } })
      expect(wrong.status).toBe(400)
      const records = yield* emulator.requests
      expect(records.map((record) => [record.protocol, record.flavour, record.apiKey, record.model, record.stream])).toEqual([
        ["gemini", "gemini", "valid", "m", false],
        ["gemini", "gemini", "missing", "gemini-3-flash-preview", false],
        ["gemini", "gemini", "missing", "gemini-3-flash-preview", false],
        ["gemini", "gemini", "invalid", "gemini-3-flash-preview", false]
      ])
      expect(records[1]!.error).toBe(missing.error.message)
    }))

  it.scoped("the header's key is the one read when both are given; an empty ?key= is no key", () =>
    Effect.gen(function* () {
      const emulator = yield* unsigned({ text: "a" })
      const status = (query: string, headers: Record<string, string>) =>
        Effect.promise(() =>
          emulator.fetch(`${emulator.geminiBaseUrl}/v1beta/models/m:generateContent${query}`, { method: "POST", headers, body: JSON.stringify(hi) }).then((r) => r.status)
        )
      expect(yield* status(`?key=${emulator.apiKey}`, { "x-goog-api-key": "nope" })).toBe(400)
      expect(yield* status("?key=", {})).toBe(403)
      expect(yield* status("?key=nope", { "x-goog-api-key": emulator.apiKey })).toBe(200)
    }))

  it.scoped("SplitChunks sends each SSE event in two writes", () =>
    Effect.gen(function* () {
      const emulator = yield* unsigned(Policy.withFaults({ text: "a b" }, Fault.splitChunks), { text: "a b" })
      const chunksOf = Effect.promise(async () => {
        const response = await emulator.fetch(`${emulator.geminiBaseUrl}/v1beta/models/m:streamGenerateContent?alt=sse`, {
          method: "POST",
          headers: { "x-goog-api-key": emulator.apiKey },
          body: JSON.stringify(hi)
        })
        const decoder = new TextDecoder()
        const received: Array<string> = []
        for await (const chunk of response.body!) received.push(decoder.decode(chunk))
        return received
      })
      const split = yield* chunksOf
      const whole = yield* chunksOf
      expect(whole.every((chunk) => chunk.startsWith("data: ") && chunk.endsWith("\r\n\r\n"))).toBe(true)
      expect(split).toHaveLength(2 * whole.length)
      expect(split.join("").replaceAll("emulator-0", "emulator-1")).toBe(whole.join(""))
    }))

  it.scoped("a model whose percent-encoding is broken is not found, in Gemini's words with the version and the method", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const wire = yield* post(emulator, "streamGenerateContent", hi, { model: "gemini%zz", version: "v1alpha" })
      expect([wire.status, JSON.parse(wire.text)]).toEqual([
        404,
        {
          error: {
            code: 404,
            message: "models/gemini%zz is not found for API version v1alpha, or is not supported for streamGenerateContent. Call ListModels to see the list of available models and their supported methods.",
            status: "NOT_FOUND"
          }
        }
      ])
      expect((yield* post(emulator, "generateContent", hi, { model: "gemini%2D3" })).status).toBe(200)
      expect((yield* emulator.requests)[1]!.model).toBe("gemini-3")
    }))

  it.scoped("a body that is not JSON is 400 INVALID_ARGUMENT saying so; one Gemini cannot read, its own 400", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const wire = yield* post(emulator, "generateContent", '{"contents": ')
      expect(wire.status).toBe(400)
      expect(JSON.parse(wire.text)).toEqual({ error: { code: 400, message: `Invalid JSON payload received. ${Either.getLeft(parse('{"contents": ')).pipe(Option.getOrThrow)}`, status: "INVALID_ARGUMENT" } })
      const unknown = yield* post(emulator, "generateContent", { ...hi, temperature: 0 })
      expect([unknown.status, JSON.parse(unknown.text)]).toEqual([
        400,
        { error: { code: 400, message: 'Invalid JSON payload received. Unknown name "temperature": Cannot find field.', status: "INVALID_ARGUMENT" } }
      ])
      const records = yield* emulator.requests
      expect(records.map((record) => [record.body, record.error])).toEqual([
        [undefined, JSON.parse(wire.text).error.message],
        [{ ...hi, temperature: 0 }, 'Invalid JSON payload received. Unknown name "temperature": Cannot find field.']
      ])
    }))

  it.scoped("records the neutral request, the faults applied and the id breaches it let through", () =>
    Effect.gen(function* () {
      const emulator = yield* unsigned(Policy.withFaults({ text: "a" }, Fault.splitChunks), { text: "b" })
      yield* post(emulator, "streamGenerateContent?alt=sse")
      const contents = [
        { role: "user", parts: [{ text: "hi" }] },
        { role: "model", parts: [{ functionCall: { id: "c1", name: "f", args: {} } }] },
        { role: "user", parts: [{ functionResponse: { id: "c9", name: "f", response: {} } }] }
      ]
      yield* post(emulator, "generateContent", { contents })
      const [streamed, plain] = yield* emulator.requests
      expect(streamed).toMatchObject({ stream: true, faults: [Fault.splitChunks], violations: [], status: 200 })
      expect(streamed!.request).toMatchObject({ protocol: "gemini", flavour: "gemini", index: 0, model: "gemini-3-flash-preview", stream: true })
      expect(plain).toMatchObject({ stream: false, faults: [] })
      expect(plain!.violations).toHaveLength(1)
    }))

  it.scoped("a stall leaves the request open; StallMidStream stalls a plain answer and DropMidStream cuts it halfway", () =>
    Effect.gen(function* () {
      const emulator = yield* unsigned(Policy.withFaults({ text: "a" }, Fault.stallMidStream(1)), Policy.withFaults({ text: "a" }, Fault.dropMidStream(1)))
      const send = (signal?: AbortSignal) => () =>
        emulator.fetch(`${emulator.geminiBaseUrl}/v1beta/models/m:generateContent`, {
          method: "POST",
          headers: { "x-goog-api-key": emulator.apiKey },
          body: JSON.stringify(hi),
          ...(signal === undefined ? {} : { signal })
        })
      const failure = (run: () => Promise<unknown>) => Effect.promise(() => run().then(() => undefined, (error: Error) => error.name))
      const abandoned = Effect.gen(function* () {
        const controller = new AbortController()
        const index = yield* emulator.received
        const settled = yield* Effect.fork(failure(send(controller.signal)))
        yield* emulator.awaitRequests(index + 1)
        controller.abort()
        return [yield* Effect.flatten(settled.await), yield* emulator.awaitOutcome(index)]
      })
      yield* emulator.inject(Fault.stall)
      expect(yield* abandoned).toEqual(["AbortError", "aborted"])
      expect(yield* abandoned).toEqual(["AbortError", "aborted"])
      const cut = yield* Effect.promise(send())
      expect(cut.status).toBe(200)
      expect(yield* failure(() => cut.text())).toBe("TypeError")
      expect(yield* emulator.awaitOutcome(2)).toBe("dropped")
      yield* emulator.inject(Fault.disconnect)
      expect(yield* failure(send())).toBe("TypeError")
      expect(yield* emulator.awaitOutcome(3)).toBe("dropped")
    }))
})

describe("Gemini — the request as a policy reads it (the neutral request)", () => {
  const neutral = (body: unknown) => {
    const verdict = Conformance.gemini(body)
    if (verdict._tag === "Rejected") throw new Error(`rejected: ${verdict.message}`)
    return verdict.request
  }

  it("calls without ids get gemini_wire_<n> (past the ids the body has); their responses take them by position", () => {
    const request = neutral({
      systemInstruction: { parts: [{ text: "Be " }, { text: "brief." }] },
      contents: [
        { role: "user", parts: [{ text: "weather?" }, { inlineData: { mimeType: "image/png", data: "AAAA" } }] },
        {
          role: "model",
          parts: [
            { text: "Let me see.", thought: true, thoughtSignature: "c2ln" },
            { text: "Looking." },
            { functionCall: { name: "f", args: { a: 1 } } },
            { functionCall: { id: "gemini_wire_2", name: "g" } },
            { functionCall: { name: "h", args: {} } },
            { executableCode: { language: "PYTHON", code: "1" } }
          ]
        },
        {
          role: "user",
          parts: [
            { functionResponse: { name: "f", response: { ok: true } } },
            { functionResponse: { id: "gemini_wire_2", name: "g", response: { error: "no" } } },
            { functionResponse: { name: "h", response: {} } },
            { text: "thanks" }
          ]
        }
      ]
    })
    expect(request.system).toBe("Be brief.")
    expect(request.transcript).toEqual([
      { role: "user", parts: [{ _tag: "Text", text: "weather?" }, { _tag: "Opaque", provider: "gemini", data: { inlineData: { mimeType: "image/png", data: "AAAA" } } }] },
      {
        role: "model",
        parts: [
          { _tag: "Reasoning", text: "Let me see.", metadata: { thoughtSignature: "c2ln" } },
          { _tag: "Text", text: "Looking." },
          { _tag: "FunctionCall", id: "gemini_wire_1", name: "f", args: { a: 1 } },
          { _tag: "FunctionCall", id: "gemini_wire_2", name: "g", args: {} },
          { _tag: "FunctionCall", id: "gemini_wire_3", name: "h", args: {} },
          { _tag: "Opaque", provider: "gemini", data: { executableCode: { language: "PYTHON", code: "1" } } }
        ]
      },
      {
        role: "user",
        parts: [
          { _tag: "FunctionResponse", id: "gemini_wire_1", name: "f", response: { ok: true }, isError: false },
          { _tag: "FunctionResponse", id: "gemini_wire_2", name: "g", response: { error: "no" }, isError: true },
          { _tag: "FunctionResponse", id: "gemini_wire_3", name: "h", response: {}, isError: false },
          { _tag: "Text", text: "thanks" }
        ]
      }
    ])
  })

  it("a system instruction without parts is no system text", () => {
    expect(neutral({ contents: hi.contents, systemInstruction: { role: "user" } }).system).toBeUndefined()
  })

  it("declarations: parametersJsonSchema before parameters, an empty object schema without either, NON_BLOCKING kept", () => {
    const request = neutral({
      contents: hi.contents,
      tools: [
        {
          functionDeclarations: [
            { name: "a", description: "A", parametersJsonSchema: { type: "object", properties: { x: { type: "string" } } } },
            { name: "b", parameters: { type: "OBJECT", properties: {} }, behavior: "NON_BLOCKING" },
            { name: "c", behavior: "BLOCKING" }
          ]
        },
        { googleSearch: {} }
      ]
    })
    expect(request.declarations).toEqual([
      { name: "a", description: "A", parameters: { type: "object", properties: { x: { type: "string" } } } },
      { name: "b", description: "", parameters: { type: "OBJECT", properties: {} }, behavior: "nonBlocking" },
      { name: "c", description: "", parameters: { type: "object", properties: {} } }
    ])
  })

  it("the tool choice of each function-calling mode; none without a tool config", () => {
    const choiceOf = (functionCallingConfig: object | undefined) =>
      neutral({ contents: hi.contents, ...(functionCallingConfig === undefined ? {} : { toolConfig: { functionCallingConfig } }) }).toolChoice
    expect([choiceOf(undefined), choiceOf({}), choiceOf({ mode: "AUTO" }), choiceOf({ mode: "NONE" }), choiceOf({ mode: "ANY" }), choiceOf({ mode: "VALIDATED" })]).toEqual([
      undefined,
      undefined,
      "auto",
      "none",
      "any",
      "any"
    ])
    expect([choiceOf({ mode: "ANY", allowedFunctionNames: [] }), choiceOf({ mode: "VALIDATED", allowedFunctionNames: ["f"] })]).toEqual(["any", { allowed: ["f"] }])
  })

  it("the output asked: JSON by its mime type, the schema of either field or of the instructions", () => {
    const outputOf = (extra: object) => neutral({ contents: hi.contents, ...extra }).output
    const schema = { type: "object", properties: { n: { type: "number" } } }
    expect(outputOf({})).toBeUndefined()
    expect(outputOf({ generationConfig: { responseMimeType: "text/plain" } })).toBeUndefined()
    expect(outputOf({ generationConfig: { responseMimeType: "application/json" } })).toStrictEqual({ json: true })
    expect(outputOf({ generationConfig: { responseMimeType: "application/json", responseJsonSchema: schema } })).toEqual({ json: true, schema })
    expect(outputOf({ generationConfig: { responseMimeType: "application/json", responseSchema: { type: "OBJECT" } } })).toEqual({ json: true, schema: { type: "OBJECT" } })
    expect(outputOf({ systemInstruction: { parts: [{ text: `Answer as JSON.\n${JSON.stringify(schema)}` }] } })).toEqual({ json: false, schema })
  })
})

describe("Gemini — the 400s of a body Gemini refuses, in its words", () => {
  const refusal = (body: unknown, model?: string) => {
    const verdict = Conformance.gemini(body, model)
    return verdict._tag === "Rejected" ? verdict.message : "accepted"
  }
  const user = { role: "user", parts: [{ text: "hi" }] }
  const calls = (...names: ReadonlyArray<string>) => ({ role: "model", parts: names.map((name) => ({ functionCall: { name, args: {} } })) })
  const responses = (...names: ReadonlyArray<string>) => ({ role: "user", parts: names.map((name) => ({ functionResponse: { name, response: {} } })) })
  const messages = {
    callOrder: "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
    responseOrder: "Please ensure that function response turn comes immediately after a function call turn.",
    responseCount: "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
  }

  it("no contents, a turn without parts, a response without a name, a response that is no object", () => {
    expect(refusal({})).toBe("* GenerateContentRequest.contents: contents is not specified\n")
    expect(refusal({ contents: [] })).toBe("* GenerateContentRequest.contents: contents is not specified\n")
    expect(refusal({ contents: [user, { role: "model" }] })).toBe("* GenerateContentRequest.contents[1].parts: contents.parts must not be empty.\n")
    expect(refusal({ contents: [user, { role: "model", parts: [] }] })).toBe("* GenerateContentRequest.contents[1].parts: contents.parts must not be empty.\n")
    expect(refusal({ contents: [user, calls("f"), { role: "user", parts: [{ functionResponse: { response: {} } }] }] })).toBe(
      "* GenerateContentRequest.contents[2].parts[0].function_response.name: Name cannot be empty.\n"
    )
    expect(refusal({ contents: [user, calls("f"), { role: "user", parts: [{ functionResponse: { name: "f", response: [1] } }] }] })).toBe(
      `Invalid JSON payload received. Unknown name "response" at 'contents[2].parts[0].function_response': Proto field is not repeating, cannot start list.`
    )
    expect(refusal({ contents: [user, calls("f"), { role: "user", parts: [{ functionResponse: { name: "f" } }] }] })).toBe(
      "Invalid value at 'contents[2].parts[0].function_response.response' (type.googleapis.com/google.protobuf.Struct), null"
    )
  })

  it("a turn without a role is the user's", () => {
    expect(refusal({ contents: [{ parts: [{ text: "hi" }] }, calls("f"), { parts: [{ functionResponse: { name: "f", response: {} } }] }] })).toBe("accepted")
    expect(refusal({ contents: [{ parts: [{ text: "hi" }] }, { parts: [{ functionCall: { name: "f", args: {} } }] }] })).toBe(messages.callOrder)
  })

  it("a call turn comes after a user's turn, and its responses all in the next turn", () => {
    expect(refusal({ contents: [calls("f"), responses("f")] })).toBe(messages.callOrder)
    expect(refusal({ contents: [user, { role: "model", parts: [{ text: "x" }] }, calls("f")] })).toBe(messages.callOrder)
    expect(refusal({ contents: [user, calls("f", "g"), responses("f", "g"), calls("h")] })).toBe("accepted")
    expect(refusal({ contents: [user, calls("f"), calls("g")] })).toBe(messages.responseOrder)
    expect(refusal({ contents: [user, calls("f"), { role: "model", parts: [{ text: "x" }] }] })).toBe(messages.responseOrder)
    expect(refusal({ contents: [user, calls("f", "g"), responses("f")] })).toBe(messages.responseCount)
    expect(refusal({ contents: [user, calls("f"), user] })).toBe(messages.responseCount)
    expect(refusal({ contents: [user, calls("f")] })).toBe("accepted")
    expect(refusal({ contents: [user, { role: "model", parts: [{ text: "x" }] }, responses("f")] })).toBe(messages.responseOrder)
    expect(refusal({ contents: [responses("f")] })).toBe(messages.responseOrder)
    expect(refusal({ contents: [user, calls("f"), { role: "model", parts: [{ functionResponse: { name: "f", response: {} } }] }] })).toBe(messages.responseCount)
    expect(refusal({ contents: [user, { role: "model", parts: [{ functionResponse: { name: "f", response: {} } }] }] })).toBe(messages.responseOrder)
  })

  it("declarations: a name of a letter or '_' then up to 127 of letters, digits, '_', '.', ':' or '-'; parameters or parameters_json_schema", () => {
    const declared = (...declarations: ReadonlyArray<object>) => ({ contents: [user], tools: [{}, { functionDeclarations: declarations }] })
    const invalidName = (f: number) =>
      `* GenerateContentRequest.tools[1].function_declarations[${f}].name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 128.\n`
    expect(refusal(declared({ name: "a.b:c-d_e9" }, { name: "x" }))).toBe("accepted")
    for (const name of ["9a", "-a", "a b", "a/b"]) expect(refusal(declared({ name: "ok" }, { name }))).toBe(invalidName(1))
    expect(refusal(declared({ description: "no name" }))).toBe(invalidName(0))
    expect(refusal(declared({ name: "f", parameters: { type: "OBJECT" }, parametersJsonSchema: { type: "object" } }))).toBe(
      "* GenerateContentRequest.tools[1].function_declarations[0]: parameters and parameters_json_schema are mutually exclusive.\n"
    )
    expect(refusal(declared({ name: "f", parameters: { type: "OBJECT", properties: { _a1: { type: "STRING" }, [`b${"c".repeat(63)}`]: { type: "STRING" } } } }))).toBe("accepted")
    expect(refusal(declared({ name: "f", parameters: { type: "OBJECT", properties: { [`b${"c".repeat(64)}`]: { type: "STRING" } } } }))).toContain("Invalid parameter name.")
  })

  it("JSON mode: one schema field, a mime type Gemini has, a schema only with JSON (or an enum), no JSON with tools before Gemini 3", () => {
    const configured = (generationConfig: object, extra: object = {}) => ({ contents: [user], generationConfig, ...extra })
    const schema = { type: "object" }
    expect(refusal(configured({ responseSchema: { type: "OBJECT" }, responseJsonSchema: schema, responseMimeType: "application/json" }))).toBe(
      "* GenerateContentRequest.generation_config: response_schema and response_json_schema are mutually exclusive.\n"
    )
    expect(refusal(configured({ responseMimeType: "text/csv" }))).toBe(
      "* GenerateContentRequest.generation_config.response_mime_type: allowed mimetypes are `text/plain`, `application/json`, `application/xml`, `application/yaml` and `text/x.enum`.\n"
    )
    for (const mime of ["text/plain", "application/xml", "application/yaml", "text/x.enum"]) expect(refusal(configured({ responseMimeType: mime }))).toBe("accepted")
    expect(refusal(configured({ responseJsonSchema: schema }))).toBe(
      "* GenerateContentRequest.generation_config.response_mime_type: When response_json_schema is set, response_mime_type must be application/json.\n"
    )
    expect(refusal(configured({ responseJsonSchema: schema, responseMimeType: "text/x.enum" }))).toContain("When response_json_schema is set")
    expect(refusal(configured({ responseSchema: { type: "STRING" }, responseMimeType: "application/xml" }))).toBe(
      "* GenerateContentRequest.generation_config.response_mime_type: When response_schema is set, response_mime_type must be application/json.\n"
    )
    expect(refusal(configured({ responseSchema: { type: "STRING", enum: ["a"] }, responseMimeType: "text/x.enum" }))).toBe("accepted")
    const tools = { tools: [{ functionDeclarations: [{ name: "f" }] }] }
    const refused = "Function calling with a response mime type: 'application/json' is unsupported"
    for (const model of ["gemini-2.5-flash", "models/gemini-2.0-flash", "gemini-1.5-pro", "gemini-2"]) {
      expect(refusal(configured({ responseMimeType: "application/json" }, tools), model)).toBe(refused)
    }
    for (const model of ["gemini-3-flash-preview", "gemini-25", "xgemini-2.5"]) expect(refusal(configured({ responseMimeType: "application/json" }, tools), model)).toBe("accepted")
    expect(refusal(configured({ responseMimeType: "application/json" }, { tools: [{ functionDeclarations: [] }, { googleSearch: {} }] }), "gemini-2.5-flash")).toBe("accepted")
    expect(refusal(configured({ responseMimeType: "application/json" }, { tools: [{ googleSearch: {} }, { functionDeclarations: [{ name: "f" }] }] }), "gemini-2.5-flash")).toBe(refused)
    expect(refusal(configured({ responseMimeType: "text/plain" }, tools), "gemini-2.5-flash")).toBe("accepted")
  })
})

describe("Gemini — thought signatures on the wire (Gemini 3)", () => {
  it.scoped("the calls of the current turn need their signature back: since the last user message that is not responses", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.fromFunction(() => ({ calls: [{ name: "f", args: {} }] })) })
      const first = JSON.parse((yield* post(emulator, "generateContent")).text) as { candidates: ReadonlyArray<{ content: { parts: ReadonlyArray<{ functionCall: object }> } }> }
      const signedTurn = first.candidates[0]!.content
      const bare = { role: "model", parts: signedTurn.parts.map((part) => ({ functionCall: part.functionCall })) }
      const answered = { role: "user", parts: [{ functionResponse: { id: "call_0_0", name: "f", response: {} } }] }
      const refusalOf = (contents: ReadonlyArray<unknown>) => Effect.map(post(emulator, "generateContent", { contents }), (wire) => [wire.status, (JSON.parse(wire.text) as { error?: { message: string } }).error?.message])
      expect(yield* refusalOf([hi.contents[0], signedTurn, answered])).toEqual([200, undefined])
      expect(yield* refusalOf([hi.contents[0], bare, answered])).toEqual([
        400,
        "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:f` , position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
      ])
      // Before a later user message the turn is history: its calls are not checked.
      expect(yield* refusalOf([hi.contents[0], bare, answered, { role: "model", parts: [{ text: "ok" }] }, hi.contents[0]])).toEqual([200, undefined])
      // Without signatures the emulator checks none.
      const plain = yield* Emulator.make({ signatures: false })
      expect((yield* post(plain, "generateContent", { contents: [hi.contents[0], bare, answered] })).status).toBe(200)
    }))
})

describe("Gemini — a body the proto parser cannot read", () => {
  const refusal = (body: unknown) => {
    const verdict = Conformance.gemini(body)
    return verdict._tag === "Rejected" ? verdict.message : "accepted"
  }
  const declared = (declaration: object) => ({ contents: hi.contents, tools: [{ functionDeclarations: [{ name: "f", ...declaration }] }] })

  it("a body that is not an object", () => {
    expect(refusal([])).toBe("Invalid JSON payload received. Expected an object, got [].")
    expect(refusal(5)).toBe("Invalid JSON payload received. Expected an object, got 5.")
    expect(refusal(null)).toBe("Invalid JSON payload received. Expected an object, got null.")
  })

  it("a value of the wrong type: the field's proto path and the type it has, the value as JSON", () => {
    expect(refusal({ contents: "hi" })).toBe(`Invalid value at 'contents' (type.googleapis.com/google.ai.generativelanguage.v1beta.Content), "hi"`)
    expect(refusal({ contents: [5] })).toBe("Invalid value at 'contents[0]' (type.googleapis.com/google.ai.generativelanguage.v1beta.Content), 5")
    expect(refusal({ contents: hi.contents, systemInstruction: { parts: [{ text: "a", thought: "yes" }] } })).toBe(`Invalid value at 'system_instruction.parts[0].thought' (TYPE_BOOL), "yes"`)
    expect(refusal({ contents: hi.contents, generationConfig: { maxOutputTokens: "many" } })).toBe(`Invalid value at 'generation_config.max_output_tokens' (TYPE_INT32), "many"`)
    expect(refusal({ contents: hi.contents, generationConfig: { stopSequences: [1] } })).toBe("Invalid value at 'generation_config.stop_sequences[0]' (TYPE_STRING), 1")
    expect(refusal({ contents: [{ role: "user", parts: [{ functionCall: { name: "f", args: "{}" } }] }] })).toBe(
      `Invalid value at 'contents[0].parts[0].function_call.args' (type.googleapis.com/google.protobuf.Struct), "{}"`
    )
  })

  it("an int64 of the OpenAPI schema is a number or a decimal string; properties are an object, checked entry by entry", () => {
    expect(refusal(declared({ parameters: { type: "ARRAY", items: { type: "STRING" }, maxItems: "12", minItems: 1 } }))).toBe("accepted")
    expect(refusal(declared({ parameters: { type: "ARRAY", maxItems: "twelve" } }))).toBe(
      `Invalid value at 'tools[0].function_declarations[0].parameters.max_items' (TYPE_INT64), "twelve"`
    )
    expect(refusal(declared({ parameters: { type: "OBJECT", properties: 5 } }))).toBe(
      "Invalid value at 'tools[0].function_declarations[0].parameters.properties' (type.googleapis.com/google.protobuf.Struct), 5"
    )
    expect(refusal(declared({ parameters: { type: "OBJECT", properties: { a: { type: "STRING" }, b: { type: "TEXT" } } } }))).toBe(
      `Invalid value at 'tools[0].function_declarations[0].parameters.properties[1].value.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), "TEXT"`
    )
    expect(refusal(declared({ parameters: { type: "OBJECT", anyOf: [{ type: "STRING" }, { type: 5 }] } }))).toBe(
      "Invalid value at 'tools[0].function_declarations[0].parameters.any_of[1].type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), 5"
    )
  })

  it("each message and enum by its own type name when a value of the wrong kind stands in its place", () => {
    const type = (name: string) => `type.googleapis.com/google.ai.generativelanguage.v1beta.${name}`
    const part = (value: object) => ({ contents: [{ role: "user", parts: [value] }] })
    // The value sent is 5 unless said.
    const cases: ReadonlyArray<readonly [body: unknown, at: string, name: string, shown?: string]> = [
      [part({ inlineData: 5 }), "contents[0].parts[0].inline_data", type("Blob")],
      [part({ fileData: 5 }), "contents[0].parts[0].file_data", type("FileData")],
      [part({ functionCall: 5 }), "contents[0].parts[0].function_call", type("FunctionCall")],
      [part({ functionResponse: 5 }), "contents[0].parts[0].function_response", type("FunctionResponse")],
      [part({ functionResponse: { name: "f", response: {}, scheduling: 5 } }), "contents[0].parts[0].function_response.scheduling", type("FunctionResponse.Scheduling")],
      [{ contents: [{ role: "user", parts: [5] }] }, "contents[0].parts[0]", type("Part")],
      [{ contents: hi.contents, tools: [5] }, "tools[0]", type("Tool")],
      [{ contents: hi.contents, tools: [{ functionDeclarations: [5] }] }, "tools[0].function_declarations[0]", type("FunctionDeclaration")],
      [declared({ behavior: 5 }), "tools[0].function_declarations[0].behavior", type("FunctionDeclaration.Behavior")],
      [declared({ parameters: 5 }), "tools[0].function_declarations[0].parameters", type("Schema")],
      [declared({ parameters: { type: "NUMBER", minimum: "low" } }), "tools[0].function_declarations[0].parameters.minimum", "TYPE_DOUBLE", `"low"`],
      [{ contents: hi.contents, toolConfig: 5 }, "tool_config", type("ToolConfig")],
      [{ contents: hi.contents, toolConfig: { functionCallingConfig: 5 } }, "tool_config.function_calling_config", type("FunctionCallingConfig")],
      [{ contents: hi.contents, toolConfig: { functionCallingConfig: { mode: 5 } } }, "tool_config.function_calling_config.mode", type("FunctionCallingConfig.Mode")],
      [{ contents: hi.contents, generationConfig: 5 }, "generation_config", type("GenerationConfig")],
      [{ contents: hi.contents, generationConfig: { temperature: "hot" } }, "generation_config.temperature", "TYPE_FLOAT", `"hot"`]
    ]
    for (const [body, at, name, shown = "5"] of cases) expect(refusal(body)).toBe(`Invalid value at '${at}' (${name}), ${shown}`)
  })

  it("each value of each enum is read, in either spelling where the API takes both, and nothing beside them", () => {
    const mode = (value: string) => ({ contents: hi.contents, toolConfig: { functionCallingConfig: { mode: value } } })
    for (const value of ["MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED"]) expect(refusal(mode(value))).not.toMatch(/^Invalid value/)
    expect(refusal(mode("auto"))).toBe(`Invalid value at 'tool_config.function_calling_config.mode' (type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), "auto"`)
    for (const value of ["UNSPECIFIED", "BLOCKING", "NON_BLOCKING"]) expect(refusal(declared({ behavior: value }))).not.toMatch(/^Invalid value/)
    expect(refusal(declared({ behavior: "blocking" }))).toMatch(/^Invalid value at 'tools\[0\]\.function_declarations\[0\]\.behavior'/)
    const scheduling = (value: string) => ({
      contents: [
        ...hi.contents,
        { role: "model", parts: [{ functionCall: { name: "f", args: {} } }] },
        { role: "user", parts: [{ functionResponse: { name: "f", response: {}, scheduling: value } }] }
      ]
    })
    for (const value of ["SCHEDULING_UNSPECIFIED", "SILENT", "WHEN_IDLE", "INTERRUPT"]) expect(refusal(scheduling(value))).not.toMatch(/^Invalid value/)
    expect(refusal(scheduling("LATER"))).toMatch(/^Invalid value at 'contents\[2\]\.parts\[0\]\.function_response\.scheduling'/)
    const types = ["TYPE_UNSPECIFIED", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL", "string", "number", "integer", "boolean", "array", "object", "null"]
    for (const value of types) expect(refusal(declared({ parameters: { type: "OBJECT", properties: { a: { type: value } } } }))).not.toMatch(/^Invalid value/)
    expect(refusal(declared({ parameters: { type: "Object" } }))).toMatch(/^Invalid value at 'tools\[0\]\.function_declarations\[0\]\.parameters\.type'/)
  })

  it("an int64 string is a whole decimal number, sign and all, and nothing around it", () => {
    for (const value of ["12", "-3", "0", 7]) expect(refusal(declared({ parameters: { type: "STRING", maxLength: value } }))).not.toMatch(/^Invalid value/)
    for (const value of ["x12", "12x", "1.5", "", " 12", "+3"]) {
      expect(refusal(declared({ parameters: { type: "STRING", maxLength: value } }))).toBe(
        `Invalid value at 'tools[0].function_declarations[0].parameters.max_length' (TYPE_INT64), ${JSON.stringify(value)}`
      )
    }
  })

  it("a required field left out (Live's setup names its model): the field and its name, under the message's own name", () => {
    expect(decodeFrame({ setup: {} })).toEqual(Either.left("* BidiGenerateContentClientMessage.setup.model: model is required.\n"))
  })

  it("an unknown field at the top or deep inside, by its name as sent", () => {
    expect(refusal({ contents: hi.contents, generation_config: {} })).toBe(`Invalid JSON payload received. Unknown name "generation_config": Cannot find field.`)
    expect(refusal({ contents: [{ role: "user", parts: [{ text: "a", mimeType: "text/plain" }] }] })).toBe(
      `Invalid JSON payload received. Unknown name "mimeType" at 'contents[0].parts[0]': Cannot find field.`
    )
  })
})
