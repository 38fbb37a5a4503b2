/**
 * The modules load: the wire decoders and each layer's configuration. Imported inside the tests, not at the top: a
 * module that throws while it is built (a Schema, a Config) then fails a test here instead of leaving every test
 * file that imports it with no test run at all.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"

describe("the provider modules load", () => {
  it("the Gemini, Live and chat-completions wire modules load and decode an empty message or refuse it", async () => {
    const gemini = await import("../src/internal/gemini/wire.js")
    const live = await import("../src/internal/live/wire.js")
    const openai = await import("../src/internal/openai/wire.js")
    expect(gemini.decodeResponse({})).toEqual(Either.right({}))
    expect(live.decodeServerMessage({})).toEqual(Either.right({}))
    expect(openai.decodeChunk({})).toEqual(Either.right({}))
    expect(openai.decodeErrorObject({})).toEqual(Either.right({}))
    // `choices` is the one field a completion must have.
    expect(Either.isLeft(openai.decodeCompletion({}))).toBe(true)
    expect(openai.decodeCompletion({ choices: [] })).toEqual(Either.right({ choices: [] }))
  })

  it("each layer's configuration loads and reads its variables", async () => {
    const { Gemini, GeminiLive, Glm, OpenAI } = await import("../src/index.js")
    const env = { GEMINI_API_KEY: "g", GEMINI_MODEL: "gm", GEMINI_LIVE_MODEL: "lm", ZAI_API_KEY: "z", ZAI_MODEL: "zm", ZAI_ENDPOINT: "coding", OPENAI_API_KEY: "o", OPENAI_MODEL: "om" }
    const read = <A>(config: Effect.Effect<A, unknown>) =>
      Effect.runPromise(Effect.withConfigProvider(config, ConfigProvider.fromMap(new Map(Object.entries(env)))))
    expect((await read(Gemini.config)).model).toBe("gm")
    expect((await read(GeminiLive.config)).model).toBe("lm")
    expect(await read(Effect.map(Glm.config, ({ model, endpoint }) => [model, endpoint]))).toEqual(["zm", "coding"])
    expect((await read(OpenAI.config)).model).toBe("om")
  })
})
