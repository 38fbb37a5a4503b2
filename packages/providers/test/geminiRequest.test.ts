import { LanguageModel, ModelError, Turn } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer, Redacted } from "effect"
import * as Gemini from "../src/Gemini.js"
import { ask, sentinel } from "./fixtures.js"

// What the Gemini layer hands its SDK's transport, seen through a `fetch` of the test's own (the layer's `fetch`
// option), and what it refuses before anything is sent.

const answer = `{"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}]}`

/** A transport that records each request's URL and JSON body and answers `body` with `status`. */
const recording = (body = answer, status = 200) => {
  const sent: Array<{ url: string; body: Record<string, unknown> }> = []
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input)
    sent.push({ url, body: JSON.parse(String(init?.body ?? "{}")) as Record<string, unknown> })
    return new Response(body, { status, headers: { "content-type": "application/json" } })
  }
  return { sent, fetch }
}

const key = Redacted.make(sentinel)

describe("Gemini requests", () => {
  it.effect("go to the base URL given, under the API version given (v1beta unless told), for the model given", () =>
    Effect.gen(function* () {
      const plain = recording()
      yield* (yield* Gemini.make({ apiKey: key, baseUrl: "http://127.0.0.1:9", fetch: plain.fetch })).generate(ask("hi"))
      expect(plain.sent[0]!.url).toBe("http://127.0.0.1:9/v1beta/models/gemini-2.5-flash:generateContent")
      const versioned = recording()
      yield* (yield* Gemini.make({ apiKey: key, baseUrl: "http://127.0.0.1:9", apiVersion: "v1alpha", model: "gemini-x", fetch: versioned.fetch })).generate(ask("hi"))
      expect(versioned.sent[0]!.url).toBe("http://127.0.0.1:9/v1alpha/models/gemini-x:generateContent")
    }))

  it.effect("without a base URL they go to Google's endpoint, which a transport failure names", () =>
    Effect.gen(function* () {
      const sent: Array<string> = []
      const failing: typeof globalThis.fetch = (input) => {
        sent.push(input instanceof Request ? input.url : String(input))
        return Promise.reject(new TypeError("fetch failed"))
      }
      const error = yield* Effect.flip((yield* Gemini.make({ apiKey: key, fetch: failing })).generate(ask("hi")))
      expect(sent[0]).toMatch(/^https:\/\/generativelanguage\.googleapis\.com\/v1beta\/models\//)
      expect(error).toMatchObject({ _tag: "Unavailable" })
      expect(error.message).toContain("generativelanguage.googleapis.com")
    }))

  it.effect("the layer's extra settings go along; system, tools, tool choice and sampling are the layer's own", () =>
    Effect.gen(function* () {
      const { sent, fetch } = recording()
      const model = yield* Gemini.make({ apiKey: key, baseUrl: "http://127.0.0.1:9", fetch, config: { topK: 3 } })
      yield* model.generate({ ...ask("hi"), system: "Be brief.", toolChoice: "any", temperature: 0.5, maxOutputTokens: 7 })
      yield* model.generate({ transcript: [Turn.user("hi")], declarations: [] })
      const [full, bare] = sent.map((request) => request.body)
      expect(full).toMatchObject({
        systemInstruction: { parts: [{ text: "Be brief." }] },
        toolConfig: { functionCallingConfig: { mode: "ANY" } },
        generationConfig: { topK: 3, temperature: 0.5, maxOutputTokens: 7 }
      })
      expect((full!.tools as Array<{ functionDeclarations: Array<unknown> }>)[0]!.functionDeclarations.length).toBeGreaterThan(0)
      expect(Object.keys(bare!).filter((field) => ["systemInstruction", "tools", "toolConfig"].includes(field))).toEqual([])
      expect(bare!.generationConfig).toEqual({ topK: 3 })
    }))
})

describe("Gemini refusals", () => {
  it.effect("a base URL that cannot work fails every request at once as InvalidRequest, and nothing is sent", () =>
    Effect.gen(function* () {
      const { sent, fetch } = recording()
      const model = yield* Gemini.make({ apiKey: key, baseUrl: "ftp://127.0.0.1:9", fetch })
      const error = yield* Effect.flip(model.generate(ask("hi")))
      expect(error).toMatchObject({ _tag: "InvalidRequest" })
      expect(error.message).toMatch(/^the base URL is not http:\/\/ or https:\/\//)
      expect(yield* Effect.flip(LanguageModel.collect(model.stream(ask("hi"))))).toStrictEqual(error)
      expect(sent).toEqual([])
    }))

  it.effect("a response of the wrong shape says so in one line naming the field", () =>
    Effect.gen(function* () {
      const { fetch } = recording(`{"candidates": [{"content": {"role": "model", "parts": [{"text": 5}]}}]}`)
      const error = yield* Effect.flip((yield* Gemini.make({ apiKey: key, baseUrl: "http://127.0.0.1:9", fetch })).generate(ask("hi")))
      expect(error).toMatchObject({ _tag: "MalformedResponse" })
      expect(error.message).toBe("unexpected response shape: candidates[0].content.parts[0].text should be a string, got 5")
    }))
})

describe("Gemini from the environment", () => {
  const withEnv = (env: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

  it.effect("GEMINI_MODEL defaults to the layer's model; GEMINI_BASE_URL is optional", () =>
    Effect.gen(function* () {
      const defaults = yield* Gemini.config.pipe(withEnv({ GEMINI_API_KEY: "k" }))
      expect([Redacted.value(defaults.apiKey), defaults.model, defaults.baseUrl]).toEqual(["k", "gemini-2.5-flash", undefined])
      const set = yield* Gemini.config.pipe(withEnv({ GOOGLE_API_KEY: "g", GEMINI_MODEL: "gemini-x", GEMINI_BASE_URL: "http://127.0.0.1:9" }))
      expect([Redacted.value(set.apiKey), set.model, set.baseUrl]).toEqual(["g", "gemini-x", "http://127.0.0.1:9"])
    }))

  it.scoped("the layer builds the same service as make", () =>
    Effect.gen(function* () {
      const { fetch } = recording()
      const context = yield* Layer.build(Gemini.layer({ apiKey: key, baseUrl: "http://127.0.0.1:9", model: "gemini-x", fetch }))
      const model = Context.get(context, LanguageModel.LanguageModel)
      expect([model.provider, model.model]).toEqual(["gemini", "gemini-x"])
      expect(Turn.text((yield* model.generate(ask("hi"))).turn)).toBe("ok")
      expect(yield* Effect.flip(model.generate({ ...ask("hi"), declarations: [{ name: "bad", description: "", parameters: { type: "string" } }] }))).toBeInstanceOf(ModelError.InvalidRequest)
    }))
})
