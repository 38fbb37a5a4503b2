/**
 * The wire modules load, each with its decoders. Imported inside the test, not at the top: a module whose Schemas
 * throw while they are built then fails this test instead of leaving its importers with no test run at all.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"

describe("wire modules", () => {
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
})
