import { CliError, LiveProvider } from "@agentfx/cli"
import { LiveAgent, LiveError, LiveModel, ModelError, Registry, Tool } from "@agentfx/core"
import { Emulator, Fault, Policy } from "@agentfx/emulator"
import { GeminiLive } from "@agentfx/providers"
import { Cassette, EvalCase } from "@agentfx/tools"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

/** Runs `effect` with `env` as the whole environment. */
const withEnv =
  (env: Readonly<Record<string, string>>) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withConfigProvider(effect, ConfigProvider.fromMap(new Map(Object.entries(env))))

const noKey = { name: "emulator", reason: "no Gemini API key is set (GEMINI_API_KEY, GOOGLE_API_KEY)" } as const
const byFlag = (name: "gemini" | "emulator") => ({ name, reason: "--provider" })
const bare = { model: undefined, baseUrl: undefined }

/** A live model that is never connected: what `target` and `announce` read is its name. */
const named = (model: string) => Layer.succeed(LiveModel.LiveModel, { provider: "test", model, connect: () => Effect.dieMessage("not connected") })

/** The model name a live model layer gives. */
const modelOf = <E, R>(layer: Layer.Layer<LiveModel.LiveModel, E, R>) => Effect.provide(Effect.map(LiveModel.LiveModel, (live) => live.model), layer)

const evalCase = (id: string, extensions: Record<string, unknown> = {}): EvalCase.EvalCase => ({
  ...Either.getOrThrow(EvalCase.make({ id, input: "hi", scenario: "s", expected_function_calls: [] }, "cases.yaml")),
  extensions
})

describe("LiveProvider.choose", () => {
  it.effect("--provider wins, then the first key set, then the emulator naming both variables", () =>
    Effect.gen(function* () {
      expect(yield* withEnv({ GEMINI_API_KEY: "k" })(LiveProvider.choose("emulator"))).toStrictEqual(byFlag("emulator"))
      expect(yield* withEnv({})(LiveProvider.choose("gemini"))).toStrictEqual(byFlag("gemini"))
      expect(yield* withEnv({ GOOGLE_API_KEY: "k" })(LiveProvider.choose(undefined))).toStrictEqual({ name: "gemini", reason: "GOOGLE_API_KEY is set" })
      expect(yield* withEnv({ GEMINI_API_KEY: "k", GOOGLE_API_KEY: "k" })(LiveProvider.choose(undefined))).toStrictEqual({
        name: "gemini",
        reason: "GEMINI_API_KEY is set"
      })
      expect(yield* withEnv({ GEMINI_API_KEY: " " })(LiveProvider.choose(undefined))).toStrictEqual(noKey)
    }))

  it.effect("keyVariable: the first variable holding a key for Gemini; none for the emulator, even with a key set", () =>
    Effect.gen(function* () {
      const both = withEnv({ GEMINI_API_KEY: "k", GOOGLE_API_KEY: "k" })
      expect(yield* both(LiveProvider.keyVariable(byFlag("emulator")))).toBeUndefined()
      expect(yield* both(LiveProvider.keyVariable(byFlag("gemini")))).toBe("GEMINI_API_KEY")
      expect(yield* withEnv({ GOOGLE_API_KEY: "k" })(LiveProvider.keyVariable(byFlag("gemini")))).toBe("GOOGLE_API_KEY")
      expect(yield* withEnv({})(LiveProvider.keyVariable(byFlag("gemini")))).toBeUndefined()
    }))
})

describe("LiveProvider.layer", () => {
  it.scopedLive("the emulator's live model is --model's, else the Gemini Live default", () =>
    Effect.gen(function* () {
      expect(yield* modelOf(LiveProvider.layer(noKey, { model: "my-live-model", baseUrl: undefined }))).toBe("my-live-model")
      expect(yield* modelOf(LiveProvider.layer(noKey, bare))).toBe(GeminiLive.defaultModel)
    }))

  it.effect("Gemini without a key: a provider error saying where to put one", () =>
    Effect.gen(function* () {
      const error = yield* withEnv({})(Effect.flip(modelOf(LiveProvider.layer(byFlag("gemini"), bare))))
      expect(error).toStrictEqual(
        new CliError.ProviderError({
          provider: "gemini",
          message: "Gemini Live needs an API key: set GEMINI_API_KEY or GOOGLE_API_KEY, or use --provider emulator (it needs none)"
        })
      )
    }))
})

