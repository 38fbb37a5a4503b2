/**
 * The configuration the provider layers read, driven directly: which variable gives the key, what counts as unset,
 * and the base URL checked before anything is sent; and the model turns a layer refuses as empty.
 */
import { LanguageModel, ModelError } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Redacted } from "effect"
import { apiKey, definedOnly, optionalBaseUrl, optionalString } from "../src/internal/config.js"
import { requireContent } from "../src/internal/emptyTurn.js"
import * as Parts from "../src/internal/parts.js"

const read = <A>(config: Effect.Effect<A, unknown>, env: Record<string, string>) =>
  Effect.either(Effect.withConfigProvider(config, ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("provider configuration", () => {
  it.effect("the key is the first named variable that is set and not blank", () =>
    Effect.gen(function* () {
      const key = apiKey("A_KEY", "B_KEY", "C_KEY")
      const value = (env: Record<string, string>) => Effect.map(read(key, env), Either.map(Redacted.value))
      expect(yield* value({ A_KEY: "a", B_KEY: "b" })).toEqual(Either.right("a"))
      expect(yield* value({ A_KEY: "  ", B_KEY: "b" })).toEqual(Either.right("b"))
      expect(yield* value({ C_KEY: "c" })).toEqual(Either.right("c"))
      const blank = yield* read(key, { A_KEY: "" })
      expect(Either.isLeft(blank) && String(blank.left)).toMatch(/is empty/)
      expect(Either.isLeft(yield* read(key, {}))).toBe(true)
    }))

  it.effect("an optional string is undefined when unset", () =>
    Effect.gen(function* () {
      expect(yield* read(optionalString("M"), {})).toEqual(Either.right(undefined))
      expect(yield* read(optionalString("M"), { M: "x" })).toEqual(Either.right("x"))
    }))

  it.effect("an optional base URL: unset or blank is undefined, one is trimmed, one that is not http(s) or holds a password is refused by name", () =>
    Effect.gen(function* () {
      const url = optionalBaseUrl("BASE_URL")
      expect(yield* read(url, {})).toEqual(Either.right(undefined))
      expect(yield* read(url, { BASE_URL: "   " })).toEqual(Either.right(undefined))
      expect(yield* read(url, { BASE_URL: " http://127.0.0.1:9/v1 " })).toEqual(Either.right("http://127.0.0.1:9/v1"))
      const ftp = yield* read(url, { BASE_URL: "ftp://x" })
      expect(Either.isLeft(ftp) && String(ftp.left)).toMatch(/BASE_URL must be an http:\/\/ or https:\/\/ URL/)
      expect(Either.isLeft(yield* read(url, { BASE_URL: "not a url" }))).toBe(true)
      const credentials = yield* read(url, { BASE_URL: "http://user:SECRET@127.0.0.1:9/v1" })
      expect(Either.isLeft(credentials) && String(credentials.left)).toMatch(/BASE_URL cannot hold a user name or password: fetch refuses such a URL/)
      expect(String(credentials)).not.toContain("SECRET")
    }))

  it("definedOnly keeps every field but the undefined ones (null and false stay)", () => {
    expect(definedOnly({ a: 1, b: undefined, c: null, d: false, e: "" })).toStrictEqual({ a: 1, c: null, d: false, e: "" })
  })
})

describe("requireContent", () => {
  const response = (parts: LanguageModel.Response["turn"]["parts"]): LanguageModel.Response => ({ turn: { role: "model", parts }, finishReason: "stop", usage: LanguageModel.emptyUsage })

  it("passes a turn with text, a call or something opaque", () => {
    for (const parts of [[Parts.text("hi")], [Parts.functionCall({ id: "c", name: "f", args: {} })], [Parts.opaque("gemini", { x: 1 })], [Parts.text(""), Parts.text("x")]]) {
      const given = response(parts)
      expect(requireContent(given)).toEqual(Either.right(given))
    }
  })

  it("refuses a turn with nothing, empty text or reasoning alone, as a malformed response naming the finish reason", () => {
    for (const parts of [[], [Parts.text("")], [Parts.reasoning("thinking")]]) {
      const refused = requireContent({ ...response(parts), finishReason: "length" })
      expect(Either.isLeft(refused)).toBe(true)
      const error = Either.isLeft(refused) ? refused.left : undefined
      expect(error).toBeInstanceOf(ModelError.MalformedResponse)
      expect(error?.message).toContain("the model's turn is empty (finish reason length): no text and no function call")
    }
  })
})