describe("LiveProvider.target and announce", () => {
  it.effect("target: the model at Google's host without a base URL, at the base URL's host with one", () =>
    Effect.gen(function* () {
      const target = (settings: { model: undefined; baseUrl: string | undefined }) => Effect.provide(LiveProvider.target(byFlag("gemini"), settings), named("m1"))
      expect(yield* withEnv({})(target(bare))).toBe("m1 at generativelanguage.googleapis.com")
      expect(yield* withEnv({})(target({ model: undefined, baseUrl: "http://user:pw@127.0.0.1:9/x?q=1" }))).toBe("m1 at 127.0.0.1:9")
      expect(yield* withEnv({})(target({ model: undefined, baseUrl: "not a url" }))).toBe("m1 at the configured base URL")
    }))

  it.effect("announce, the emulator: chosen with --provider, or for want of a key (capitalised, naming the variables)", () =>
    Effect.gen(function* () {
      const emulatorLine = "provider: emulator — the offline rule model on the Live WebSocket, in-process on 127.0.0.1, through the Gemini Live provider, no network."
      const announce = (choice: { name: "emulator"; reason: string }) => Effect.provide(LiveProvider.announce(choice, bare), named("m1"))
      expect(yield* announce(byFlag("emulator") as { name: "emulator"; reason: string })).toBe(`${emulatorLine} Chosen with --provider.`)
      expect(yield* announce(noKey)).toBe(`${emulatorLine} No Gemini API key is set (GEMINI_API_KEY, GOOGLE_API_KEY): set one to use Gemini Live.`)
      // Only a leading "no" is capitalised.
      expect(yield* announce({ name: "emulator", reason: "unknown" })).toBe(`${emulatorLine} unknown: set one to use Gemini Live.`)
    }))

  it.effect("announce, Gemini: the model, the base URL from --base-url or GEMINI_BASE_URL (not a blank one), and why", () =>
    Effect.gen(function* () {
      const announce = (settings: { model: undefined; baseUrl: string | undefined }, reason = "GEMINI_API_KEY is set") =>
        Effect.provide(LiveProvider.announce({ name: "gemini", reason }, settings), named("m1"))
      expect(yield* withEnv({})(announce(bare))).toBe("provider: gemini live, model m1 (GEMINI_API_KEY is set)")
      expect(yield* withEnv({})(announce(bare, "--provider"))).toBe("provider: gemini live, model m1 (chosen with --provider)")
      expect(yield* withEnv({ GEMINI_BASE_URL: "http://env:1" })(announce(bare))).toBe("provider: gemini live, model m1 at http://env:1 (GEMINI_API_KEY is set)")
      expect(yield* withEnv({ GEMINI_BASE_URL: "http://env:1" })(announce({ model: undefined, baseUrl: "http://flag:2" }, "--provider"))).toBe(
        "provider: gemini live, model m1 at http://flag:2 (chosen with --provider)"
      )
      expect(yield* withEnv({ GEMINI_BASE_URL: "  " })(announce(bare))).toBe("provider: gemini live, model m1 (GEMINI_API_KEY is set)")
    }))
})

describe("LiveProvider.startFailed", () => {
  const refusal = new ModelError.Unauthorized({ message: "bad key", status: 401 })

  it("a refused key names the variable it was read from, else the choice's own reason", () => {
    expect(LiveProvider.startFailed(byFlag("gemini"), "GOOGLE_API_KEY")(refusal)).toStrictEqual(
      new CliError.ProviderError({
        provider: "gemini",
        refused: true,
        message: "gemini refused the API key (401): check GOOGLE_API_KEY, or run offline with --provider emulator"
      })
    )
    expect(LiveProvider.startFailed(byFlag("gemini"), undefined)(refusal)).toStrictEqual(
      new CliError.ProviderError({
        provider: "gemini",
        refused: true,
        message: "gemini refused the API key (401): check GEMINI_API_KEY or GOOGLE_API_KEY, or run offline with --provider emulator"
      })
    )
  })

  it("anything else fails the run, with the details of the error (the last attempt's, for a reconnect that gave up)", () => {
    const malformed = new ModelError.MalformedResponse({ message: "garbled", details: "line 1\nline 2" })
    expect(LiveProvider.startFailed(byFlag("gemini"), undefined)(malformed)).toStrictEqual(
      new CliError.RunFailed({ message: "the live session could not start — MalformedResponse: garbled", details: "line 1\nline 2" })
    )
    const gaveUp = new LiveError.ReconnectFailed({ attempts: 2, error: malformed })
    expect(LiveProvider.startFailed(byFlag("gemini"), undefined)(gaveUp)).toStrictEqual(
      new CliError.RunFailed({
        message: "the live session could not start — ReconnectFailed: gave up reconnecting after 2 failed attempts: garbled",
        details: "line 1\nline 2"
      })
    )
  })
})

describe("LiveProvider.replay", () => {
  const recorded = evalCase("recorded", { "x-live-cassette": [[{ text: "From the cassette." }]] })
  const broken = evalCase("broken", { "x-live-cassette": [] })
  const plain = evalCase("plain")
  const other = evalCase("other")

  it("says how many cases have a cassette, how many are invalid, and who answers the others", () => {
    expect(LiveProvider.replay([recorded]).answers).toBe("each case's x-live-cassette (1 of 1 cases have one)")
    expect(LiveProvider.replay([recorded, plain]).answers).toBe("each case's x-live-cassette (1 of 2 cases have one; the offline model answers the others)")
    expect(LiveProvider.replay([broken, recorded, plain, other]).answers).toBe(
      "each case's x-live-cassette (2 of 4 cases have one, 1 invalid: an error case each; the offline model answers the others)"
    )
    expect(LiveProvider.replay([broken]).answers).toBe("each case's x-live-cassette (1 of 1 cases have one, 1 invalid: an error case each)")
  })

  it.scopedLive("each case's model: its cassette's key by position, the offline model without one (or for a case it was not given), its error when invalid", () =>
    Effect.gen(function* () {
      const replay = LiveProvider.replay([plain, broken, recorded])
      const model = (c: EvalCase.EvalCase) => Effect.provide(modelOf(replay.model(c)), replay.emulator)
      expect(yield* model(recorded)).toBe("live-case-2")
      expect(yield* model(plain)).toBe(Cassette.offlineModel)
      expect(yield* model(other)).toBe(Cassette.offlineModel)
      const error = yield* Effect.flip(model(broken))
      expect(error._tag).toBe("CassetteError")
      expect(error.message).toMatch(/^cases\.yaml: case "broken": the cassette is invalid: x-live-cassette/)
    }))

  it.scopedLive("a case's cassette answers on the emulator's Live endpoint, the fallback the others; connections are recorded only when asked", () =>
    Effect.gen(function* () {
      const talk = (replay: ReturnType<typeof LiveProvider.replay>, c: EvalCase.EvalCase) =>
        Effect.gen(function* () {
          const [turn] = yield* LiveAgent.run({ registry: Registry.unsafeMake(), messages: ["hello"] }).pipe(Effect.provide(replay.model(c)))
          return { text: turn!.text, records: (yield* (yield* Emulator.Emulator).live).map((record) => [record.model, record.sent.length > 0]) }
        }).pipe(Effect.provide(replay.emulator))
      // A script is used up as it answers: a fresh one for each replay.
      const fallback = () => Policy.script([{ text: "From the fallback." }])
      expect(yield* talk(LiveProvider.replay([recorded, plain], { fallback: fallback(), record: true }), recorded)).toStrictEqual({
        text: "From the cassette.",
        records: [["live-case-0", true]]
      })
      expect(yield* talk(LiveProvider.replay([recorded, plain], { fallback: fallback(), record: true }), plain)).toStrictEqual({
        text: "From the fallback.",
        records: [[Cassette.offlineModel, true]]
      })
      expect(yield* talk(LiveProvider.replay([recorded, plain], { fallback: fallback() }), plain)).toStrictEqual({ text: "From the fallback.", records: [[Cassette.offlineModel, false]] })
      expect((yield* talk(LiveProvider.replay([plain], { record: false }), plain)).records).toStrictEqual([[Cassette.offlineModel, false]])
      expect((yield* talk(LiveProvider.replay([plain]), plain)).text).toContain("I am the agentfx emulator")
    }))

  it.scopedLive("a cassette's step is served with its text and calls, and the server's cancellation, goAway and drop around it", () =>
    Effect.gen(function* () {
      // f never finishes by itself: only the server's cancellation ends its call. g answers at once, for the drop after it.
      const f = Tool.make("f", { description: "Waits", parameters: Schema.Struct({}), handler: () => Effect.never })
      const g = Tool.make("g", { description: "Answers", parameters: Schema.Struct({}), handler: () => Effect.succeed("done") })
      const served = evalCase("served", { "x-live-cassette": [[{ text: "Calling.", calls: [{ name: "f" }], cancel_after: "1ms" }, { text: "Went away.", go_away: "1s" }]] })
      const dropped = evalCase("dropped", { "x-live-cassette": [[{ calls: [{ name: "g" }], drop_after_responses: 1011 }], [{ text: "Back." }]] })
      const replay = LiveProvider.replay([served, dropped], { record: true })
      const talk = (c: EvalCase.EvalCase, messages: ReadonlyArray<string>) =>
        Effect.either(LiveAgent.run({ registry: Registry.unsafeMake(f, g), messages }).pipe(Effect.provide(replay.model(c))))
      const { turns, records } = yield* Effect.gen(function* () {
        const turns = yield* talk(served, ["hello", "again"])
        yield* talk(dropped, ["hello"])
        return { turns, records: yield* (yield* Emulator.Emulator).live }
      }).pipe(Effect.provide(replay.emulator))
      expect(Either.map(turns, (all) => all.map((turn) => [turn.text, turn.calls.map((call) => [call.name, call.outcome._tag])]))).toStrictEqual(
        Either.right([
          ["Calling.", [["f", "Cancelled"]]],
          ["Went away.", []]
        ])
      )
      expect(records.map((record) => [record.model, record.faults, record.cancelled])).toStrictEqual([
        ["live-case-0", [Fault.cancelCalls(Duration.millis(1)), Fault.goAway(Duration.seconds(1))], ["call_0_0"]],
        ["live-case-1", [Fault.dropAfterResponses(1011)], []]
      ])
      expect(records[1]!.closed).toStrictEqual({ code: 1011, reason: "Internal error encountered.", by: "server" })
    }))
})
